//! Sign-in through identity providers and the chat platform, the login pages, and in-app
//! purchase receipts, end to end: Safezone over real HTTP with a real OpenID provider
//! (`oidc-provider`, the `idpone`), a real browser (headless Chromium through `playwright-core`),
//! a plain OAuth2 provider mock (`idptwo`), a chat platform mock, two receipt verifier mocks and
//! the Windows client's loopback listener (see `safezone_tests::login_kit`).
//!
//! Every test runs under warp on SQLite and under rocket on PostgreSQL.

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::Method;
use safezone_tests::Answer;
use safezone_tests::login_kit::{
    BrowserMode, ChatPlatform, LoginApp, OAuth2Provider, free_port, keys_in, run_browser,
    set_cookie,
};
use serde_json::{Value, json};

/// Generates, for each named `async fn(&LoginApp)`, a module with a test under warp on SQLite
/// and one under rocket on PostgreSQL.
macro_rules! on_both {
    ($($test:ident),* $(,)?) => {
        $(
            mod $test {
                use safezone_tests::login_kit::LoginApp;
                use safezone_tests::{Database, Server};

                #[tokio::test]
                async fn warp_sqlite() {
                    let app = LoginApp::start(Server::Warp, Database::Sqlite).await;
                    super::$test(&app).await;
                    app.finish().await;
                }

                #[tokio::test]
                async fn rocket_postgres() {
                    let app = LoginApp::start(Server::Rocket, Database::Postgres).await;
                    super::$test(&app).await;
                    app.finish().await;
                }
            }
        )*
    };
}

on_both!(
    browser_signs_in_on_the_web_and_out_again,
    browser_posts_only_to_configured_origins,
    browser_windows_client_gets_the_key_on_loopback,
    browser_windows_override_gets_the_key_on_loopback,
    browser_runs_no_script_from_names_or_csrf,
    idpone_sign_in_without_a_browser_and_reused_code,
    idptwo_sign_in_following_redirects_by_hand,
    login_cookie_is_http_only_lax_ten_minutes_under_user,
    login_needs_csrf_and_a_known_provider,
    validate_rejects_forged_state_and_bad_cookies,
    provider_down_is_502_without_a_key,
    pages_escape_markup_from_providers_and_clients,
    chat_validate_signs_in_and_records_premium,
    chat_validate_rejects_bad_tokens_and_a_down_platform,
    receipts_grant_once_per_store_transaction,
    receipts_reject_bad_input_and_a_down_verifier,
    concurrent_replays_of_a_receipt_grant_once,
);

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// The decoded query parameters of `url`.
fn query_of(url: &str) -> BTreeMap<String, String> {
    let query = url
        .split_once('?')
        .map(|(_, query)| query)
        .unwrap_or_default();
    form_urlencoded::parse(query.as_bytes())
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect()
}

/// `url` with its query parameter `name` set to `value`.
fn with_param(url: &str, name: &str, value: &str) -> String {
    let (base, _) = url.split_once('?').unwrap_or((url, ""));
    let mut query = form_urlencoded::Serializer::new(String::new());
    let mut found = false;
    for (key, old) in query_of(url) {
        if key == name {
            query.append_pair(&key, value);
            found = true;
        } else {
            query.append_pair(&key, &old);
        }
    }
    if !found {
        query.append_pair(name, value);
    }
    format!("{base}?{}", query.finish())
}

/// `text` with one character in the middle changed.
fn tamper(text: &str) -> String {
    let mut characters: Vec<char> = text.chars().collect();
    let middle = characters.len() / 2;
    characters[middle] = if characters[middle] == 'A' { 'B' } else { 'A' };
    characters.into_iter().collect()
}

/// A login started at `/user/login/{provider}`.
struct Started {
    /// Where Safezone sent the browser (the provider's authorization address).
    location: String,
    /// The whole `Set-Cookie` header of the login-state cookie.
    set_cookie: String,
    /// `safezone_login=<value>`, as a browser sends it back.
    cookie: String,
}

/// `method /user/login/{provider}?csrf=...{extra}`: asserts the 302 and the login cookie.
async fn start_login_with(
    app: &LoginApp,
    method: Method,
    provider: &str,
    csrf: &str,
    extra: &str,
) -> Started {
    let csrf = form_urlencoded::byte_serialize(csrf.as_bytes()).collect::<String>();
    let answer = app
        .send(
            method,
            &format!("/user/login/{provider}?csrf={csrf}{extra}"),
            None,
            None,
        )
        .await;
    assert_eq!(
        answer.status, 302,
        "login answers a redirect: {}",
        answer.text
    );
    let location = answer.header_values("location")[0].clone();
    let set_cookie = set_cookie(&answer, "safezone_login")
        .unwrap_or_else(|| panic!("no safezone_login cookie: {:?}", answer.headers));
    let cookie = set_cookie
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned();
    Started {
        location,
        set_cookie,
        cookie,
    }
}

/// `GET /user/login/{provider}?csrf=...`.
async fn start_login(app: &LoginApp, provider: &str, csrf: &str) -> Started {
    start_login_with(app, Method::GET, provider, csrf, "").await
}

/// Follows the idptwo mock's `/authorize` (which answers at once) and answers the validate
/// address it redirects to.
async fn idptwo_callback(app: &LoginApp, started: &Started) -> String {
    let answer = app.get(&started.location).await;
    assert_eq!(answer.status, 302, "the mock authorizes: {}", answer.text);
    let back = answer.header_values("location")[0].clone();
    assert!(
        back.starts_with(&format!("{}/user/validate/idptwo?", app.base)),
        "the mock sends the browser back to Safezone: {back}"
    );
    back
}

/// `GET url` with the login cookie.
async fn validate(app: &LoginApp, url: &str, cookie: Option<&str>) -> Answer {
    app.send(Method::GET, url, cookie, None).await
}

/// Asserts the login error page: its status, HTML, `data-status="error"`, and no key.
#[track_caller]
fn assert_error_page(answer: &Answer, statuses: &[u16]) {
    assert!(
        statuses.contains(&answer.status),
        "expected an error page with status {statuses:?}, got {}: {}",
        answer.status,
        answer.text
    );
    let content_type = answer.header_values("content-type").join(",");
    assert!(
        content_type.starts_with("text/html"),
        "the error page is HTML: {content_type}"
    );
    assert!(
        answer.text.contains("id=\"login-result\"")
            && answer.text.contains("data-status=\"error\""),
        "the error page has <main id=\"login-result\" data-status=\"error\">: {}",
        answer.text
    );
    assert!(
        !answer.text.contains("onLoginSuccess"),
        "the error page posts no success: {}",
        answer.text
    );
    assert!(
        keys_in(&answer.text).is_empty(),
        "the error page carries no key: {}",
        answer.text
    );
}

/// Asserts the login success page and answers the one key it carries.
#[track_caller]
fn assert_success_page(answer: &Answer) -> String {
    assert_eq!(answer.status, 200, "the success page: {}", answer.text);
    let content_type = answer.header_values("content-type").join(",");
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert!(
        answer.text.contains("id=\"login-result\"")
            && answer.text.contains("data-status=\"success\""),
        "the success page has <main id=\"login-result\" data-status=\"success\">: {}",
        answer.text
    );
    assert!(
        answer.text.contains("Signed in"),
        "the page says Signed in: {}",
        answer.text
    );
    let expired = set_cookie(answer, "safezone_login").unwrap_or_default();
    let lower = expired.to_ascii_lowercase();
    assert!(
        expired.starts_with("safezone_login=;")
            || lower.contains("max-age=0")
            || lower.contains("expires=thu, 01 jan 1970"),
        "the success page expires the login cookie: {expired:?}"
    );
    let keys = keys_in(&answer.text);
    assert_eq!(keys.len(), 1, "one key on the page: {}", answer.text);
    keys[0].clone()
}

/// `GET /api/user/{key}`: asserts success and answers the user.
async fn user_of(app: &LoginApp, key: &str) -> Value {
    let answer = app.get(&format!("/api/user/{key}")).await;
    answer.success()["user"].clone()
}

/// The full idptwo login for the user the mock currently has: answers the success page's key.
async fn idptwo_sign_in(app: &LoginApp, csrf: &str) -> String {
    let started = start_login(app, "idptwo", csrf).await;
    let back = idptwo_callback(app, &started).await;
    let answer = validate(app, &back, Some(&started.cookie)).await;
    assert_success_page(&answer)
}

/// A new device account's key.
async fn device_key(app: &LoginApp) -> String {
    let device = format!("android-{}", uuid::Uuid::new_v4());
    let answer = app.post(&format!("/api/validate/device/{device}")).await;
    answer.success()["user"]["key"]
        .as_str()
        .expect("a key")
        .to_owned()
}

/// `POST /api/shop/{store}/handle?userKey=` with `{"receipt": receipt}`.
async fn handle_receipt(app: &LoginApp, store: &str, key: &str, receipt: &str) -> Answer {
    app.send(
        Method::POST,
        &format!("/api/shop/{store}/handle?userKey={key}"),
        None,
        Some(json!({ "receipt": receipt })),
    )
    .await
}

// ---------------------------------------------------------------------------------------------
// The browser
// ---------------------------------------------------------------------------------------------

async fn browser_signs_in_on_the_web_and_out_again(app: &LoginApp) {
    let run = app.browser(BrowserMode::Web, "idpone", "web-csrf-4f1d", "alice");
    let outcome = run_browser(&run).await;
    assert!(
        outcome.ok,
        "the browser run failed: {:#}\n{}",
        outcome.report, outcome.stderr
    );
    let report = &outcome.report;
    let message = &report["message"];
    assert_eq!(message["event"], "onLoginSuccess");
    assert_eq!(message["data"]["status"], "success");
    assert_eq!(message["data"]["csrf"], "web-csrf-4f1d");
    let user = &message["data"]["user"];
    assert_eq!(user["provider"], "idpone");
    assert_eq!(user["identifier"], "alice");
    assert_eq!(user["name"], "alice");
    assert_eq!(user["email"], "alice@idp.test");
    assert_eq!(
        user["avatar"],
        format!("{}/avatars/alice.png", app.idp.issuer())
    );
    let key = report["key"].as_str().expect("a key");
    assert_eq!(user["key"], key);
    assert_eq!(report["popupClosed"], true, "the popup closes itself");
    assert_eq!(report["cookieBeforeLogout"], key);
    assert_eq!(report["apiUser"]["body"]["user"]["id"], user["id"]);
    assert_eq!(report["logoutStatus"], 200);
    assert_eq!(report["cookieAfterLogout"], Value::Null);
    assert_eq!(report["statusAfterLogout"], 401);
    // The page was posted to the configured web origin only, and only Safezone posted.
    let seen = report["seenMessages"].as_array().expect("messages seen");
    assert!(
        seen.iter()
            .all(|message| message["origin"] == app.base.as_str()),
        "{seen:?}"
    );
    app.get(&format!("/api/user/{key}"))
        .await
        .error(401, "invalid_user_key");
    // A page with an opener hands the key to the opener only, never to the loopback listener.
    assert!(app.loopback.requests().is_empty(), "the loopback got a key");

    // Signing in again with the same provider account finds the same account.
    let again = run_browser(&app.browser(BrowserMode::Web, "idpone", "web-csrf-2", "alice")).await;
    assert!(again.ok, "{:#}\n{}", again.report, again.stderr);
    assert_eq!(again.report["message"]["data"]["user"]["id"], user["id"]);
    assert_ne!(again.report["key"], report["key"]);
}

async fn browser_posts_only_to_configured_origins(app: &LoginApp) {
    let mut run = app.browser(BrowserMode::Web, "idptwo", "stray-csrf", "unused");
    run.web_port = free_port();
    run.expect_message = false;
    let outcome = run_browser(&run).await;
    assert!(
        outcome.ok,
        "the browser run failed: {:#}\n{}",
        outcome.report, outcome.stderr
    );
    assert_eq!(outcome.report["seenMessages"], json!([]));
}

async fn browser_windows_client_gets_the_key_on_loopback(app: &LoginApp) {
    // As the desktop client opens the system browser: no opener, no `client=windows`.
    windows_login_reaches_loopback(app, BrowserMode::Windows, "win-csrf-77", "winnie").await;
}

async fn browser_windows_override_gets_the_key_on_loopback(app: &LoginApp) {
    windows_login_reaches_loopback(app, BrowserMode::WindowsExplicit, "win-csrf-78", "wendy").await;
}

/// Signs `login` in through a validate page without an opener and checks that the loopback
/// listener got the key of that account, once.
async fn windows_login_reaches_loopback(
    app: &LoginApp,
    mode: BrowserMode,
    csrf: &str,
    login: &str,
) {
    let run = app.browser(mode, "idpone", csrf, login);
    let outcome = run_browser(&run).await;
    assert!(
        outcome.ok,
        "the browser run failed: {:#}\n{}",
        outcome.report, outcome.stderr
    );
    assert_eq!(outcome.report["pageStatus"], "success");
    let request = app
        .loopback
        .first_request(Duration::from_secs(10))
        .await
        .expect("the page loads the loopback image");
    assert_eq!(request.method, "GET");
    assert_eq!(request.path, "/");
    let key = request.param("userKey").expect("userKey on the loopback");
    assert_eq!(request.param("csrf").as_deref(), Some(csrf));
    assert_eq!(keys_in(&key), vec![key.clone()], "a user key: {key}");
    let user = user_of(app, &key).await;
    assert_eq!(user["name"], login);
    assert_eq!(user["provider"], "idpone");
    assert_eq!(app.loopback.requests().len(), 1, "one image load");
}

async fn browser_runs_no_script_from_names_or_csrf(app: &LoginApp) {
    let name = "</script><script>alert('name')</script><img src=x onerror=alert(2)>\"'&";
    app.idptwo.set_user(json!({
        "id": "two-markup",
        "username": name,
        "email": "markup@idptwo.test",
        "avatar": "\" onerror=\"alert(3)",
    }));
    let csrf = "</script><script>alert('csrf')</script>\"'&\\u2028";
    let run = app.browser(BrowserMode::Web, "idptwo", csrf, "unused");
    let outcome = run_browser(&run).await;
    assert!(
        outcome.ok,
        "the browser run failed: {:#}\n{}",
        outcome.report, outcome.stderr
    );
    assert_eq!(outcome.report["dialogs"], json!([]));
    let data = &outcome.report["message"]["data"];
    assert_eq!(data["csrf"], csrf, "the csrf comes back exactly");
    assert_eq!(data["user"]["name"], name, "the name comes back exactly");
    assert_eq!(data["user"]["avatar"], "\" onerror=\"alert(3)");
}

// ---------------------------------------------------------------------------------------------
// Without a browser
// ---------------------------------------------------------------------------------------------

async fn idpone_sign_in_without_a_browser_and_reused_code(app: &LoginApp) {
    let started = start_login(app, "idpone", "plain-csrf").await;
    assert!(
        started
            .location
            .starts_with(&format!("{}/auth?", app.idp.issuer())),
        "to the provider's authorization endpoint: {}",
        started.location
    );
    let asked = query_of(&started.location);
    assert_eq!(asked.get("response_type").map(String::as_str), Some("code"));
    assert_eq!(asked.get("client_id").map(String::as_str), Some("safezone"));
    assert_eq!(
        asked.get("redirect_uri"),
        Some(&format!("{}/user/validate/idpone", app.base))
    );
    let scopes: Vec<&str> = asked
        .get("scope")
        .map(|scope| scope.split(' ').collect())
        .unwrap_or_default();
    for scope in ["openid", "email", "profile"] {
        assert!(scopes.contains(&scope), "scope {scope} asked: {scopes:?}");
    }
    assert!(asked.get("state").is_some_and(|state| state.len() >= 16));
    assert!(asked.get("nonce").is_some_and(|nonce| nonce.len() >= 16));
    assert_eq!(
        asked.get("code_challenge_method").map(String::as_str),
        Some("S256")
    );
    assert!(asked.contains_key("code_challenge"));

    let back = app
        .idp
        .sign_in(&started.location, "carol")
        .await
        .expect("the provider signs carol in");
    assert!(
        back.starts_with(&format!("{}/user/validate/idpone?", app.base)),
        "{back}"
    );
    let returned = query_of(&back);
    assert_eq!(returned.get("state"), asked.get("state"));
    assert!(returned.contains_key("code"));

    let answer = validate(app, &back, Some(&started.cookie)).await;
    let key = assert_success_page(&answer);
    let user = user_of(app, &key).await;
    assert_eq!(user["provider"], "idpone");
    assert_eq!(user["identifier"], "carol");
    assert_eq!(user["name"], "carol");
    assert_eq!(user["email"], "carol@idp.test");

    // Replaying the validate address after success: the code is spent, no second key.
    let replay = validate(app, &back, Some(&started.cookie)).await;
    assert_error_page(&replay, &[400, 401]);
    let replay = validate(app, &back, None).await;
    assert_error_page(&replay, &[400]);
    // The idpone answer with the extra parameters of the contract is accepted too.
    let started = start_login(app, "idpone", "second").await;
    let back = app
        .idp
        .sign_in(&started.location, "carol")
        .await
        .expect("the provider signs carol in again");
    let back = with_param(&with_param(&back, "authuser", "0"), "prompt", "none");
    let back = with_param(&back, "scope", "openid email profile");
    let answer = app
        .send(Method::POST, &back, Some(&started.cookie), None)
        .await;
    let second = assert_success_page(&answer);
    assert_ne!(second, key);
    assert_eq!(
        user_of(app, &second).await["id"],
        user["id"],
        "same account"
    );
}

async fn idptwo_sign_in_following_redirects_by_hand(app: &LoginApp) {
    let started = start_login_with(app, Method::POST, "idptwo", "two-csrf", "").await;
    assert!(
        started
            .location
            .starts_with(&format!("{}/authorize?", app.idptwo.url())),
        "{}",
        started.location
    );
    let asked = query_of(&started.location);
    assert_eq!(asked.get("response_type").map(String::as_str), Some("code"));
    assert_eq!(asked.get("client_id").map(String::as_str), Some("safezone"));
    assert_eq!(
        asked.get("redirect_uri"),
        Some(&format!("{}/user/validate/idptwo", app.base))
    );
    let scopes: Vec<&str> = asked
        .get("scope")
        .map(|scope| scope.split(' ').collect())
        .unwrap_or_default();
    assert!(
        scopes.contains(&"identify") && scopes.contains(&"email"),
        "{scopes:?}"
    );
    assert!(asked.get("state").is_some_and(|state| state.len() >= 16));
    assert_eq!(
        asked.get("code_challenge_method").map(String::as_str),
        Some("S256")
    );

    let back = idptwo_callback(app, &started).await;
    let answer = app
        .send(Method::POST, &back, Some(&started.cookie), None)
        .await;
    let key = assert_success_page(&answer);

    // The token request: the code, the redirect address, the PKCE verifier, client auth.
    let token = app
        .idptwo
        .requests()
        .into_iter()
        .find(|request| request.path == "/token")
        .expect("Safezone exchanged the code");
    assert_eq!(token.method, "POST");
    assert_eq!(
        token.form("code"),
        query_of(&back).get("code").cloned(),
        "the code exchanged"
    );
    assert!(token.form("code_verifier").is_some(), "PKCE verifier sent");
    let me = app
        .idptwo
        .requests()
        .into_iter()
        .find(|request| request.path == "/me")
        .expect("Safezone read the user");
    assert!(
        me.bearer()
            .is_some_and(|token| token.starts_with("two-token-"))
    );

    let user = user_of(app, &key).await;
    let expected = OAuth2Provider::default_user();
    assert_eq!(user["provider"], "idptwo");
    assert_eq!(user["identifier"], expected["id"]);
    assert_eq!(user["name"], expected["username"]);
    assert_eq!(user["email"], expected["email"]);
    assert_eq!(user["avatar"], expected["avatar"]);

    // The same provider account again: the same Safezone account, a new key.
    let again = idptwo_sign_in(app, "two-csrf-2").await;
    assert_ne!(again, key);
    assert_eq!(user_of(app, &again).await["id"], user["id"]);
    // Another provider account: another Safezone account.
    app.idptwo.set_user(json!({
        "id": "two-2002", "username": "Second", "email": null, "avatar": null,
    }));
    let other = idptwo_sign_in(app, "two-csrf-3").await;
    let other_user = user_of(app, &other).await;
    assert_ne!(other_user["id"], user["id"]);
    assert_eq!(other_user["name"], "Second");
    // The same provider id at the other provider is another account too.
    let started = start_login(app, "idpone", "csrf-same-id").await;
    let back = app
        .idp
        .sign_in(&started.location, "two-1001")
        .await
        .expect("the provider signs two-1001 in");
    let answer = validate(app, &back, Some(&started.cookie)).await;
    let same_id = user_of(app, &assert_success_page(&answer)).await;
    assert_eq!(same_id["identifier"], "two-1001");
    assert_eq!(same_id["provider"], "idpone");
    assert_ne!(same_id["id"], user["id"]);
}

async fn login_cookie_is_http_only_lax_ten_minutes_under_user(app: &LoginApp) {
    for provider in ["idpone", "idptwo"] {
        let started = start_login(app, provider, "cookie-csrf").await;
        let attributes: Vec<String> = started
            .set_cookie
            .split(';')
            .skip(1)
            .map(|attribute| attribute.trim().to_ascii_lowercase())
            .collect();
        let has = |wanted: &str| attributes.iter().any(|attribute| attribute == wanted);
        assert!(has("httponly"), "{}", started.set_cookie);
        assert!(has("samesite=lax"), "{}", started.set_cookie);
        assert!(
            has("max-age=600") || attributes.iter().any(|a| a.starts_with("expires=")),
            "{}",
            started.set_cookie
        );
        assert!(started.cookie.len() > "safezone_login=".len() + 16);
        // The contract: the cookie only travels to /user/... (login, validate, logout).
        assert!(has("path=/user"), "Path=/user: {}", started.set_cookie);
    }
}

async fn login_needs_csrf_and_a_known_provider(app: &LoginApp) {
    app.get("/user/login/idpone")
        .await
        .error_naming(400, "missing_parameter", "csrf");
    app.post("/user/login/idptwo")
        .await
        .error_naming(400, "missing_parameter", "csrf");

    let unknown = app.get("/user/login/nowhere?csrf=abc").await;
    assert_error_page(&unknown, &[404]);
    assert!(
        set_cookie(&unknown, "safezone_login").is_none_or(|c| c.starts_with("safezone_login=;"))
    );
    let unknown = app.post("/user/login/nowhere?csrf=abc").await;
    assert_error_page(&unknown, &[404]);

    // A login cookie from a known provider does not open an unknown one.
    let started = start_login(app, "idptwo", "csrf-x").await;
    let back = idptwo_callback(app, &started).await;
    let elsewhere = back.replace("/user/validate/idptwo", "/user/validate/nowhere");
    let answer = validate(app, &elsewhere, Some(&started.cookie)).await;
    assert_error_page(&answer, &[404]);
    // GET and POST both start a login.
    start_login_with(app, Method::GET, "idptwo", "csrf-get", "").await;
    start_login_with(app, Method::POST, "idpone", "csrf-post", "").await;
}

async fn validate_rejects_forged_state_and_bad_cookies(app: &LoginApp) {
    let started = start_login(app, "idptwo", "csrf-forge").await;
    let back = idptwo_callback(app, &started).await;
    let state = query_of(&back)["state"].clone();

    // A forged state.
    let forged = with_param(&back, "state", &tamper(&state));
    assert_error_page(&validate(app, &forged, Some(&started.cookie)).await, &[400]);
    // No state.
    let (base, _) = back.split_once('?').expect("a query");
    let code = query_of(&back)["code"].clone();
    let stateless = format!("{base}?code={code}");
    assert_error_page(
        &validate(app, &stateless, Some(&started.cookie)).await,
        &[400],
    );
    // No cookie: the browser did not start this login.
    assert_error_page(&validate(app, &back, None).await, &[400]);
    // A tampered cookie.
    let tampered = tamper(&started.cookie);
    assert_error_page(&validate(app, &back, Some(&tampered)).await, &[400]);
    let truncated = &started.cookie[..started.cookie.len() - 4];
    assert_error_page(&validate(app, &back, Some(truncated)).await, &[400]);
    // Another login's cookie (its csrf, its state).
    let other = start_login(app, "idptwo", "csrf-other").await;
    assert_error_page(&validate(app, &back, Some(&other.cookie)).await, &[400]);
    // A cookie for idpone at idptwo's validate address.
    let idpone = start_login(app, "idpone", "csrf-forge").await;
    assert_error_page(&validate(app, &back, Some(&idpone.cookie)).await, &[400]);
    // The provider's error answer.
    let error = format!(
        "{}/user/validate/idptwo?error=access_denied&state={state}",
        app.base
    );
    assert_error_page(&validate(app, &error, Some(&started.cookie)).await, &[400]);
    // A code the provider never issued: the exchange fails.
    let bogus = with_param(&back, "code", "never-issued");
    assert_error_page(&validate(app, &bogus, Some(&started.cookie)).await, &[401]);

    // None of that spent the real login: it still completes once.
    let answer = validate(app, &back, Some(&started.cookie)).await;
    assert_success_page(&answer);

    // A login cookie older than ten minutes.
    let late = start_login(app, "idptwo", "csrf-late").await;
    let late_back = idptwo_callback(app, &late).await;
    app.clock.advance(time::Duration::minutes(11));
    assert_error_page(&validate(app, &late_back, Some(&late.cookie)).await, &[400]);
}

async fn provider_down_is_502_without_a_key(app: &LoginApp) {
    // idptwo goes down between its answer and the code exchange.
    let started = start_login(app, "idptwo", "csrf-down").await;
    let back = idptwo_callback(app, &started).await;
    app.idptwo.stop().await;
    let answer = validate(app, &back, Some(&started.cookie)).await;
    assert_error_page(&answer, &[502]);

    // idpone is down before the login starts: either the login itself fails, or (when it needs
    // nothing from the provider yet) the validate page does.
    app.idp.stop();
    let answer = app.get("/user/login/idpone?csrf=csrf-down").await;
    if answer.status == 302 {
        let cookie = set_cookie(&answer, "safezone_login").expect("login cookie");
        let cookie = cookie.split(';').next().unwrap_or_default().to_owned();
        let state = query_of(&answer.header_values("location")[0])["state"].clone();
        let back = format!(
            "{}/user/validate/idpone?code=some-code&state={state}",
            app.base
        );
        assert_error_page(&validate(app, &back, Some(&cookie)).await, &[502]);
    } else {
        assert_error_page(&answer, &[502]);
    }
}

async fn pages_escape_markup_from_providers_and_clients(app: &LoginApp) {
    let name = "</script><script>alert(1)</script><img src=x onerror=alert(2)>";
    app.idptwo.set_user(json!({
        "id": "two-<b>id</b>",
        "username": name,
        "email": "x@idptwo.test",
        "avatar": "javascript:alert(3)\"><script>alert(4)</script>",
    }));
    let csrf = "\"><img/src=x/onerror=alert(5)></script><script>alert(6)</script>";
    for client in ["", "&client=windows"] {
        let started = start_login_with(app, Method::GET, "idptwo", csrf, client).await;
        let back = idptwo_callback(app, &started).await;
        let answer = validate(app, &back, Some(&started.cookie)).await;
        let key = assert_success_page(&answer);
        for raw in [
            "<script>alert(",
            "<img src=x",
            "<img/src=x",
            "</script><script>",
            "<b>id</b>",
            "\"><script>",
        ] {
            assert!(
                !answer.text.contains(raw),
                "raw markup {raw:?} in the page ({client:?}): {}",
                answer.text
            );
        }
        // Exactly one script element, the page's own.
        assert!(
            answer.text.matches("<script").count() <= 1,
            "one script element at most: {}",
            answer.text
        );
        let user = user_of(app, &key).await;
        assert_eq!(user["name"], name, "the name is kept as given");
        assert_eq!(user["identifier"], "two-<b>id</b>");
    }
    // The provider's error text is escaped on the error page.
    let started = start_login(app, "idptwo", "csrf-error").await;
    let state = query_of(&started.location)["state"].clone();
    let error = format!(
        "{}/user/validate/idptwo?state={state}&error=%3Cscript%3Ealert(7)%3C%2Fscript%3E&error_description=%3Cimg%20src%3Dx%3E",
        app.base
    );
    let answer = validate(app, &error, Some(&started.cookie)).await;
    assert_error_page(&answer, &[400]);
    assert!(!answer.text.contains("<script>alert(7)"), "{}", answer.text);
    assert!(!answer.text.contains("<img src=x>"), "{}", answer.text);
    // And on the page for an unknown provider (the name comes from the path).
    let answer = app
        .get("/user/login/%3Cscript%3Ealert(8)%3C%2Fscript%3E?csrf=x")
        .await;
    assert_error_page(&answer, &[404]);
    assert!(!answer.text.contains("<script>alert(8)"), "{}", answer.text);
}

// ---------------------------------------------------------------------------------------------
// The chat platform
// ---------------------------------------------------------------------------------------------

async fn chat_validate_signs_in_and_records_premium(app: &LoginApp) {
    let first = app.post("/api/validate/chat/good-premium").await;
    let body = first.success().clone();
    assert_eq!(body["firstLogin"], true);
    let user = &body["user"];
    assert_eq!(user["identifier"], "chat-premium-1");
    assert_eq!(user["name"], "PremiumPal");
    assert_eq!(user["email"], "premium@chat.test");
    assert_eq!(user["avatar"], "premium-avatar");
    let key = user["key"].as_str().expect("a key").to_owned();
    assert_eq!(keys_in(&key), vec![key.clone()]);
    let asked = app.chat.requests();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].method, "GET");
    assert_eq!(asked[0].bearer(), Some("good-premium"));

    let second = app.post("/api/validate/chat/good-premium").await;
    let again = second.success().clone();
    assert_eq!(again["firstLogin"], false);
    assert_eq!(again["user"]["id"], user["id"]);
    assert_ne!(again["user"]["key"], user["key"]);

    // Premium is recorded: the premium reward is open to this account only.
    app.post(&format!("/api/user/{key}/rewards/claim?type=premium"))
        .await
        .success();
    let free = app.post("/api/validate/chat/good-free").await;
    let free = free.success().clone();
    assert_eq!(free["firstLogin"], true);
    assert_ne!(free["user"]["id"], user["id"]);
    assert_eq!(free["user"]["name"], "FreePal");
    let free_key = free["user"]["key"].as_str().expect("a key").to_owned();
    app.post(&format!("/api/user/{free_key}/rewards/claim?type=premium"))
        .await
        .error(403, "premium_required");

    // A name full of markup comes back exactly, as JSON.
    let markup = app.post("/api/validate/chat/good-markup").await;
    assert_eq!(markup.success()["user"]["name"], ChatPlatform::MARKUP_NAME);
    let markup_key = markup.json["user"]["key"]
        .as_str()
        .expect("a key")
        .to_owned();
    app.post(&format!(
        "/api/user/{markup_key}/rewards/claim?type=premium"
    ))
    .await
    .error(403, "premium_required");
}

async fn chat_validate_rejects_bad_tokens_and_a_down_platform(app: &LoginApp) {
    app.post("/api/validate/chat/expired-token")
        .await
        .error(401, "invalid_chat_token");
    app.post("/api/validate/chat/good-premium-but-not-quite")
        .await
        .error(401, "invalid_chat_token");
    app.chat.stop().await;
    app.post("/api/validate/chat/good-premium")
        .await
        .error(502, "chat_unavailable");
}

// ---------------------------------------------------------------------------------------------
// Receipts
// ---------------------------------------------------------------------------------------------

async fn receipts_grant_once_per_store_transaction(app: &LoginApp) {
    let key = device_key(app).await;
    let before = user_of(app, &key).await;
    let coins = before["coins"].as_i64().expect("coins");
    let gems = before["gems"].as_i64().expect("gems");

    let answer = handle_receipt(app, "chat", &key, "valid:t-1:coins-pouch").await;
    let body = answer.success().clone();
    assert_eq!(
        body["rewards"],
        json!([{ "type": "coins", "quantity": 2500 }])
    );
    assert_eq!(body["user"]["coins"], coins + 2500);
    let iaps = body["user"]["iaps"].as_array().expect("iaps").clone();
    assert_eq!(iaps.len(), 1, "{iaps:?}");
    assert_eq!(iaps[0]["iap_id"], 1);
    assert_eq!(iaps[0]["user_id"], before["id"]);
    assert_eq!(iaps[0]["cost_dollars"], 1.99);
    assert!(iaps[0]["id"].is_i64());
    // What the verifier was asked.
    let asked = app.chat_store.requests();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].method, "POST");
    assert_eq!(
        asked[0].json(),
        json!({ "receipt": "valid:t-1:coins-pouch" })
    );
    assert!(app.engine_store.requests().is_empty());

    // Replayed: nothing more.
    handle_receipt(app, "chat", &key, "valid:t-1:coins-pouch")
        .await
        .error(409, "receipt_already_used");
    // Replayed by another account: nothing either.
    let other = device_key(app).await;
    handle_receipt(app, "chat", &other, "valid:t-1:coins-pouch")
        .await
        .error(409, "receipt_already_used");
    assert_eq!(user_of(app, &other).await["iaps"], json!([]));
    let after = user_of(app, &key).await;
    assert_eq!(after["coins"], coins + 2500);
    assert_eq!(after["iaps"].as_array().map(Vec::len), Some(1));

    // The same transaction id at the other store is another purchase; products by their
    // Apple and Google ids.
    let answer = handle_receipt(app, "engine", &key, "valid:t-1:com.safezone.gems.handful").await;
    let body = answer.success().clone();
    assert_eq!(
        body["rewards"],
        json!([{ "type": "gems", "quantity": 500 }])
    );
    assert_eq!(body["user"]["gems"], gems + 500);
    assert_eq!(app.engine_store.requests().len(), 1);
    let answer = handle_receipt(app, "engine", &key, "valid:t-2:bundle_winter_storm").await;
    let body = answer.success().clone();
    let rewards = body["rewards"].as_array().expect("rewards");
    assert!(
        rewards.contains(&json!({ "type": "gems", "quantity": 500 })),
        "{rewards:?}"
    );
    assert!(
        rewards
            .iter()
            .any(|reward| reward["type"] == "item" && reward["itemSku"] == "outfit-frostbite"),
        "{rewards:?}"
    );
    let iaps = body["user"]["iaps"].as_array().expect("iaps");
    let mut ids: Vec<i64> = iaps
        .iter()
        .filter_map(|iap| iap["iap_id"].as_i64())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, vec![1, 3, 6]);
    handle_receipt(app, "engine", &key, "valid:t-2:bundle_winter_storm")
        .await
        .error(409, "receipt_already_used");
}

async fn receipts_reject_bad_input_and_a_down_verifier(app: &LoginApp) {
    let key = device_key(app).await;
    let before = user_of(app, &key).await;

    handle_receipt(app, "chat", &key, "bogus")
        .await
        .error(400, "invalid_receipt");
    // Tampered: the verifier does not recognise it.
    handle_receipt(app, "chat", &key, "valid:t-9")
        .await
        .error(400, "invalid_receipt");
    handle_receipt(app, "engine", &key, "valid:t-9:coins-pouch:extra")
        .await
        .error(400, "invalid_receipt");
    // Valid, but for a product the catalog does not sell.
    handle_receipt(app, "chat", &key, "valid:t-10:no-such-product")
        .await
        .error(404, "unknown_product");
    // A key is required and must be good.
    app.send(
        Method::POST,
        "/api/shop/chat/handle",
        None,
        Some(json!({ "receipt": "valid:t-11:coins-pouch" })),
    )
    .await
    .error(401, "missing_user_key");
    handle_receipt(app, "chat", &"0".repeat(48), "valid:t-11:coins-pouch")
        .await
        .error(401, "invalid_user_key");
    // No receipt.
    let empty = app
        .post(&format!("/api/shop/chat/handle?userKey={key}"))
        .await;
    assert_eq!(empty.status, 400, "{}", empty.text);
    assert_eq!(empty.json["status"], "error");
    let wrong = app
        .send(
            Method::POST,
            &format!("/api/shop/engine/handle?userKey={key}"),
            None,
            Some(json!({ "receipt": 42 })),
        )
        .await;
    assert_eq!(wrong.status, 400, "{}", wrong.text);
    assert_eq!(wrong.json["status"], "error");
    // The store is down.
    app.chat_store.stop().await;
    handle_receipt(app, "chat", &key, "valid:t-12:coins-pouch")
        .await
        .error(502, "store_unavailable");

    let after = user_of(app, &key).await;
    assert_eq!(after["coins"], before["coins"]);
    assert_eq!(after["gems"], before["gems"]);
    assert_eq!(after["iaps"], json!([]));
    // The engine store still works, and a transaction that failed elsewhere is not spent.
    handle_receipt(app, "engine", &key, "valid:t-11:coins-pouch")
        .await
        .success();
}

async fn concurrent_replays_of_a_receipt_grant_once(app: &LoginApp) {
    let key = device_key(app).await;
    let coins = user_of(app, &key).await["coins"].as_i64().expect("coins");
    let attempts = (0..6).map(|_| handle_receipt(app, "engine", &key, "valid:t-race:coins-chest"));
    let answers = futures_util::future::join_all(attempts).await;
    let granted = answers.iter().filter(|answer| answer.status == 200).count();
    assert_eq!(
        granted,
        1,
        "exactly one grant: {:?}",
        answers
            .iter()
            .map(|a| (a.status, &a.text))
            .collect::<Vec<_>>()
    );
    for answer in answers.iter().filter(|answer| answer.status != 200) {
        answer.error(409, "receipt_already_used");
    }
    let after = user_of(app, &key).await;
    assert_eq!(after["coins"], coins + 14000);
    assert_eq!(after["iaps"].as_array().map(Vec::len), Some(1));
}
