//! The paths of polls, tournaments, clans, matches, quests, reward tracks, leaderboards and
//! profiles.

mod names;

use utoipa::OpenApi;
use utoipa::openapi::path::HttpMethod;

use super::aliases::Aliases;

use crate::api::{
    clans, leaderboard, matches, polls, profile, quests, tournaments, tracks, whitelist,
};
use crate::domain::GameMode;
use crate::leaderboard::{Category, TimeWindow};

/// The community and progression side of the API.
#[derive(OpenApi)]
#[openapi(
    paths(
        polls::available,
        polls::vote,
        tournaments::check,
        tournaments::join,
        whitelist::list,
        whitelist::update,
        clans::available,
        clans::create,
        clans::invite,
        clans::join,
        clans::leave,
        matches::report,
        quests::available,
        tracks::list,
        tracks::buy,
        tracks::skip,
        tracks::mid_season,
        leaderboard::live,
        profile::profile,
    ),
    // The schemas that only parameters name (responses and bodies bring their own).
    components(schemas(GameMode, TimeWindow, Category)),
    modifiers(&ALIASES),
    tags(
        (name = "polls", description = "The operator's polls"),
        (name = "tournaments", description = "Tournaments: status, joining, whitelists"),
        (name = "clans", description = "Clans (obsolete in the client, still served)"),
        (name = "matches", description = "The game servers' match reports"),
        (name = "progression", description = "Quests and reward tracks (season passes)"),
        (name = "leaderboards", description = "Live leaderboards and public profiles"),
    )
)]
pub(super) struct CommunityApi;

/// Every alias of the routing table on this side of the API.
pub(super) const ALIASES: Aliases = Aliases(&[
    (
        "/api/tournament/{tournamentCode}/join",
        HttpMethod::Get,
        "/api/{tournamentCode}/join",
        HttpMethod::Get,
        "checkTournamentShort",
    ),
    (
        "/api/leaderboard/live",
        HttpMethod::Get,
        "/api/leaderboard",
        HttpMethod::Get,
        "leaderboard",
    ),
    (
        "/api/reward/tracks/{trackId}/buy",
        HttpMethod::Post,
        "/api/reward/track/{trackId}/buy",
        HttpMethod::Post,
        "buyTrackSingular",
    ),
    (
        "/api/reward/tracks/{trackId}/skip",
        HttpMethod::Post,
        "/api/reward/track/{trackId}/skip",
        HttpMethod::Post,
        "skipTrackTiersSingular",
    ),
    (
        "/api/reward/tracks/mid-season",
        HttpMethod::Get,
        "/api/reward/tracks/mid-season/buy",
        HttpMethod::Post,
        "buyMidSeasonTrack",
    ),
]);

#[cfg(test)]
mod tests;
