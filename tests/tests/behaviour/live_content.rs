//! Content published without a restart: `content publish`, `status`, `diff` and `rollback`,
//! run as the binaries run them, and the node serving each published file within seconds; a
//! file that does not pass the check is never published, and one the node cannot read is never
//! served.

use std::io::Write;

use safezone_core::cli::{AdminCommand, Failure, Outcome};
use safezone_core::content::SHIPPED;
use safezone_core::content_publication::Named;
use safezone_core::store::Publication;
use safezone_tests::content::shipped_with_maintenance;
use safezone_tests::{TestApp, each_combination};

each_combination!(
    published_content_is_served_without_a_restart,
    a_bad_file_is_never_published_nor_served,
    rolling_back_twice_goes_two_versions_back,
    diff_starts_from_the_content_file_and_ignores_line_ends,
);

/// Runs `content ARGS...` on the test's store.
async fn content(app: &TestApp, args: &[&str]) -> Outcome {
    let words = std::iter::once("content").chain(args.iter().copied());
    let command =
        AdminCommand::from_args(words).unwrap_or_else(|error| panic!("{args:?} parses: {error}"));
    command.execute(app.store.as_ref(), app.now()).await
}

/// Runs `content ARGS...` on the test's store for nodes started with `file`.
async fn content_for(app: &TestApp, file: &Named<'_>, args: &[&str]) -> Outcome {
    let words = std::iter::once("content").chain(args.iter().copied());
    let command =
        AdminCommand::from_args(words).unwrap_or_else(|error| panic!("{args:?} parses: {error}"));
    command
        .execute_for(app.store.as_ref(), file, app.now())
        .await
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
        .publish_content(
            "[client]\nmaintenance = \"no\"\n",
            &Publication::default(),
            app.now(),
            None,
        )
        .await
        .expect("stored");
    assert_eq!(unreadable, 2);
    tokio::time::sleep(std::time::Duration::from_millis(2_500)).await;
    let answer = app.get("/api/config").await;
    assert_eq!(answer.success()["config"]["maintenance"], true);
}

/// The shipped file with the rename price changed: a third distinct file.
fn shipped_with_rename_price(gems: u32) -> String {
    let text = SHIPPED.replacen(
        "rename_cost_gems = 40",
        &format!("rename_cost_gems = {gems}"),
        1,
    );
    assert!(text.contains(&format!("rename_cost_gems = {gems}")));
    text
}

/// Publishes `text` through `content publish --reason`.
async fn publish_because(app: &TestApp, text: &str, reason: &str) -> Outcome {
    let file = file(text);
    let path = file.path().to_str().expect("a UTF-8 path").to_owned();
    content(app, &["publish", &path, "--reason", reason]).await
}

/// What `content show` prints of `text`: the file without its last line end.
fn shown(text: &str) -> String {
    text.strip_suffix('\n').unwrap_or(text).to_owned()
}

async fn rolling_back_twice_goes_two_versions_back(app: TestApp) {
    let texts = [
        shipped_with_maintenance(true),
        SHIPPED.to_owned(),
        shipped_with_rename_price(41),
    ];
    for (n, text) in texts.iter().enumerate() {
        publish_because(&app, text, &format!("file {}", n + 1))
            .await
            .expect("published");
    }
    let rolled = content(&app, &["rollback"]).await;
    assert_eq!(
        rolled,
        Ok("published content version 4, the content of version 2".to_owned())
    );
    let rolled = content(&app, &["rollback", "--reason", "further back"]).await;
    assert_eq!(
        rolled,
        Ok("published content version 5, the content of version 1".to_owned())
    );
    app.await_maintenance(true).await;
    let Err(Failure::Refused(why)) = content(&app, &["rollback"]).await else {
        panic!("rolled back past the first version");
    };
    assert!(why.contains("no version before version 1"), "{why}");
    let status = content(&app, &["status"]).await.expect("status");
    assert!(
        status.ends_with("on the command line (the content of version 1): further back"),
        "{status}"
    );

    let rolled = content(&app, &["rollback", "--to", "3"]).await;
    assert_eq!(
        rolled,
        Ok("published content version 6, the content of version 3".to_owned())
    );
    app.await_maintenance(false).await;
    let Err(Failure::Refused(why)) = content(&app, &["rollback", "--to", "3"]).await else {
        panic!("rolled back to the content served");
    };
    assert!(why.contains("served now"), "{why}");
    let Err(Failure::Refused(why)) = content(&app, &["rollback", "--to", "99"]).await else {
        panic!("rolled back to no version");
    };
    assert!(why.contains("no content version 99"), "{why}");
    // Back from version 6, which restores 3: version 2.
    let rolled = content(&app, &["rollback"]).await;
    assert_eq!(
        rolled,
        Ok("published content version 7, the content of version 2".to_owned())
    );

    assert_eq!(content(&app, &["show"]).await, Ok(shown(SHIPPED)));
    assert_eq!(content(&app, &["show", "1"]).await, Ok(shown(&texts[0])));
    assert_eq!(content(&app, &["show", "6"]).await, Ok(shown(&texts[2])));
    assert!(matches!(
        content(&app, &["show", "8"]).await,
        Err(Failure::Refused(_))
    ));
    let versions = app.store.content_versions(10).await.expect("listed");
    let restores: Vec<_> = versions.iter().map(|v| v.about.restores).collect();
    assert_eq!(
        restores,
        [Some(2), Some(3), Some(1), Some(2), None, None, None]
    );
    let first = versions.last().expect("version 1");
    assert_eq!(first.about.reason.as_deref(), Some("file 1"));
    assert_eq!(first.about.by, None);
}

async fn diff_starts_from_the_content_file_and_ignores_line_ends(app: TestApp) {
    let own = shipped_with_maintenance(true);
    let started_with = Named {
        name: "my-content.toml".to_owned(),
        text: &own,
    };
    // Nothing published: the nodes serve their `--content` file, not the shipped one.
    let shipped = file(SHIPPED);
    let path = shipped.path().to_str().expect("a UTF-8 path").to_owned();
    let diff = content_for(&app, &started_with, &["diff", &path])
        .await
        .expect("a diff");
    assert!(diff.starts_with("--- my-content.toml"), "{diff}");
    assert!(
        diff.contains("-maintenance = true\n+maintenance = false"),
        "{diff}"
    );
    assert_eq!(
        content_for(&app, &started_with, &["show"]).await,
        Ok(shown(&own))
    );

    // A file written with CRLF is published with LF, and diffs line by line.
    let crlf = own.replace('\n', "\r\n");
    publish(&app, &crlf).await.expect("published");
    let stored = app.store.published_content(1).await.expect("read");
    assert_eq!(stored.expect("version 1").text, own);
    let changed = file(&shipped_with_rename_price(41).replace('\n', "\r\n"));
    let path = changed.path().to_str().expect("a UTF-8 path").to_owned();
    let diff = content_for(&app, &started_with, &["diff", &path])
        .await
        .expect("a diff");
    assert!(diff.starts_with("--- content version 1"), "{diff}");
    let changes: Vec<&str> = diff
        .lines()
        .filter(|line| line.starts_with(['+', '-']) && !line.starts_with("+++"))
        .filter(|line| !line.starts_with("---"))
        .collect();
    assert_eq!(
        changes,
        [
            "-maintenance = true",
            "+maintenance = false",
            "-rename_cost_gems = 40",
            "+rename_cost_gems = 41"
        ],
        "{diff}"
    );

    // A file that does not pass the check: its diff, and its problems, exit 2.
    let bad = file(&SHIPPED.replacen("maintenance = false", "maintenance = 3", 1));
    let path = bad.path().to_str().expect("a UTF-8 path").to_owned();
    let Err(Failure::BadInputAfter { output, why }) =
        content_for(&app, &started_with, &["diff", &path]).await
    else {
        panic!("an invalid file diffed as valid");
    };
    assert!(output.contains("+maintenance = 3"), "{output}");
    assert!(why.contains("does not pass the content check"), "{why}");
    assert!(why.contains("line 13"), "{why}");
}
