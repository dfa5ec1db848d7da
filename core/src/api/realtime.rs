//! `GET /api/realtime`: the player's realtime channel, a WebSocket (see
//! [`realtime`](crate::realtime)). Refused before the upgrade with the API's JSON errors; the
//! channel is registered in the hub before the `101` answer, so that it queues every event
//! from then on.

use std::sync::{Arc, Weak};

use async_trait::async_trait;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use http_body_util::Full;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;

use super::shared::session;
use crate::app::{App, AppState};
use crate::http::params::{WholeNumber, parameters};
use crate::http::{ApiError, ErrorCode, Incoming, Reply, UpgradeHandler};
use crate::openapi::{ErrorBody, KeyMismatch, UserKeyRequired};
use crate::realtime::channel::{Channel, KeyCheck};
use crate::realtime::hub::Refused;

parameters! {
    /// The parameters of `GET /api/realtime` besides the user key.
    struct RealtimeParams {
        /// The last relay position the client saw: every event of the player after it is sent first
        after: Option<WholeNumber<0, { i64::MAX }>> = Query "after",
    }
}

/// `GET /api/realtime`: upgrades to the player's realtime channel.
#[utoipa::path(
    get,
    path = "/api/realtime",
    tag = "realtime",
    operation_id = "realtime",
    description = "The player's realtime channel: a WebSocket (RFC 6455) carrying the player's \
        domain events as they commit, live content publications and pings, as JSON text frames \
        tagged by `type` (the messages are described by the AsyncAPI document at \
        `/api/asyncapi.json`). With `after`, every event of the player after that relay position \
        is sent first, none lost or repeated. The user key comes as for every endpoint \
        (browsers use the `userKey` query parameter).",
    params(RealtimeParams),
    responses(
        (status = 101, description = "Switched to the WebSocket protocol: the channel is open"),
        (status = 400, description = "`after` is not a whole number from 0 \
            (`invalid_parameter`), or the request is not a WebSocket upgrade \
            (`not_websocket_upgrade`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, response = KeyMismatch),
        (status = 429, description = "A rate limit is spent (`rate_limited`), or the account \
            has as many channels open on this server as it may (`too_many_channels`)",
            body = ErrorBody),
        (status = 503, description = "The server is stopping: open the channel again, on \
            another node (`overloaded`)", body = ErrorBody),
    )
)]
pub(super) async fn open(app: App, mut incoming: Incoming) -> Result<Reply, ApiError> {
    let params = RealtimeParams::read(&incoming)?;
    let accept = accept_key(&incoming.headers)?;
    let session = session::required(&app, &incoming).await?;
    let registration =
        app.realtime
            .register(session.account.id)
            .map_err(|refused| match refused {
                Refused::TooMany(limit) => ApiError::TooManyChannels { limit },
                Refused::Stopping => ApiError::Overloaded,
            })?;
    let channel = Channel {
        registration,
        after: params.after.map(|after| after.0),
        store: Arc::clone(&app.store),
        content: Arc::clone(&app.content),
        settings: app.settings.realtime,
        key: Arc::new(PresentedKey {
            app: Arc::downgrade(&app),
            key: session.key.as_str().to_owned(),
        }),
    };
    let handler = UpgradeHandler::new(move |io| channel.run(io));
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
    headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(header::SEC_WEBSOCKET_ACCEPT, accept);
    match incoming.take_upgrade() {
        Some(upgrade) => handler.spawn_on(upgrade),
        None => {
            response.extensions_mut().insert(handler);
        }
    }
    Ok(Reply::from(response))
}

/// The `Sec-WebSocket-Accept` of a WebSocket upgrade request; 400 `not_websocket_upgrade`
/// naming what is missing when the request is not one.
fn accept_key(headers: &HeaderMap) -> Result<HeaderValue, ApiError> {
    let refuse = |what: &str| ApiError::Invalid {
        code: ErrorCode::NotWebsocketUpgrade,
        message: format!(
            "this endpoint is a WebSocket: the request needs {what} (open it with a WebSocket \
             client)"
        ),
    };
    if !has_token(headers, &header::CONNECTION, "upgrade") {
        return Err(refuse("`Connection: Upgrade`"));
    }
    if !has_token(headers, &header::UPGRADE, "websocket") {
        return Err(refuse("`Upgrade: websocket`"));
    }
    if headers
        .get(header::SEC_WEBSOCKET_VERSION)
        .is_none_or(|version| version.as_bytes() != b"13")
    {
        return Err(refuse("`Sec-WebSocket-Version: 13`"));
    }
    let key = headers
        .get(header::SEC_WEBSOCKET_KEY)
        .map(HeaderValue::as_bytes)
        .filter(|key| key.len() == 24)
        .ok_or_else(|| refuse("a `Sec-WebSocket-Key` (16 bytes in base64)"))?;
    HeaderValue::from_str(&derive_accept_key(key))
        .map_err(|_| refuse("a `Sec-WebSocket-Key` (16 bytes in base64)"))
}

/// Whether a comma-separated header `name` lists `token` (any case).
fn has_token(headers: &HeaderMap, name: &header::HeaderName, token: &str) -> bool {
    headers
        .get_all(name)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|listed| listed.trim().eq_ignore_ascii_case(token))
}

/// The key a channel was opened with, checked again as a request would be.
struct PresentedKey {
    /// The service (a channel never keeps it alive).
    app: Weak<AppState>,
    /// The key's text.
    key: String,
}

#[async_trait]
impl KeyCheck for PresentedKey {
    async fn still_valid(&self) -> bool {
        let Some(app) = self.app.upgrade() else {
            return true;
        };
        match session::resolve(&app, &self.key).await {
            Ok(Some(session)) => !session.account.is_banned,
            Ok(None) => false,
            Err(error) => {
                tracing::warn!(%error, "a realtime channel's key could not be checked; kept");
                true
            }
        }
    }
}
