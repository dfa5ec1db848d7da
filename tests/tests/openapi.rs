//! The API against its own OpenAPI document: schemathesis (PyPI) generates requests from
//! `GET /api/openapi.json` and checks every answer: no server error, and status code, content
//! type and body as the document declares them. Run on both servers and both databases, with
//! every service the API calls configured (the login kit's chat platform and receipt verifiers),
//! so that no operation may answer a 5xx.
//!
//! The operator API is run against its own document (`/operator/api/openapi.json` on the operator
//! listener) the same way, with a full operator token, on both databases.
//!
//! The executable is `SAFEZONE_SCHEMATHESIS`, or `schemathesis` on the `PATH`; it is never
//! skipped: without it the tests fail saying how to install it.

use std::collections::BTreeSet;
use std::io::ErrorKind;
use std::path::Path;
use std::process::{Command, Output};

use safezone_core::domain::GameMode;
use safezone_core::store::{AccountId, AuditFilter};
use safezone_tests::login_kit::LoginApp;
use safezone_tests::progression::{Line, Report};
use safezone_tests::{
    Database, GAME_SERVER_TOKEN, Server, TestApp, run, shipped_content, test_settings,
};

/// The version CI installs (`.ci/run`).
const PINNED: &str = "schemathesis==4.32.5";
/// The seed of every run, so that a failure repeats.
const SEED: &str = "20261122";
/// Test cases per operation and phase: the four runs stay within a few minutes.
const MAX_EXAMPLES: &str = "20";
/// The id of the match the operator run's path parameters name.
const MATCH_ID: &str = "conformance-match";
/// What every answer is checked for.
const CHECKS: &str = "not_a_server_error,status_code_conformance,content_type_conformance,\
                      response_schema_conformance";

/// A test per server and database.
macro_rules! on_every_combination {
    ($($name:ident: $server:ident, $database:ident;)*) => {
        $(
            #[tokio::test]
            async fn $name() {
                use safezone_tests::{Database, Server};
                let app = LoginApp::start(Server::$server, Database::$database).await;
                every_answer_conforms_to_the_document(&app).await;
                app.finish().await;
            }
        )*
    };
}

on_every_combination! {
    warp_sqlite: Warp, Sqlite;
    warp_postgres: Warp, Postgres;
    rocket_sqlite: Rocket, Sqlite;
    rocket_postgres: Rocket, Postgres;
}

#[tokio::test]
async fn operator_sqlite() {
    run(
        Server::Warp,
        Database::Sqlite,
        test_settings(),
        shipped_content(),
        every_operator_answer_conforms_to_its_document,
    )
    .await;
}

#[tokio::test]
async fn operator_postgres() {
    run(
        Server::Warp,
        Database::Postgres,
        test_settings(),
        shipped_content(),
        every_operator_answer_conforms_to_its_document,
    )
    .await;
}

/// Schemathesis over the operator document with a full token, every path parameter naming
/// something that exists (an account, a poll, a tournament, a content version, a match).
async fn every_operator_answer_conforms_to_its_document(app: TestApp) {
    let secret = app.operator_token("schemathesis", "full").await;
    let (_, player) = app.new_device().await;
    let account = player["user"]["id"].as_i64().expect("an account id");
    let listener = app.operator_listener().await;
    let base = format!("http://{}", listener.local_addr());
    let client = reqwest::Client::new();
    let post = |path: &str, body: serde_json::Value| {
        client
            .post(format!("{base}/operator/api{path}"))
            .bearer_auth(&secret)
            .json(&body)
            .send()
    };
    let poll = post(
        "/polls",
        serde_json::json!({
            "question": "Which map?",
            "options": [{"name": "North", "colour": "#112233"}, {"name": "South", "colour": "#445566"}],
            "closes": "2099-01-01T00:00:00Z",
            "reason": "schemathesis",
        }),
    )
    .await
    .expect("the poll is created");
    assert!(poll.status().is_success(), "{:?}", poll.text().await);
    let tournament = post(
        "/tournaments",
        serde_json::json!({
            "code": "conformance-cup",
            "mode": "solo",
            "closes": "2099-01-01T00:00:00Z",
            "capacity": 100,
            "reason": "schemathesis",
        }),
    )
    .await
    .expect("the tournament is created");
    assert!(
        tournament.status().is_success(),
        "{:?}",
        tournament.text().await
    );
    // A recorded match with the player's result, which the match browser shows and removes.
    let played = Line::new(AccountId(account), 1, 3, 600);
    app.report(&Report::new(
        MATCH_ID,
        GameMode::parse("solo").expect("a mode"),
        app.now() - time::Duration::minutes(1),
        vec![played],
    ))
    .await;
    let directory = tempfile::tempdir().expect("temporary directory");
    let config = directory.path().join("schemathesis.toml");
    std::fs::write(
        &config,
        format!(
            r#"[auth.openapi.operatorToken]
bearer = "{secret}"

[parameters]
"path.accountId" = "{account}"
"path.pollId" = "1"
"path.tournamentCode" = "conformance-cup"
"path.version" = "1"
"path.matchId" = "{MATCH_ID}"
"#
        ),
    )
    .expect("config written");
    let document = format!("{base}/operator/api/openapi.json");
    let output = check_document(directory.path(), &config, &document).await;
    listener.stop().await;
    assert!(
        output.status.success(),
        "schemathesis found operator answers that contradict the operator document:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    let filter = AuditFilter {
        token_name: Some("schemathesis".to_owned()),
        action: None,
        target: None,
        limit: 1000,
    };
    let audited = app.store.audit(&filter).await.expect("the audit reads");
    let actions: BTreeSet<&str> = audited
        .iter()
        .map(|row| row.entry.action.as_str())
        .collect();
    assert!(
        actions.len() >= 10,
        "the run reached few of the changes: {actions:?}"
    );
}

async fn every_answer_conforms_to_the_document(app: &LoginApp) {
    let keys = Keys::make(app).await;
    let directory = tempfile::tempdir().expect("temporary directory");
    let config = directory.path().join("schemathesis.toml");
    std::fs::write(&config, keys.config_text()).expect("config written");
    let document = format!("{}/api/openapi.json", app.base);
    let output = check_document(directory.path(), &config, &document).await;
    assert!(
        output.status.success(),
        "schemathesis found answers that contradict the document on {:?} / {:?}:\n{}\n{}",
        app.server,
        app.database,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(
        !app.chat.requests().is_empty(),
        "no chat sign-in reached the chat platform"
    );
    for verifier in [&app.chat_store, &app.engine_store] {
        assert!(
            !verifier.requests().is_empty(),
            "no receipt reached its store's verifier"
        );
    }
}

/// The keys the run uses: one account's for every operation, and accounts of their own for
/// the operations that revoke keys or delete the account, so that they spoil no other.
struct Keys {
    /// The key of the account most operations act on.
    main: String,
    /// The key of the account whose keys `clear-sessions` revokes.
    revoked: String,
    /// Two keys of the account `delete-account` deletes.
    deleted: [String; 2],
}

impl Keys {
    async fn make(app: &LoginApp) -> Self {
        let device = format!("android-{}", uuid::Uuid::new_v4());
        let deleted = [sign_in(app, &device).await, sign_in(app, &device).await];
        Self {
            main: sign_in(app, &format!("android-{}", uuid::Uuid::new_v4())).await,
            revoked: sign_in(app, &format!("android-{}", uuid::Uuid::new_v4())).await,
            deleted,
        }
    }

    /// The credentials per security scheme, the key of every `{userKey}` of a path, and a chat
    /// token the chat platform knows, so that chat sign-in answers its success too.
    fn config_text(&self) -> String {
        let Self {
            main,
            revoked,
            deleted: [deleted, confirmation],
        } = self;
        format!(
            r#"[auth.openapi.userKey]
bearer = "{main}"

[auth.openapi.gameServer]
bearer = "{GAME_SERVER_TOKEN}"

[parameters]
"path.userKey" = "{main}"

[[operations]]
include-path = "/api/user/{{userKey}}/clear-sessions"
parameters = {{ "path.userKey" = "{revoked}" }}

[[operations]]
include-path = "/api/user/{{userKey}}/delete-account"
parameters = {{ "path.userKey" = "{deleted}", "query.confirmationKey" = "{confirmation}" }}

[[operations]]
include-path = "/api/validate/chat/{{authToken}}"
parameters = {{ "path.authToken" = "good-free" }}
"#
        )
    }
}

/// Signs in the Android `device` and answers the new key.
async fn sign_in(app: &LoginApp, device: &str) -> String {
    let answer = app.post(&format!("/api/validate/device/{device}")).await;
    answer.success()["user"]["key"]
        .as_str()
        .expect("a key")
        .to_owned()
}

/// Schemathesis's run over `document` (a URL) with the credentials and parameters of `config`:
/// every check of [`CHECKS`], seeded, one worker.
async fn check_document(directory: &Path, config: &Path, document: &str) -> Output {
    schemathesis(
        directory,
        &[
            "--config-file",
            config.to_str().expect("a UTF-8 path"),
            "run",
            document,
            "--checks",
            CHECKS,
            "--seed",
            SEED,
            "--max-examples",
            MAX_EXAMPLES,
            "--workers",
            "1",
            "--request-timeout",
            "10",
            "--no-color",
        ],
    )
    .await
}

/// Runs schemathesis with `arguments` in `directory` (where it keeps its cache), off the server's
/// runtime threads; fails saying how to install it when it is missing.
async fn schemathesis(directory: &Path, arguments: &[&str]) -> Output {
    let executable =
        std::env::var("SAFEZONE_SCHEMATHESIS").unwrap_or_else(|_| "schemathesis".to_owned());
    let mut command = Command::new(&executable);
    command.args(arguments).current_dir(directory);
    let run = tokio::task::spawn_blocking(move || command.output());
    match run.await.expect("the schemathesis run was not cancelled") {
        Ok(output) => output,
        Err(error) if error.kind() == ErrorKind::NotFound => panic!(
            "`{executable}` was not found: install it with `pip install {PINNED}`, or set \
             SAFEZONE_SCHEMATHESIS to its path"
        ),
        Err(error) => panic!("`{executable}` did not start: {error}"),
    }
}
