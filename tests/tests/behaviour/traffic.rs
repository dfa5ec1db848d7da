//! Rate limits, security headers, CORS and the cap on requests in flight, on a server with
//! the limits this file sets ([`traffic_settings`]).

use std::time::Duration;

use reqwest::Method;
use safezone_core::Settings;
use safezone_core::http::{EndpointGroup, Rate, RateLimits, Scope};
use safezone_tests::{Answer, GAME_SERVER_TOKEN, TestApp, each_combination, test_settings};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// The web origin the CORS tests' server allows.
const WEB_ORIGIN: &str = "https://play.example.com";

/// Three sign-ins per address and three reads per account a minute, addresses taken from
/// `X-Forwarded-For`, one request in flight, [`WEB_ORIGIN`] allowed.
fn traffic_settings() -> Settings {
    let three = Rate::per_minute(3.try_into().expect("not zero"));
    let mut rate_limits = RateLimits::default();
    rate_limits.set(EndpointGroup::SignIn, Scope::Address, Some(three));
    rate_limits.set(EndpointGroup::Read, Scope::Account, Some(three));
    let mut settings = test_settings();
    settings.rate_limits = rate_limits;
    settings.trust_forwarded_for = true;
    settings.cors_origins = vec![WEB_ORIGIN.to_owned()];
    settings.max_in_flight = Some(1);
    settings
}

each_combination!(
    settings = traffic_settings;
    sign_in_is_limited_per_address_with_retry_after,
    reads_are_limited_per_account_across_addresses_and_keys,
    other_keys_a_request_carries_never_take_it_past_its_accounts_limit,
    keys_of_two_accounts_are_refused_before_they_are_counted,
    security_headers_are_on_every_answer,
    cors_allows_only_the_configured_origins,
    requests_beyond_the_cap_in_flight_are_shed,
);

/// Signs in `device` as if from `address`.
async fn sign_in_from(app: &TestApp, device: &str, address: &str) -> Answer {
    app.send(
        Method::POST,
        &format!("/api/validate/device/{device}"),
        &[("x-forwarded-for", address)],
        None,
    )
    .await
}

async fn sign_in_is_limited_per_address_with_retry_after(app: TestApp) {
    for attempt in 0..3 {
        sign_in_from(&app, &format!("android-limit-{attempt}"), "198.51.100.1")
            .await
            .success();
    }
    let refused = sign_in_from(&app, "android-limit-3", "198.51.100.1").await;
    let body = refused.error(429, "rate_limited");
    let message = body["message"].as_str().expect("a message");
    assert!(
        message.contains("sign-in") && message.contains("address"),
        "{message}"
    );
    let wait: u64 = refused.header_values("retry-after")[0]
        .parse()
        .expect("whole seconds");
    assert!((1..=20).contains(&wait), "Retry-After {wait}");

    // Another address, and another group from the same address, are unaffected.
    sign_in_from(&app, "android-limit-4", "198.51.100.2")
        .await
        .success();
    let read = app
        .send(
            Method::GET,
            "/api",
            &[("x-forwarded-for", "198.51.100.1")],
            None,
        )
        .await;
    assert_eq!(read.status, 200, "{}", read.text);
}

async fn reads_are_limited_per_account_across_addresses_and_keys(app: TestApp) {
    let device = "android-reads-limited";
    let first = sign_in_from(&app, device, "203.0.113.1").await.success()["user"]["key"]
        .as_str()
        .expect("a key")
        .to_owned();
    for address in ["203.0.113.2", "203.0.113.3", "203.0.113.4"] {
        let answer = app
            .send(
                Method::GET,
                &format!("/api/user/{first}"),
                &[("x-forwarded-for", address)],
                None,
            )
            .await;
        answer.success();
    }
    let refused = app
        .send(
            Method::GET,
            &format!("/api/user/{first}"),
            &[("x-forwarded-for", "203.0.113.5")],
            None,
        )
        .await;
    let message = refused.error(429, "rate_limited")["message"]
        .as_str()
        .expect("a message")
        .to_owned();
    assert!(
        message.contains("read") && message.contains("account"),
        "{message}"
    );
    assert!(!refused.header_values("retry-after").is_empty());

    // A second key of the same account shares its count.
    let second = sign_in_from(&app, device, "203.0.113.6").await.success()["user"]["key"]
        .as_str()
        .expect("a key")
        .to_owned();
    assert_ne!(first, second);
    app.get(&format!("/api/user/{second}"))
        .await
        .error(429, "rate_limited");

    // Another account reads on.
    let (_, other) = app.new_device().await;
    let other = other["user"]["key"].as_str().expect("a key");
    app.get(&format!("/api/user/{other}")).await.success();
}

/// The key of a sign-in of `device` as if from `address`.
async fn key_from(app: &TestApp, device: &str, address: &str) -> String {
    sign_in_from(app, device, address).await.success()["user"]["key"]
        .as_str()
        .expect("a key")
        .to_owned()
}

/// `GET /api/user/{key}` with the `extra` headers.
async fn read_account(app: &TestApp, key: &str, extra: &[(&str, &str)]) -> Answer {
    app.send(Method::GET, &format!("/api/user/{key}"), extra, None)
        .await
}

/// A cookie that opens no account (malformed, or unknown) is ignored, and a second key of the
/// same account as the bearer agrees with the path's: the request is served, and counted
/// against the path key's account all the same.
async fn other_keys_a_request_carries_never_take_it_past_its_accounts_limit(app: TestApp) {
    let device = "android-two-keys";
    let first = key_from(&app, device, "203.0.113.21").await;
    let second = key_from(&app, device, "203.0.113.22").await;
    let unknown_cookie = format!("userKey={}", "f".repeat(48));
    let second_as_bearer = format!("Bearer {second}");
    let extras = [
        ("cookie", "userKey=not-a-key"),
        ("cookie", unknown_cookie.as_str()),
        ("authorization", second_as_bearer.as_str()),
    ];
    for (index, extra) in extras.into_iter().enumerate() {
        let key = if extra.0 == "authorization" {
            first.clone()
        } else {
            key_from(
                &app,
                &format!("android-stale-cookie-{index}"),
                &format!("203.0.113.{}", 30 + index),
            )
            .await
        };
        for _ in 0..3 {
            read_account(&app, &key, &[extra]).await.success();
        }
        read_account(&app, &key, &[extra])
            .await
            .error(429, "rate_limited");
        read_account(&app, &key, &[])
            .await
            .error(429, "rate_limited");
    }
    app.get(&format!("/api/user/{second}"))
        .await
        .error(429, "rate_limited");
}

/// Another account's key besides the path's, as the cookie or the bearer, is a 403 that is
/// counted against neither account.
async fn keys_of_two_accounts_are_refused_before_they_are_counted(app: TestApp) {
    let mine = key_from(&app, "android-mine", "203.0.113.41").await;
    let theirs = key_from(&app, "android-theirs", "203.0.113.42").await;
    let cookie = format!("userKey={theirs}");
    let bearer = format!("Bearer {theirs}");
    for _ in 0..3 {
        for extra in [
            ("cookie", cookie.as_str()),
            ("authorization", bearer.as_str()),
        ] {
            read_account(&app, &mine, &[extra])
                .await
                .error(403, "key_mismatch");
        }
    }
    for key in [&mine, &theirs] {
        for _ in 0..3 {
            read_account(&app, key, &[]).await.success();
        }
        read_account(&app, key, &[])
            .await
            .error(429, "rate_limited");
    }
}

/// Asserts the headers every answer carries.
fn assert_security_headers(answer: &Answer) {
    assert_eq!(answer.header_values("x-content-type-options"), ["nosniff"]);
    assert_eq!(answer.header_values("x-frame-options"), ["DENY"]);
    assert_eq!(answer.header_values("referrer-policy"), ["no-referrer"]);
    assert_eq!(answer.header_values("content-security-policy").len(), 1);
    assert!(answer.header_values("strict-transport-security").is_empty());
}

async fn security_headers_are_on_every_answer(app: TestApp) {
    let json = app.get("/api").await;
    assert_eq!(json.status, 200);
    assert_security_headers(&json);
    assert_eq!(
        json.header_values("content-security-policy"),
        ["default-src 'none'; frame-ancestors 'none'"]
    );

    let missing = app.get("/api/nothing-here").await;
    missing.error(404, "not_found");
    assert_security_headers(&missing);

    let page = app.get("/user/logout").await;
    assert_eq!(page.status, 200);
    assert!(page.text.contains("<script>"));
    assert_security_headers(&page);
    let policy = &page.header_values("content-security-policy")[0];
    assert!(
        policy.starts_with("default-src 'none'; frame-ancestors 'none'"),
        "{policy}"
    );
    assert!(policy.contains("script-src 'sha256-"), "{policy}");
    assert!(!policy.contains("unsafe-inline"), "{policy}");
}

async fn cors_allows_only_the_configured_origins(app: TestApp) {
    let preflight = app
        .send(
            Method::OPTIONS,
            "/api/clan/create",
            &[
                ("origin", WEB_ORIGIN),
                ("access-control-request-method", "POST"),
                (
                    "access-control-request-headers",
                    "authorization, idempotency-key",
                ),
            ],
            None,
        )
        .await;
    assert!(
        preflight.status < 300,
        "{} {}",
        preflight.status,
        preflight.text
    );
    assert_eq!(
        preflight.header_values("access-control-allow-origin"),
        [WEB_ORIGIN]
    );
    let allowed = preflight
        .header_values("access-control-allow-headers")
        .join(",");
    assert!(
        allowed.contains("authorization") && allowed.contains("idempotency-key"),
        "{allowed}"
    );
    assert!(
        preflight.header_values("access-control-allow-methods")[0].contains("POST"),
        "{:?}",
        preflight.headers
    );

    let simple = app
        .send(Method::GET, "/api", &[("origin", WEB_ORIGIN)], None)
        .await;
    assert_eq!(simple.status, 200);
    assert_eq!(
        simple.header_values("access-control-allow-origin"),
        [WEB_ORIGIN]
    );
    let exposed = simple
        .header_values("access-control-expose-headers")
        .join(",");
    assert!(
        exposed.contains("x-request-id") && exposed.contains("retry-after"),
        "{exposed}"
    );

    let foreign = [("origin", "https://evil.example")];
    let simple = app.send(Method::GET, "/api", &foreign, None).await;
    assert_eq!(simple.status, 200);
    assert!(
        simple
            .header_values("access-control-allow-origin")
            .is_empty()
    );
    let preflight = app
        .send(
            Method::OPTIONS,
            "/api/clan/create",
            &[foreign[0], ("access-control-request-method", "POST")],
            None,
        )
        .await;
    assert!(
        preflight
            .header_values("access-control-allow-origin")
            .is_empty()
    );
}

async fn requests_beyond_the_cap_in_flight_are_shed(app: TestApp) {
    // A match report whose body stops half-way holds the one place in flight (rocket hands a
    // request on once it has its first 14 body bytes).
    let mut stalled = TcpStream::connect(app.address).await.expect("connects");
    let head = format!(
        "POST /internal/matches HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {GAME_SERVER_TOKEN}\r\n\
         content-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"matchId\": \"stalled-",
        app.address
    );
    stalled.write_all(head.as_bytes()).await.expect("writes");
    stalled.flush().await.expect("flushes");

    let mut shed = None;
    for _ in 0..50 {
        let answer = app.get("/api").await;
        if answer.status == 503 {
            shed = Some(answer);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let shed = shed.expect("a request beyond the cap is shed");
    shed.error(503, "overloaded");
    assert_eq!(shed.header_values("retry-after"), ["1"]);
    assert_security_headers(&shed);

    drop(stalled);
    let mut served = false;
    for _ in 0..100 {
        if app.get("/api").await.status == 200 {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(served, "the place in flight came back");
}
