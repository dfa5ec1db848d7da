//! Reward tracks (season passes): `GET /api/reward/tracks`, `POST
//! /api/reward/tracks/{trackId}/buy` and `.../skip?tiers=` (also spelled `/api/reward/track/`),
//! and the obsolete mid-season endpoints, which answer that nothing is available.

use std::borrow::Cow;

use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::shared::change::ChangeAnswer;
use super::shared::{change, session};
use super::views::RewardView;
use crate::App;
use crate::content::{Content, RewardTrack};
use crate::domain::{ApiDate, ChallengeId, EvolutionId, TrackId};
use crate::http::params::{PositiveId, WholeNumber, parameters};
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::openapi::{
    ErrorBody, IdempotencyKey, InsufficientFunds, KeyMismatch, PresentedUserKeyInvalid, Success,
    UserKeyRequired,
};
use crate::progression::{
    TrackRefusal, challenge_counter, plan_track_buy, plan_track_skip, track_counter,
};
use crate::store::{AccountId, Progress};

/// `{status, tracks}`.
#[derive(Serialize, ToSchema)]
struct TracksAnswer<'a> {
    tracks: Vec<TrackView<'a>>,
}

/// A track as the wire contract shapes it.
#[derive(Serialize, ToSchema)]
struct TrackView<'a> {
    id: TrackId,
    #[schema(value_type = String)]
    name: Cow<'a, str>,
    season: i64,
    max_level: i64,
    max_tier: i64,
    cost_coins: i64,
    cost_gems: i64,
    cost_gems_per_tier: i64,
    is_stock: bool,
    is_repeatable: bool,
    created: ApiDate,
    expires: ApiDate,
    tiers: Vec<TierView<'a>>,
    challenges: Vec<ChallengeView<'a>>,
    evolutions: Vec<EvolutionView<'a>>,
    /// The caller's standing; null without a key.
    personal: Option<PersonalTrack>,
}

/// `{id, track_id, tier, rewards}`; a tier's id is `track id * 1000 + tier`.
#[derive(Serialize, ToSchema)]
struct TierView<'a> {
    id: i64,
    track_id: TrackId,
    tier: i64,
    rewards: Vec<RewardView<'a>>,
}

/// `{id, track_id, name, stat_key, required, reward, created, personal}`; the reward is stars.
#[derive(Serialize, ToSchema)]
struct ChallengeView<'a> {
    id: ChallengeId,
    track_id: TrackId,
    name: &'a str,
    stat_key: &'a str,
    required: i64,
    reward: StarReward,
    created: ApiDate,
    personal: Option<PersonalChallenge>,
}

/// `{type: "star", quantity}`.
#[derive(Serialize, ToSchema)]
struct StarReward {
    /// Always `star`.
    #[serde(rename = "type")]
    #[schema(pattern = "^star$")]
    kind: &'static str,
    quantity: i64,
}

/// `{id, user_id, challenge_id, value, is_completed}` (`id` is the challenge's).
#[derive(Serialize, ToSchema)]
struct PersonalChallenge {
    id: ChallengeId,
    user_id: i64,
    challenge_id: ChallengeId,
    value: i64,
    is_completed: bool,
}

/// `{id, track_id, required_item_sku, name, stat_key, required, reward}`.
#[derive(Serialize, ToSchema)]
struct EvolutionView<'a> {
    id: EvolutionId,
    track_id: TrackId,
    required_item_sku: &'a str,
    name: &'a str,
    stat_key: &'a str,
    required: i64,
    reward: RewardView<'a>,
}

/// The caller's standing on a track (`id` is the track's).
#[derive(Serialize, ToSchema)]
struct PersonalTrack {
    id: TrackId,
    user_id: i64,
    track_id: TrackId,
    experience: i64,
    level: i64,
    stars: i64,
    tier: i64,
    has_discount_available: bool,
    #[serde(rename = "progressionTier")]
    progression_tier: TierProgress,
    #[serde(rename = "progressionLevel")]
    progression_level: LevelProgress,
}

/// Stars within the current tier and what the next tier needs (`0, 0` at the last tier).
#[derive(Serialize, ToSchema)]
struct TierProgress {
    #[serde(rename = "currentStars")]
    current_stars: i64,
    #[serde(rename = "requiredStars")]
    required_stars: i64,
}

/// Experience within the current level and what the next level needs (`0, 0` at the last
/// level).
#[derive(Serialize, ToSchema)]
struct LevelProgress {
    #[serde(rename = "currentExperience")]
    current_experience: i64,
    #[serde(rename = "requiredExperience")]
    required_experience: i64,
}

/// `GET /api/reward/tracks` (key optional): `{status, tracks}`, the tracks whose season runs
/// now, with `personal` standings when a key comes with the request (null otherwise).
#[utoipa::path(
    get,
    path = "/api/reward/tracks",
    tag = "progression",
    operation_id = "rewardTracks",
    description = "The reward tracks (season passes) whose season runs now, with the caller's \
        standing on each when a key comes with the request.",
    responses(
        (status = 200, description = "The tracks", body = Success<TracksAnswer>),
        (status = 401, response = PresentedUserKeyInvalid),
        (status = 403, response = KeyMismatch),
    )
)]
pub(super) async fn list(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let published = app.content.current();
    let session = session::optional(&app, &incoming).await?;
    let progress = match &session {
        Some(session) => Some((
            session.account.id,
            change::progress_of(&app, session.account.id).await?,
        )),
        None => None,
    };
    let now = app.clock.now();
    let running: Vec<_> = published.content.tracks_at(now).collect();
    let tracks = running
        .iter()
        .map(|track| track_view(&published.content, track, progress.as_ref(), now))
        .collect();
    Ok(Reply::success(&TracksAnswer { tracks }))
}

parameters! {
    /// The reward track of the path.
    struct TrackPath {
        /// The reward track
        track: PositiveId = Path "trackId",
    }
}

parameters! {
    /// The query of `POST /api/reward/tracks/{trackId}/skip`.
    struct SkipQuery {
        /// How many tiers to skip: 1 to the track's `max_tier`
        tiers: WholeNumber<1, { i64::MAX }> = Query "tiers",
    }
}

/// `POST /api/reward/tracks/{trackId}/buy` (key required): buys the track's pass once (at the
/// discounted price while it runs) and grants the rewards of the tiers already reached;
/// `{status, user, rewards}`.
#[utoipa::path(
    post,
    path = "/api/reward/tracks/{trackId}/buy",
    tag = "progression",
    operation_id = "buyTrack",
    description = "Buys a reward track's pass, once (at the discounted price while the discount \
        runs), and grants the rewards of the tiers already reached. Also served at \
        `/api/reward/track/{trackId}/buy`.",
    params(TrackPath, IdempotencyKey),
    responses(
        (status = 200, description = "Done: the caller's account as it is now and the rewards \
            granted", body = Success<ChangeAnswer>),
        (status = 400, description = "An invalid `trackId` (`invalid_parameter`) or \
            `Idempotency-Key` (`invalid_header`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 402, response = InsufficientFunds),
        (status = 403, description = "The account is banned from the shop and rewards \
            (`account_banned`), or keys of two accounts (`key_mismatch`)", body = ErrorBody),
        (status = 404, description = "No such reward track (`track_not_found`)", body = ErrorBody),
        (status = 409, description = "The track is not running (`track_closed`), is free \
            (`not_for_sale`) or owned already (`already_owned`), a grant passes a limit \
            (`balance_limit`, `pack_limit`), the key was used for another request \
            (`idempotency_key_reused`), or progress kept changing (`progress_changed`)", body = ErrorBody),
    )
)]
pub(super) async fn buy(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let published = app.content.current();
    let session = session::required(&app, &incoming).await?;
    let track = track_of(&published.content, TrackPath::read(&incoming)?.track)?;
    let now = app.clock.now();
    let outcome = change::apply_planned(
        &app,
        &incoming.headers,
        &session,
        "track",
        format!("buy:{}", track.id.0),
        |progress| {
            plan_track_buy(&published.content, &track, progress, now)
                .map_err(|refusal| refused(&track, refusal))
        },
        change::unadjusted,
    )
    .await?;
    Ok(change::answer(&app, &session, &outcome, ()))
}

/// `POST /api/reward/tracks/{trackId}/skip?tiers=` (key required): charges
/// `cost_gems_per_tier` gems per tier, moves the track on by `tiers` tiers (never past its
/// last) and grants their rewards; `{status, user, rewards}`.
#[utoipa::path(
    post,
    path = "/api/reward/tracks/{trackId}/skip",
    tag = "progression",
    operation_id = "skipTrackTiers",
    description = "Charges `cost_gems_per_tier` gems per tier, moves an owned track on by \
        `tiers` tiers (never past its last) and grants their rewards. Also served at \
        `/api/reward/track/{trackId}/skip`.",
    params(
        TrackPath,
        SkipQuery,
        IdempotencyKey,
    ),
    responses(
        (status = 200, description = "Done: the caller's account as it is now and the rewards \
            granted", body = Success<ChangeAnswer>),
        (status = 400, description = "An invalid `trackId`, a missing or invalid `tiers` \
            (`missing_parameter`, `invalid_parameter`) or `Idempotency-Key` \
            (`invalid_header`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 402, response = InsufficientFunds),
        (status = 403, description = "The account is banned from the shop and rewards \
            (`account_banned`), or keys of two accounts (`key_mismatch`)", body = ErrorBody),
        (status = 404, description = "No such reward track (`track_not_found`)", body = ErrorBody),
        (status = 409, description = "The track is not running (`track_closed`), not owned \
            (`track_not_owned`) or not skippable (`not_skippable`), fewer tiers are left \
            (`past_max_tier`), a grant passes a limit (`balance_limit`, `pack_limit`), the key \
            was used for another request (`idempotency_key_reused`), or progress kept changing \
            (`progress_changed`)", body = ErrorBody),
    )
)]
pub(super) async fn skip(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let published = app.content.current();
    let session = session::required(&app, &incoming).await?;
    let track = track_of(&published.content, TrackPath::read(&incoming)?.track)?;
    let tiers = SkipQuery::read(&incoming)?.tiers.0;
    if tiers > track.max_tier {
        return Err(ApiError::invalid(
            "tiers",
            format!("must be a whole number from 1 to {}", track.max_tier),
        ));
    }
    let now = app.clock.now();
    let outcome = change::apply_planned(
        &app,
        &incoming.headers,
        &session,
        "track",
        format!("skip:{}:{tiers}", track.id.0),
        |progress| {
            plan_track_skip(&published.content, &track, progress, tiers, now)
                .map_err(|refusal| refused(&track, refusal))
        },
        change::unadjusted,
    )
    .await?;
    Ok(change::answer(&app, &session, &outcome, ()))
}

/// `{status, is_available, cost_gems}` of the obsolete mid-season endpoints: never available.
#[derive(Serialize, ToSchema)]
struct MidSeasonAnswer {
    /// Always false: there is no mid-season track to buy.
    is_available: bool,
    /// Always 0.
    #[schema(minimum = 0, maximum = 0)]
    cost_gems: u32,
}

/// `GET /api/reward/tracks/mid-season` and `POST .../mid-season/buy`: obsolete, they answer
/// `{status: "success", is_available: false, cost_gems: 0}` (the wire contract's shape, which
/// existing clients parse) and change nothing. A key, good or bad, is not read: the answer is
/// the same for everyone.
#[utoipa::path(
    get,
    path = "/api/reward/tracks/mid-season",
    tag = "progression",
    operation_id = "midSeasonTrack",
    description = "Obsolete: there is no mid-season track. Answers `is_available: false` and \
        `cost_gems: 0` to everyone, without reading a key, and changes nothing; buy a track \
        with `/api/reward/tracks/{trackId}/buy`. Also `POST /api/reward/tracks/mid-season/buy`.",
    responses(
        (status = 200, description = "Never available", body = Success<MidSeasonAnswer>),
    )
)]
pub(super) async fn mid_season(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    Ok(Reply::success(&MidSeasonAnswer {
        is_available: false,
        cost_gems: 0,
    }))
}

/// The track named by the `trackId` path segment (a run of a repeating track, running or not);
/// 404 when the content has none.
fn track_of(content: &Content, id: PositiveId) -> Result<Cow<'_, RewardTrack>, ApiError> {
    let id = TrackId(id.0);
    content.track(id).ok_or_else(|| ApiError::NotFound {
        code: ErrorCode::TrackNotFound,
        message: format!("there is no reward track {}", id.0),
    })
}

/// A refusal made before trying, as the API error a client sees.
fn refused(track: &RewardTrack, refusal: TrackRefusal) -> ApiError {
    let conflict = |code, message: String| ApiError::Conflict { code, message };
    match refusal {
        TrackRefusal::NotRunning => conflict(
            ErrorCode::TrackClosed,
            format!("reward track {} is not running now", track.id.0),
        ),
        TrackRefusal::Free => conflict(
            ErrorCode::NotForSale,
            format!("reward track {} is free: every player has it", track.id.0),
        ),
        TrackRefusal::NotOwned => conflict(
            ErrorCode::TrackNotOwned,
            format!("buy reward track {} before skipping its tiers", track.id.0),
        ),
        TrackRefusal::NotSkippable => conflict(
            ErrorCode::NotSkippable,
            format!("the tiers of reward track {} cannot be bought", track.id.0),
        ),
        TrackRefusal::PastMaxTier { available } => conflict(
            ErrorCode::PastMaxTier,
            format!(
                "reward track {} has {available} tiers left to skip (it ends at tier {})",
                track.id.0, track.max_tier
            ),
        ),
    }
}

fn track_view<'a>(
    content: &'a Content,
    track: &'a RewardTrack,
    progress: Option<&(AccountId, Progress)>,
    now: OffsetDateTime,
) -> TrackView<'a> {
    let catalog = &content.catalog;
    let price = track.price_at(now);
    TrackView {
        id: track.id,
        name: track.shown_name(),
        season: track.season,
        max_level: track.max_level,
        max_tier: track.max_tier,
        cost_coins: price.coins,
        cost_gems: price.gems,
        cost_gems_per_tier: track.cost_gems_per_tier,
        is_stock: track.is_stock,
        is_repeatable: track.is_repeatable,
        created: ApiDate(track.starts),
        expires: ApiDate(track.ends),
        tiers: track
            .tiers
            .iter()
            .map(|tier| TierView {
                id: track.id.0 * 1000 + tier.tier,
                track_id: track.id,
                tier: tier.tier,
                rewards: RewardView::all_promised(catalog, &tier.rewards),
            })
            .collect(),
        challenges: track
            .challenges
            .iter()
            .map(|challenge| ChallengeView {
                id: challenge.id,
                track_id: track.id,
                name: &challenge.name,
                stat_key: &challenge.stat_key,
                required: challenge.required,
                reward: StarReward {
                    kind: "star",
                    quantity: challenge.stars,
                },
                created: ApiDate(track.starts),
                personal: progress.map(|(account, progress)| {
                    let value = progress.counter(&challenge_counter(challenge.id));
                    PersonalChallenge {
                        id: challenge.id,
                        user_id: account.0,
                        challenge_id: challenge.id,
                        value,
                        is_completed: value >= challenge.required,
                    }
                }),
            })
            .collect(),
        evolutions: track
            .evolutions
            .iter()
            .map(|evolution| EvolutionView {
                id: evolution.id,
                track_id: track.id,
                required_item_sku: catalog
                    .item(evolution.required_item)
                    .map_or("", |item| item.sku.as_str()),
                name: &evolution.name,
                stat_key: &evolution.stat_key,
                required: evolution.required,
                reward: RewardView::promised(catalog, &evolution.reward),
            })
            .collect(),
        personal: progress.map(|(account, progress)| personal(track, *account, progress, now)),
    }
}

fn personal(
    track: &RewardTrack,
    account: AccountId,
    progress: &Progress,
    now: OffsetDateTime,
) -> PersonalTrack {
    let experience = progress.counter(&track_counter(track.id, "experience"));
    let stars = progress.counter(&track_counter(track.id, "stars"));
    let level = track.level_for(experience);
    let tier = track.tier_for(stars);
    let owned = track.is_stock || progress.track_passes.contains(&track.id);
    let at_last_level = level >= track.max_level;
    let at_last_tier = tier >= track.max_tier && !track.is_repeatable;
    PersonalTrack {
        id: track.id,
        user_id: account.0,
        track_id: track.id,
        experience,
        level,
        stars,
        tier,
        has_discount_available: !owned
            && track
                .discount
                .as_ref()
                .is_some_and(|discount| now < discount.ends),
        progression_tier: {
            let (current_stars, required_stars) =
                within_step(stars, tier, track.stars_per_tier, at_last_tier);
            TierProgress {
                current_stars,
                required_stars,
            }
        },
        progression_level: {
            let (current_experience, required_experience) =
                within_step(experience, level, track.experience_per_level, at_last_level);
            LevelProgress {
                current_experience,
                required_experience,
            }
        },
    }
}

/// Progress within the current step of a track (a tier of stars, a level of experience):
/// `(total - steps * per_step, per_step)`, or `(0, 0)` at the last step.
fn within_step(total: i64, steps: i64, per_step: i64, at_last: bool) -> (i64, i64) {
    if at_last {
        (0, 0)
    } else {
        (total - steps * per_step, per_step)
    }
}
