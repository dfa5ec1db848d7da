//! The crash-safety check of a server binary, written once for both: concurrent money
//! operations while the server is killed with SIGKILL and restarted on the same database, then
//! the database read directly to show that no acknowledged operation was lost and nothing was
//! applied twice.
//!
//! Each server crate's `tests/crash.rs` includes this file as module `crash_checks` (with
//! `#[path]`; only there does `env!("CARGO_BIN_EXE_...")` name the binary) and calls
//! [`for_binary!`] with its binary's path: one test on a fresh SQLite file, one on a fresh
//! PostgreSQL database. Its modules live in `crash_checks/`: the server process (`server`), the
//! accounts and operations (`workload`), the clients and the run's counters (`clients`), the
//! database read after the run (`database`) and the checks (`checks`). Two more tests per
//! binary kill it inside the boards' snapshot and the retention sweep
//! (`boards_and_retention`).
//!
//! The run: [`workload::ACCOUNTS`] device accounts are signed up and funded with the operator's
//! `grant` subcommand; then [`workload::WORKERS_PER_ACCOUNT`] clients per account send
//! [`workload::OPS_PER_WORKER`] money operations each (item, pack and deal purchases, pack
//! openings, reward claims, renames that cost gems, a track pass, track tiers skipped for gems),
//! every one with its own `Idempotency-Key`, some sent twice at once (a double click). The
//! server is killed [`KILLS`] times at random points of the run, each time while requests are in
//! flight, and restarted at once on the same database; a request left unanswered (or answered
//! 5xx) is sent again with the same key until it is answered. Then, from the database alone: the
//! SQLite file is intact, every balance is the sum of its ledger, no count is negative, every
//! ledger row and every pack, item, claim, track pass and track star comes from exactly one
//! applied key, and every acknowledged key was applied. The figures of the run are printed to
//! standard error.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use safezone_storage::test_support;

#[path = "crash_checks/boards_and_retention.rs"]
mod boards_and_retention;
#[path = "crash_checks/checks.rs"]
mod checks;
#[path = "crash_checks/clients.rs"]
mod clients;
#[path = "crash_checks/database.rs"]
mod database;
#[path = "crash_checks/operator.rs"]
mod operator;
#[path = "crash_checks/server.rs"]
mod server;
#[path = "crash_checks/workload.rs"]
mod workload;

use checks::check;
use clients::{Figures, Sender};
use database::Stored;
use server::Server;
use workload::{fund, plan_ops, sign_up};

/// Generates the crash test of the binary at `$binary` on SQLite and on PostgreSQL.
///
/// The including crate must declare this file as the module `crash_checks` at its root.
macro_rules! for_binary {
    ($binary:expr) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn money_survives_sigkill_on_sqlite() {
            $crate::crash_checks::on_sqlite($binary).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn money_survives_sigkill_on_postgres() {
            $crate::crash_checks::on_postgres($binary).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn boards_and_retention_survive_sigkill_on_sqlite() {
            $crate::crash_checks::boards_and_retention_on_sqlite($binary).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn boards_and_retention_survive_sigkill_on_postgres() {
            $crate::crash_checks::boards_and_retention_on_postgres($binary).await;
        }
    };
}
pub(crate) use for_binary;

/// Times the server is killed with SIGKILL during the run.
const KILLS: usize = 4;

/// The crash test on a fresh SQLite file.
pub async fn on_sqlite(binary: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = test_support::fresh_sqlite_url(dir.path());
    run(binary, &url, "SQLite").await;
}

/// The crash test on a fresh PostgreSQL database, dropped afterwards.
pub async fn on_postgres(binary: &str) {
    let url = test_support::fresh_postgres_url().await;
    run(binary, &url, "PostgreSQL").await;
    test_support::drop_postgres_database(&url).await;
}

/// The kills inside the boards' snapshot and the retention sweep
/// ([`boards_and_retention`]) on a fresh SQLite file.
pub async fn boards_and_retention_on_sqlite(binary: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = test_support::fresh_sqlite_url(dir.path());
    boards_and_retention::run(binary, &url).await;
}

/// The same on a fresh PostgreSQL database, dropped afterwards.
pub async fn boards_and_retention_on_postgres(binary: &str) {
    let url = test_support::fresh_postgres_url().await;
    boards_and_retention::run(binary, &url).await;
    test_support::drop_postgres_database(&url).await;
}

/// One run on the database at `url`: sign-ups, funding, the clients' operations with
/// [`KILLS`] kills and restarts, then the checks.
async fn run(binary: &str, url: &str, database: &str) {
    let started = Instant::now();
    let seed: u64 = rand::random();
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut server, addresses) = Server::launch(binary, url);
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(15))
        .build()
        .expect("an HTTP client");
    let accounts = sign_up(&client, &addresses).await;
    fund(binary, url, &accounts);
    let secret = operator::token(binary, url);
    let granting = Arc::new(operator::Granting::default());
    let operators = operator::spawn(&client, &addresses, &accounts, &secret, &granting);

    let ops = plan_ops(&accounts, &mut rng);
    let total = ops.iter().map(Vec::len).sum::<usize>();
    let figures = Arc::new(Figures::default());
    let sender = Sender {
        client,
        addresses,
        figures: Arc::clone(&figures),
    };
    let workers: Vec<_> = ops
        .into_iter()
        .map(|ops| tokio::spawn(sender.clone().work(ops)))
        .collect();
    kill_while_sending(&mut server, &figures, total, &mut rng).await;
    let mut answers = Vec::with_capacity(total);
    for worker in workers {
        answers.extend(worker.await.expect("a client finishes"));
    }
    granting.stop.store(true, Ordering::SeqCst);
    for operator in operators {
        operator.await.expect("an operator client finishes");
    }
    server.kill();

    let stored = Stored::read(url).await;
    let checked = check(&stored, &accounts, &answers);
    let granted = operator::check(&stored, &granting);
    figures.print(binary, database, seed, total, checked, started.elapsed());
    eprintln!(
        "operator grants racing the kills: {} sent, {} acknowledged, {granted} applied, each \
         with exactly one audit row and one operator_action event",
        granting.sent.load(Ordering::SeqCst),
        granting.acknowledged.lock().expect("a lock").len()
    );
    let in_flight = figures.in_flight_at_kills.load(Ordering::SeqCst);
    assert!(in_flight > 0, "no request was in flight at any kill");
}

/// Kills the server [`KILLS`] times while the clients settle their `total` operations, each
/// kill at a random point of its own slice of the run, and starts it again at once.
async fn kill_while_sending(
    server: &mut Server,
    figures: &Figures,
    total: usize,
    rng: &mut StdRng,
) {
    let slice = total as f64 / (KILLS + 1) as f64;
    for kill in 0..KILLS {
        let due = (slice * (kill as f64 + rng.random_range(0.3..1.0))) as u64;
        while figures.settled.load(Ordering::SeqCst) < due {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let in_flight = figures.in_flight.load(Ordering::SeqCst);
        figures
            .in_flight_at_kills
            .fetch_add(in_flight, Ordering::SeqCst);
        server.kill();
        server.start();
    }
}
