//! The web console on the operator listener, over HTTP without a browser: signing in keeps a
//! console session's id (never the token's secret) in a strict cookie (`Secure` behind a
//! trusted HTTPS proxy), a bad token (or a sign-in sent from another site) is refused, pages without a sign-in (or with a revoked token) go to the sign-in page, a form
//! without its token is refused with 403, a refund made through the console is the operator
//! API's (its ledger row and audit row read from the store, shown escaped on the pages), and a
//! read-only token sees no form and changes nothing. Through the console too: a deletion
//! confirmed by the friend code typed again, a removal of results, a poll created and closed,
//! a tournament created and whitelisted, a content file diffed, refused at its line and
//! published, and two published versions compared (the diff coloured line by line). A player's page names a device player without a name as such, its items and
//! packs by name, and its times readably (the exact time in a title). Sessions and where a
//! POST may come from: `operator_console_sessions.rs`.

use safezone_core::Settings;
use safezone_core::domain::FriendCode;
use safezone_core::operator_listener::OperatorServer;
use safezone_core::store::{AuditEntry, AuditFilter, Currency, NewSignIn, TournamentCode};
use safezone_tests::community::Player;
use safezone_tests::content::shipped_with_maintenance;
use safezone_tests::leaderboard::Played;
use safezone_tests::mode;
use safezone_tests::progression::Line;
use safezone_tests::{Answer, TestApp, each_combination, test_settings};
use serde_json::json;
use time::Duration;
use time::macros::format_description;

use super::operator_api::{Operator, token};
use super::operator_community::bad_content;

each_combination!(
    signing_in_keeps_a_session_in_a_strict_cookie,
    a_bad_token_is_refused,
    pages_without_a_working_sign_in_go_to_the_sign_in_page,
    a_post_without_the_form_token_is_403_and_changes_nothing,
    a_refund_through_the_console_writes_the_ledger_and_the_audit,
    a_read_only_token_sees_no_form_and_is_refused_every_write,
    a_deletion_needs_the_friend_code_typed_again,
    results_are_removed_through_the_console,
    a_poll_is_created_and_closed_through_the_console,
    a_tournament_is_created_and_whitelisted_through_the_console,
    content_is_diffed_refused_and_published_through_the_console,
    a_read_only_token_sees_no_community_or_content_form,
    a_player_page_shows_names_and_readable_times,
    content_versions_are_shown_and_rolled_back_to_through_the_console,
);

each_combination!(
    settings = behind_a_trusted_proxy;
    cookies_are_secure_behind_a_trusted_https_proxy,
);

/// The test settings, with the proxy in front trusted.
fn behind_a_trusted_proxy() -> Settings {
    let mut settings = test_settings();
    settings.trust_forwarded_for = true;
    settings
}

/// The console's content policy.
const POLICY: &str =
    "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The operator listener of a test app, spoken to as a browser would (cookies by hand, and
/// the `Origin` a browser sends with a form posted from the console's own pages).
pub(super) struct Console {
    listener: OperatorServer,
    client: reqwest::Client,
}

impl Console {
    pub(super) async fn serve(app: &TestApp) -> Self {
        Self {
            listener: app.operator_listener().await,
            client: app.client.clone(),
        }
    }

    /// The listener's own origin, as a browser on its pages sends it.
    pub(super) fn origin(&self) -> String {
        format!("http://{}", self.listener.local_addr())
    }

    fn url(&self, path: &str) -> String {
        format!(
            "http://{}/operator/console{path}",
            self.listener.local_addr()
        )
    }

    /// `GET path` (under `/operator/console`) with `cookies`.
    pub(super) async fn get(&self, path: &str, cookies: &[&str]) -> Answer {
        let mut request = self.client.get(self.url(path));
        if !cookies.is_empty() {
            request = request.header("cookie", cookies.join("; "));
        }
        Answer::read(request.send().await.expect("the console answers")).await
    }

    /// `POST path` with the form `fields`, `cookies` and extra `headers`; the listener's own
    /// `Origin` too unless `headers` name an `Origin` or a `Referer`.
    async fn post_with(
        &self,
        path: &str,
        cookies: &[&str],
        fields: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> Answer {
        let origin = self.origin();
        let mut headers = headers.to_vec();
        if !headers.iter().any(|(name, _)| {
            name.eq_ignore_ascii_case("origin") || name.eq_ignore_ascii_case("referer")
        }) {
            headers.push(("origin", &origin));
        }
        self.post_exactly(path, cookies, fields, &headers).await
    }

    /// `POST path` with the form `fields`, `cookies` and only the `headers` given.
    pub(super) async fn post_exactly(
        &self,
        path: &str,
        cookies: &[&str],
        fields: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> Answer {
        let mut request = self.client.post(self.url(path)).form(fields);
        if !cookies.is_empty() {
            request = request.header("cookie", cookies.join("; "));
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        Answer::read(request.send().await.expect("the console answers")).await
    }

    /// `POST path` as the console's own pages send it.
    pub(super) async fn post(
        &self,
        path: &str,
        cookies: &[&str],
        fields: &[(&str, &str)],
    ) -> Answer {
        self.post_with(path, cookies, fields, &[]).await
    }

    /// Signs in with `secret`: answers the session cookie (`safezone_console=...`).
    pub(super) async fn sign_in(&self, secret: &str) -> String {
        let answer = self.post("/sign-in", &[], &[("secret", secret)]).await;
        assert_eq!(answer.status, 303, "{}", answer.text);
        cookie_pair(&answer, "safezone_console").expect("a session cookie")
    }

    /// The page at `path` for the session `cookie`, asserted 200 HTML.
    pub(super) async fn page(&self, path: &str, cookie: &str) -> Answer {
        let page = self.get(path, &[cookie]).await;
        assert_eq!(page.status, 200, "{path}: {}", page.text);
        page
    }

    /// Posts a form of the page `page` (its form token added) and follows the redirect with
    /// the message it leaves: answers the page shown after it.
    pub(super) async fn submit(
        &self,
        cookie: &str,
        page: &Answer,
        path: &str,
        fields: &[(&str, &str)],
    ) -> Answer {
        let csrf = csrf_of(page);
        let mut fields = fields.to_vec();
        fields.push(("csrf", &csrf));
        let answer = self.post(path, &[cookie], &fields).await;
        assert_eq!(answer.status, 303, "{path}: {}", answer.text);
        let next = location(&answer);
        let flash = cookie_pair(&answer, "safezone_console_flash").expect("a message");
        let path = next
            .strip_prefix("/operator/console")
            .expect("a console page");
        let shown = self.get(path, &[cookie, &flash]).await;
        assert!(
            shown
                .header_values("set-cookie")
                .iter()
                .any(|c| { c.starts_with("safezone_console_flash=;") && c.contains("Max-Age=0") }),
            "a message is shown once: {:?}",
            shown.headers
        );
        shown
    }
}

/// The `name=value` of the `Set-Cookie` for `name` (not an expiry).
pub(super) fn cookie_pair(answer: &Answer, name: &str) -> Option<String> {
    answer
        .header_values("set-cookie")
        .into_iter()
        .filter_map(|cookie| cookie.split(';').next().map(str::to_owned))
        .find(|pair| pair.starts_with(&format!("{name}=")) && pair.len() > name.len() + 1)
}

/// The whole `Set-Cookie` for `name`.
pub(super) fn set_cookie(answer: &Answer, name: &str) -> String {
    answer
        .header_values("set-cookie")
        .into_iter()
        .find(|cookie| cookie.starts_with(&format!("{name}=")))
        .unwrap_or_else(|| panic!("no Set-Cookie {name}: {:?}", answer.headers))
}

pub(super) fn location(answer: &Answer) -> String {
    answer.header_values("location").pop().expect("a Location")
}

/// The form token of a page's forms.
pub(super) fn csrf_of(page: &Answer) -> String {
    let marker = "name=\"csrf\" value=\"";
    let at = page.text.find(marker).expect("a form token on the page") + marker.len();
    page.text[at..]
        .split('"')
        .next()
        .expect("a value")
        .to_owned()
}

pub(super) fn player_page(player: &Player) -> String {
    format!("/players?accountId={}", player.id.0)
}

pub(super) fn action(player: &Player, action: &str) -> String {
    format!("/players/{}/{action}", player.id.0)
}

/// The audit rows on `player`, newest first, from the store.
async fn audit_of(app: &TestApp, player: &Player) -> Vec<AuditEntry> {
    app.store
        .audit(&AuditFilter {
            target: Some(format!("account:{}", player.id.0)),
            limit: 100,
            ..AuditFilter::default()
        })
        .await
        .expect("the audit reads")
}

async fn signing_in_keeps_a_session_in_a_strict_cookie(app: TestApp) {
    let console = Console::serve(&app).await;
    let secret = app.operator_token("alice", "full").await;

    let form = console.get("/sign-in", &[]).await;
    assert_eq!(form.status, 200);
    assert_eq!(
        form.header_values("content-type"),
        ["text/html; charset=utf-8"]
    );
    assert_eq!(form.header_values("content-security-policy"), [POLICY]);
    assert_eq!(form.header_values("x-frame-options"), ["DENY"]);
    assert!(form.text.contains("name=\"secret\""), "{}", form.text);
    let css = console.get("/assets/console.css", &[]).await;
    assert_eq!(css.status, 200);
    assert_eq!(
        css.header_values("content-type"),
        ["text/css; charset=utf-8"]
    );

    let signed_in = console.post("/sign-in", &[], &[("secret", &secret)]).await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.text);
    assert_eq!(location(&signed_in), "/operator/console/");
    let cookie = cookie_pair(&signed_in, "safezone_console").expect("a session cookie");
    let session = cookie
        .strip_prefix("safezone_console=session_")
        .expect("the cookie holds a session id");
    assert!(
        session.len() == 48 && session.bytes().all(|b| b.is_ascii_hexdigit()),
        "{cookie}"
    );
    assert!(!cookie.contains(&secret), "never the token's secret");
    assert_eq!(
        set_cookie(&signed_in, "safezone_console"),
        format!("{cookie}; Path=/operator/console; Max-Age=43200; HttpOnly; SameSite=Strict"),
        "not Secure over plain HTTP"
    );
    assert_ne!(
        console.sign_in(&secret).await,
        cookie,
        "each sign-in is a session of its own"
    );
    let home = console.page("/", &cookie).await;
    assert!(
        home.text.contains("id=\"operator-name\">alice<"),
        "{}",
        home.text
    );
    assert!(home.text.contains("full access"));
    assert_eq!(home.header_values("content-security-policy"), [POLICY]);
    assert_eq!(home.header_values("cache-control"), ["no-store"]);
    assert_eq!(home.header_values("referrer-policy"), ["same-origin"]);
    let status = console.page("/status", &cookie).await;
    assert!(
        status.text.contains(env!("CARGO_PKG_VERSION")),
        "{}",
        status.text
    );
    assert!(status.text.contains("reachable"));

    // Signing out forgets the cookie; the console is not on the public port.
    let csrf = csrf_of(&home);
    let out = console
        .post("/sign-out", &[&cookie], &[("csrf", &csrf)])
        .await;
    assert_eq!(out.status, 303);
    assert_eq!(location(&out), "/operator/console/sign-in");
    assert!(set_cookie(&out, "safezone_console").contains("Max-Age=0"));
    let public = app.get("/operator/console/").await;
    public.error(404, "not_found");
}

async fn a_bad_token_is_refused(app: TestApp) {
    let console = Console::serve(&app).await;
    let secret = app.operator_token("alice", "full").await;
    for bad in [
        "nonsense",
        &"0".repeat(48),
        &secret.to_uppercase(),
        "a\r\nb",
        "",
    ] {
        let answer = console.post("/sign-in", &[], &[("secret", bad)]).await;
        assert_eq!(answer.status, 401, "{bad:?}: {}", answer.text);
        assert!(
            answer.text.contains("id=\"sign-in-error\""),
            "{}",
            answer.text
        );
        assert!(
            cookie_pair(&answer, "safezone_console").is_none(),
            "no session for {bad:?}"
        );
    }
    let cross_site = console
        .post_with(
            "/sign-in",
            &[],
            &[("secret", &secret)],
            &[("sec-fetch-site", "cross-site")],
        )
        .await;
    assert_eq!(cross_site.status, 403, "{}", cross_site.text);
    assert!(cookie_pair(&cross_site, "safezone_console").is_none());
    app.revoke_operator_token("alice").await;
    let answer = console.post("/sign-in", &[], &[("secret", &secret)]).await;
    assert_eq!(answer.status, 401);
    assert!(answer.text.contains("revoked"), "{}", answer.text);
}

async fn pages_without_a_working_sign_in_go_to_the_sign_in_page(app: TestApp) {
    let console = Console::serve(&app).await;
    let player = app.player().await;
    for path in ["/", "/audit", "/status", &player_page(&player), "/polls"] {
        let answer = console.get(path, &[]).await;
        assert_eq!(answer.status, 303, "{path}: {}", answer.text);
        assert_eq!(location(&answer), "/operator/console/sign-in", "{path}");
    }
    let bare = console.get("", &[]).await;
    assert_eq!(
        (bare.status, location(&bare).as_str()),
        (303, "/operator/console/")
    );
    let refund = [("currency", "coins"), ("amount", "5"), ("reason", "r")];
    let answer = console.post(&action(&player, "refund"), &[], &refund).await;
    assert_eq!(location(&answer), "/operator/console/sign-in");

    // A token revoked after signing in stops working at the next request.
    let secret = app.operator_token("alice", "full").await;
    let cookie = console.sign_in(&secret).await;
    console.page(&player_page(&player), &cookie).await;
    app.revoke_operator_token("alice").await;
    let answer = console.get(&player_page(&player), &[&cookie]).await;
    assert_eq!(answer.status, 303);
    assert_eq!(location(&answer), "/operator/console/sign-in");
    assert!(set_cookie(&answer, "safezone_console").contains("Max-Age=0"));
    let flash = cookie_pair(&answer, "safezone_console_flash").expect("a message");
    let page = console.get("/sign-in", &[&flash]).await;
    assert!(page.text.contains("no longer works"), "{}", page.text);

    assert_eq!(app.stored_account(player.id).await.coins, 0);
    assert!(audit_of(&app, &player).await.is_empty());
    let unknown = console.get("/no-such-page", &[]).await;
    assert_eq!(unknown.status, 404);
    assert!(
        unknown.text.contains("No such page"),
        "an HTML page: {}",
        unknown.text
    );
}

async fn a_post_without_the_form_token_is_403_and_changes_nothing(app: TestApp) {
    let console = Console::serve(&app).await;
    let player = app.player().await;
    let alice = console
        .sign_in(&app.operator_token("alice", "full").await)
        .await;
    let bob = console
        .sign_in(&app.operator_token("bob", "full").await)
        .await;
    let bobs_page = console.page(&player_page(&player), &bob).await;
    let bobs_csrf = csrf_of(&bobs_page);
    let refund = [("currency", "coins"), ("amount", "5"), ("reason", "forged")];
    let forms: [Vec<(&str, &str)>; 4] = [
        refund.to_vec(),
        [refund.as_slice(), &[("csrf", "")]].concat(),
        [refund.as_slice(), &[("csrf", "00ff")]].concat(),
        [refund.as_slice(), &[("csrf", bobs_csrf.as_str())]].concat(),
    ];
    for form in &forms {
        let answer = console
            .post(&action(&player, "refund"), &[&alice], form)
            .await;
        assert_eq!(answer.status, 403, "{form:?}: {}", answer.text);
        assert!(
            answer.text.contains("cannot be accepted"),
            "{}",
            answer.text
        );
        assert_eq!(answer.header_values("content-security-policy"), [POLICY]);
    }
    let out = console.post("/sign-out", &[&alice], &[]).await;
    assert_eq!(out.status, 403, "signing out needs the form token too");

    let account = app.stored_account(player.id).await;
    assert_eq!((account.coins, account.gems), (0, 0));
    assert!(app.store.ledger(player.id).await.expect("reads").is_empty());
    assert!(
        audit_of(&app, &player).await.is_empty(),
        "the API was never asked"
    );
}

async fn a_refund_through_the_console_writes_the_ledger_and_the_audit(app: TestApp) {
    let console = Console::serve(&app).await;
    let player = app.player().await;
    let cookie = console
        .sign_in(&app.operator_token("alice", "full").await)
        .await;

    let code = player.friend_code.to_string();
    let found = console
        .page(
            &format!("/players?friendCode={}", code.replace('#', "%23")),
            &cookie,
        )
        .await;
    assert!(
        found
            .text
            .contains(&format!("id=\"account-id\">{}<", player.id.0))
    );
    for form in [
        "id=\"refund\"",
        "id=\"grant\"",
        "id=\"ban\"",
        "id=\"revoke-keys\"",
    ] {
        assert!(found.text.contains(form), "{form} offered to a full token");
    }

    let reason = "ticket 99: <b>double</b> & \"charge\"";
    let fields = [("currency", "gems"), ("amount", "7"), ("reason", reason)];
    let shown = console
        .submit(&cookie, &found, &action(&player, "refund"), &fields)
        .await;
    assert_eq!(shown.status, 200, "{}", shown.text);
    assert!(
        shown.text.contains("Refund: done (moved: 1)."),
        "{}",
        shown.text
    );
    let escaped = "ticket 99: &#60;b&#62;double&#60;/b&#62; &#38; &#34;charge&#34;";
    assert!(
        shown.text.contains(escaped) && !shown.text.contains("<b>double"),
        "the reason is shown escaped: {}",
        shown.text
    );
    assert!(shown.text.contains("id=\"account-gems\">7<"));

    // The ledger row and the audit row, from the store.
    let ledger = app.store.ledger(player.id).await.expect("the ledger reads");
    let rows: Vec<(Currency, i64, i64, &str, &str)> = ledger
        .iter()
        .map(|e| {
            let row = (e.currency, e.delta, e.balance_after);
            (row.0, row.1, row.2, e.reason.as_str(), e.reference.as_str())
        })
        .collect();
    assert_eq!(
        rows,
        [(Currency::Gems, 7, 7, reason, "operator:alice:refund")]
    );
    let audit = audit_of(&app, &player).await;
    assert_eq!(audit.len(), 1);
    assert_eq!(
        (audit[0].token_name.as_str(), audit[0].entry.action.as_str()),
        ("alice", "refund")
    );
    assert_eq!(
        (
            audit[0].entry.reason.as_str(),
            audit[0].entry.result.as_str()
        ),
        (reason, "done")
    );

    // The audit page shows it, filtered; a refusal is the API's, in the audit too.
    let page = console
        .page("/audit?action=refund&token=alice", &cookie)
        .await;
    assert!(page.text.contains(escaped), "{}", page.text);
    assert!(page.text.contains(&format!("account:{}", player.id.0)));
    let none = console.page("/audit?action=grant", &cookie).await;
    assert!(none.text.contains("id=\"audit-empty\""), "{}", none.text);
    let refused = console
        .submit(
            &cookie,
            &found,
            &action(&player, "remove"),
            &[("coins", "5"), ("reason", "too much")],
        )
        .await;
    assert!(
        refused.text.contains("Removal refused: removing 5 coins"),
        "{}",
        refused.text
    );
    assert!(refused.text.contains("(balance_too_low)"));
    assert_eq!(audit_of(&app, &player).await.len(), 2);
    app.assert_ledger_balanced(player.id).await;
}

async fn a_read_only_token_sees_no_form_and_is_refused_every_write(app: TestApp) {
    let console = Console::serve(&app).await;
    let player = app.player().await;
    let cookie = console
        .sign_in(&app.operator_token("bob", "read").await)
        .await;
    let page = console.page(&player_page(&player), &cookie).await;
    assert!(
        page.text.contains("id=\"operator-role\">read-only<"),
        "{}",
        page.text
    );
    assert!(page.text.contains("id=\"read-only-note\""));
    for form in [
        "id=\"refund\"",
        "id=\"grant\"",
        "id=\"remove\"",
        "id=\"ban\"",
        "id=\"revoke-keys\"",
    ] {
        assert!(
            !page.text.contains(form),
            "{form} hidden from a read-only token"
        );
    }

    let writes: [(&str, &[(&str, &str)]); 5] = [
        ("grant", &[("coins", "5"), ("reason", "r")]),
        (
            "refund",
            &[("currency", "coins"), ("amount", "5"), ("reason", "r")],
        ),
        ("remove", &[("coins", "5"), ("reason", "r")]),
        ("ban", &[("banned", "true"), ("reason", "r")]),
        ("revoke-keys", &[("reason", "r")]),
    ];
    for (name, fields) in writes {
        let shown = console
            .submit(&cookie, &page, &action(&player, name), fields)
            .await;
        assert!(
            shown
                .text
                .contains("refused: the operator token bob is read-only")
                && shown.text.contains("(operator_read_only)"),
            "{name}: {}",
            shown.text
        );
    }
    let account = app.stored_account(player.id).await;
    assert_eq!((account.coins, account.is_banned), (0, false));
    assert!(app.store.ledger(player.id).await.expect("reads").is_empty());
    app.get(&format!("/api/user/{}", player.key))
        .await
        .success();
    let audit = audit_of(&app, &player).await;
    assert_eq!(audit.len(), 5, "the API audits each refusal");
    assert!(audit.iter().all(|row| {
        row.token_name == "bob"
            && row
                .entry
                .result
                .starts_with("refused: the operator token bob is read-only")
    }));
}

async fn cookies_are_secure_behind_a_trusted_https_proxy(app: TestApp) {
    let console = Console::serve(&app).await;
    let secret = app.operator_token("alice", "full").await;
    let https = [("x-forwarded-proto", "https")];
    let answer = console
        .post_with("/sign-in", &[], &[("secret", &secret)], &https)
        .await;
    assert_eq!(answer.status, 303);
    assert!(set_cookie(&answer, "safezone_console").ends_with("; Secure"));
    assert!(set_cookie(&answer, "safezone_console_flash").ends_with("; Secure"));
    let plain = console
        .post_with(
            "/sign-in",
            &[],
            &[("secret", &secret)],
            &[("x-forwarded-proto", "http")],
        )
        .await;
    assert!(!set_cookie(&plain, "safezone_console").contains("Secure"));
}

/// `hours` from the app's clock, as a browser's `datetime-local` value (UTC, to the minute).
fn local_time(app: &TestApp, hours: i64) -> String {
    let at = app.now() + Duration::hours(hours);
    at.format(format_description!("[year]-[month]-[day]T[hour]:[minute]"))
        .expect("a time formats")
}

async fn a_deletion_needs_the_friend_code_typed_again(app: TestApp) {
    let console = Console::serve(&app).await;
    let (device, body) = app.new_device().await;
    let id = body["user"]["id"].as_i64().expect("an id");
    let code = body["user"]["friend_code"]
        .as_str()
        .expect("a code")
        .to_owned();
    let cookie = console
        .sign_in(&app.operator_token("alice", "full").await)
        .await;
    let found = console
        .page(&format!("/players?deviceId={device}"), &cookie)
        .await;
    assert!(found.text.contains(&format!("id=\"account-id\">{id}<")));
    assert!(found.text.contains("id=\"delete-link\""), "{}", found.text);

    let page = console
        .page(&format!("/players/{id}/delete"), &cookie)
        .await;
    let path = format!("/players/{id}/delete");
    let wrong = [("confirm", "Someone#0001"), ("reason", "erasure 31")];
    let refused = console.submit(&cookie, &page, &path, &wrong).await;
    assert!(
        refused.text.contains("Deletion refused:") && refused.text.contains(&code),
        "{}",
        refused.text
    );
    assert!(
        refused.text.contains("id=\"delete\""),
        "back on the confirmation page"
    );
    let account = safezone_core::store::AccountId(id);
    assert!(app.store.account(account).await.expect("reads").is_some());

    let right = [("confirm", code.as_str()), ("reason", "erasure 31")];
    let deleted = console.submit(&cookie, &page, &path, &right).await;
    assert!(
        deleted.text.contains("Deletion: done (")
            && deleted.text.contains(&format!("deleted: {id}")),
        "{}",
        deleted.text
    );
    assert!(app.store.account(account).await.expect("reads").is_none());
}

async fn results_are_removed_through_the_console(app: TestApp) {
    let console = Console::serve(&app).await;
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 2).await;
    let lines = vec![
        Line::new(players[0].id, 1, 30, 900),
        Line::new(players[1].id, 2, 2, 800),
    ];
    app.report_now(&mut played, mode("squad"), lines).await;
    let cookie = console
        .sign_in(&app.operator_token("alice", "full").await)
        .await;
    let cheater = &players[0];
    let page = console.page(&player_page(cheater), &cookie).await;
    assert!(page.text.contains("id=\"matches\""), "{}", page.text);
    assert!(page.text.contains("<td>squad</td>"), "{}", page.text);
    let shown = console
        .submit(
            &cookie,
            &page,
            &action(cheater, "remove-results"),
            &[("reason", "aimbot, report 9")],
        )
        .await;
    assert!(
        shown
            .text
            .contains("Removal of results: done (removed: 1)."),
        "{}",
        shown.text
    );
    assert!(shown.text.contains("No match result."), "{}", shown.text);
    let left = app
        .store
        .recent_results(cheater.id, 10)
        .await
        .expect("reads");
    assert!(left.is_empty(), "{left:?}");
}

async fn a_poll_is_created_and_closed_through_the_console(app: TestApp) {
    let console = Console::serve(&app).await;
    let cookie = console
        .sign_in(&app.operator_token("alice", "full").await)
        .await;
    let list = console.page("/polls", &cookie).await;
    let closes = local_time(&app, 2);
    let fields = [
        ("question", "Next map?"),
        ("option_name_1", "Desert"),
        ("option_colour_1", "#e0c080"),
        ("option_name_2", "Jungle"),
        ("option_colour_2", "#20a040"),
        ("option_name_3", ""),
        ("option_colour_3", "#3366ff"),
        ("closes", closes.as_str()),
        ("reason", "weekly poll"),
    ];
    let shown = console.submit(&cookie, &list, "/polls", &fields).await;
    assert!(
        shown.text.contains("Poll creation: done."),
        "{}",
        shown.text
    );
    assert!(shown.text.contains("Next map?"), "{}", shown.text);
    let polls = app.store.polls(10).await.expect("reads");
    let poll = &polls.first().expect("a poll").poll;
    assert_eq!(poll.options.len(), 2);
    assert_eq!(
        poll.window
            .closes
            .format(format_description!("[year]-[month]-[day]T[hour]:[minute]"))
            .expect("formats"),
        closes
    );

    let path = format!("/polls/{}", poll.id.0);
    let page = console.page(&path, &cookie).await;
    assert!(
        page.text.contains("id=\"poll-state\">open<"),
        "{}",
        page.text
    );
    let closed = console
        .submit(
            &cookie,
            &page,
            &format!("{path}/close"),
            &[("reason", "enough")],
        )
        .await;
    assert!(
        closed
            .text
            .contains("Poll closing: done (closedNow: true)."),
        "{}",
        closed.text
    );
    assert!(closed.text.contains("id=\"poll-state\">closed<"));
    assert!(!closed.text.contains("id=\"close-poll\""));
    let polls = app.store.polls(10).await.expect("reads");
    assert!(polls[0].poll.window.closed_at.is_some());
}

async fn a_tournament_is_created_and_whitelisted_through_the_console(app: TestApp) {
    let console = Console::serve(&app).await;
    let player = app.player().await;
    let cookie = console
        .sign_in(&app.operator_token("alice", "full").await)
        .await;
    let list = console.page("/tournaments", &cookie).await;
    let closes = local_time(&app, 24);
    let fields = [
        ("code", "Winter-Cup"),
        ("mode", "solo"),
        ("opens", ""),
        ("closes", closes.as_str()),
        ("capacity", "6"),
        ("whitelistOnly", "true"),
        ("reason", "winter event"),
    ];
    let shown = console
        .submit(&cookie, &list, "/tournaments", &fields)
        .await;
    assert!(
        shown.text.contains("Tournament creation: done."),
        "{}",
        shown.text
    );
    assert!(shown.text.contains(">winter-cup</a>"), "{}", shown.text);

    let page = console.page("/tournaments/winter-cup", &cookie).await;
    let friend = player.friend_code.to_string();
    let add = format!("{friend}, Ghost#9999");
    let whitelisted = console
        .submit(
            &cookie,
            &page,
            "/tournaments/winter-cup/whitelist",
            &[("add", add.as_str()), ("remove", ""), ("reason", "invited")],
        )
        .await;
    assert!(
        whitelisted.text.contains("Whitelist change: done (")
            && whitelisted.text.contains("unknown: Ghost#9999"),
        "{}",
        whitelisted.text
    );
    assert!(whitelisted.text.contains(&format!("<li>{friend}</li>")));
    let edited = console
        .submit(
            &cookie,
            &page,
            "/tournaments/winter-cup",
            &[
                ("mode", ""),
                ("capacity", "8"),
                ("whitelistOnly", ""),
                ("reason", "room"),
            ],
        )
        .await;
    assert!(
        edited.text.contains("Tournament change: done."),
        "{}",
        edited.text
    );
    let code = TournamentCode::parse("winter-cup").expect("a code");
    let stored = app
        .store
        .tournament(&code)
        .await
        .expect("reads")
        .expect("a tournament");
    assert_eq!((stored.capacity, stored.whitelist_only), (8, true));
    let whitelist = app.store.whitelist(&code).await.expect("reads");
    assert_eq!(whitelist, Some(vec![player.friend_code.clone()]));
}

async fn content_is_diffed_refused_and_published_through_the_console(app: TestApp) {
    let console = Console::serve(&app).await;
    let cookie = console
        .sign_in(&app.operator_token("alice", "full").await)
        .await;
    let page = console.page("/content", &cookie).await;
    assert!(
        page.text.contains("id=\"content-running\">0<"),
        "{}",
        page.text
    );
    let csrf = csrf_of(&page);
    let on = shipped_with_maintenance(true);
    let diffed = console
        .post(
            "/content/diff",
            &[&cookie],
            &[("text", &on), ("csrf", &csrf)],
        )
        .await;
    assert_eq!(diffed.status, 200, "{}", diffed.text);
    assert!(
        diffed.text.contains("The file is valid."),
        "{}",
        diffed.text
    );
    assert!(
        diffed.text.contains("+maintenance = true"),
        "{}",
        diffed.text
    );

    let (bad, line) = bad_content();
    let checked = console
        .post(
            "/content/diff",
            &[&cookie],
            &[("text", &bad), ("csrf", &csrf)],
        )
        .await;
    assert!(
        checked
            .text
            .contains(&format!("<strong>line {line}</strong>")),
        "{}",
        checked.text
    );
    let fields = [
        ("text", bad.as_str()),
        ("reason", "bad file"),
        ("csrf", &csrf),
    ];
    let refused = console.post("/content/publish", &[&cookie], &fields).await;
    assert_eq!(refused.status, 400, "{}", refused.text);
    assert!(
        refused.text.contains(&format!("line {line}"))
            && refused.text.contains("(invalid_content)"),
        "{}",
        refused.text
    );
    assert_eq!(app.store.content_head().await.expect("reads"), 0);

    let published = console
        .submit(
            &cookie,
            &page,
            "/content/publish",
            &[("text", &on), ("reason", "maintenance window")],
        )
        .await;
    assert!(
        published.text.contains("Publication: done (") && published.text.contains("version: 1"),
        "{}",
        published.text
    );
    assert!(published.text.contains("id=\"content-running\">1<"));
    let config = app.get("/api/config").await;
    assert_eq!(config.success()["config"]["maintenance"], true);
}

async fn a_read_only_token_sees_no_community_or_content_form(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let full = token(&app, "alice", "full").await;
    let closes = (app.now() + Duration::hours(2))
        .format(&time::format_description::well_known::Rfc3339)
        .expect("formats");
    let poll = json!({"question": "Map?", "options": [{"name": "A", "colour": "#112233"}, {"name": "B", "colour": "#445566"}],
        "closes": closes, "reason": "r"});
    let created = operator
        .post(&app, "/operator/api/polls", &full, poll)
        .await;
    let poll_id = created.success()["poll"]["id"].as_i64().expect("an id");
    let cup =
        json!({"code": "cup", "mode": "solo", "closes": closes, "capacity": 4, "reason": "r"});
    operator
        .post(&app, "/operator/api/tournaments", &full, cup)
        .await
        .success();
    let player = app.player().await;

    let console = Console::serve(&app).await;
    let cookie = console
        .sign_in(&app.operator_token("bob", "read").await)
        .await;
    let pages: [(String, &[&str]); 7] = [
        ("/polls".to_owned(), &["id=\"create-poll\""]),
        (
            format!("/polls/{poll_id}"),
            &["id=\"edit-poll\"", "id=\"close-poll\""],
        ),
        ("/tournaments".to_owned(), &["id=\"create-tournament\""]),
        (
            "/tournaments/cup".to_owned(),
            &[
                "id=\"edit-whitelist\"",
                "id=\"edit-tournament\"",
                "id=\"close-tournament\"",
            ],
        ),
        (
            "/content".to_owned(),
            &["/content/publish", "id=\"content-rollback\""],
        ),
        (
            player_page(&player),
            &["id=\"remove-results\"", "id=\"delete-link\""],
        ),
        (
            format!("/players/{}/delete", player.id.0),
            &["id=\"delete\""],
        ),
    ];
    for (path, forms) in &pages {
        let page = console.page(path, &cookie).await;
        for form in *forms {
            assert!(
                !page.text.contains(form),
                "{path}: {form} hidden from a read-only token"
            );
        }
    }
    let page = console.page(&pages[6].0, &cookie).await;
    let code = player.friend_code.to_string();
    let refused = console
        .submit(
            &cookie,
            &page,
            &pages[6].0,
            &[("confirm", code.as_str()), ("reason", "r")],
        )
        .await;
    assert!(
        refused.text.contains("(operator_read_only)"),
        "{}",
        refused.text
    );
    assert!(app.store.account(player.id).await.expect("reads").is_some());
}

async fn a_player_page_shows_names_and_readable_times(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let full = token(&app, "alice", "full").await;
    let player = app.player().await;
    let grant = json!({"items": ["outfit-ranger"], "packs": ["basic-chest:2"], "coins": 5,
        "reason": "welcome back"});
    operator
        .post(
            &app,
            &format!("/operator/api{}", action(&player, "grant")),
            &full,
            grant,
        )
        .await
        .success();
    let console = Console::serve(&app).await;
    let cookie = console
        .sign_in(&app.operator_token("bob", "read").await)
        .await;

    let page = console.page(&player_page(&player), &cookie).await;
    assert!(
        page.text
            .contains("id=\"account-name\"><span class=\"muted\">device player, no name set<"),
        "{}",
        page.text
    );
    assert!(!page.text.contains(">none<"), "{}", page.text);
    for (kind, name, sku) in [
        ("item", "Ranger", "outfit-ranger"),
        ("pack", "Basic Chest", "basic-chest"),
    ] {
        assert!(
            page.text
                .contains(&format!("<tr><td>{kind}</td><td>{name}</td><td>{sku}</td>")),
            "{kind} {name}: {}",
            page.text
        );
    }
    // The account was made and the grant written at the clock's start, 2026-11-23 noon UTC.
    let noon = "<time datetime=\"2026-11-23T12:00:00Z\" title=\"2026-11-23T12:00:00Z\">\
                2026-11-23 12:00 UTC</time>";
    assert!(
        page.text.contains(&format!("<dd>{noon}</dd>")),
        "the account's creation: {}",
        page.text
    );
    assert!(
        page.text
            .contains(&format!("<td>{noon}</td><td>coins</td>")),
        "the ledger row: {}",
        page.text
    );
    let audit = console.page("/audit", &cookie).await;
    assert!(
        audit.text.contains(&format!("<td>{noon}</td>")),
        "the audit row: {}",
        audit.text
    );

    // A player who signed in elsewhere than on a device, without a name, is told apart.
    app.clock.advance(Duration::minutes(90));
    let signed_in = app
        .store
        .sign_in(NewSignIn {
            provider: "idpone".to_owned(),
            identifier: "subject-1".to_owned(),
            name: None,
            avatar: None,
            email: None,
            friend_code_candidates: vec![FriendCode::new("Nameless", 1).expect("a friend code")],
            now: app.now(),
        })
        .await
        .expect("the sign-in is stored");
    let page = console
        .page(
            &format!("/players?accountId={}", signed_in.account.id.0),
            &cookie,
        )
        .await;
    assert!(
        page.text
            .contains("id=\"account-name\"><span class=\"muted\">no name set<"),
        "{}",
        page.text
    );
    assert!(
        page.text.contains(">2026-11-23 13:30 UTC</time>"),
        "{}",
        page.text
    );
}

async fn content_versions_are_shown_and_rolled_back_to_through_the_console(app: TestApp) {
    let console = Console::serve(&app).await;
    let cookie = console
        .sign_in(&app.operator_token("alice", "full").await)
        .await;
    // The editor starts from the running text (HTML-escaped in the page).
    let page = console.page("/content", &cookie).await;
    assert!(
        page.text.contains("id=\"text\" name=\"text\"")
            && page.text.contains("rename_cost_gems = 40"),
        "{}",
        page.text
    );
    let on = shipped_with_maintenance(true).replace('\n', "\r\n");
    let fields = [("text", on.as_str()), ("reason", "maintenance window")];
    console
        .submit(&cookie, &page, "/content/publish", &fields)
        .await;
    let stored = app.store.published_content(1).await.expect("reads");
    assert_eq!(
        stored.expect("version 1").text,
        shipped_with_maintenance(true)
    );
    let off = shipped_with_maintenance(false);
    let fields = [("text", off.as_str()), ("reason", "maintenance over")];
    let page = console.page("/content", &cookie).await;
    let page = console
        .submit(&cookie, &page, "/content/publish", &fields)
        .await;
    assert!(
        page.text
            .contains("href=\"/operator/console/content/versions/1\""),
        "{}",
        page.text
    );
    assert!(page.text.contains("maintenance window"), "{}", page.text);

    let one = console.page("/content/versions/1", &cookie).await;
    assert!(
        one.text.contains("id=\"content-version-by\">alice<"),
        "{}",
        one.text
    );
    assert!(
        one.text
            .contains("id=\"content-version-reason\">maintenance window<"),
        "{}",
        one.text
    );
    assert!(one.text.contains("maintenance = true"), "{}", one.text);
    let fields = [("to", "1"), ("reason", "back to version 1")];
    console
        .submit(&cookie, &one, "/content/rollback", &fields)
        .await;
    let three = app.store.published_content(3).await.expect("reads");
    let three = three.expect("version 3");
    assert_eq!(three.about.restores, Some(1));
    assert_eq!(three.about.by.as_deref(), Some("alice"));
    // A version's page compares it with the one before, coloured line by line, or with any
    // version asked for.
    let two = console.page("/content/versions/2", &cookie).await;
    assert!(
        two.text.contains("From version 1 to version 2"),
        "{}",
        two.text
    );
    assert!(
        two.text.contains("<span class=\"diff-del\">-")
            && two.text.contains("<span class=\"diff-add\">+"),
        "{}",
        two.text
    );
    let same = console.page("/content/versions/3?from=1", &cookie).await;
    assert!(
        same.text.contains("From version 1 to version 3"),
        "{}",
        same.text
    );
    assert!(same.text.contains("The same text."), "{}", same.text);
    let unknown = console.get("/content/versions/3?from=8", &[&cookie]).await;
    assert_eq!(unknown.status, 404, "{}", unknown.text);
    let missing = console.get("/content/versions/9", &[&cookie]).await;
    assert_eq!(missing.status, 404, "{}", missing.text);
}
