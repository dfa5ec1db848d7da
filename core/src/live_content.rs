//! The content a node serves, swapped whole without a restart when an operator publishes a new
//! content file ([`ContentStore`](crate::store::ContentStore)).
//!
//! Every node asks the store for the newest published version every
//! [`Settings::content_check_every`](crate::Settings::content_check_every) (a second unless
//! told) and, when it is newer than the one served, reads and checks it and swaps it in at once:
//! a request takes the content once ([`LiveContent::current`]) and finishes on it, however
//! long it runs; the next request gets the new one. A published file this node cannot read
//! (published by a newer version of Safezone) is logged and never replaces the one served.
//! Until the first publication a node serves the content it started with.

mod prepared_config;

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use arc_swap::ArcSwap;

use crate::content::Content;
use crate::content_publication::normalise_line_ends;
use crate::store::{PublishedContent, Store, StoreError};

pub(crate) use prepared_config::{Asker, ConfigAnswer, PreparedConfig, SeasonKey, Timers};

/// One content file as a node serves it, with what is prepared from it once.
pub struct Published {
    /// Its published version; 0 for the content the node started with.
    pub version: i64,
    /// The content.
    pub content: Content,
    /// What `GET /api/config` answers that only the content decides.
    pub(crate) prepared_config: PreparedConfig,
}

impl Published {
    /// `content` at `version`, prepared.
    fn new(version: i64, content: Content) -> Self {
        Self {
            version,
            prepared_config: PreparedConfig::new(&content),
            content,
        }
    }
}

/// The content this node serves now.
pub struct LiveContent {
    current: ArcSwap<Published>,
    /// The newest published version this node found it cannot read (0: none), so that it is
    /// read and refused once, not every check.
    unreadable: AtomicI64,
    /// The version served, told to those who follow the swaps ([`Self::swaps`]).
    served: tokio::sync::watch::Sender<i64>,
}

impl LiveContent {
    /// Serves `content` (version 0) until a newer one is published.
    pub(crate) fn new(content: Content) -> Self {
        Self {
            current: ArcSwap::from_pointee(Published::new(0, content)),
            unreadable: AtomicI64::new(0),
            served: tokio::sync::watch::Sender::new(0),
        }
    }

    /// The content served now: a request takes it once and keeps it to its end.
    pub fn current(&self) -> Arc<Published> {
        self.current.load_full()
    }

    /// The version served, changed at each swap: for those who tell the players (the
    /// realtime channels).
    pub(crate) fn swaps(&self) -> tokio::sync::watch::Receiver<i64> {
        self.served.subscribe()
    }

    /// Serves the newest published version if it is newer than the one served and this node
    /// can read it; answers the version served after.
    pub async fn refresh(&self, store: &dyn Store) -> Result<i64, StoreError> {
        let served = self.current.load().version;
        let head = store.content_head().await?;
        if head <= served || head == self.unreadable.load(Ordering::Relaxed) {
            return Ok(served);
        }
        let Some(published) = store.published_content(i64::MAX).await? else {
            return Ok(served);
        };
        if published.version <= served {
            return Ok(served);
        }
        let Some(content) = read(&published) else {
            self.unreadable.store(published.version, Ordering::Relaxed);
            return Ok(served);
        };
        self.current
            .store(Arc::new(Published::new(published.version, content)));
        self.served.send_replace(published.version);
        tracing::info!(
            version = published.version,
            "serving newly published content"
        );
        Ok(published.version)
    }
}

/// The newest published content this node can read, or else `fallback` (its `--content` file
/// or the shipped one): what a node starts serving, and what the operator's tools check against.
/// When `fallback` is a `--content` file (named `file`) whose text is not the published one
/// served instead, says so in one warning.
pub async fn newest_or(store: &dyn Store, fallback: Content, file: Option<&str>) -> Content {
    match store.published_content(i64::MAX).await {
        Ok(Some(published)) => match read(&published) {
            Some(content) => {
                let differs =
                    normalise_line_ends(fallback.text()) != normalise_line_ends(content.text());
                if let Some(file) = file.filter(|_| differs) {
                    tracing::warn!(
                        content_file = file,
                        served_version = published.version,
                        "the --content file {file} is not served: published content version {} \
                         is (a published version always wins over the file; publish the file \
                         to serve it)",
                        published.version
                    );
                }
                content
            }
            None => fallback,
        },
        Ok(None) => fallback,
        Err(error) => {
            tracing::warn!(%error, "could not look for published content; using the content file");
            fallback
        }
    }
}

/// The content of `published`, or `None` (logged) when this node cannot read it.
fn read(published: &PublishedContent) -> Option<Content> {
    let origin = format!("published content version {}", published.version);
    Content::parse(&published.text, &origin)
        .inspect_err(|error| {
            tracing::error!(
                version = published.version,
                %error,
                "a published content file does not load here; it is not served"
            );
        })
        .ok()
}

/// Starts following the published content in `store` for `content`: at once, then `every`
/// ([`Settings::content_check_every`](crate::Settings::content_check_every)), until `content`
/// or `store` is dropped (the checks hold neither, so that a dropped service closes its store
/// at once). Needs a Tokio runtime; without one the node serves the content it started with.
pub(crate) fn follow(content: &Arc<LiveContent>, store: &Arc<dyn Store>, every: Duration) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    runtime.spawn(checks(
        Arc::downgrade(content),
        Arc::downgrade(store),
        every,
    ));
}

/// The checks, while the content served and the store live.
async fn checks(content: Weak<LiveContent>, store: Weak<dyn Store>, every: Duration) {
    let mut checks = tokio::time::interval(every);
    checks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        checks.tick().await;
        let (Some(content), Some(store)) = (content.upgrade(), store.upgrade()) else {
            return;
        };
        if let Err(error) = content.refresh(store.as_ref()).await {
            tracing::warn!(%error, "could not look for published content; trying again");
        }
    }
}
