//! Fresh databases for tests (feature `test-support`): every test gets its own.

use std::path::Path;

use safezone_core::domain::{FriendCode, UserKey};
use safezone_core::store::{Account, KeyLookup, NewSignIn, SignedIn, Store};
use sqlx::{AssertSqlSafe, Connection, PgConnection};
use time::OffsetDateTime;
use uuid::Uuid;

/// The environment variable naming the PostgreSQL server tests create their databases on.
pub const POSTGRES_URL_VAR: &str = "SAFEZONE_TEST_POSTGRES_URL";
/// The server used when [`POSTGRES_URL_VAR`] is unset.
pub const DEFAULT_POSTGRES_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// Signs up a device account with the friend code `code` (`Name#0001`) at `now`: identifier
/// `device-{code}`, the code's name as display name.
///
/// # Panics
///
/// When `code` is not a friend code or the store refuses the sign-in.
pub async fn new_account(store: &dyn Store, code: &str, now: OffsetDateTime) -> Account {
    let friend_code =
        FriendCode::parse(code).unwrap_or_else(|err| panic!("`{code}` is no friend code: {err}"));
    store
        .sign_in(NewSignIn {
            provider: "device".to_owned(),
            identifier: format!("device-{code}"),
            name: Some(friend_code.name().to_owned()),
            avatar: None,
            email: None,
            friend_code_candidates: vec![friend_code],
            now,
        })
        .await
        .unwrap_or_else(|err| panic!("signing up {code} failed: {err}"))
        .account
}

/// How the store finds a fresh signed key of the account `signed_in` answered, issued under
/// its key generation and expiring at `expires`: what the service looks up for a key whose
/// signature checked (the store never sees the signature).
pub fn signed_key(signed_in: &SignedIn, expires: OffsetDateTime) -> KeyLookup {
    KeyLookup::Signed {
        account: signed_in.account.id,
        generation: signed_in.key_generation,
        expires,
        hash: UserKey::generate().hash(),
    }
}

/// Creates an empty database `safezone_test_<uuid>` on the server of `SAFEZONE_TEST_POSTGRES_URL`
/// (default [`DEFAULT_POSTGRES_URL`]) and returns its URL; [`drop_postgres_database`] removes it.
///
/// # Panics
///
/// When PostgreSQL cannot be reached or refuses to create the database: a test that needs
/// PostgreSQL fails without it, it is never skipped.
pub async fn fresh_postgres_url() -> String {
    let mut admin = admin_connection().await;
    let database = format!("safezone_test_{}", Uuid::new_v4().simple());
    // The name is ours: `safezone_test_` and hex digits, nothing to quote or inject.
    sqlx::query(AssertSqlSafe(format!("CREATE DATABASE {database}")))
        .execute(&mut admin)
        .await
        .unwrap_or_else(|err| panic!("could not create the test database {database}: {err}"));
    // The database exists; a failed goodbye to the server changes nothing.
    let _ = admin.close().await;
    with_database(&admin_url(), &database)
}

/// Drops the database of a URL made by [`fresh_postgres_url`], closing its connections.
///
/// # Panics
///
/// When `url` does not name a `safezone_test_` database, or PostgreSQL refuses.
pub async fn drop_postgres_database(url: &str) {
    let database = url
        .split('?')
        .next()
        .and_then(|base| base.rsplit('/').next())
        .filter(|name| {
            name.strip_prefix("safezone_test_")
                .is_some_and(|id| id.bytes().all(|b| b.is_ascii_hexdigit()))
        })
        .unwrap_or_else(|| panic!("not a test database URL: {url}"));
    let mut admin = admin_connection().await;
    // The name was checked above: `safezone_test_` and hex digits, nothing to quote or inject.
    sqlx::query(AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {database} WITH (FORCE)"
    )))
    .execute(&mut admin)
    .await
    .unwrap_or_else(|err| panic!("could not drop the test database {database}: {err}"));
    // The database is gone; a failed goodbye to the server changes nothing.
    let _ = admin.close().await;
}

fn admin_url() -> String {
    std::env::var(POSTGRES_URL_VAR).unwrap_or_else(|_| DEFAULT_POSTGRES_URL.to_owned())
}

async fn admin_connection() -> PgConnection {
    let admin_url = admin_url();
    PgConnection::connect(&admin_url)
        .await
        .unwrap_or_else(|err| {
            panic!(
                "the tests need PostgreSQL at {admin_url} (set {POSTGRES_URL_VAR} to another \
             server's admin URL): {err}"
            )
        })
}

/// Runs one raw SQL statement on the database of `url` (`postgres://` or `sqlite://`), on a
/// connection of its own: for tests that write rows as an older schema or migration would.
///
/// # Panics
///
/// When the database cannot be reached or the statement fails.
pub async fn execute_sql(url: &str, statement: &str) {
    let statement = AssertSqlSafe(statement.to_owned());
    let outcome = if url.starts_with("postgres") {
        let mut raw = PgConnection::connect(url)
            .await
            .expect("PostgreSQL connects");
        sqlx::query(statement).execute(&mut raw).await.map(drop)
    } else {
        let mut raw = sqlx::SqliteConnection::connect(url)
            .await
            .expect("SQLite opens");
        sqlx::query(statement).execute(&mut raw).await.map(drop)
    };
    outcome.unwrap_or_else(|err| panic!("the statement failed: {err}"));
}

/// A `sqlite://` URL of a new database file inside `dir` (created when the store opens).
pub fn fresh_sqlite_url(dir: &Path) -> String {
    let file = dir.join(format!("safezone-{}.db", Uuid::new_v4().simple()));
    format!("sqlite://{}", file.display())
}

/// `url` with its path (the database name) replaced, keeping user, host and parameters.
fn with_database(url: &str, database: &str) -> String {
    let (base, params) = match url.split_once('?') {
        Some((base, params)) => (base, Some(params)),
        None => (url, None),
    };
    let host_start = base.find("://").map_or(0, |at| at + 3);
    let path_start = base[host_start..]
        .find('/')
        .map_or(base.len(), |at| host_start + at);
    let mut replaced = format!("{}/{database}", &base[..path_start]);
    if let Some(params) = params {
        replaced.push('?');
        replaced.push_str(params);
    }
    replaced
}

/// Generates a `sqlite` and a `postgres` test for each case function
/// `async fn(Arc<dyn Store>)`, each on its own fresh database (the PostgreSQL one dropped
/// afterwards). The calling crate needs `tokio` and `tempfile`.
#[macro_export]
macro_rules! store_conformance {
    ($($case:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let dir = tempfile::tempdir().expect("a temporary directory");
                    let url = safezone_storage::test_support::fresh_sqlite_url(dir.path());
                    let store = safezone_storage::open(&url).await.expect("the SQLite store opens");
                    super::$case(store).await;
                }
            )*
        }

        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let url = safezone_storage::test_support::fresh_postgres_url().await;
                    let store = safezone_storage::open(&url).await.expect("the PostgreSQL store opens");
                    super::$case(store).await;
                    safezone_storage::test_support::drop_postgres_database(&url).await;
                }
            )*
        }
    };
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn replaces_only_the_database() {
        assert_eq!(
            with_database("postgres://u:p@h:5432/postgres?sslmode=disable", "db"),
            "postgres://u:p@h:5432/db?sslmode=disable"
        );
        assert_eq!(with_database("postgres://h", "db"), "postgres://h/db");
    }
}
