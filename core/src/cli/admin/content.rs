//! `content publish`, `content status` and `content rollback`: the content every node serves,
//! changed without a restart ([`live_content`](crate::live_content)).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use time::OffsetDateTime;

use super::{Failure, Outcome, utc};
use crate::content_publication::{self, Named, PublishError};
use crate::store::{PublishedContent, Store};

/// The `content` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum ContentCommand {
    /// Checks a content file and publishes it: every node serves it within seconds, without a
    /// restart. A file that does not pass the check is not published (exit 2).
    Publish(ContentFileArgs),
    /// Prints the published version every node serves.
    Status,
    /// Prints what publishing a content file would change: a unified diff against the newest
    /// published version (against the shipped content while none is published).
    Diff(ContentFileArgs),
    /// Publishes again the version before the newest one (as a new version).
    Rollback,
}

/// The flags of `content publish` and `content diff`.
#[derive(Debug, Clone, Args)]
pub struct ContentFileArgs {
    /// The content file (TOML).
    pub path: PathBuf,
}

impl ContentCommand {
    /// Runs the subcommand on `store` at `now`.
    pub async fn run(self, store: &dyn Store, now: OffsetDateTime) -> Outcome {
        match self {
            Self::Publish(args) => publish(store, &args.path, now).await,
            Self::Status => status(store).await,
            Self::Diff(args) => diff(store, &args.path).await,
            Self::Rollback => rollback(store, now).await,
        }
    }
}

/// The text of the content file at `path`.
fn read(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map_err(|error| Failure::BadInput(format!("cannot read {}: {error}", path.display())))
}

/// Reads and checks the file, then publishes it.
async fn publish(store: &dyn Store, path: &Path, now: OffsetDateTime) -> Outcome {
    let text = read(path)?;
    let version =
        content_publication::publish(store, &text, &path.display().to_string(), now, None)
            .await
            .map_err(failure)?;
    Ok(format!(
        "published content version {version}: every node serves it within seconds"
    ))
}

/// The newest published version and when it was published.
async fn status(store: &dyn Store) -> Outcome {
    Ok(match store.published_content(i64::MAX).await? {
        Some(newest) => describe(&newest),
        None => "no content published: each node serves its `--content` file (or the shipped \
                 one)"
            .to_owned(),
    })
}

/// The unified diff from the newest published version (or the shipped content) to the file.
async fn diff(store: &dyn Store, path: &Path) -> Outcome {
    let text = read(path)?;
    let (name, running) = content_publication::newest_published(store).await?;
    let from = Named {
        name,
        text: &running,
    };
    let to = Named {
        name: path.display().to_string(),
        text: &text,
    };
    Ok(content_publication::diff(&from, &to)
        .unwrap_or_else(|| format!("{} is {}, unchanged", to.name, from.name)))
}

/// Publishes the version before the newest again.
async fn rollback(store: &dyn Store, now: OffsetDateTime) -> Outcome {
    let rolled = content_publication::rollback(store, now, None)
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

/// `content version N, published at ...`.
fn describe(published: &PublishedContent) -> String {
    format!(
        "content version {}, published at {}",
        published.version,
        utc(published.published_at)
    )
}
