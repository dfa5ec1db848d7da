//! The behaviour suite: every endpoint over real HTTP, on warp and rocket, SQLite and PostgreSQL.

mod account;
mod config;
mod device;
mod health_and_metrics;
mod routing;
