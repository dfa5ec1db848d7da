//! The `safezone-server-rocket` binary: announces its address, serves, stops on SIGTERM,
//! refuses a bad content file or an unusable database, answers every request target in JSON
//! without a panic, and logs JSON without secrets while serving metrics.

#[path = "../../tests/shared/binary_checks.rs"]
mod binary_checks;

binary_checks::for_binary!(env!("CARGO_BIN_EXE_safezone-server-rocket"));
