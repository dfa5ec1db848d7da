//! The statements, one module per area, written once for both databases (`$n` placeholders
//! work in SQLite too).

pub(crate) mod account_log;
pub(crate) mod accounts;
pub(crate) mod activity;
pub(crate) mod board_snapshots;
pub(crate) mod clans;
pub(crate) mod content;
pub(crate) mod economy;
pub(crate) mod events;
pub(crate) mod friends;
pub(crate) mod ledger_history;
pub(crate) mod match_browser;
pub(crate) mod matches;
pub(crate) mod operator;
pub(crate) mod operator_sessions;
pub(crate) mod player_directory;
pub(crate) mod polls;
pub(crate) mod presence;
pub(crate) mod purchases;
pub(crate) mod refusable;
pub(crate) mod tournaments;
pub(crate) mod webhook_replays;
