//! `GET /api/tournament/{tournamentCode}/whitelist` and `POST
//! /api/tournament/{tournamentCode}/whitelist/update`: the whitelist of a tournament, for admin
//! accounts only (403 `admin_only` for others).
//!
//! The update takes a JSON body `{"add": [friend codes], "remove": [friend codes]}` (either may
//! be left out), or `{"replace": [friend codes]}` alone to set the whole whitelist. It answers
//! `{status, code, whitelist, unknown}`: the whitelist afterwards and the friend codes of the
//! body that no account has (nothing was done for those; the rest was applied).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::shared::community::require_admin;
use super::shared::community::{existing, unknown};
use super::shared::params::TournamentCodePath;
use super::shared::session;
use crate::App;
use crate::domain::FriendCode;
use crate::http::{ApiError, Incoming, Reply};
use crate::openapi::{
    ErrorBody, InvalidTournamentCode, Success, UnknownTournament, UserKeyRequired,
};
use crate::store::{TournamentCode, WHITELIST_EDIT_MAX, WhitelistEdit};

/// The body of the update: `add` and/or `remove`, or `replace` alone; at most 1000 friend
/// codes in all.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    /// Friend codes to put on the whitelist.
    #[serde(default)]
    #[schema(value_type = Vec<FriendCode>, max_items = 1000)]
    add: Vec<String>,
    /// Friend codes to take off it.
    #[serde(default)]
    #[schema(value_type = Vec<FriendCode>, max_items = 1000)]
    remove: Vec<String>,
    /// The whole whitelist, replacing the current one (send it alone).
    #[schema(value_type = Option<Vec<FriendCode>>, max_items = 1000)]
    replace: Option<Vec<String>>,
}

/// `{status, code, whitelist_only, whitelist}`.
#[derive(Serialize, ToSchema)]
struct WhitelistAnswer<'a> {
    /// The tournament's code, in lower case.
    #[schema(value_type = TournamentCode)]
    code: &'a str,
    /// Whether only the players on the whitelist may join.
    whitelist_only: bool,
    /// The friend codes on it, in the order they were added.
    #[schema(value_type = Vec<FriendCode>)]
    whitelist: Vec<String>,
}

/// `{status, code, whitelist, unknown}`.
#[derive(Serialize, ToSchema)]
struct UpdateAnswer<'a> {
    /// The tournament's code, in lower case.
    #[schema(value_type = TournamentCode)]
    code: &'a str,
    /// The whitelist afterwards.
    #[schema(value_type = Vec<FriendCode>)]
    whitelist: Vec<String>,
    /// The friend codes of the body that no account has (nothing was done for those).
    #[schema(value_type = Vec<FriendCode>)]
    unknown: Vec<String>,
}

/// `GET /api/tournament/{tournamentCode}/whitelist`: the friend codes on the whitelist, in
/// the order they were added.
#[utoipa::path(
    get,
    path = "/api/tournament/{tournamentCode}/whitelist",
    tag = "tournaments",
    operation_id = "tournamentWhitelist",
    description = "The friend codes on a tournament's whitelist, in the order they were added \
        (admin accounts only).",
    params(TournamentCodePath),
    responses(
        (status = 200, description = "The whitelist", body = Success<WhitelistAnswer>),
        (status = 400, response = InvalidTournamentCode),
        (status = 401, response = UserKeyRequired),
        (status = 403, description = "Not an admin account (`admin_only`), or keys of two \
            accounts (`key_mismatch`)", body = ErrorBody),
        (status = 404, response = UnknownTournament),
    )
)]
pub(super) async fn list(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    require_admin(&session)?;
    let TournamentCodePath { code } = TournamentCodePath::read(&incoming)?;
    let tournament = existing(&app, &code).await?;
    let whitelist = app.store.whitelist(&code).await?.unwrap_or_default();
    Ok(Reply::success(&WhitelistAnswer {
        code: code.as_str(),
        whitelist_only: tournament.whitelist_only,
        whitelist: whitelist.iter().map(ToString::to_string).collect(),
    }))
}

/// `POST /api/tournament/{tournamentCode}/whitelist/update` with the JSON body described in
/// the module documentation, applied in one transaction.
#[utoipa::path(
    post,
    path = "/api/tournament/{tournamentCode}/whitelist/update",
    tag = "tournaments",
    operation_id = "updateTournamentWhitelist",
    description = "Edits a tournament's whitelist in one transaction (admin accounts only): \
        `add` and/or `remove` friend codes, or `replace` the whole list. Friend codes that no \
        account has are answered in `unknown`; the rest is applied.",
    params(TournamentCodePath),
    request_body = UpdateBody,
    responses(
        (status = 200, description = "The whitelist afterwards", body = Success<UpdateAnswer>),
        (status = 400, description = "A malformed `tournamentCode` (`invalid_parameter`) or \
            body (`invalid_body`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, description = "Not an admin account (`admin_only`), or keys of two \
            accounts (`key_mismatch`)", body = ErrorBody),
        (status = 404, response = UnknownTournament),
    )
)]
pub(super) async fn update(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    require_admin(&session)?;
    let TournamentCodePath { code } = TournamentCodePath::read(&incoming)?;
    let body: UpdateBody = incoming.json_body().await?;
    let (replace, add) = match body.replace {
        Some(_) if !body.add.is_empty() || !body.remove.is_empty() => {
            return Err(invalid_body(
                "sets the whole whitelist with `replace`: send it alone, without `add` or `remove`",
            ));
        }
        Some(replace) => (true, replace),
        None if body.add.is_empty() && body.remove.is_empty() => {
            return Err(invalid_body(
                "must hold `add` or `remove` (lists of friend codes), or `replace`",
            ));
        }
        None => (false, body.add),
    };
    if add.len() + body.remove.len() > WHITELIST_EDIT_MAX {
        return Err(invalid_body(format!(
            "names more than {WHITELIST_EDIT_MAX} friend codes"
        )));
    }
    let field = if replace { "replace" } else { "add" };
    let edit = WhitelistEdit {
        code: code.clone(),
        replace,
        add: friend_codes(field, &add)?,
        remove: friend_codes("remove", &body.remove)?,
        now: app.clock.now(),
    };
    let edited = app
        .store
        .edit_whitelist(edit, None)
        .await?
        .ok_or_else(|| unknown(&code))?;
    Ok(Reply::success(&UpdateAnswer {
        code: code.as_str(),
        whitelist: edited.whitelist.iter().map(ToString::to_string).collect(),
        unknown: edited.unknown.iter().map(ToString::to_string).collect(),
    }))
}

fn invalid_body(reason: impl Into<String>) -> ApiError {
    ApiError::InvalidBody {
        reason: reason.into(),
    }
}

/// The entries of the list `field`, each a friend code (`Name#0001`).
fn friend_codes(field: &str, entries: &[String]) -> Result<Vec<FriendCode>, ApiError> {
    entries
        .iter()
        .map(|entry| {
            FriendCode::parse(entry).map_err(|error| {
                invalid_body(format!(
                    "holds `{entry}` in `{field}`, which is not a friend code: {error}"
                ))
            })
        })
        .collect()
}
