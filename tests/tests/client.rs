//! The client kit end to end (see `safezone_tests::client_kit`): the TypeScript client of
//! `clients/typescript` plays a new player's first session against a real server, the OpenAPI
//! documents (3.1 as served, the 3.0 export) pass the official OpenAPI schemas, and the API
//! reference page renders every operation in headless Chromium under the page's content policy,
//! loading nothing from another origin, and calls the API from its "Try it out".
//!
//! The session and the page run under warp on SQLite and under rocket on PostgreSQL.

use safezone_core::cli::OpenapiArgs;
use safezone_core::clock::Clock;
use safezone_core::starter;
use safezone_core::store::AccountId;
use safezone_tests::client_kit::{self, ClientBuild};
use safezone_tests::economy::int;
use safezone_tests::{Database, Server, TestApp, run, shipped_content, test_settings};
use serde_json::Value;

/// Generates, for each named `async fn(TestApp)`, a module with a test under warp on SQLite
/// and one under rocket on PostgreSQL.
macro_rules! on_both {
    ($($test:ident),* $(,)?) => {
        $(
            mod $test {
                use super::*;

                #[tokio::test]
                async fn warp_sqlite() {
                    let (settings, content) = (test_settings(), shipped_content());
                    run(Server::Warp, Database::Sqlite, settings, content, super::$test).await;
                }

                #[tokio::test]
                async fn rocket_postgres() {
                    let (settings, content) = (test_settings(), shipped_content());
                    run(Server::Rocket, Database::Postgres, settings, content, super::$test).await;
                }
            }
        )*
    };
}

on_both!(
    typescript_client_plays_a_first_session,
    typescript_realtime_client_resumes_after_its_position,
    client_reference_page_renders_every_operation_in_chromium,
);

async fn typescript_client_plays_a_first_session(app: TestApp) {
    // The server as a fresh binary starts it: with the starter poll.
    starter::seed(
        app.store.as_ref(),
        &shipped_content().modes,
        app.clock.now(),
    )
    .await
    .expect("seeded");
    let build = ClientBuild::compile();
    let played = build.play_first_session(&app.base).await;
    assert!(
        played.ok,
        "the first session through the TypeScript client failed: {}\n{}",
        played.report, played.stderr
    );
    let report = &played.report;
    let key = report["key"].as_str().expect("the session's key");
    let user = app.user(key).await;
    assert_eq!(user["id"], report["accountId"]);
    assert_eq!(int(&user, "coins"), int(report, "coins"));
    assert_eq!(int(&user, "gems"), int(report, "gems"));
    assert!(int(report, "welcomeCoins") > 0, "{report}");
    app.assert_key_ledger_balanced(key).await;
}

async fn typescript_realtime_client_resumes_after_its_position(app: TestApp) {
    let build = ClientBuild::compile();
    let played = build.play_realtime_session(&app.base).await;
    assert!(
        played.ok,
        "the realtime session through the TypeScript client failed: {}\n{}",
        played.report, played.stderr
    );
    let report = &played.report;
    let account = AccountId(report["account"].as_i64().expect("the welcome's account"));
    let events = app
        .store
        .account_events(account, 0, 100)
        .await
        .expect("the outbox");
    let position_of = |kind: &str| {
        events
            .iter()
            .find(|relayed| relayed.event.payload.kind() == kind)
            .map(|relayed| relayed.position)
    };
    assert_eq!(
        report["purchasePosition"].as_i64(),
        position_of("purchase"),
        "{report}"
    );
    assert_eq!(
        report["openedPosition"].as_i64(),
        position_of("pack_opened"),
        "{report}"
    );
}

async fn client_reference_page_renders_every_operation_in_chromium(app: TestApp) {
    let document = app.get("/api/openapi.json").await.json;
    // Paths are relative to the server that serves the document, as `servers` says.
    assert_eq!(
        document["servers"][0]["url"], "/",
        "{}",
        document["servers"]
    );
    let mut operations: Vec<String> = document["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .flat_map(|(path, item)| {
            let methods = item.as_object().expect("a path item").keys();
            methods.map(move |method| format!("{method} {path}"))
        })
        .collect();
    let opened = client_kit::open_reference_page(&app.base).await;
    let report = &opened.report;
    assert!(
        opened.ok,
        "the reference page did not render: {report}\n{}",
        opened.stderr
    );
    let mut rendered: Vec<String> = report["operations"]
        .as_array()
        .expect("the rendered operations")
        .iter()
        .map(|operation| operation.as_str().expect("method and path").to_owned())
        .collect();
    operations.sort();
    rendered.sort();
    assert_eq!(
        rendered, operations,
        "every operation of the document, once"
    );
    for empty in ["violations", "foreign", "failed", "errors"] {
        assert_eq!(report[empty], Value::Array(vec![]), "{empty}: {report}");
    }
    assert_eq!(report["status"], 200);
    assert!(
        report["title"]
            .as_str()
            .is_some_and(|title| title.starts_with("Safezone")),
        "{report}"
    );
    let responses = report["signInResponses"].to_string();
    assert!(
        responses.contains("200") && responses.contains("403"),
        "{report}"
    );
    assert_eq!(
        report["healthTried"], "200",
        "the page calls the API it documents"
    );
}

/// The `openapi` command's documents, the public API's and the operator API's (`--operator`),
/// 3.1 as served and the 3.0 export, each pass the official schema of its version.
#[tokio::test]
async fn openapi_documents_pass_the_openapi_schemas() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let files: Vec<_> = [
        (false, false, "openapi-3.1.json"),
        (true, false, "openapi-3.0.json"),
        (false, true, "operator-3.1.json"),
        (true, true, "operator-3.0.json"),
    ]
    .into_iter()
    .map(|(openapi_3_0, operator, name)| {
        let file = directory.path().join(name);
        let args = OpenapiArgs {
            out: None,
            openapi_3_0,
            operator,
            asyncapi: false,
        };
        std::fs::write(&file, args.text().expect("the document serializes")).expect("written");
        file
    })
    .collect();
    let files: Vec<_> = files.iter().map(std::path::PathBuf::as_path).collect();
    let checked = client_kit::validate_documents(&files).await;
    assert!(checked.ok, "{}\n{}", checked.report, checked.stderr);
    let versions: Vec<&Value> = checked.report["documents"]
        .as_array()
        .expect("the documents")
        .iter()
        .map(|document| &document["openapi"])
        .collect();
    assert_eq!(versions, ["3.1.0", "3.0.3", "3.1.0", "3.0.3"]);
}
