//! `content publish`, `status`, `diff`, `show` and `rollback`: the content every node serves,
//! changed without a restart ([`live_content`](crate::live_content)).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use time::OffsetDateTime;

use super::{Failure, Outcome, utc};
use crate::content::Content;
use crate::content_publication::{self, Named, PublishError, Publisher};
use crate::store::{PublishedContent, Store};

/// The `content` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum ContentCommand {
    /// Checks a content file and publishes it: every node serves it within seconds, without a
    /// restart. A file that does not pass the check is not published (exit 2).
    Publish(ContentPublishArgs),
    /// Prints the published version every node serves.
    Status,
    /// Prints what publishing a content file would change: a unified diff against the newest
    /// published version (against the `--content` file, or the shipped one, while none is
    /// published). A file that does not pass the check gets its problems too (exit 2).
    Diff(ContentFileArgs),
    /// Prints the text of a published version (without one, of what the nodes serve: the
    /// newest published version, or the `--content` file while none is published).
    Show(ContentShowArgs),
    /// Publishes again, as a new version, the version before the one the newest descends
    /// from (a rollback's newest descends from the version it restores), or `--to VERSION`.
    Rollback(ContentRollbackArgs),
}

/// The flags of `content diff`.
#[derive(Debug, Clone, Args)]
pub struct ContentFileArgs {
    /// The content file (TOML).
    pub path: PathBuf,
}

/// The flags of `content publish`.
#[derive(Debug, Clone, Args)]
pub struct ContentPublishArgs {
    /// The content file (TOML).
    pub path: PathBuf,
    /// Why, kept with the version.
    #[arg(long)]
    pub reason: Option<String>,
}

/// The flags of `content show`.
#[derive(Debug, Clone, Args)]
pub struct ContentShowArgs {
    /// The published version; the one served without it.
    pub version: Option<i64>,
}

/// The flags of `content rollback`.
#[derive(Debug, Clone, Args)]
pub struct ContentRollbackArgs {
    /// The version whose content to publish again.
    #[arg(long)]
    pub to: Option<i64>,
    /// Why, kept with the version.
    #[arg(long)]
    pub reason: Option<String>,
}

impl ContentCommand {
    /// Runs the subcommand on `store` at `now`, for nodes started with `file` (their
    /// `--content` file, or the shipped one).
    pub async fn run(self, store: &dyn Store, file: &Named<'_>, now: OffsetDateTime) -> Outcome {
        match self {
            Self::Publish(args) => publish(store, &args, now).await,
            Self::Status => status(store).await,
            Self::Diff(args) => diff(store, file, &args.path).await,
            Self::Show(args) => show(store, file, args.version).await,
            Self::Rollback(args) => rollback(store, &args, now).await,
        }
    }
}

/// The text of the content file at `path`.
fn read(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map_err(|error| Failure::BadInput(format!("cannot read {}: {error}", path.display())))
}

/// The command line as a publisher, with `reason`.
fn publisher(reason: Option<&String>) -> Publisher<'_> {
    Publisher {
        by: None,
        reason: reason.map(String::as_str),
    }
}

/// Reads and checks the file, then publishes it.
async fn publish(store: &dyn Store, args: &ContentPublishArgs, now: OffsetDateTime) -> Outcome {
    let text = read(&args.path)?;
    let origin = args.path.display().to_string();
    let by = publisher(args.reason.as_ref());
    let version = content_publication::publish(store, &text, &origin, by, now, None)
        .await
        .map_err(failure)?;
    Ok(format!(
        "published content version {version}: every node serves it within seconds"
    ))
}

/// The newest published version, when, by whom and why.
async fn status(store: &dyn Store) -> Outcome {
    Ok(match store.published_content(i64::MAX).await? {
        Some(newest) => describe(&newest),
        None => "no content published: each node serves its `--content` file (or the shipped \
                 one)"
            .to_owned(),
    })
}

/// The unified diff from what the nodes serve to the file; a file that does not pass the
/// check is bad input, its diff printed all the same.
async fn diff(store: &dyn Store, file: &Named<'_>, path: &Path) -> Outcome {
    let text = read(path)?;
    let (name, served) = content_publication::served(store, file).await?;
    let from = Named {
        name,
        text: &served,
    };
    let to = Named {
        name: path.display().to_string(),
        text: &text,
    };
    let output = content_publication::diff(&from, &to)
        .unwrap_or_else(|| format!("{} is {}, unchanged", to.name, from.name));
    let checked = content_publication::normalise_line_ends(&text);
    match Content::parse(&checked, &to.name) {
        Ok(_) => Ok(output),
        Err(error) => Err(Failure::BadInputAfter {
            output,
            why: format!(
                "{} does not pass the content check; it cannot be published:\n{error}",
                to.name
            ),
        }),
    }
}

/// The text of `version`, or of what the nodes serve.
async fn show(store: &dyn Store, file: &Named<'_>, version: Option<i64>) -> Outcome {
    let text = match version {
        Some(version) => {
            content_publication::published(store, version)
                .await?
                .ok_or_else(|| failure(PublishError::UnknownVersion(version)))?
                .text
        }
        None => content_publication::served(store, file)
            .await?
            .1
            .into_owned(),
    };
    Ok(text.strip_suffix('\n').unwrap_or(&text).to_owned())
}

/// Publishes the version before the one the newest descends from again, or `--to`.
async fn rollback(store: &dyn Store, args: &ContentRollbackArgs, now: OffsetDateTime) -> Outcome {
    let by = publisher(args.reason.as_ref());
    let rolled = content_publication::rollback(store, args.to, by, now, None)
        .await
        .map_err(failure)?;
    Ok(format!(
        "published content version {}, the content of version {}",
        rolled.version, rolled.from
    ))
}

/// A bad file is bad input (exit 2); the rest is refused (exit 1).
fn failure(error: PublishError) -> Failure {
    match error {
        PublishError::Invalid(_) => Failure::BadInput(error.to_string()),
        _ => Failure::Refused(error.to_string()),
    }
}

/// `content version N, published at ... by ... (the content of version M): reason`.
fn describe(published: &PublishedContent) -> String {
    let about = &published.about;
    let by = about.by.as_deref().map_or_else(
        || "on the command line".to_owned(),
        |name| format!("by the operator token {name}"),
    );
    let restores = about
        .restores
        .map(|version| format!(" (the content of version {version})"))
        .unwrap_or_default();
    let reason = about
        .reason
        .as_deref()
        .map(|reason| format!(": {reason}"))
        .unwrap_or_default();
    format!(
        "content version {}, published at {} {by}{restores}{reason}",
        published.version,
        utc(published.published_at)
    )
}
