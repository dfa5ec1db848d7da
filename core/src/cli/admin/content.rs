//! `content publish`, `content status` and `content rollback`: the content every node serves,
//! changed without a restart ([`live_content`](crate::live_content)).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use similar::TextDiff;
use time::OffsetDateTime;

use super::{Failure, Outcome, utc};
use crate::content::{Content, SHIPPED};
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
    Content::parse(&text, &path.display().to_string())
        .map_err(|error| Failure::BadInput(error.to_string()))?;
    let version = store.publish_content(&text, now).await?;
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
    let (running, name) = match store.published_content(i64::MAX).await? {
        Some(newest) => (newest.text, format!("content version {}", newest.version)),
        None => (SHIPPED.to_owned(), "the shipped content".to_owned()),
    };
    if running == text {
        return Ok(format!("{} is {name}, unchanged", path.display()));
    }
    let changes = TextDiff::from_lines(&running, &text)
        .unified_diff()
        .header(&name, &path.display().to_string())
        .to_string();
    Ok(changes.trim_end().to_owned())
}

/// Publishes the version before the newest again.
async fn rollback(store: &dyn Store, now: OffsetDateTime) -> Outcome {
    let newest = store
        .published_content(i64::MAX)
        .await?
        .ok_or_else(|| Failure::Refused("no content was published: nothing to roll back".into()))?;
    let earlier = store
        .published_content(newest.version - 1)
        .await?
        .ok_or_else(|| {
            Failure::Refused(format!(
                "version {} is the first published: there is none before it",
                newest.version
            ))
        })?;
    Content::parse(
        &earlier.text,
        &format!("content version {}", earlier.version),
    )
    .map_err(|error| {
        Failure::Refused(format!(
            "version {} does not load here: {error}",
            earlier.version
        ))
    })?;
    let version = store.publish_content(&earlier.text, now).await?;
    Ok(format!(
        "published content version {version}, the content of version {}",
        earlier.version
    ))
}

/// `content version N, published at ...`.
fn describe(published: &PublishedContent) -> String {
    format!(
        "content version {}, published at {}",
        published.version,
        utc(published.published_at)
    )
}
