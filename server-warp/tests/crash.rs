//! The `safezone-server-warp` binary keeps every acknowledged money operation and applies none
//! twice while it is killed with SIGKILL and restarted, on SQLite and on PostgreSQL.

#[path = "../../tests/shared/crash_checks.rs"]
mod crash_checks;

crash_checks::for_binary!(env!("CARGO_BIN_EXE_safezone-server-warp"));
