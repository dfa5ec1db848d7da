//! Game modes from content: a mode the content does not name is refused by the reports and the
//! boards; publishing a file that adds `trios` (teams of three) through the operator API opens
//! its boards without a restart, a report in `trios` is accepted and ranked (top rows and the
//! caller's own rank), the profile counts it; a file without `trios` closes its boards again;
//! a file with fewer boards refuses the windows and categories it left out, naming them.

use safezone_core::content::SHIPPED;
use safezone_core::store::AccountId;
use safezone_tests::community::Player;
use safezone_tests::content::shipped_with_mode;
use safezone_tests::leaderboard::{Played, codes, query};
use safezone_tests::mode;
use safezone_tests::progression::{Line, Report};
use safezone_tests::{TestApp, each_combination};
use serde_json::json;
use time::Duration;

use super::operator_api::{Operator, token};

each_combination!(a_published_mode_opens_its_boards_and_takes_reports);

/// The key and id of a player, as the board helpers take a caller.
fn caller(player: &Player) -> Option<(&str, AccountId)> {
    Some((player.key.as_str(), player.id))
}

/// Publishes `text` through the operator API as `secret`.
async fn publish(app: &TestApp, operator: &Operator, secret: &str, text: &str, reason: &str) {
    operator
        .post(
            app,
            "/operator/api/content/publish",
            secret,
            json!({"text": text, "reason": reason}),
        )
        .await
        .success();
}

async fn a_published_mode_opens_its_boards_and_takes_reports(app: TestApp) {
    let trios = mode("trios");
    let mut played = Played::new();
    let [first, second, third]: [Player; 3] = app
        .joined_all(&mut played, 3)
        .await
        .try_into()
        .unwrap_or_else(|_| panic!("three players"));
    let lines = || {
        vec![
            Line::new(second.id, 1, 2, 900),
            Line::new(first.id, 2, 7, 800),
            Line::new(third.id, 3, 0, 100),
        ]
    };

    // Before: the shipped content has no `trios`.
    let early = Report::new(
        "trios-early",
        trios,
        app.now() - Duration::minutes(2),
        lines(),
    );
    app.send_report(&early.body()).await.error_naming(
        400,
        "invalid_body",
        "must be one of solo, duo, squad, limited",
    );
    app.board_answer(&query(trios, "all", "wins", None))
        .await
        .error_naming(400, "invalid_parameter", "mode");
    assert_eq!(app.await_mode("trios", false).await, None);

    let operator = Operator::serve(&app).await;
    let designer = token(&app, "designer", "full").await;
    let with_trios = shipped_with_mode("trios", 3);
    publish(&app, &operator, &designer, &with_trios, "trios season").await;
    let entry = app.await_mode("trios", true).await;
    assert_eq!(entry, Some(json!({"name": "trios", "team_size": 3})));
    let modes = app.get("/api/config").await.success()["config"]["modes"].clone();
    assert_eq!(
        modes
            .as_array()
            .map(|modes| modes.iter().map(|m| m["name"].clone()).collect()),
        Some(vec![
            json!("solo"),
            json!("duo"),
            json!("squad"),
            json!("limited"),
            json!("trios")
        ])
    );

    // The new mode's boards are open, empty, then ranked from its first report.
    let empty = app
        .board(&query(trios, "all", "wins", Some(&first.key)))
        .await;
    assert_eq!(
        (&empty["players"], &empty["user"]),
        (&json!([]), &json!(null))
    );
    app.report_now(&mut played, trios, lines()).await;
    for (window, category) in [("all", "wins"), ("24h", "kills"), ("7d", "time_alive")] {
        app.assert_board(&played, trios, window, category, caller(&first))
            .await;
    }
    let by_kills = app
        .board(&query(trios, "all", "kills", Some(&third.key)))
        .await;
    assert_eq!(
        codes(&by_kills),
        [&first, &second, &third].map(|player| player.friend_code.to_string())
    );
    assert_eq!(by_kills["user"]["rank"], 3);
    assert_eq!(by_kills["user"]["kills"], 0);
    // The other modes' boards are untouched.
    let solo = app.board(&query(mode("solo"), "all", "wins", None)).await;
    assert_eq!(solo["players"], json!([]));
    let profile = app
        .profile(&first.friend_code.to_string(), &first.key)
        .await;
    assert_eq!(profile["stats"]["all"]["trios"]["kills"], 7);
    assert_eq!(profile["stats"]["all"]["trios"]["rounds"], 1);
    assert_eq!(profile["stats"]["all"]["solo"]["rounds"], 0);

    // Published away, the mode's boards and reports are refused again.
    publish(&app, &operator, &designer, SHIPPED, "trios season over").await;
    app.await_mode("trios", false).await;
    app.board_answer(&query(trios, "all", "wins", None))
        .await
        .error_naming(400, "invalid_parameter", "mode");
    let late = Report::new(
        "trios-late",
        trios,
        app.now() - Duration::minutes(1),
        lines(),
    );
    app.send_report(&late.body())
        .await
        .error_naming(400, "invalid_body", "`mode`");
    let profile = app
        .profile(&first.friend_code.to_string(), &first.key)
        .await;
    assert_eq!(profile["stats"]["all"].get("trios"), None);

    // Brought back, its boards hold what they held.
    publish(&app, &operator, &designer, &with_trios, "trios again").await;
    app.await_mode("trios", true).await;
    app.assert_board(&played, trios, "all", "wins", caller(&second))
        .await;

    // A file with fewer boards refuses the others, naming the parameter.
    let fewer = SHIPPED.replacen(
        "windows = [\"24h\", \"7d\", \"1m\", \"1y\", \"all\"]",
        "windows = [\"all\", \"7d\"]",
        1,
    );
    let fewer = fewer.replacen(
        "categories = [\"wins\", \"kills\", \"kills_per_round\", \"winrate\", \"time_alive\", \
         \"rounds\", \"top10\"]",
        "categories = [\"wins\", \"kills\"]",
        1,
    );
    assert_ne!(fewer, SHIPPED);
    publish(&app, &operator, &designer, &fewer, "fewer boards").await;
    app.await_mode("trios", false).await;
    app.board_answer(&query(mode("solo"), "24h", "wins", None))
        .await
        .error_naming(400, "invalid_parameter", "time");
    app.board_answer(&query(mode("solo"), "7d", "top10", None))
        .await
        .error_naming(400, "invalid_parameter", "category");
    app.board(&query(mode("solo"), "7d", "kills", None)).await;
}
