//! Connections upgraded by a `101 Switching Protocols` answer (the realtime channel's
//! WebSocket), whichever server runs the service.
//!
//! On a hyper-based server (Safezone's own [`serve`](crate::serve), an embedder's hyper or
//! axum) the request carries hyper's [`OnUpgrade`]: the handler takes it
//! ([`Incoming::take_upgrade`](super::Incoming::take_upgrade)) and runs the protocol on the
//! upgraded connection itself. Elsewhere (rocket, whose upgrades are its own) the 101 answer
//! carries an [`UpgradeHandler`] as a response extension, which the server adapter runs on the
//! connection it upgraded.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::future::BoxFuture;
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};

/// An upgraded connection, as an [`UpgradeHandler`] takes it.
pub trait UpgradedIo: AsyncRead + AsyncWrite + Send + Unpin {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin> UpgradedIo for T {}

/// What runs the protocol on the connection.
type Run = Box<dyn FnOnce(Pin<Box<dyn UpgradedIo>>) -> BoxFuture<'static, ()> + Send>;

/// What runs the protocol a `101 Switching Protocols` answer switched to, on any upgraded
/// connection: the response extension a server adapter without hyper's `OnUpgrade` (rocket)
/// runs with the connection it upgraded. It runs once; a clone shares the one run.
#[derive(Clone)]
pub struct UpgradeHandler(Arc<Mutex<Option<Run>>>);

impl std::fmt::Debug for UpgradeHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UpgradeHandler")
    }
}

impl UpgradeHandler {
    /// A handler that runs `run` on the upgraded connection.
    pub fn new<F, Fut>(run: F) -> Self
    where
        F: FnOnce(Pin<Box<dyn UpgradedIo>>) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let run: Run = Box::new(move |io| Box::pin(run(io)));
        Self(Arc::new(Mutex::new(Some(run))))
    }

    /// Runs the protocol on `io` until it ends; nothing when it ran already.
    pub async fn run<S: UpgradedIo + 'static>(self, io: S) {
        let run = self.0.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(run) = run {
            run(Box::pin(io)).await;
        }
    }

    /// Runs the protocol, in a task of its own, on the connection hyper hands over once the
    /// 101 answer is sent.
    pub(crate) fn spawn_on(self, upgrade: OnUpgrade) {
        tokio::spawn(async move {
            match upgrade.await {
                Ok(upgraded) => self.run(TokioIo::new(upgraded)).await,
                Err(error) => tracing::debug!(%error, "a connection was not upgraded"),
            }
        });
    }
}
