//! `POST /api/user/{userKey}/friend-code/update`: renaming the friend code for gems.

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use super::shared::{change, session};
use crate::App;
use crate::domain::{FriendCode, NAME_MAX_CHARS, NAME_MIN_CHARS};
use crate::economy::digit_candidates;
use crate::hooks::Rename;
use crate::http::params::{ParamValue, parameters, text_schema};
use crate::http::{ApiError, Incoming, Reply};
use crate::openapi::{
    ErrorBody, IdempotencyKey, InsufficientFunds, InvalidParameterOrKey, PathKeyShopForbidden,
    Success, UserKeyPath,
};
use crate::store::{Currency, Step};
use change::ChangeAnswer;

/// A friend code's new name: ASCII letters and digits ([`FriendCode::check_name`]).
struct FriendCodeName(String);

impl ParamValue for FriendCodeName {
    fn from_param(text: &str) -> Result<Self, String> {
        FriendCode::check_name(text)
            .map(|()| Self(text.to_owned()))
            .map_err(|error| format!("is not valid: {error}"))
    }

    fn param_schema() -> RefOr<Schema> {
        text_schema()
            .min_length(Some(NAME_MIN_CHARS))
            .max_length(Some(NAME_MAX_CHARS))
            .pattern(Some(format!(
                "^[0-9A-Za-z]{{{NAME_MIN_CHARS},{NAME_MAX_CHARS}}}$"
            )))
            .into()
    }
}

parameters! {
    /// The parameters of `POST /api/user/{userKey}/friend-code/update` besides the key.
    struct RenameParams {
        /// The new name: ASCII letters and digits
        name: FriendCodeName = Query "name",
    }
}

#[utoipa::path(
    post,
    path = "/api/user/{userKey}/friend-code/update",
    tag = "account",
    operation_id = "updateFriendCode",
    description = "Renames the friend code for gems, keeping its digits where that code is free. Answers `{status, user}`.",
    params(
        UserKeyPath,
        RenameParams,
        IdempotencyKey,
    ),
    responses(
        (status = 200, description = "Done: the account as it is now", body = Success<ChangeAnswer>),
        (status = 400, response = InvalidParameterOrKey),
        (status = 403, response = PathKeyShopForbidden),
        (status = 402, response = InsufficientFunds),
        (status = 409, description = "The account's state refuses it (`same_name`, `name_taken`, `idempotency_key_reused`, `progress_changed`, ...)", body = ErrorBody),
    )
)]
/// `POST /api/user/{userKey}/friend-code/update?name=`: renames the friend code, keeping its
/// digits where that code is free and otherwise taking free ones, and charges the content
/// file's gem price; `{status, user}`. A taken or invalid name charges nothing.
pub(super) async fn update(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let published = app.content.current();
    let session = session::required(&app, &incoming).await?;
    let FriendCodeName(name) = RenameParams::read(&incoming)?.name;
    let price = published.content.friend_code.rename_cost_gems;
    let mut steps = Vec::new();
    if price > 0 {
        steps.push(Step::Debit {
            currency: Currency::Gems,
            amount: price,
        });
    }
    steps.push(Step::ChangeFriendCode {
        name: name.clone(),
        digits: digit_candidates(&session.account.friend_code, &mut rand::rng()),
    });
    let outcome = change::apply(
        &app,
        &incoming.headers,
        &session,
        "rename",
        format!("name:{name}"),
        steps,
        |change| {
            app.hooks
                .adjust_rename(change, || Rename { name: name.clone() });
        },
    )
    .await?;
    app.leaderboards.changed_here();
    Ok(change::answer_user(&app, &session, &outcome))
}
