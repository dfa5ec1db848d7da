//! `content publish`, `content status` and `content rollback`: the content every node serves,
//! changed without a restart ([`live_content`](crate::live_content)).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use time::OffsetDateTime;

use super::{Failure, Outcome, utc};
use crate::content::Content;
use crate::store::{PublishedContent, Store};

/// The `content` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum ContentCommand {
    /// Checks a content file and publishes it: every node serves it within seconds, without a
    /// restart. A file that does not pass the check is not published (exit 2).
    Publish(ContentFileArgs),
    /// Prints the published version every node serves.
    Status,
    /// Publishes again the version before the newest one (as a new version).
    Rollback,
}

/// The flags of `content publish`.
#[derive(Debug, Clone, Args)]
pub struct ContentFileArgs {
    /// The content file (TOML) to publish.
    pub path: PathBuf,
}

impl ContentCommand {
    /// Runs the subcommand on `store` at `now`.
    pub async fn run(self, store: &dyn Store, now: OffsetDateTime) -> Outcome {
        match self {
            Self::Publish(args) => publish(store, &args.path, now).await,
            Self::Status => status(store).await,
            Self::Rollback => rollback(store, now).await,
        }
    }
}

/// Reads and checks the file, then publishes it.
async fn publish(store: &dyn Store, path: &PathBuf, now: OffsetDateTime) -> Outcome {
    let text = std::fs::read_to_string(path)
        .map_err(|error| Failure::BadInput(format!("cannot read {}: {error}", path.display())))?;
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
