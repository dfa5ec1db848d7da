//! The console's sessions and where its forms may come from, over HTTP without a browser.
//!
//! A sign-in is a console session kept in the database: its cookie (a copy of it too) stops
//! working at sign-out, at the token's revocation (`operator-token revoke`) and after its
//! lifetime of 12 hours on the test clock; the operator API opens and ends sessions and takes
//! one as bearer (a session cannot open another, a token's secret is not ended). Every console
//! POST, the sign-in first, is refused (403, no cookie, nothing done) unless the browser says
//! it came from the console's own pages: another site's `Origin`, `Origin: null`, only another
//! site's `Referer`, another site's `Sec-Fetch-Site`, or none of them are refused; the
//! listener's own `Origin`, its `Referer`, or `Sec-Fetch-Site: same-origin` alone are accepted.
//! A session made on one node working on and ended from another: `two_nodes.rs`.

use safezone_core::store::AuditFilter;
use safezone_tests::{Answer, TestApp, each_combination};
use serde_json::json;
use time::Duration;

use super::operator_api::Operator;
use super::operator_console::{
    Console, action, cookie_pair, csrf_of, location, player_page, set_cookie,
};

each_combination!(
    sign_ins_from_another_site_are_refused_and_set_no_cookie,
    every_console_post_from_another_site_is_refused,
    a_copied_cookie_stops_working_after_sign_out,
    a_copied_cookie_stops_working_when_the_token_is_revoked,
    a_session_stops_working_after_its_lifetime,
    the_operator_api_opens_and_ends_sessions,
);

/// Asserts that `answer` is the console's 403 for a POST from elsewhere, with no session.
#[track_caller]
fn refused_from_elsewhere(answer: &Answer, what: &str) {
    assert_eq!(answer.status, 403, "{what}: {}", answer.text);
    assert!(
        answer
            .text
            .contains("did not come from the console&#39;s own pages"),
        "{what}: {}",
        answer.text
    );
    assert!(
        cookie_pair(answer, "safezone_console").is_none(),
        "{what}: no session"
    );
}

/// Asserts that the console sends `cookie` to the sign-in page: the session no longer works.
async fn assert_signed_out(console: &Console, cookie: &str) {
    let answer = console.get("/", &[cookie]).await;
    assert_eq!(answer.status, 303, "{}", answer.text);
    assert_eq!(location(&answer), "/operator/console/sign-in");
    assert!(set_cookie(&answer, "safezone_console").contains("Max-Age=0"));
}

/// The session id a console `cookie` holds (`safezone_console=<id>`).
fn session_of(cookie: &str) -> &str {
    cookie
        .strip_prefix("safezone_console=")
        .expect("a session cookie")
}

async fn sign_ins_from_another_site_are_refused_and_set_no_cookie(app: TestApp) {
    let console = Console::serve(&app).await;
    let secret = app.operator_token("alice", "full").await;
    let ours = console.origin();
    let sign_in = [("secret", secret.as_str())];
    let forged: [(&str, Vec<(&str, &str)>); 6] = [
        (
            "another site's Origin",
            vec![("origin", "http://evil.example")],
        ),
        ("Origin: null", vec![("origin", "null")]),
        (
            "only another site's Referer",
            vec![("referer", "http://evil.example/phish.html")],
        ),
        (
            "another site's Sec-Fetch-Site",
            vec![("sec-fetch-site", "cross-site"), ("origin", &ours)],
        ),
        (
            "a look-alike host",
            vec![("origin", "http://127.0.0.1.evil.example")],
        ),
        ("nothing saying where it came from", vec![]),
    ];
    for (what, headers) in &forged {
        let answer = console
            .post_exactly("/sign-in", &[], &sign_in, headers)
            .await;
        refused_from_elsewhere(&answer, what);
    }

    let referer = format!("{ours}/operator/console/sign-in");
    let own: [(&str, Vec<(&str, &str)>); 4] = [
        ("the listener's own Origin", vec![("origin", &ours)]),
        (
            "its own Origin and Sec-Fetch-Site",
            vec![("origin", &ours), ("sec-fetch-site", "same-origin")],
        ),
        ("only its own Referer", vec![("referer", &referer)]),
        (
            "only Sec-Fetch-Site: same-origin",
            vec![("sec-fetch-site", "same-origin")],
        ),
    ];
    for (what, headers) in &own {
        let answer = console
            .post_exactly("/sign-in", &[], &sign_in, headers)
            .await;
        assert_eq!(answer.status, 303, "{what}: {}", answer.text);
        let cookie = cookie_pair(&answer, "safezone_console").expect("a session");
        console.page("/", &cookie).await;
    }
}

async fn every_console_post_from_another_site_is_refused(app: TestApp) {
    let console = Console::serve(&app).await;
    let player = app.player().await;
    let cookie = console
        .sign_in(&app.operator_token("alice", "full").await)
        .await;
    let page = console.page(&player_page(&player), &cookie).await;
    let csrf = csrf_of(&page);
    let refund = [
        ("currency", "coins"),
        ("amount", "5"),
        ("reason", "forged"),
        ("csrf", &csrf),
    ];
    let forged: [&[(&str, &str)]; 3] = [
        &[("origin", "http://evil.example")],
        &[("origin", "null")],
        &[("referer", "http://evil.example/")],
    ];
    for headers in forged {
        let answer = console
            .post_exactly(&action(&player, "refund"), &[&cookie], &refund, headers)
            .await;
        refused_from_elsewhere(&answer, &format!("a refund with {headers:?}"));
        let out = console
            .post_exactly("/sign-out", &[&cookie], &[("csrf", &csrf)], headers)
            .await;
        refused_from_elsewhere(&out, &format!("a sign-out with {headers:?}"));
    }
    assert_eq!(app.stored_account(player.id).await.coins, 0);
    assert!(app.store.ledger(player.id).await.expect("reads").is_empty());
    console.page("/", &cookie).await;

    let done = console
        .post(&action(&player, "refund"), &[&cookie], &refund)
        .await;
    assert_eq!(done.status, 303, "{}", done.text);
    assert_eq!(app.stored_account(player.id).await.coins, 5);
}

async fn a_copied_cookie_stops_working_after_sign_out(app: TestApp) {
    let console = Console::serve(&app).await;
    let operator = Operator::serve(&app).await;
    let cookie = console
        .sign_in(&app.operator_token("alice", "full").await)
        .await;
    let copy = cookie.clone();
    let home = console.page("/", &copy).await;
    operator
        .get(&app, "/operator/api/status", session_of(&copy))
        .await
        .success();

    let out = console
        .post("/sign-out", &[&cookie], &[("csrf", &csrf_of(&home))])
        .await;
    assert_eq!(out.status, 303, "{}", out.text);
    assert_eq!(location(&out), "/operator/console/sign-in");
    assert!(set_cookie(&out, "safezone_console").contains("Max-Age=0"));

    assert_signed_out(&console, &copy).await;
    operator
        .get(&app, "/operator/api/status", session_of(&copy))
        .await
        .error(401, "invalid_operator_token");
    let again = console
        .post("/sign-out", &[&copy], &[("csrf", &csrf_of(&home))])
        .await;
    assert_eq!(location(&again), "/operator/console/sign-in");
}

async fn a_copied_cookie_stops_working_when_the_token_is_revoked(app: TestApp) {
    let console = Console::serve(&app).await;
    let operator = Operator::serve(&app).await;
    let secret = app.operator_token("alice", "full").await;
    let copy = console.sign_in(&secret).await;
    let other = console.sign_in(&secret).await;
    console.page("/", &copy).await;

    app.revoke_operator_token("alice").await;
    for cookie in [&copy, &other] {
        assert_signed_out(&console, cookie).await;
        operator
            .get(&app, "/operator/api/status", session_of(cookie))
            .await
            .error(401, "invalid_operator_token");
    }
}

async fn a_session_stops_working_after_its_lifetime(app: TestApp) {
    let console = Console::serve(&app).await;
    let operator = Operator::serve(&app).await;
    let cookie = console
        .sign_in(&app.operator_token("alice", "full").await)
        .await;
    app.clock
        .advance(Duration::hours(12) - Duration::seconds(1));
    console.page("/", &cookie).await;
    app.clock.advance(Duration::seconds(1));
    assert_signed_out(&console, &cookie).await;
    operator
        .get(&app, "/operator/api/status", session_of(&cookie))
        .await
        .error(401, "invalid_operator_token");
    let page = console.get("/sign-in", &[]).await;
    assert_eq!(page.status, 200);
}

async fn the_operator_api_opens_and_ends_sessions(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = app.operator_token("bob", "read").await;
    let opened = operator
        .post(&app, "/operator/api/sessions", &secret, json!({}))
        .await;
    let body = opened.success();
    let session = body["session"]["id"].as_str().expect("an id").to_owned();
    assert!(session.starts_with("session_"), "{body}");
    assert_eq!(body["session"]["expires"], "2026-11-24T00:00:00Z");
    assert_eq!(body["session"]["lifetime"], 43_200);
    assert_eq!(body["token"], json!({"name": "bob", "role": "read"}));

    let status = operator.get(&app, "/operator/api/status", &session).await;
    assert_eq!(status.success()["token"]["name"], "bob");
    let player = app.player().await;
    let grant = json!({"coins": 5, "reason": "r"});
    let path = format!("/operator/api{}", action(&player, "grant"));
    operator
        .post(&app, &path, &session, grant)
        .await
        .error(403, "operator_read_only");
    let audit = app
        .store
        .audit(&AuditFilter {
            limit: 10,
            ..AuditFilter::default()
        })
        .await
        .expect("reads");
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].token_name, "bob", "a session acts as its token");

    operator
        .post(&app, "/operator/api/sessions", &session, json!({}))
        .await
        .error_naming(400, "invalid_parameter", "Authorization");
    operator
        .post(&app, "/operator/api/sessions/end", &secret, json!({}))
        .await
        .error_naming(400, "invalid_parameter", "Authorization");
    let ended = operator
        .post(&app, "/operator/api/sessions/end", &session, json!({}))
        .await;
    assert_eq!(ended.success()["ended"], true);
    operator
        .post(&app, "/operator/api/sessions/end", &session, json!({}))
        .await
        .error(401, "invalid_operator_token");
    operator
        .get(&app, "/operator/api/status", &session)
        .await
        .error(401, "invalid_operator_token");
    let unknown = format!("session_{}", "0".repeat(48));
    operator
        .get(&app, "/operator/api/status", &unknown)
        .await
        .error(401, "invalid_operator_token");
    operator
        .get(&app, "/operator/api/status", &secret)
        .await
        .success();
}
