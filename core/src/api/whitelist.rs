//! `GET /api/tournament/{tournamentCode}/whitelist` and `POST
//! /api/tournament/{tournamentCode}/whitelist/update`: the whitelist of a tournament, for admin
//! accounts only (403 `admin_only` for others).
//!
//! The update takes a JSON body `{"add": [friend codes], "remove": [friend codes]}` (either may
//! be left out), or `{"replace": [friend codes]}` alone to set the whole whitelist. It answers
//! `{status, code, whitelist, unknown}`: the whitelist afterwards and the friend codes of the
//! body that no account has (nothing was done for those; the rest was applied).

use serde::{Deserialize, Serialize};

use super::community::require_admin;
use super::session;
use super::tournaments::{code, existing, unknown};
use crate::App;
use crate::domain::FriendCode;
use crate::http::{ApiError, Incoming, Reply};
use crate::store::{WHITELIST_EDIT_MAX, WhitelistEdit};

/// The body of the update.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    #[serde(default)]
    add: Vec<String>,
    #[serde(default)]
    remove: Vec<String>,
    replace: Option<Vec<String>>,
}

/// `{status, code, whitelist_only, whitelist}`.
#[derive(Serialize)]
struct WhitelistAnswer<'a> {
    code: &'a str,
    whitelist_only: bool,
    whitelist: Vec<String>,
}

/// `{status, code, whitelist, unknown}`.
#[derive(Serialize)]
struct UpdateAnswer<'a> {
    code: &'a str,
    whitelist: Vec<String>,
    unknown: Vec<String>,
}

/// `GET /api/tournament/{tournamentCode}/whitelist`: the friend codes on the whitelist, in
/// the order they were added.
pub(super) async fn list(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    require_admin(&session)?;
    let code = code(&incoming)?;
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
pub(super) async fn update(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    require_admin(&session)?;
    let code = code(&incoming)?;
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
        .edit_whitelist(edit)
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
