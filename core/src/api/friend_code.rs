//! `POST /api/user/{userKey}/friend-code/update`: renaming the friend code for gems.

use super::{change, session};
use crate::App;
use crate::domain::FriendCode;
use crate::economy::digit_candidates;
use crate::http::{ApiError, Incoming, Reply};
use crate::store::{Currency, Step};

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
    change::answer_user(&app, &session, &outcome).await
}
