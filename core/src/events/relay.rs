//! The relay: each node, every [`EventSettings::relay_every`](super::EventSettings), hands the
//! events not yet relayed to the sinks and marks them relayed, in one store round
//! ([`EventStore::relay_events`](crate::store::EventStore::relay_events)); one node at a time
//! relays. Started with the service, stopped when it is dropped.
//!
//! A round takes up to [`EventSettings::relay_batch`](super::EventSettings) events; a full
//! round is followed by the next at once, so a backlog (a burst of match reports) is worked off
//! as fast as the sinks take it.

use std::sync::{Arc, Weak};

use async_trait::async_trait;

use super::{DeliveryError, DomainEvent, Sink};
use crate::AppState;
use crate::store::{EventDelivery, RelayRound};

/// Every sink of this node, external ones first and the in-process subscription last (so that
/// a batch an external sink refuses, to be delivered again, reaches subscribers once).
pub(crate) struct Sinks(pub(crate) Vec<Arc<dyn Sink>>);

#[async_trait]
impl EventDelivery for Sinks {
    async fn deliver(&self, events: &[DomainEvent]) -> Result<(), DeliveryError> {
        for sink in &self.0 {
            sink.deliver(events)
                .await
                .map_err(|error| DeliveryError(format!("{}: {error}", sink.name())))?;
        }
        Ok(())
    }
}

/// Starts this node's relay over `sinks`, until the service is dropped. Needs a Tokio runtime;
/// without one nothing is relayed.
pub(crate) fn start(app: &Arc<AppState>, sinks: Sinks) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    runtime.spawn(relay(Arc::downgrade(app), sinks));
}

/// The relay's rounds, while the service lives.
async fn relay(app: Weak<AppState>, sinks: Sinks) {
    let Some(settings) = app.upgrade().map(|app| app.settings.events.clone()) else {
        return;
    };
    let mut rounds = tokio::time::interval(settings.relay_every);
    rounds.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        rounds.tick().await;
        loop {
            let Some(app) = app.upgrade() else {
                return;
            };
            let round = app.store.relay_events(settings.relay_batch, &sinks).await;
            drop(app);
            match round {
                Ok(RelayRound::Delivered(count))
                    if u32::try_from(count).is_ok_and(|count| count >= settings.relay_batch) => {}
                Ok(RelayRound::Delivered(_) | RelayRound::Held) => break,
                Ok(RelayRound::Failed(error)) => {
                    tracing::warn!(%error, "relaying events failed; trying again next round");
                    break;
                }
                Err(error) => {
                    tracing::warn!(%error, "reading events to relay failed; trying again");
                    break;
                }
            }
        }
    }
}
