//! The TypeScript client as a package (see `safezone_tests::client_package`): packed with
//! `npm pack`, installed from its tarball into a fresh folder, imported there by its name,
//! signing in and reading the account against a real server (warp on SQLite, rocket on
//! PostgreSQL), and a game's TypeScript type-checked against the installed declarations; and the
//! realtime client's reconnection and resume logic against a fake WebSocket.

use safezone_tests::client_kit::ClientBuild;
use safezone_tests::client_package::{InstalledPackage, Resolution};
use safezone_tests::economy::int;
use safezone_tests::{Database, Server, run, shipped_content, test_settings};

#[tokio::test]
async fn the_packed_client_installs_in_a_fresh_folder_and_plays_by_its_name() {
    let package = InstalledPackage::pack_and_install();

    let files = package.packed_files();
    for needed in [
        "package.json",
        "README.md",
        "dist/index.js",
        "dist/index.d.ts",
        "dist/schema.d.ts",
        "dist/realtime.js",
        "dist/realtime.d.ts",
        "dist/events.d.ts",
    ] {
        assert!(
            files.iter().any(|file| file == needed),
            "{needed} packed: {files:?}"
        );
    }
    let extra: Vec<_> = files
        .iter()
        .filter(|file| {
            !file.starts_with("dist/") && *file != "package.json" && *file != "README.md"
        })
        .collect();
    assert!(
        extra.is_empty(),
        "only what a user needs is packed: {extra:?}"
    );

    for resolution in [Resolution::NodeNext, Resolution::Bundler] {
        if let Err(errors) = package.type_check(resolution) {
            panic!("a game's TypeScript against the installed package ({resolution:?}):\n{errors}");
        }
    }

    for (server, database) in [
        (Server::Warp, Database::Sqlite),
        (Server::Rocket, Database::Postgres),
    ] {
        let package = &package;
        run(
            server,
            database,
            test_settings(),
            shipped_content(),
            |app| async move {
                let used = package.use_against(&app.base).await;
                let report = &used.report;
                assert!(
                    used.ok,
                    "the installed package, used by its name: {report}\n{}",
                    used.stderr
                );
                assert_eq!(
                    report["exports"],
                    serde_json::json!([
                        "CloseCode",
                        "RealtimeClient",
                        "createSafezoneClient",
                        "parseServerMessage",
                        "withUserKey"
                    ])
                );
                let user = app.user(report["key"].as_str().expect("the key")).await;
                assert_eq!(user["id"], report["accountId"]);
                assert_eq!(int(&user, "coins"), int(report, "coins"));
                assert_eq!(report["refusedCode"], "invalid_user_key");
            },
        )
        .await;
    }
}

#[tokio::test]
async fn the_realtime_client_resumes_and_reconnects_against_a_fake_websocket() {
    let build = ClientBuild::compile();
    let tested = build.test_realtime_client().await;
    assert!(
        tested.ok,
        "the realtime client's unit tests failed:\n{}\n{}",
        tested.report.as_str().unwrap_or_default(),
        tested.stderr
    );
    let tap = tested.report.as_str().unwrap_or_default();
    assert!(tap.contains("# fail 0"), "{tap}");
    assert!(!tap.contains("# pass 0"), "tests ran: {tap}");
}
