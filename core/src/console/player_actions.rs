//! The forms of the player page, each posted to a console route that makes the matching
//! `POST /operator/api/players/{accountId}/<action>` call and redirects back to the player
//! with the API's answer: grant, refund, remove, ban and unban, revoke keys, remove results.

use serde_json::Value;

use super::api_call::segment;
use super::change::Change;
use super::form::Body;
use super::session::Session;
use super::{ConsoleState, checked, players, post};
use crate::http::{ApiError, Incoming, Query, Reply, Routes};

/// One action: its API path's last segment, its name for a person, and its body.
struct Action {
    api: &'static str,
    label: &'static str,
    body: fn(&Query) -> Value,
}

/// `{coins?, gems?, items?, packs?, reason}`.
static GRANT: Action = Action {
    api: "grant",
    label: "Grant",
    body: |form| {
        Body::new(form)
            .number("coins")
            .number("gems")
            .list("items")
            .list("packs")
            .reason()
            .build()
    },
};

/// `{currency, amount, reason}`.
static REFUND: Action = Action {
    api: "refund",
    label: "Refund",
    body: |form| {
        Body::new(form)
            .text("currency")
            .number("amount")
            .reason()
            .build()
    },
};

/// `{coins?, gems?, items?, packs?, reason}`.
static REMOVE: Action = Action {
    api: "remove",
    label: "Removal",
    body: |form| {
        Body::new(form)
            .number("coins")
            .number("gems")
            .list("items")
            .list("packs")
            .reason()
            .build()
    },
};

/// `{banned, reason}`: `banned` is the form's `true` or `false`.
static BAN: Action = Action {
    api: "ban",
    label: "Ban change",
    body: |form| {
        let banned = match form.optional("banned") {
            Some("false") => Value::Bool(false),
            Some("true") => Value::Bool(true),
            other => Value::from(other.unwrap_or_default()),
        };
        Body::new(form).set("banned", banned).reason().build()
    },
};

/// `{reason}`.
static REVOKE_KEYS: Action = Action {
    api: "revoke-keys",
    label: "Key revocation",
    body: |form| Body::new(form).reason().build(),
};

/// `{reason}`: the account's results leave every leaderboard.
static REMOVE_RESULTS: Action = Action {
    api: "remove-results",
    label: "Removal of results",
    body: |form| Body::new(form).reason().build(),
};

/// The player actions' routes, each `POST /players/{accountId}/<action>`.
pub(super) fn routes(mut routes: Routes<ConsoleState>) -> Routes<ConsoleState> {
    for action in [
        &GRANT,
        &REFUND,
        &REMOVE,
        &BAN,
        &REVOKE_KEYS,
        &REMOVE_RESULTS,
    ] {
        routes = post(
            routes,
            &format!("/players/{{accountId}}/{}", action.api),
            checked(move |state, session, incoming| act(state, session, incoming, action)),
        );
    }
    routes
}

/// Makes `action`'s API call for the account of the path, then back to its page with what
/// the API answered.
async fn act(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
    action: &'static Action,
) -> Result<Reply, ApiError> {
    let id = incoming.path("accountId")?;
    let change = Change {
        path: format!("/players/{}/{}", segment(id), action.api),
        body: (action.body)(&incoming.query),
        label: action.label,
        next: players::location(id),
    };
    Ok(change.make(&state, &session, &incoming).await)
}
