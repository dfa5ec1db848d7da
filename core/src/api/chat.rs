//! `POST /api/validate/chat/{authToken}`: sign-in with a chat-platform bearer token.

use super::shared::sign_in::{self, Identity, SignInAnswer};
use crate::App;
use crate::auth::{ProviderError, current_user_json, is_truthy, read_user};
use crate::http::params::parameters;
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::openapi::{ErrorBody, Success};

/// The provider name of chat-platform accounts.
const CHAT_PROVIDER: &str = "chat";

/// Sign-ins tried while each one's account is deleted before its chat link is recorded; then
/// 503 (retryable).
const SIGN_IN_TRIES: usize = 3;

parameters! {
    /// The token of `POST /api/validate/chat/{authToken}`.
    struct ChatPath {
        /// The chat platform's bearer token
        token: String = Path "authToken",
    }
}

#[utoipa::path(
    post,
    path = "/api/validate/chat/{authToken}",
    tag = "sign-in",
    operation_id = "signInChat",
    description = "Sign-in with a chat-platform bearer token: creates the chat user's account on first use; answers the account with a fresh key.",
    params(ChatPath),
    responses(
        (status = 200, description = "Signed in", body = Success<SignInAnswer>),
        (status = 401, description = "The chat platform refused the token (`invalid_chat_token`)", body = ErrorBody),
        (status = 501, description = "No chat platform is configured (`not_configured`)", body = ErrorBody),
        (status = 502, description = "The chat platform cannot be reached (`chat_unavailable`)", body = ErrorBody),
    )
)]
/// Checks the token against the chat platform's current-user address, finds or creates the
/// account of that chat user, records whether it has a premium subscription (the `premium`
/// reward needs one), and answers `{status, user, firstLogin}`. A refused token is 401
/// `invalid_chat_token`; an unreachable platform 502 `chat_unavailable`.
pub(super) async fn validate(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let token = ChatPath::read(&incoming)?.token;
    let Some(chat) = &app.auth.config.chat else {
        return Err(ApiError::Unconfigured {
            what: "the chat platform",
        });
    };
    let body = current_user_json(&app.auth.http, &chat.user_info_url, &token)
        .await
        .map_err(|error| match error {
            ProviderError::Refused(_) => ApiError::Unauthorized {
                code: ErrorCode::InvalidChatToken,
                message: "the chat platform refused this token (invalid or expired)".to_owned(),
            },
            ProviderError::Unreachable(why) => {
                tracing::warn!(%why, "chat platform unavailable");
                unavailable()
            }
        })?;
    let user = read_user(&body, &chat.fields).ok_or_else(unavailable)?;
    let premium = is_truthy(body.get(&chat.premium_field));
    let chat_user = user.id.clone();
    let identity = Identity {
        provider: CHAT_PROVIDER.to_owned(),
        identifier: user.id,
        name: user.name,
        avatar: user.avatar,
        email: user.email,
    };
    for _ in 0..SIGN_IN_TRIES {
        let signed_in = sign_in::complete(&app, identity.clone()).await?;
        let linked = app
            .store
            .link_chat(signed_in.account.id, &chat_user, premium, app.clock.now())
            .await?;
        if linked {
            return Ok(signed_in.answer());
        }
        // The account was deleted right after its sign-in, taking the new key with it: the
        // deletion wins and the chat user is signed in again, to a fresh account.
        tracing::debug!("account deleted during chat sign-in; signing in again");
    }
    Err(ApiError::Unavailable)
}

fn unavailable() -> ApiError {
    ApiError::Upstream {
        code: ErrorCode::ChatUnavailable,
        message: "the chat platform cannot be reached or gave no user; try again later".to_owned(),
    }
}
