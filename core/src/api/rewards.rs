//! `GET /api/user/{userKey}/rewards` and `POST /api/user/{userKey}/rewards/claim`: the
//! claimable reward types of the content file and their schedules.

use serde::Serialize;
use utoipa::ToSchema;

use super::shared::session::Session;
use super::shared::{change, session};
use crate::App;
use crate::content::{Content, RewardType, Schedule};
use crate::domain::ApiDate;
use crate::economy::{ClaimWindow, RewardStatus, reward_steps};
use crate::hooks::RewardClaim;
use crate::http::params::parameters;
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::openapi::{ErrorBody, IdempotencyKey, InvalidParameterOrKey, Success, UserKeyPath};
use crate::store::Step;
use change::ChangeAnswer;

/// `{types}`.
#[derive(Serialize, ToSchema)]
struct TypesAnswer<'a> {
    types: Vec<TypeView<'a>>,
}

/// One type's status: `{name, is_available, next_at, claimed, total}`.
#[derive(Serialize, ToSchema)]
struct TypeView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    is_available: bool,
    next_at: Option<ApiDate>,
    claimed: u32,
    total: u32,
}

#[utoipa::path(
    get,
    path = "/api/user/{userKey}/rewards",
    tag = "rewards",
    operation_id = "listRewards",
    description = "The claimable reward types of the content file and their status, in the content file's order.",
    params(UserKeyPath),
    responses(
        (status = 200, description = "The reward types", body = Success<TypesAnswer>),
    )
)]
/// `GET /api/user/{userKey}/rewards`: `{status, types}` in the content file's order.
pub(super) async fn list(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    let now = app.clock.now();
    let premium = app.store.chat_premium(session.account.id).await? == Some(true);
    let published = app.content.current();
    let windows: Vec<(&RewardType, ClaimWindow)> = published
        .content
        .reward_types
        .iter()
        .map(|reward_type| (reward_type, ClaimWindow::at(reward_type, now)))
        .collect();
    let keys: Vec<String> = windows
        .iter()
        .flat_map(|(_, window)| window.keys.iter().cloned())
        .collect();
    let claimed = app.store.claimed(session.account.id, &keys).await?;
    let types = windows
        .iter()
        .map(|(reward_type, window)| {
            let eligible = premium || !reward_type.requires_premium;
            type_view(
                Some(&reward_type.name),
                &RewardStatus::of(window, &claimed, eligible),
            )
        })
        .collect();
    Ok(Reply::success(&TypesAnswer { types }))
}

parameters! {
    /// The parameters of `POST /api/user/{userKey}/rewards/claim` besides the key.
    struct ClaimParams {
        /// A reward type of the content file
        reward_type: String = Query "type",
    }
}

#[utoipa::path(
    post,
    path = "/api/user/{userKey}/rewards/claim",
    tag = "rewards",
    operation_id = "claimReward",
    description = "Claims a reward type's rewards if its schedule (and, for premium types, the linked chat-platform subscription) allows; with the type's status after the claim.",
    params(
        UserKeyPath,
        ClaimParams,
        IdempotencyKey,
    ),
    responses(
        (status = 200, description = "Done: the account as it is now", body = Success<ChangeAnswer<TypeView>>),
        (status = 400, response = InvalidParameterOrKey),
        (status = 403, description = "The account is banned from the shop and rewards (`account_banned`), the reward needs a linked chat-platform account (`chat_link_required`) with a premium subscription (`premium_required`), or a key sent besides the path's opens another account (`key_mismatch`)", body = ErrorBody),
        (status = 409, description = "The account's state refuses it (`already_claimed`, `not_claimable`, `pack_limit`, `balance_limit`, `idempotency_key_reused`, `progress_changed`, ...)", body = ErrorBody),
    )
)]
/// `POST /api/user/{userKey}/rewards/claim?type=`: claims the type's rewards if its schedule
/// (and, for premium types, the linked chat-platform subscription) allows; `{status, user,
/// rewards, is_available, claimed, total, next_at}` with the type's status after the claim.
pub(super) async fn claim(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let published = app.content.current();
    let session = session::required(&app, &incoming).await?;
    let reward_type = reward_type(
        &published.content,
        &ClaimParams::read(&incoming)?.reward_type,
    )?;
    if reward_type.schedule == Schedule::Never {
        return Err(ApiError::Conflict {
            code: ErrorCode::NotClaimable,
            message: format!("`{}` rewards cannot be claimed yet", reward_type.name),
        });
    }
    let window = ClaimWindow::at(reward_type, app.clock.now());
    let mut steps = Vec::new();
    if reward_type.requires_premium {
        steps.push(Step::RequirePremium);
    }
    steps.push(Step::Claim {
        keys: window.keys.clone(),
    });
    steps.extend(reward_steps(
        &published.content.catalog,
        &reward_type.rewards,
    ));
    let outcome = change::apply(
        &app,
        &incoming.headers,
        &session,
        "claim",
        reward_type.name.clone(),
        steps,
        |change| {
            app.hooks.adjust_reward_claim(change, || RewardClaim {
                reward_type: reward_type.name.clone(),
            });
        },
    )
    .await?;
    let status = status_now(&app, &session, reward_type, &window).await?;
    Ok(change::answer(
        &app,
        &session,
        &outcome,
        type_view(None, &status),
    ))
}

/// The content file's type of this name; any other name is a 400 listing the known ones.
fn reward_type<'a>(content: &'a Content, name: &str) -> Result<&'a RewardType, ApiError> {
    let types = &content.reward_types;
    types
        .iter()
        .find(|reward_type| reward_type.name == name)
        .ok_or_else(|| {
            let known: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
            ApiError::invalid("type", format!("must be one of {}", known.join(", ")))
        })
}

/// The type's status as the store holds it now.
async fn status_now(
    app: &App,
    session: &Session,
    reward_type: &RewardType,
    window: &ClaimWindow,
) -> Result<RewardStatus, ApiError> {
    let claimed = app.store.claimed(session.account.id, &window.keys).await?;
    let eligible = !reward_type.requires_premium
        || app.store.chat_premium(session.account.id).await? == Some(true);
    Ok(RewardStatus::of(window, &claimed, eligible))
}

fn type_view<'a>(name: Option<&'a str>, status: &RewardStatus) -> TypeView<'a> {
    TypeView {
        name,
        is_available: status.is_available,
        next_at: status.next_at.map(ApiDate),
        claimed: status.claimed,
        total: status.total,
    }
}
