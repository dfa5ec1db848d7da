//! The web console on the operator listener, over HTTP without a browser: signing in keeps the
//! token's secret in a strict cookie (`Secure` behind a trusted HTTPS proxy), a bad token (or a
//! sign-in sent from another site) is refused, pages without a sign-in (or with a revoked token) go to the sign-in page, a form
//! without its token is refused with 403, a refund made through the console is the operator
//! API's (its ledger row and audit row read from the store, shown escaped on the pages), and a
//! read-only token sees no form and changes nothing.

use safezone_core::Settings;
use safezone_core::metrics::MetricsServer;
use safezone_core::store::{AuditEntry, AuditFilter, Currency};
use safezone_tests::community::Player;
use safezone_tests::{Answer, TestApp, each_combination, test_settings};

each_combination!(
    signing_in_keeps_the_secret_in_a_strict_cookie,
    a_bad_token_is_refused,
    pages_without_a_working_sign_in_go_to_the_sign_in_page,
    a_post_without_the_form_token_is_403_and_changes_nothing,
    a_refund_through_the_console_writes_the_ledger_and_the_audit,
    a_read_only_token_sees_no_form_and_is_refused_every_write,
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

/// The operator listener of a test app, spoken to as a browser would (cookies by hand).
struct Console {
    listener: MetricsServer,
    client: reqwest::Client,
}

impl Console {
    async fn serve(app: &TestApp) -> Self {
        Self {
            listener: app.operator_listener().await,
            client: app.client.clone(),
        }
    }

    fn url(&self, path: &str) -> String {
        format!(
            "http://{}/operator/console{path}",
            self.listener.local_addr()
        )
    }

    /// `GET path` (under `/operator/console`) with `cookies`.
    async fn get(&self, path: &str, cookies: &[&str]) -> Answer {
        let mut request = self.client.get(self.url(path));
        if !cookies.is_empty() {
            request = request.header("cookie", cookies.join("; "));
        }
        Answer::read(request.send().await.expect("the console answers")).await
    }

    /// `POST path` with the form `fields`, `cookies` and extra `headers`.
    async fn post_with(
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

    async fn post(&self, path: &str, cookies: &[&str], fields: &[(&str, &str)]) -> Answer {
        self.post_with(path, cookies, fields, &[]).await
    }

    /// Signs in with `secret`: answers the session cookie (`safezone_console=...`).
    async fn sign_in(&self, secret: &str) -> String {
        let answer = self.post("/sign-in", &[], &[("secret", secret)]).await;
        assert_eq!(answer.status, 303, "{}", answer.text);
        cookie_pair(&answer, "safezone_console").expect("a session cookie")
    }

    /// The page at `path` for the session `cookie`, asserted 200 HTML.
    async fn page(&self, path: &str, cookie: &str) -> Answer {
        let page = self.get(path, &[cookie]).await;
        assert_eq!(page.status, 200, "{path}: {}", page.text);
        page
    }

    /// Posts a form of the page `page` (its form token added) and follows the redirect with
    /// the message it leaves: answers the page shown after it.
    async fn submit(
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
fn cookie_pair(answer: &Answer, name: &str) -> Option<String> {
    answer
        .header_values("set-cookie")
        .into_iter()
        .filter_map(|cookie| cookie.split(';').next().map(str::to_owned))
        .find(|pair| pair.starts_with(&format!("{name}=")) && pair.len() > name.len() + 1)
}

/// The whole `Set-Cookie` for `name`.
fn set_cookie(answer: &Answer, name: &str) -> String {
    answer
        .header_values("set-cookie")
        .into_iter()
        .find(|cookie| cookie.starts_with(&format!("{name}=")))
        .unwrap_or_else(|| panic!("no Set-Cookie {name}: {:?}", answer.headers))
}

fn location(answer: &Answer) -> String {
    answer.header_values("location").pop().expect("a Location")
}

/// The form token of a page's forms.
fn csrf_of(page: &Answer) -> String {
    let marker = "name=\"csrf\" value=\"";
    let at = page.text.find(marker).expect("a form token on the page") + marker.len();
    page.text[at..]
        .split('"')
        .next()
        .expect("a value")
        .to_owned()
}

fn player_page(player: &Player) -> String {
    format!("/players?accountId={}", player.id.0)
}

fn action(player: &Player, action: &str) -> String {
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

async fn signing_in_keeps_the_secret_in_a_strict_cookie(app: TestApp) {
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
    assert_eq!(
        set_cookie(&signed_in, "safezone_console"),
        format!(
            "safezone_console={secret}; Path=/operator/console; Max-Age=43200; HttpOnly; \
             SameSite=Strict"
        ),
        "not Secure over plain HTTP"
    );
    let cookie = format!("safezone_console={secret}");
    let home = console.page("/", &cookie).await;
    assert!(
        home.text.contains("id=\"operator-name\">alice<"),
        "{}",
        home.text
    );
    assert!(home.text.contains("full access"));
    assert_eq!(home.header_values("content-security-policy"), [POLICY]);
    assert_eq!(home.header_values("cache-control"), ["no-store"]);
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
