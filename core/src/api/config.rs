//! `GET /api/config`: the client configuration and the extras.

use sha2::{Digest, Sha256};

use super::shared::session;
use crate::App;
use crate::content::AbTest;
use crate::domain::{ClientVersion, Platform};
use crate::http::params::parameters;
use crate::http::{ApiError, Incoming, Reply};
use crate::live_content::{Asker, ConfigAnswer, SeasonKey, Timers};
use crate::openapi::{ErrorBody, KeyMismatch, PresentedUserKeyInvalid, Success};
use crate::store::AccountId;

parameters! {
    /// The parameters of `GET /api/config`.
    struct ConfigParams {
        /// The client's platform
        platform: Option<Platform> = Query "platform",
        /// The client's version
        version: Option<ClientVersion> = Query "version",
        /// The anti-cheat's version
        anticheat: Option<ClientVersion> = Query "version2",
        /// `true` for the client's periodic poll: the extras are left out
        polled: Option<bool> = Query "isPolledUpdate",
    }
}

/// Answers `{status, config, extras}`.
#[utoipa::path(
    get,
    path = "/api/config",
    tag = "config",
    operation_id = "clientConfig",
    description = "The client configuration and the extras.",
    params(ConfigParams),
    responses(
        (status = 200, description = "The configuration", body = Success<ConfigAnswer>),
        (status = 400, description = "A bad `platform`, `version`, `version2` or `isPolledUpdate` (`invalid_parameter`)", body = ErrorBody),
        (status = 401, response = PresentedUserKeyInvalid),
        (status = 403, response = KeyMismatch),
    )
)]
///
/// `platform` (web, windows, android, ios), `version` and `version2` decide `update_required`;
/// a bad value of any is a 400 naming it. `userKey` is optional: with a valid key the account's
/// A/B group is included. `isPolledUpdate=true` marks the client's periodic poll, which only
/// acts on `config`: the extras are left out (`extras: {}`).
pub(super) async fn client_config(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let published = app.content.current();
    let ConfigParams {
        platform,
        version,
        anticheat,
        polled,
    } = ConfigParams::read(&incoming)?;
    let polled = polled.unwrap_or(false);
    let caller = session::optional(&app, &incoming).await?;

    let update_required = published
        .content
        .client
        .update_required(platform, version, anticheat);
    let asker = Asker {
        update_required,
        polled,
        group: None,
    };
    let (asker, timers) = if polled {
        (asker, Timers::default())
    } else {
        let now = app.clock.now();
        let extras = &published.content.extras;
        let group = extras
            .ab_test
            .as_ref()
            .zip(caller.map(|session| session.account.id))
            .map(|(test, account)| ab_group(test, account));
        let timers = Timers {
            event_ends: extras
                .limited_event
                .as_ref()
                .and_then(|event| event.shown_until(now)),
            season: extras
                .season_preview
                .as_ref()
                .and_then(|preview| preview.at(now))
                .map(|season| SeasonKey::at(season, now)),
        };
        (Asker { group, ..asker }, timers)
    };
    let prepared = &published.prepared_config;
    if let Some(body) = prepared.answer(asker, timers) {
        return Ok(Reply::success_bytes(body));
    }
    let answer = prepared.view(&published.content.extras, asker, timers);
    Ok(match Reply::success_body(&answer) {
        Ok(body) => Reply::success_bytes(prepared.keep(asker, timers, body)),
        Err(error) => Reply::not_serialized(&error),
    })
}

/// The account's group, by its place in the test's groups: a hash of test id and account id,
/// so it never changes for them.
fn ab_group(test: &AbTest, account: AccountId) -> usize {
    let digest = Sha256::digest(format!("{}:{}", test.id, account.0));
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    let groups = test.groups.len() as u64;
    usize::try_from(u64::from_be_bytes(first) % groups).unwrap_or_default()
}
