//! The forms of the player page, each posted to a console route that makes the matching
//! operator API change of the account and redirects back to the player with the API's answer:
//! grant, refund, remove, ban and unban, revoke keys, remove results.

use serde_json::Value;

use super::change::Change;
use super::form::Body;
use super::session::Session;
use super::{ConsoleState, checked, players, post};
use crate::http::params::RequestParams;
use crate::http::{ApiError, Incoming, Query, Reply, Routes};
use crate::operator_api::endpoint::{Changes, Endpoint};
use crate::operator_api::writes::{
    AccountPath, Ban, GrantPlayer, Refund, Remove, RemoveResults, RevokeKeys,
};

/// One action: its name for a person, and its body from the form.
struct Action {
    label: &'static str,
    body: fn(&Query) -> Value,
}

/// `{coins?, gems?, items?, packs?, reason}`.
static GRANT: Action = Action {
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
    label: "Key revocation",
    body: |form| Body::new(form).reason().build(),
};

/// `{reason}`: the account's results leave every leaderboard.
static REMOVE_RESULTS: Action = Action {
    label: "Removal of results",
    body: |form| Body::new(form).reason().build(),
};

/// The player actions' routes, each at the console's copy of its API path
/// (`POST /players/{accountId}/<action>`).
pub(super) fn routes(routes: Routes<ConsoleState>) -> Routes<ConsoleState> {
    let routes = action::<GrantPlayer>(routes, &GRANT);
    let routes = action::<Refund>(routes, &REFUND);
    let routes = action::<Remove>(routes, &REMOVE);
    let routes = action::<Ban>(routes, &BAN);
    let routes = action::<RevokeKeys>(routes, &REVOKE_KEYS);
    action::<RemoveResults>(routes, &REMOVE_RESULTS)
}

/// `routes` with the form of `action`, the change `E` of the account, at `E`'s path.
fn action<E: Changes<Params = AccountPath>>(
    routes: Routes<ConsoleState>,
    action: &'static Action,
) -> Routes<ConsoleState> {
    post(
        routes,
        <E as Endpoint>::PATH,
        checked(move |state, session, incoming| act::<E>(state, session, incoming, action)),
    )
}

/// Makes `action`'s API call `E` for the account of the path, then back to its page with what
/// the API answered.
async fn act<E: Changes<Params = AccountPath>>(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
    action: &'static Action,
) -> Result<Reply, ApiError> {
    let params = AccountPath::from_request(&incoming)?;
    let next = players::location(&params.id.0.to_string());
    let change = Change::<E> {
        params,
        body: (action.body)(&incoming.query),
        label: action.label,
        next,
    };
    Ok(change.make(&state, &session, &incoming).await)
}
