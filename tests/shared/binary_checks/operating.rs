//! Operating a node: the schema's migrations (`migrate status`, `migrate apply`), operator
//! commands and `--no-migrate` refusing a schema that is behind, the operator listener's
//! probes, `backup`, and the database tried again at start.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use safezone_storage::test_support;
use sqlx::{Connection, PgConnection, SqliteConnection};

use super::{Running, announced_lines, exchange, send, stop_with_sigterm};

/// The exit code of `migrate status` while migrations are pending.
const PENDING: i32 = 3;

/// Runs the binary with `args` on the database at `url`.
fn run(binary: &str, url: &str, args: &[&str]) -> Output {
    Command::new(binary)
        .args(["--database-url", url])
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs")
}

/// The tables of the PostgreSQL database at `url`.
async fn postgres_tables(url: &str) -> i64 {
    let mut connection = PgConnection::connect(url).await.expect("a connection");
    sqlx::query_scalar(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
    )
    .fetch_one(&mut connection)
    .await
    .expect("the tables counted")
}

/// On a fresh SQLite file and a fresh PostgreSQL database: `migrate status` reports every
/// migration pending (exit 3); an operator command and a server started with `--no-migrate`
/// refuse with exit 1, saying to run `migrate apply`, and create nothing; `migrate apply`
/// applies every migration and `status` then reports up to date (exit 0); a node started
/// with `--no-migrate` then serves, and its operator listener answers `/healthz` and `/readyz`
/// 200.
pub async fn migrations_are_explicit_for_operators(binary: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("fresh.db");
    let sqlite = format!("sqlite://{}", file.display());
    let postgres = test_support::fresh_postgres_url().await;
    for url in [&sqlite, &postgres] {
        let nothing_created = async || {
            if url == &sqlite {
                assert!(!file.exists(), "{url}: the file was created");
            } else {
                assert_eq!(postgres_tables(url).await, 0, "{url}: tables were created");
            }
        };
        let status = run(binary, url, &["migrate", "status"]);
        let stdout = String::from_utf8_lossy(&status.stdout);
        assert_eq!(status.status.code(), Some(PENDING), "{status:?}");
        assert!(stdout.contains("pending 0001 accounts"), "{stdout}");
        assert!(!stdout.contains("applied"), "{stdout}");
        nothing_created().await;

        let refused = run(binary, url, &["make-admin", "--to", "Nobody#0001"]);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(1), "{refused:?}");
        assert!(stderr.contains("schema is behind"), "{stderr}");
        assert!(stderr.contains("run `migrate apply`"), "{stderr}");
        nothing_created().await;

        let refused = run(binary, url, &["--listen", "127.0.0.1:0", "--no-migrate"]);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(1), "{refused:?}");
        assert!(stderr.contains("run `migrate apply`"), "{stderr}");
        assert!(refused.stdout.is_empty(), "{refused:?}");
        nothing_created().await;

        let applied = run(binary, url, &["migrate", "apply"]);
        let stdout = String::from_utf8_lossy(&applied.stdout);
        assert_eq!(applied.status.code(), Some(0), "{applied:?}");
        assert!(stdout.contains("applied 0001 accounts"), "{stdout}");
        let again = run(binary, url, &["migrate", "apply"]);
        assert_eq!(again.status.code(), Some(0), "{again:?}");
        assert!(!String::from_utf8_lossy(&again.stdout).contains("applied 0"));
        let status = run(binary, url, &["migrate", "status"]);
        let stdout = String::from_utf8_lossy(&status.stdout);
        assert_eq!(status.status.code(), Some(0), "{status:?}");
        assert!(stdout.contains("applied 0001 accounts"), "{stdout}");
        assert!(stdout.contains("up to date"), "{stdout}");
        assert!(!stdout.contains("pending"), "{stdout}");

        let child = Command::new(binary)
            .args(["--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"])
            .args(["--database-url", url, "--no-migrate"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary starts");
        let mut running = Running(child);
        let announced = announced_lines(&mut running.0, 2);
        let operator = announced[1].as_str();
        assert_eq!(send(operator, "GET", "/healthz", &[]).status, 200);
        // The boards load in a task of their own: ready once they are.
        let deadline = Instant::now() + Duration::from_secs(30);
        let ready = loop {
            let answer = send(operator, "GET", "/readyz", &[]);
            if answer.status == 200 || Instant::now() > deadline {
                break answer;
            }
            assert_eq!(answer.status, 503, "{}", answer.body);
            std::thread::sleep(Duration::from_millis(50));
        };
        assert_eq!(ready.status, 200, "{}", ready.body);
        assert_eq!(ready.header("content-type"), Some("application/json"));
        let body: serde_json::Value = serde_json::from_str(&ready.body).expect("JSON");
        assert_eq!(body["ready"], true, "{body}");
        assert_eq!(body["checks"]["database"], "ok", "{body}");
        assert_eq!(body["checks"]["leaderboards"], "ok", "{body}");
        // The probes are the operator's: the public port does not serve them.
        let public = exchange(&announced[0], "GET", "/readyz");
        assert!(public.starts_with("HTTP/1.1 404"), "{public}");
        assert!(stop_with_sigterm(&mut running).success());
    }
    test_support::drop_postgres_database(&postgres).await;
}

/// `backup --to PATH` copies a SQLite database that a node serves into a file holding the
/// same accounts, refuses an existing file, and points PostgreSQL to `pg_dump`.
pub async fn backup_copies_sqlite_and_refuses_postgres(binary: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = format!("sqlite://{}", dir.path().join("live.db").display());
    let child = Command::new(binary)
        .args(["--listen", "127.0.0.1:0", "--database-url", &url])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let mut running = Running(child);
    let address = announced_lines(&mut running.0, 1).remove(0);
    for device in ["backup-device-one", "backup-device-two"] {
        let answer = send(
            &address,
            "POST",
            &format!("/api/validate/device/ios-{device}"),
            &[],
        );
        assert_eq!(answer.status, 200, "{}", answer.body);
    }

    // Online: the node still serves while the copy is written.
    let copy = dir.path().join("copy.db");
    let copy_arg = copy.to_str().expect("a UTF-8 path");
    let backup = run(binary, &url, &["backup", "--to", copy_arg]);
    assert_eq!(backup.status.code(), Some(0), "{backup:?}");
    assert!(String::from_utf8_lossy(&backup.stdout).contains("backed up to"));
    assert!(stop_with_sigterm(&mut running).success());

    let accounts = async |url: &str| -> Vec<(i64, String, String)> {
        let mut connection = SqliteConnection::connect(url).await.expect("opened");
        sqlx::query_as("SELECT id, identifier, friend_name FROM accounts ORDER BY id")
            .fetch_all(&mut connection)
            .await
            .expect("the accounts read")
    };
    let copied = accounts(&format!("sqlite://{copy_arg}")).await;
    assert_eq!(copied.len(), 2, "{copied:?}");
    assert_eq!(copied, accounts(&url).await);

    let refused = run(binary, &url, &["backup", "--to", copy_arg]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("exists already"));

    let postgres = test_support::fresh_postgres_url().await;
    let target = dir.path().join("never.db");
    let refused = run(
        binary,
        &postgres,
        &["backup", "--to", target.to_str().expect("a UTF-8 path")],
    );
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("pg_dump"));
    assert!(!target.exists());
    test_support::drop_postgres_database(&postgres).await;
}

/// A database that cannot be reached at start is tried again, each failure logged as a
/// warning, until `--database-connect-timeout-secs` has passed; then the node exits with 1.
pub fn an_unreachable_database_is_tried_again_until_the_timeout(binary: &str) {
    let started = Instant::now();
    let output = run(
        binary,
        // Nothing listens on port 1: the connection is refused at once.
        "postgres://postgres@127.0.0.1:1/safezone",
        &[
            "--listen",
            "127.0.0.1:0",
            "--database-connect-timeout-secs",
            "1",
        ],
    );
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(stderr.matches(" WARN ").count() >= 2, "{stderr}");
    assert!(stderr.contains("trying again"), "{stderr}");
    assert!(stderr.contains("cannot open the database"), "{stderr}");
    // The error names the server it tried, so that an operator sees a wrong host or port.
    assert!(
        stderr.contains("`safezone` at 127.0.0.1:1 as `postgres`"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty(), "{output:?}");
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(10),
        "{took:?}"
    );
}
