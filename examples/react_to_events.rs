//! A studio's service reacting to Safezone's domain events in-process: it subscribes with
//! [`SafezoneService::subscribe_events`], then a player signs up, claims the first-sign-in
//! gift and opens the pack it held, and the service prints each event as it arrives (events are
//! delivered at least once: a real consumer deduplicates by `event.id`). The subscriber's
//! `recv` never loses an event (one that falls behind reads the outbox) and answers `None` only
//! once the service is gone; keeping [`EventSubscriber::position`] lets the studio resume after
//! a restart with [`SafezoneService::subscribe_events_from`], and
//! [`SafezoneService::events_after`] reads the outbox in the same order.
//!
//! ```text
//! cargo run -p safezone-examples --example react_to_events
//! ```

use std::time::Duration;

use http_body_util::{BodyExt, Empty};
use safezone_core::events::subscription::EventSubscriber;
use safezone_core::events::{DomainEvent, EventPayload};
use safezone_core::http::BoxError;
use safezone_core::{Safezone, SafezoneService};
use serde_json::Value;
use tower::ServiceExt;

/// `POST path` in-process; answers the JSON body.
async fn post(service: &SafezoneService, path: &str) -> Result<Value, BoxError> {
    let request = http::Request::post(path).body(Empty::<bytes::Bytes>::new())?;
    let response = service.clone().oneshot(request).await?;
    let body = response.into_body().collect().await?.to_bytes();
    Ok(serde_json::from_slice(&body)?)
}

/// What the studio does with an event: here, a line for its analytics.
fn react(event: &DomainEvent) -> String {
    match &event.payload {
        EventPayload::AccountCreated { friend_code, .. } => format!("welcome, {friend_code}"),
        EventPayload::RewardClaimed { reward_type, .. } => format!("claimed `{reward_type}`"),
        EventPayload::PackOpened { drops, .. } => format!("opened a pack: {} drop(s)", drops.len()),
        other => format!("{} (event {})", other.kind(), event.id),
    }
}

/// A new player's first moments: sign-up, the first gift, opening the gift's pack.
async fn first_moments(service: &SafezoneService) -> Result<(), BoxError> {
    let signed_in = post(service, "/api/validate/device/ios-events-example").await?;
    let key = signed_in["user"]["key"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    post(
        service,
        &format!("/api/user/{key}/rewards/claim?type=first"),
    )
    .await?;
    post(service, &format!("/api/user/{key}/pack/open?packId=1")).await?;
    Ok(())
}

/// The events that arrive on `events` until `kinds` have all been seen (or 5 s pass), with
/// the studio's reaction to each.
async fn until_seen(events: &mut EventSubscriber, kinds: &[&str]) -> Vec<(&'static str, String)> {
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !kinds.iter().all(|kind| seen.iter().any(|(k, _)| k == kind)) {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Some(event)) => seen.push((event.payload.kind(), react(&event))),
            Ok(None) | Err(_) => break,
        }
    }
    seen
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let directory = tempfile::tempdir()?;
    let url = format!("sqlite://{}", directory.path().join("events.db").display());
    let service = Safezone::new(safezone_storage::open(&url).await?).service();
    let mut events = service.subscribe_events();
    first_moments(&service).await?;
    let kinds = ["account_created", "reward_claimed", "pack_opened"];
    for (kind, reaction) in until_seen(&mut events, &kinds).await {
        println!("{kind}: {reaction}");
    }
    // Where to resume after a restart: `service.subscribe_events_from(position)`.
    println!("seen up to relay position {}", events.position());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_studio_sees_a_new_players_first_moments() {
        let directory = tempfile::tempdir().expect("a directory");
        let url = format!("sqlite://{}", directory.path().join("events.db").display());
        let store = safezone_storage::open(&url).await.expect("the store opens");
        let service = Safezone::new(store).service();
        let mut events = service.subscribe_events();
        first_moments(&service)
            .await
            .expect("the requests are answered");

        let kinds = [
            "account_created",
            "signed_in",
            "reward_claimed",
            "pack_opened",
        ];
        let seen = until_seen(&mut events, &kinds).await;
        let order: Vec<&str> = seen.iter().map(|(kind, _)| *kind).collect();
        assert_eq!(order, kinds, "{seen:?}");
        assert!(seen[0].1.starts_with("welcome, "), "{seen:?}");
        assert_eq!(seen[2].1, "claimed `first`");

        // Resuming from a position gets what follows it, from the outbox; reading the outbox
        // after a position answers the same, in the same order.
        let mut resumed = service.subscribe_events_from(1);
        let second = resumed.recv().await.expect("the service lives");
        assert_eq!(second.payload.kind(), "signed_in");
        let read = service.events_after(1, 10).await.expect("the outbox reads");
        assert_eq!(read[0].event, second);
        assert_eq!(read[0].position, 2);
        assert_eq!(events.position(), read[2].position);
    }
}
