//! Applying a planned change for the caller: the `Idempotency-Key` header, the store's refusals
//! as API errors, and the `{status, user, rewards}` answer.

use http::HeaderMap;
use serde::Serialize;
use utoipa::ToSchema;

use super::session::Session;
use crate::App;
use crate::api::views::ApiUser;
use crate::api::views::RewardView;
use crate::content::Catalog;
use crate::domain::format_plain_datetime;
use crate::http::{ApiError, ErrorCode, Reply};
use crate::metrics::Counted;
use crate::progression;
use crate::store::{
    AccountId, AccountView, Applied, Change, Granted, Idempotency, Progress, Refusal, Step,
};

/// The request header that makes a currency-moving POST idempotent.
pub(crate) const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// The answer header that marks a repeat answered from an earlier application.
pub(crate) const IDEMPOTENT_REPLAYED: &str = "idempotent-replayed";

/// The longest idempotency key accepted.
const IDEMPOTENCY_KEY_MAX: usize = 255;

/// What a change did for the caller.
pub(crate) struct Outcome {
    /// What it granted (the first application's grants, for a repeat).
    pub granted: Vec<Granted>,
    /// Whether this request repeated an idempotency key and changed nothing.
    pub replayed: bool,
    /// The account as the change left it, read in the change's transaction.
    pub view: AccountView,
}

/// Applies `steps` to the caller's account as one change, described for the ledger by `reason`
/// and `reference` (which, together, also identify the request for idempotency), once `adjust`
/// (the studio's hook of its kind, [`Hooks`](crate::hooks::Hooks), or [`unadjusted`]) has
/// seen the whole plan. Steps that give experience are planned from the caller's progress,
/// with the levels it reaches ([`progression::with_levels`]).
pub(crate) async fn apply(
    app: &App,
    headers: &HeaderMap,
    session: &Session,
    reason: &str,
    reference: String,
    steps: Vec<Step>,
    adjust: impl Fn(&mut Change),
) -> Result<Outcome, ApiError> {
    let published = app.content.current();
    if progression::experience_of(&steps) > 0 {
        let plan = |progress: &Progress| {
            Ok(progression::with_levels(
                &published.content,
                progress,
                steps.clone(),
            ))
        };
        return apply_planned(app, headers, session, reason, reference, plan, adjust).await;
    }
    let mut change = change(app, headers, session, reason, reference, steps)?;
    adjust(&mut change);
    let counted = Counted::of(&change);
    outcome(app, apply_viewed(app, change).await?, counted)
}

/// Applies `change` and reads the account after it; the node's kept session of the account
/// follows the change ([`SessionCache::advance`](crate::auth::SessionCache::advance)), so the
/// caller's next request needs no read of it.
async fn apply_viewed(
    app: &App,
    change: Change,
) -> Result<(Applied, Option<AccountView>), ApiError> {
    let counter = app.sessions.counter_of(change.account);
    let applied = app.store.apply_viewed(change, None).await?;
    if let (Some(counter), (Applied::Done(_), Some(view))) = (counter, &applied) {
        app.sessions.advance(counter, view);
    }
    Ok(applied)
}

/// How many times a change planned from an account's progress is planned again when another
/// change moved that progress first.
pub(crate) const PLANNING_ATTEMPTS: u32 = 24;

/// Waits before planning again after attempt `attempt` (from 1) lost to another change: a
/// random pause of up to 2^attempt milliseconds (at most 64), so that requests that lost
/// together do not all try again together.
pub(crate) async fn before_planning_again(attempt: u32) {
    use rand::Rng;
    let most = 1_u64 << attempt.min(6);
    let pause = rand::rng().random_range(0..=most);
    tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
}

/// The `adjust` of a change no studio's hook sees.
pub(crate) fn unadjusted(_: &mut Change) {}

/// Like [`apply`], with steps that `plan` makes from the caller's progress: the change requires
/// that progress unchanged, and is planned (and adjusted) again from fresh progress when
/// another change moved it meanwhile.
pub(crate) async fn apply_planned<F>(
    app: &App,
    headers: &HeaderMap,
    session: &Session,
    reason: &str,
    reference: String,
    mut plan: F,
    adjust: impl Fn(&mut Change),
) -> Result<Outcome, ApiError>
where
    F: FnMut(&Progress) -> Result<Vec<Step>, ApiError>,
{
    let published = app.content.current();
    for attempt in 1..=PLANNING_ATTEMPTS {
        let progress = progress_of(app, session.account.id).await?;
        let steps = plan(&progress)?;
        let mut change = change(app, headers, session, reason, reference.clone(), steps)?;
        adjust(&mut change);
        let counted = Counted::of(&change);
        match apply_viewed(app, change).await? {
            (Applied::Refused(Refusal::Stale), _) => {
                tracing::debug!(
                    reason,
                    attempt,
                    "progress moved while planning; planning again"
                );
                before_planning_again(attempt).await;
            }
            applied => return outcome(app, applied, counted),
        }
    }
    Err(refused(&published.content.catalog, Refusal::Stale))
}

/// The change of `steps` for the caller, with the request's idempotency key.
fn change(
    app: &App,
    headers: &HeaderMap,
    session: &Session,
    reason: &str,
    reference: String,
    steps: Vec<Step>,
) -> Result<Change, ApiError> {
    let idempotency = idempotency_key(headers)?.map(|key| Idempotency {
        key,
        fingerprint: format!("{reason}:{reference}"),
    });
    Ok(Change {
        account: session.account.id,
        now: app.clock.now(),
        reason: reason.to_owned(),
        reference,
        idempotency,
        steps,
    })
}

/// What the store's answer (and the account it read after the change) means for the caller;
/// an applied change is `counted`.
fn outcome(
    app: &App,
    (applied, view): (Applied, Option<AccountView>),
    counted: Counted,
) -> Result<Outcome, ApiError> {
    let published = app.content.current();
    let (granted, replayed) = match applied {
        Applied::Done(granted) => {
            app.metrics.business.change_applied(counted, &granted);
            (granted, false)
        }
        Applied::Replayed(granted) => (granted, true),
        Applied::Refused(refusal) => return Err(refused(&published.content.catalog, refusal)),
    };
    let view = view.ok_or_else(|| ApiError::Internal {
        detail: "the store applied a change without reading the account".to_owned(),
    })?;
    Ok(Outcome {
        granted,
        replayed,
        view,
    })
}

/// The `Idempotency-Key` header: 1 to 255 visible ASCII characters, when sent.
fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get(IDEMPOTENCY_KEY) else {
        return Ok(None);
    };
    value
        .to_str()
        .ok()
        .filter(|key| {
            (1..=IDEMPOTENCY_KEY_MAX).contains(&key.len())
                && key.bytes().all(|byte| byte.is_ascii_graphic())
        })
        .map(|key| Some(key.to_owned()))
        .ok_or_else(|| ApiError::InvalidHeader {
            name: "Idempotency-Key",
            reason: format!(
                "must be 1 to {IDEMPOTENCY_KEY_MAX} visible ASCII characters (no spaces)"
            ),
        })
}

/// A refusal as the API error a client sees.
pub(crate) fn refused(catalog: &Catalog, refusal: Refusal) -> ApiError {
    let conflict = |code, message: String| ApiError::Conflict { code, message };
    match refusal {
        Refusal::NoAccount => ApiError::InvalidUserKey,
        Refusal::Banned => ApiError::Forbidden {
            code: ErrorCode::AccountBanned,
            message: "this account is banned from the shop and rewards".to_owned(),
        },
        Refusal::IdempotencyKeyReused => conflict(
            ErrorCode::IdempotencyKeyReused,
            "this Idempotency-Key was already used for a different request".to_owned(),
        ),
        Refusal::InsufficientFunds {
            currency,
            needed,
            balance,
        } => ApiError::InsufficientFunds {
            message: format!(
                "this costs {needed} {currency} and the account has {balance}",
                currency = currency.as_str()
            ),
        },
        Refusal::BalanceLimit { currency } => conflict(
            ErrorCode::BalanceLimit,
            format!("the account holds the most {} allowed", currency.as_str()),
        ),
        Refusal::AlreadyOwned(item) => conflict(
            ErrorCode::AlreadyOwned,
            format!(
                "the account already owns item {} ({})",
                item.0,
                catalog.item(item).map_or("?", |item| item.sku.as_str())
            ),
        ),
        Refusal::PackLimit(pack) => conflict(
            ErrorCode::PackLimit,
            format!(
                "the account holds the most unopened packs {} allowed",
                pack.0
            ),
        ),
        Refusal::NoPackToOpen(pack) => conflict(
            ErrorCode::NoPackToOpen,
            format!(
                "the account has no unopened pack {} ({})",
                pack.0,
                catalog.pack(pack).map_or("?", |pack| pack.sku.as_str())
            ),
        ),
        Refusal::NotOwned(item) => conflict(
            ErrorCode::NotOwned,
            format!(
                "the account does not own item {} ({}); nothing was removed",
                item.0,
                catalog.item(item).map_or("?", |item| item.sku.as_str())
            ),
        ),
        Refusal::NotEnoughPacks { pack, quantity } => conflict(
            ErrorCode::NotEnoughPacks,
            format!(
                "the account holds fewer than {quantity} unopened packs {} ({}); nothing was \
                 removed",
                pack.0,
                catalog.pack(pack).map_or("?", |pack| pack.sku.as_str())
            ),
        ),
        Refusal::AlreadyClaimed => conflict(
            ErrorCode::AlreadyClaimed,
            "this was already claimed; see `next_at` for when it can be claimed again".to_owned(),
        ),
        Refusal::OutsideWindow { starts, ends } => conflict(
            ErrorCode::DealClosed,
            format!(
                "this timed deal runs from {} to {} UTC",
                format_plain_datetime(starts),
                format_plain_datetime(ends)
            ),
        ),
        Refusal::ReceiptAlreadyUsed => conflict(
            ErrorCode::ReceiptAlreadyUsed,
            "this purchase was already redeemed; nothing more was granted".to_owned(),
        ),
        Refusal::NoChatLink => ApiError::Forbidden {
            code: ErrorCode::ChatLinkRequired,
            message: "this reward needs a linked chat-platform account with a premium \
                subscription; sign in with the chat platform first"
                .to_owned(),
        },
        Refusal::NotPremium => ApiError::Forbidden {
            code: ErrorCode::PremiumRequired,
            message: "this reward needs a premium subscription on the linked chat-platform \
                account"
                .to_owned(),
        },
        Refusal::SameFriendCodeName => conflict(
            ErrorCode::SameName,
            "the friend code already has this name".to_owned(),
        ),
        Refusal::FriendCodeTaken => conflict(
            ErrorCode::NameTaken,
            "every friend code with this name is taken; choose another name".to_owned(),
        ),
        Refusal::Stale => conflict(
            ErrorCode::ProgressChanged,
            "the account's progress kept changing while this was tried; try again".to_owned(),
        ),
        Refusal::Rejected(rejection) => ApiError::Rejected(rejection),
        Refusal::TrackAlreadyOwned(track) => conflict(
            ErrorCode::AlreadyOwned,
            format!(
                "the account already owns the pass of reward track {}",
                track.0
            ),
        ),
    }
}

/// `{status, user, rewards}`: the caller's account as it is now, with what the change granted.
#[derive(Serialize, ToSchema)]
pub(crate) struct ChangeAnswer<'a, T: Serialize = ()> {
    user: ApiUser<'a>,
    /// What the change granted (not on renames).
    #[serde(skip_serializing_if = "Option::is_none")]
    rewards: Option<Vec<RewardView<'a>>>,
    /// The endpoint's own fields (a claim's status after it), inline.
    #[serde(flatten)]
    #[schema(inline)]
    extra: T,
}

/// The answer to a change: `{status, user, rewards}` plus the fields of `extra`, with the
/// `Idempotent-Replayed: true` header on a repeat.
pub(crate) fn answer<T: Serialize>(
    app: &App,
    session: &Session,
    outcome: &Outcome,
    extra: T,
) -> Reply {
    answer_with(app, session, outcome, true, extra)
}

/// The answer to a change that grants nothing: `{status, user}`.
pub(crate) fn answer_user(app: &App, session: &Session, outcome: &Outcome) -> Reply {
    answer_with(app, session, outcome, false, ())
}

fn answer_with<T: Serialize>(
    app: &App,
    session: &Session,
    outcome: &Outcome,
    with_rewards: bool,
    extra: T,
) -> Reply {
    let published = app.content.current();
    let view = &outcome.view;
    let catalog = &published.content.catalog;
    let reply = Reply::success(&ChangeAnswer {
        user: ApiUser::of_view(&published.content, view, &session.key, session.expires),
        rewards: with_rewards.then(|| RewardView::all_granted(catalog, &outcome.granted)),
        extra,
    });
    if outcome.replayed {
        reply.with_header(http::HeaderName::from_static(IDEMPOTENT_REPLAYED), "true")
    } else {
        reply
    }
}

/// The caller's progress.
pub(crate) async fn progress_of(app: &App, account: AccountId) -> Result<Progress, ApiError> {
    app.store
        .progress(&[account])
        .await?
        .into_iter()
        .next()
        .map(|(_, progress)| progress)
        .ok_or(ApiError::InvalidUserKey)
}
