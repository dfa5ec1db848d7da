//! The API against its own OpenAPI document: schemathesis (PyPI) generates requests from
//! `GET /api/openapi.json` and checks every answer: no server error, and status code, content
//! type and body as the document declares them. Run on both servers and both databases.
//!
//! The executable is `SAFEZONE_SCHEMATHESIS`, or `schemathesis` on the `PATH`; it is never
//! skipped: without it the tests fail saying how to install it.

use std::io::ErrorKind;
use std::path::Path;
use std::process::{Command, Output};

use safezone_tests::{GAME_SERVER_TOKEN, TestApp, each_combination};

/// The version CI installs (`.ci/run`).
const PINNED: &str = "schemathesis==4.32.5";
/// The seed of every run, so that a failure repeats.
const SEED: &str = "20261122";
/// Test cases per operation and phase: the four runs stay within a few minutes.
const MAX_EXAMPLES: &str = "20";
/// What every answer is checked for.
const CHECKS: &str = "not_a_server_error,status_code_conformance,content_type_conformance,\
                      response_schema_conformance";

/// The statuses `not_a_server_error` accepts from the operations that need an unconfigured
/// service: 200 to 499, and 501.
const NOT_CONFIGURED_EXPECTED: &str = "\
    200, 201, 202, 204, 301, 302, 303, 304, 307, 308, 400, 401, 402, 403, 404, 405, 406, 409, \
    410, 411, 413, 414, 415, 422, 429, 431, 501";

each_combination!(every_answer_conforms_to_the_document);

async fn every_answer_conforms_to_the_document(app: TestApp) {
    let keys = Keys::make(&app).await;
    let directory = tempfile::tempdir().expect("temporary directory");
    let config = directory.path().join("schemathesis.toml");
    std::fs::write(&config, keys.config_text()).expect("config written");
    let output = schemathesis(
        directory.path(),
        &[
            "--config-file",
            config.to_str().expect("a UTF-8 path"),
            "run",
            &format!("{}/api/openapi.json", app.base),
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
    .await;
    assert!(
        output.status.success(),
        "schemathesis found answers that contradict the document on {:?} / {:?}:\n{}\n{}",
        app.server,
        app.database,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
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
    async fn make(app: &TestApp) -> Self {
        let main = app.new_key().await;
        let revoked = app.new_key().await;
        let (device, first) = app.new_device().await;
        let second = app.post(&format!("/api/validate/device/{device}")).await;
        let key =
            |body: &serde_json::Value| body["user"]["key"].as_str().expect("a key").to_owned();
        Self {
            main,
            revoked,
            deleted: [key(&first), key(second.success())],
        }
    }

    /// The credentials per security scheme, the key of every `{userKey}` of a path, and the
    /// statuses the operations that need a service this server is not configured with (the chat
    /// platform, the stores' receipt verifiers) may answer: any 2xx to 4xx, and 501
    /// `not_configured` as their only 5xx.
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
include-path = ["/api/validate/chat/{{authToken}}", "/api/shop/chat/handle", "/api/shop/engine/handle"]
checks.not_a_server_error.expected-statuses = [{expected}]
"#,
            expected = NOT_CONFIGURED_EXPECTED
        )
    }
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
