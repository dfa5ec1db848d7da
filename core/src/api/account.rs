//! Account operations: read the account, check a key, revoke keys, delete, sign out.

use http::{StatusCode, header};
use serde::Serialize;
use utoipa::ToSchema;

use super::shared::session::{self, ViewedSession};
use super::views::ApiUser;
use crate::App;
use crate::domain::UserKey;
use crate::http::params::parameters;
use crate::http::{ApiError, ErrorCode, Incoming, Reply, cookies, pages};
use crate::openapi::{Done, ErrorBody, Success, UserKeyPath};

/// `{user, rewards, is_banned}` (`rewards`, always empty, only on `/api/user/{userKey}`).
#[derive(Serialize, ToSchema)]
struct UserAnswer<'a> {
    user: ApiUser<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Object>>, max_items = 0)]
    rewards: Option<[(); 0]>,
    is_banned: bool,
}

fn user_answer(app: &App, session: &ViewedSession, with_rewards: bool) -> Reply {
    let published = app.content.current();
    let view = &session.view;
    Reply::success(&UserAnswer {
        user: ApiUser::of_view(&published.content, view, &session.key, session.expires),
        rewards: with_rewards.then_some([]),
        is_banned: view.account.is_banned,
    })
}

/// `GET /api/user/{userKey}`: `{status, user, rewards, is_banned}`.
#[utoipa::path(
    get,
    path = "/api/user/{userKey}",
    tag = "account",
    operation_id = "getUser",
    description = "The caller's account.",
    params(UserKeyPath),
    responses(
        (status = 200, description = "The account", body = Success<UserAnswer>),
    )
)]
pub(super) async fn get_user(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required_view(&app, &incoming).await?;
    Ok(user_answer(&app, &session, true))
}

/// `GET`/`HEAD /user/{userKey}`: the legacy key check, 200 with the account or 401.
#[utoipa::path(
    get,
    path = "/user/{userKey}",
    tag = "account",
    operation_id = "checkKey",
    description = "The legacy key check: the account when the key is valid.",
    params(UserKeyPath),
    responses(
        (status = 200, description = "The key is valid", body = Success<UserAnswer>),
    )
)]
pub(super) async fn check_key(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required_view(&app, &incoming).await?;
    Ok(user_answer(&app, &session, false))
}

/// `POST /api/user/{userKey}/clear-sessions`: revokes every key of the account.
#[utoipa::path(
    post,
    path = "/api/user/{userKey}/clear-sessions",
    tag = "account",
    operation_id = "clearSessions",
    description = "Revokes every key of the account, this one included.",
    params(UserKeyPath),
    responses(
        (status = 200, description = "Every key is revoked", body = Done),
    )
)]
pub(super) async fn clear_sessions(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    app.store.revoke_all_keys(session.account.id, None).await?;
    Ok(Reply::done())
}

parameters! {
    /// The parameters of `POST /api/user/{userKey}/delete-account` besides the key.
    struct DeleteParams {
        /// Another valid key of the same account
        confirmation: UserKey = Query "confirmationKey",
    }
}

#[utoipa::path(
    post,
    path = "/api/user/{userKey}/delete-account",
    tag = "account",
    operation_id = "deleteAccount",
    description = "Deletes the account and everything personal in it, confirmed by a second valid key of the same account. Its tournament entries go with it and free their places.",
    params(
        UserKeyPath,
        DeleteParams,
    ),
    responses(
        (status = 200, description = "The account is deleted", body = Done),
        (status = 400, description = "`confirmationKey` is missing (`missing_parameter`), not a key or the path's key (`invalid_parameter`)", body = ErrorBody),
        (status = 403, description = "`confirmationKey` is not another valid key of this account (`confirmation_failed`), or a key sent besides the path's opens another account (`key_mismatch`)", body = ErrorBody),
    )
)]
/// `POST /api/user/{userKey}/delete-account?confirmationKey=`: with a second valid key of the
/// same account, deletes the account and everything personal in it.
pub(super) async fn delete_account(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    let confirmation = DeleteParams::read(&incoming)?.confirmation;
    if confirmation == session.key {
        return Err(ApiError::invalid(
            "confirmationKey",
            "must be another key of the account than the one in the path",
        ));
    }
    let confirmed = session::resolve(&app, confirmation.as_str())
        .await?
        .is_some_and(|other| other.account.id == session.account.id);
    if !confirmed {
        return Err(ApiError::Forbidden {
            code: ErrorCode::ConfirmationFailed,
            message: "`confirmationKey` is not another valid key of this account".to_owned(),
        });
    }
    app.store.delete_account(session.account.id, None).await?;
    app.leaderboards.changed_here();
    Ok(Reply::done())
}

#[utoipa::path(
    get,
    path = "/user/logout",
    tag = "sign-in",
    operation_id = "logout",
    description = "Revokes the key in the `userKey` cookie, if any, and expires the key and login-state cookies.",
    security((), ("userKeyCookie" = [])),
    responses(
        (status = 200, description = "Signed out", content_type = "text/html", body = String,
            headers(("Set-Cookie" = String, description = "Expires the `userKey` and login-state cookies"))),
    )
)]
/// `GET /user/logout`: revokes the key in the `userKey` cookie, if any, and answers a page
/// whose headers expire the key cookie and the login-state cookie.
pub(super) async fn logout(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    if let Some(key) = incoming
        .cookie(cookies::USER_KEY_COOKIE)
        .as_deref()
        .and_then(UserKey::parse)
    {
        let lookup = app.user_keys.lookup(app.store.as_ref(), &key).await?;
        app.store.revoke_key(&lookup).await?;
    }
    Ok(Reply::html(StatusCode::OK, pages::logout_page())
        .with_header(
            header::SET_COOKIE,
            &cookies::expire(cookies::USER_KEY_COOKIE, "/"),
        )
        .with_header(
            header::SET_COOKIE,
            &cookies::expire(cookies::LOGIN_STATE_COOKIE, cookies::LOGIN_STATE_PATH),
        ))
}
