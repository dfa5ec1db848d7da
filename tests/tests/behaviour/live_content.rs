//! Content published without a restart: `content publish`, `status`, `diff` and `rollback`,
//! run as the binaries run them, and the node serving each published file within seconds; a
//! file that does not pass the check is never published, and one the node cannot read is never
//! served.

use std::io::Write;

use safezone_core::cli::{AdminCommand, Failure, Outcome};
use safezone_core::content::SHIPPED;
use safezone_tests::content::shipped_with_maintenance;
use safezone_tests::{TestApp, each_combination};

each_combination!(
    published_content_is_served_without_a_restart,
    a_bad_file_is_never_published_nor_served,
);

/// Runs `content ARGS...` on the test's store.
async fn content(app: &TestApp, args: &[&str]) -> Outcome {
    let words = std::iter::once("content").chain(args.iter().copied());
    let command =
        AdminCommand::from_args(words).unwrap_or_else(|error| panic!("{args:?} parses: {error}"));
    command.execute(app.store.as_ref(), app.now()).await
}

/// A content file holding `text`, for `content publish`.
fn file(text: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().expect("a temporary file");
    file.write_all(text.as_bytes()).expect("written");
    file
}

/// Publishes `text` through `content publish`.
async fn publish(app: &TestApp, text: &str) -> Outcome {
    let file = file(text);
    let path = file.path().to_str().expect("a UTF-8 path").to_owned();
    content(app, &["publish", &path]).await
}

async fn published_content_is_served_without_a_restart(app: TestApp) {
    let none = content(&app, &["status"]).await.expect("status");
    assert!(none.starts_with("no content published"), "{none}");
    let shipped = file(SHIPPED);
    let path = shipped.path().to_str().expect("a UTF-8 path").to_owned();
    let same = content(&app, &["diff", &path]).await.expect("diff");
    assert!(
        same.ends_with("is the shipped content, unchanged"),
        "{same}"
    );
    assert_eq!(content(&app, &["rollback"]).await.map_err(|_| ()), Err(()));

    let line = publish(&app, &shipped_with_maintenance(true)).await;
    assert_eq!(
        line,
        Ok("published content version 1: every node serves it within seconds".to_owned())
    );
    app.await_maintenance(true).await;
    let status = content(&app, &["status"]).await.expect("status");
    assert!(
        status.starts_with("content version 1, published at "),
        "{status}"
    );

    publish(&app, &shipped_with_maintenance(false))
        .await
        .expect("published");
    app.await_maintenance(false).await;

    let line = content(&app, &["rollback"]).await;
    assert_eq!(
        line,
        Ok("published content version 3, the content of version 1".to_owned())
    );
    app.await_maintenance(true).await;
}

async fn a_bad_file_is_never_published_nor_served(app: TestApp) {
    let bad = SHIPPED.replacen("maintenance = false", "maintenance = \"sometimes\"", 1);
    let Err(Failure::BadInput(why)) = publish(&app, &bad).await else {
        panic!("a bad content file was published");
    };
    assert!(why.contains("line"), "{why}");
    assert_eq!(app.store.content_head().await.expect("head"), 0);

    publish(&app, &shipped_with_maintenance(true))
        .await
        .expect("published");
    app.await_maintenance(true).await;
    // A file this node cannot read (written past the check, as by a newer Safezone) is the
    // newest; the node keeps serving the one before it.
    let unreadable = app
        .store
        .publish_content("[client]\nmaintenance = \"no\"\n", app.now(), None)
        .await
        .expect("stored");
    assert_eq!(unreadable, 2);
    tokio::time::sleep(std::time::Duration::from_millis(2_500)).await;
    let answer = app.get("/api/config").await;
    assert_eq!(answer.success()["config"]["maintenance"], true);
}
