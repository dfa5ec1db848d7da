//! `POST /api/user/{userKey}/friend-code/update`: renaming the friend code for gems.

use super::shared::{change, session};
use crate::App;
use crate::domain::FriendCode;
use crate::economy::digit_candidates;
use crate::http::{ApiError, Incoming, Reply};
use crate::openapi::{
    ErrorBody, IdempotencyKey, InsufficientFunds, InvalidParameterOrKey, PathKeyShopForbidden,
    Success, UserKeyPath,
};
use crate::store::{Currency, Step};
use change::ChangeAnswer;

#[utoipa::path(
    post,
    path = "/api/user/{userKey}/friend-code/update",
    tag = "account",
    operation_id = "updateFriendCode",
    description = "Renames the friend code for gems, keeping its digits where that code is free. Answers `{status, user}`.",
    params(
        UserKeyPath,
        ("name" = String, Query, description = "The new name: ASCII letters and digits", min_length = 3, max_length = 16, pattern = "^[0-9A-Za-z]{3,16}$"),
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
    let session = session::required(&app, &incoming).await?;
    let name = incoming.query.required("name")?;
    FriendCode::check_name(name)
        .map_err(|error| ApiError::invalid("name", format!("is not valid: {error}")))?;
    let price = app.content.friend_code.rename_cost_gems;
    let mut steps = Vec::new();
    if price > 0 {
        steps.push(Step::Debit {
            currency: Currency::Gems,
            amount: price,
        });
    }
    steps.push(Step::ChangeFriendCode {
        name: name.to_owned(),
        digits: digit_candidates(&session.account.friend_code, &mut rand::rng()),
    });
    let outcome = change::apply(
        &app,
        &incoming.headers,
        &session,
        "rename",
        format!("name:{name}"),
        steps,
    )
    .await?;
    app.leaderboards.changed_here();
    Ok(change::answer_user(&app, &session, &outcome))
}
