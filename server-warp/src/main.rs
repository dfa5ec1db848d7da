//! `safezone-server-warp`: the Safezone server on warp, configured by flags or environment
//! (`--help` lists them).
//!
//! Prints `safezone listening on http://ADDR` on standard output once it accepts requests;
//! stops gracefully on Ctrl-C or SIGTERM. Exit codes: 0 after a stop, 1 when the database or
//! the address cannot be used, 2 for a bad content file or command line, 3 for `migrate status`
//! with migrations pending.

use std::process::ExitCode;

/// mimalloc instead of the system's allocator: a request allocates and frees many small
/// buffers, and glibc's allocator took 10 to 15% of the server's CPU time on them (see
/// BENCHMARKS.md, issue 20). It is built without transparent huge pages (the workspace's
/// `no_thp` feature): with them, each 2 MiB region it touched became a whole resident huge
/// page, and a node's RSS grew in steps through the day run's hour (BENCHMARKS.md, issue 28).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    safezone_core::cli::run_server(
        safezone_core::binary!(),
        safezone_storage::Databases,
        safezone_server_warp::start,
    )
    .await
}
