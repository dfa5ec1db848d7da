//! The behaviour suite: every endpoint over real HTTP, on warp and rocket, SQLite and PostgreSQL.

mod account;
mod admin;
mod bans;
mod buy;
mod clans;
mod config;
mod device;
mod economy_concurrency;
mod friend_code;
mod grant;
mod health_and_metrics;
mod idempotency;
mod leaderboards;
mod match_concurrency;
mod matches;
mod packs;
mod polls;
mod profiles;
mod quests;
mod rewards;
mod routing;
mod shop;
mod tournaments;
mod tracks;
mod traffic;
mod whitelist;
