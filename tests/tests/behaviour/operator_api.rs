//! The operator API on the operator listener, with tokens made by `operator-token create`:
//! players looked up, grants, refunds and removals with their reasons in the ledger, bans and
//! key revocations seen on the public API, read-only and bad tokens refused, every change
//! audited; the node's status; and nothing of it on the public port or the metrics listener.

use safezone_core::cli::AdminCommand;
use safezone_core::domain::DeviceId;
use safezone_core::metrics;
use safezone_core::operator_listener::OperatorServer;
use safezone_core::store::{AccountId, AuditEntry, AuditFilter, Currency};
use safezone_tests::community::Player;
use safezone_tests::content::shipped_with_maintenance;
use safezone_tests::leaderboard::{DEADLINE, Played, codes, query, within};
use safezone_tests::mode;
use safezone_tests::progression::Line;
use safezone_tests::{Answer, TestApp, any_port, each_combination};
use serde_json::{Value, json};

each_combination!(
    a_full_token_looks_up_grants_refunds_and_removes_with_reasons,
    a_removal_below_zero_is_refused_and_changes_nothing,
    bans_and_key_revocations_show_on_the_public_api,
    a_read_only_token_reads_and_is_refused_every_write,
    missing_bad_and_revoked_tokens_are_401,
    the_operator_api_is_not_on_the_public_port,
    the_metrics_listener_serves_no_operator_api_nor_console,
    the_status_names_the_content_the_boards_and_the_database,
    players_are_found_by_device_or_provider_with_keys_results_and_tracks,
    items_and_packs_are_removed_all_or_nothing,
    a_deletion_needs_the_friend_code_typed_again,
    removed_results_leave_every_board_and_later_results_count,
    a_body_over_the_limit_is_audited_refused_declared_or_chunked,
);

/// The operator listener serving `app`'s operator API.
pub(super) struct Operator {
    listener: OperatorServer,
}

impl Operator {
    pub(super) async fn serve(app: &TestApp) -> Self {
        Self {
            listener: app.operator_listener().await,
        }
    }

    /// `method path` on the operator listener with `secret` as bearer (if any) and `body`.
    async fn send(
        &self,
        app: &TestApp,
        method: reqwest::Method,
        path: &str,
        secret: Option<&str>,
        body: Option<Value>,
    ) -> Answer {
        let url = format!("http://{}{path}", self.listener.local_addr());
        let mut request = app.client.request(method, url);
        if let Some(secret) = secret {
            request = request.bearer_auth(secret);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        Answer::read(request.send().await.expect("the operator listener answers")).await
    }

    pub(super) async fn get(&self, app: &TestApp, path: &str, secret: &str) -> Answer {
        self.send(app, reqwest::Method::GET, path, Some(secret), None)
            .await
    }

    pub(super) async fn post(
        &self,
        app: &TestApp,
        path: &str,
        secret: &str,
        body: Value,
    ) -> Answer {
        self.send(app, reqwest::Method::POST, path, Some(secret), Some(body))
            .await
    }
}

/// Creates a token with `operator-token create` and answers its secret (the line's last word).
pub(super) async fn token(app: &TestApp, name: &str, role: &str) -> String {
    let args = ["operator-token", "create", "--name", name, "--role", role];
    let line = AdminCommand::from_args(args)
        .expect("the command parses")
        .execute(app.store.as_ref(), app.now())
        .await
        .expect("the token is created");
    let secret = line.rsplit(' ').next().expect("a secret").to_owned();
    assert_eq!(secret.len(), 48, "{line}");
    assert!(
        secret
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
    secret
}

/// The audit rows on `player`, newest first, read from the store.
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

/// `(action, reason, result)` of each row.
fn summary(rows: &[AuditEntry]) -> Vec<(String, String, String)> {
    rows.iter()
        .map(|row| {
            (
                row.entry.action.clone(),
                row.entry.reason.clone(),
                row.entry.result.clone(),
            )
        })
        .collect()
}

fn row(action: &str, reason: &str, result: &str) -> (String, String, String) {
    (action.to_owned(), reason.to_owned(), result.to_owned())
}

fn players_path(player: &Player, action: &str) -> String {
    format!("/operator/api/players/{}/{action}", player.id.0)
}

async fn a_full_token_looks_up_grants_refunds_and_removes_with_reasons(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "alice", "full").await;
    let player = app.player().await;

    let grant = json!({
        "coins": 500, "gems": 20, "items": ["outfit-ranger"], "packs": ["basic-chest:2"],
        "reason": "ticket 12: lost purchase",
    });
    let answer = operator
        .post(&app, &players_path(&player, "grant"), &secret, grant)
        .await;
    assert_eq!(answer.success()["account"]["coins"], 500);
    let refund = json!({"currency": "gems", "amount": 5, "reason": "ticket 13: double charge"});
    operator
        .post(&app, &players_path(&player, "refund"), &secret, refund)
        .await
        .success();
    let remove = json!({"coins": 100, "reason": "ticket 14: exploit"});
    let answer = operator
        .post(&app, &players_path(&player, "remove"), &secret, remove)
        .await;
    assert_eq!(answer.success()["account"]["coins"], 400);

    // The ledger rows carry the operator's reasons, read from the store.
    let ledger = app.store.ledger(player.id).await.expect("the ledger reads");
    let rows: Vec<(Currency, i64, &str, &str)> = ledger
        .iter()
        .map(|e| (e.currency, e.delta, e.reason.as_str(), e.reference.as_str()))
        .collect();
    assert_eq!(
        rows,
        [
            (
                Currency::Coins,
                500,
                "ticket 12: lost purchase",
                "operator:alice:grant"
            ),
            (
                Currency::Gems,
                20,
                "ticket 12: lost purchase",
                "operator:alice:grant"
            ),
            (
                Currency::Gems,
                5,
                "ticket 13: double charge",
                "operator:alice:refund"
            ),
            (
                Currency::Coins,
                -100,
                "ticket 14: exploit",
                "operator:alice:remove"
            ),
        ]
    );

    // The lookup, by friend code and by id: the account, holdings and the running balances.
    let code = player.friend_code.to_string().replace('#', "%23");
    let by_code = operator
        .get(
            &app,
            &format!("/operator/api/players?friendCode={code}"),
            &secret,
        )
        .await;
    let body = by_code.success();
    assert_eq!(body["account"]["id"], player.id.0);
    assert_eq!(body["account"]["coins"], 400);
    assert_eq!(body["account"]["gems"], 25);
    assert_eq!(body["account"]["banned"], false);
    assert!(
        body["items"]
            .as_array()
            .expect("items")
            .iter()
            .any(|i| i["sku"] == "outfit-ranger"),
        "{body}"
    );
    assert!(
        body["packs"]
            .as_array()
            .expect("packs")
            .iter()
            .any(|p| p["sku"] == "basic-chest" && p["quantity"] == 2),
        "{body}"
    );
    let balances: Vec<(i64, i64)> = body["ledger"]
        .as_array()
        .expect("a ledger")
        .iter()
        .map(|r| {
            (
                r["coins"].as_i64().expect("coins"),
                r["gems"].as_i64().expect("gems"),
            )
        })
        .collect();
    assert_eq!(balances, [(500, 0), (500, 20), (500, 25), (400, 25)]);
    let by_id = operator
        .get(
            &app,
            &format!("/operator/api/players?accountId={}", player.id.0),
            &secret,
        )
        .await;
    assert_eq!(by_id.success()["account"], body["account"]);
    operator
        .get(&app, "/operator/api/players?accountId=987654321", &secret)
        .await
        .error(404, "unknown_user");
    operator
        .get(&app, "/operator/api/players", &secret)
        .await
        .error(400, "invalid_parameter");

    // A reason is required, and a write without one changes nothing.
    operator
        .post(
            &app,
            &players_path(&player, "refund"),
            &secret,
            json!({"currency": "coins", "amount": 5, "reason": " "}),
        )
        .await
        .error(400, "invalid_body");

    // The audit, from the store and from the API.
    let audit = audit_of(&app, &player).await;
    assert_eq!(
        summary(&audit),
        [
            row(
                "refund",
                "",
                "refused: request body `reason` must be 1 to 500 characters"
            ),
            row("remove", "ticket 14: exploit", "done"),
            row("refund", "ticket 13: double charge", "done"),
            row("grant", "ticket 12: lost purchase", "done"),
        ]
    );
    assert!(
        audit
            .iter()
            .all(|r| r.token_name == "alice" && r.entry.at == app.now())
    );
    let listed = operator
        .get(
            &app,
            "/operator/api/audit?action=grant&token=alice",
            &secret,
        )
        .await;
    let rows = listed.success()["audit"].as_array().expect("rows").clone();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["target"], format!("account:{}", player.id.0));
    assert_eq!(rows[0]["reason"], "ticket 12: lost purchase");
    let limited = operator
        .get(&app, "/operator/api/audit?limit=2", &secret)
        .await;
    assert_eq!(
        limited.success()["audit"].as_array().expect("rows").len(),
        2
    );
    assert_eq!(limited.json["audit"][0]["action"], "refund");
}

async fn a_removal_below_zero_is_refused_and_changes_nothing(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "alice", "full").await;
    let player = app.player().await;
    let grant = json!({"coins": 50, "gems": 3, "reason": "compensation"});
    operator
        .post(&app, &players_path(&player, "grant"), &secret, grant)
        .await
        .success();
    let ledger_before = app.store.ledger(player.id).await.expect("the ledger reads");

    let remove = json!({"coins": 10, "gems": 4, "reason": "take back too much"});
    operator
        .post(&app, &players_path(&player, "remove"), &secret, remove)
        .await
        .error(409, "balance_too_low");
    let account = app.stored_account(player.id).await;
    assert_eq!((account.coins, account.gems), (50, 3), "nothing removed");
    let ledger_after = app.store.ledger(player.id).await.expect("the ledger reads");
    assert_eq!(ledger_after, ledger_before, "no ledger row written");

    let audit = audit_of(&app, &player).await;
    assert_eq!(audit.len(), 2);
    assert_eq!(audit[0].entry.action, "remove");
    assert!(
        audit[0]
            .entry
            .result
            .starts_with("refused: removing 4 gems"),
        "{:?}",
        audit[0].entry
    );
    app.assert_ledger_balanced(player.id).await;
}

async fn bans_and_key_revocations_show_on_the_public_api(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "alice", "full").await;
    let player = app.player().await;
    let user = format!("/api/user/{}", player.key);
    assert_eq!(app.get(&user).await.success()["is_banned"], false);

    let ban = json!({"banned": true, "reason": "cheating, report 7"});
    let answer = operator
        .post(&app, &players_path(&player, "ban"), &secret, ban)
        .await;
    assert_eq!(answer.success()["account"]["banned"], true);
    assert_eq!(app.get(&user).await.success()["is_banned"], true);
    let unban = json!({"banned": false, "reason": "appeal accepted"});
    operator
        .post(
            &app,
            &players_path(&player, "unban").replace("unban", "ban"),
            &secret,
            unban,
        )
        .await
        .success();
    assert_eq!(app.get(&user).await.success()["is_banned"], false);

    let revoke = json!({"reason": "account shared"});
    let answer = operator
        .post(&app, &players_path(&player, "revoke-keys"), &secret, revoke)
        .await;
    assert_eq!(answer.success()["revoked"], true);
    app.get(&user).await.error(401, "invalid_user_key");
    operator
        .post(
            &app,
            "/operator/api/players/987654321/ban",
            &secret,
            json!({"banned": true, "reason": "x"}),
        )
        .await
        .error(404, "unknown_user");

    assert_eq!(
        summary(&audit_of(&app, &player).await),
        [
            row("revoke-keys", "account shared", "done"),
            row("unban", "appeal accepted", "done"),
            row("ban", "cheating, report 7", "done"),
        ]
    );
}

async fn a_read_only_token_reads_and_is_refused_every_write(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "bob", "read").await;
    let player = app.player().await;
    let writes = [
        ("grant", json!({"coins": 5, "reason": "r"})),
        (
            "refund",
            json!({"currency": "coins", "amount": 5, "reason": "r"}),
        ),
        ("remove", json!({"coins": 5, "reason": "r"})),
        ("ban", json!({"banned": true, "reason": "r"})),
        ("revoke-keys", json!({"reason": "r"})),
        (
            "delete",
            json!({"confirm": player.friend_code.to_string(), "reason": "r"}),
        ),
        ("remove-results", json!({"reason": "r"})),
    ];
    for (action, body) in &writes {
        operator
            .post(&app, &players_path(&player, action), &secret, body.clone())
            .await
            .error(403, "operator_read_only");
    }
    let account = app.stored_account(player.id).await;
    assert_eq!((account.coins, account.is_banned), (0, false));
    app.get(&format!("/api/user/{}", player.key))
        .await
        .success();
    let path = format!("/operator/api/players?accountId={}", player.id.0);
    operator.get(&app, &path, &secret).await.success();
    operator
        .get(&app, "/operator/api/audit", &secret)
        .await
        .success();

    let audit = audit_of(&app, &player).await;
    let actions: Vec<&str> = audit
        .iter()
        .rev()
        .map(|r| r.entry.action.as_str())
        .collect();
    assert_eq!(
        actions,
        [
            "grant",
            "refund",
            "remove",
            "ban",
            "revoke-keys",
            "delete",
            "remove-results"
        ]
    );
    assert!(audit.iter().all(|r| {
        r.token_name == "bob"
            && r.entry.reason == "r"
            && r.entry
                .result
                .starts_with("refused: the operator token bob is read-only")
    }));
}

async fn missing_bad_and_revoked_tokens_are_401(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "carol", "full").await;
    let player = app.player().await;
    let lookup = format!("/operator/api/players?accountId={}", player.id.0);
    let grant = players_path(&player, "grant");
    let body = json!({"coins": 5, "reason": "r"});

    let none = operator
        .send(&app, reqwest::Method::GET, &lookup, None, None)
        .await;
    none.error(401, "operator_token_required");
    let none = operator
        .send(
            &app,
            reqwest::Method::POST,
            &grant,
            None,
            Some(body.clone()),
        )
        .await;
    none.error(401, "operator_token_required");
    for bad in ["nonsense", &"0".repeat(48), &secret.to_uppercase()] {
        operator
            .get(&app, &lookup, bad)
            .await
            .error(401, "invalid_operator_token");
        operator
            .post(&app, &grant, bad, body.clone())
            .await
            .error(401, "invalid_operator_token");
    }
    operator.get(&app, &lookup, &secret).await.success();

    let line = AdminCommand::from_args(["operator-token", "revoke", "--name", "carol"])
        .expect("parses")
        .execute(app.store.as_ref(), app.now())
        .await;
    assert_eq!(line, Ok("operator token carol revoked".to_owned()));
    operator
        .get(&app, &lookup, &secret)
        .await
        .error(401, "invalid_operator_token");
    operator
        .post(&app, &grant, &secret, body)
        .await
        .error(401, "invalid_operator_token");
    let listed = AdminCommand::from_args(["operator-token", "list"])
        .expect("parses")
        .execute(app.store.as_ref(), app.now())
        .await
        .expect("lists");
    assert!(
        listed.starts_with("carol full created ") && listed.contains(", revoked "),
        "{listed}"
    );
    assert!(!listed.contains(&secret), "no secret is listed");

    let account = app.stored_account(player.id).await;
    assert_eq!(account.coins, 0, "nothing granted");
    assert!(
        audit_of(&app, &player).await.is_empty(),
        "no one to attribute: nothing audited"
    );
}

async fn the_operator_api_is_not_on_the_public_port(app: TestApp) {
    let secret = token(&app, "dave", "full").await;
    let player = app.player().await;
    let answer = app
        .send(
            reqwest::Method::GET,
            &format!("/operator/api/players?accountId={}", player.id.0),
            &[("authorization", &format!("Bearer {secret}"))],
            None,
        )
        .await;
    answer.error(404, "not_found");
    let answer = app
        .send(
            reqwest::Method::POST,
            &players_path(&player, "grant"),
            &[
                ("authorization", &format!("Bearer {secret}")),
                ("content-type", "application/json"),
            ],
            Some(br#"{"coins":5,"reason":"r"}"#.to_vec()),
        )
        .await;
    answer.error(404, "not_found");
    app.get("/operator/api").await.error(404, "not_found");
    let account = app.stored_account(player.id).await;
    assert_eq!(account.coins, 0);
}

/// Whoever may scrape the metrics reaches neither the operator API nor its console: they have
/// a listener of their own.
async fn the_metrics_listener_serves_no_operator_api_nor_console(app: TestApp) {
    let secret = token(&app, "erin", "full").await;
    let player = app.player().await;
    let listener = metrics::serve(any_port(), std::sync::Arc::clone(&app.metrics))
        .await
        .expect("the metrics listener binds");
    let base = format!("http://{}", listener.local_addr());
    let grant = app
        .client
        .post(format!("{base}{}", players_path(&player, "grant")))
        .bearer_auth(&secret)
        .json(&json!({"coins": 5, "reason": "r"}))
        .send()
        .await
        .expect("the metrics listener answers");
    assert_eq!(grant.status(), 404);
    for path in ["/operator/api/status", "/operator/console/"] {
        let answer = app
            .client
            .get(format!("{base}{path}"))
            .bearer_auth(&secret)
            .send()
            .await
            .expect("the metrics listener answers");
        assert_eq!(answer.status(), 404, "{path}");
    }
    let scrape = app
        .client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .expect("the metrics listener answers");
    assert_eq!(scrape.status(), 200);
    assert_eq!(app.stored_account(player.id).await.coins, 0);
}

async fn the_status_names_the_content_the_boards_and_the_database(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "carol", "read").await;
    let settled = within(DEADLINE, || async {
        let answer = operator.get(&app, "/operator/api/status", &secret).await;
        let status = answer.success();
        if status["leaderboards"]["ready"] == true {
            Ok(status.clone())
        } else {
            Err(answer.text.clone())
        }
    })
    .await;
    let status = settled.unwrap_or_else(|last| panic!("the boards never loaded: {last}"));
    assert!(status["version"].as_str().is_some_and(|v| !v.is_empty()));
    assert_eq!(status["content_version"], 0);
    assert_eq!(status["database"]["reachable"], true);
    assert!(
        status["database"]["pools"]
            .as_array()
            .is_some_and(|pools| !pools.is_empty())
    );

    app.store
        .publish_content(
            &shipped_with_maintenance(true),
            &safezone_core::store::Publication::default(),
            app.now(),
            None,
        )
        .await
        .expect("published");
    app.await_maintenance(true).await;
    let answer = operator.get(&app, "/operator/api/status", &secret).await;
    assert_eq!(answer.success()["content_version"], 1);
}

async fn players_are_found_by_device_or_provider_with_keys_results_and_tracks(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "alice", "read").await;
    let (device, body) = app.new_device().await;
    let id = body["user"]["id"].as_i64().expect("an id");
    let by_device = operator
        .get(
            &app,
            &format!("/operator/api/players?deviceId={device}"),
            &secret,
        )
        .await;
    let found = by_device.success();
    assert_eq!(found["account"]["id"], id);
    assert_eq!(found["keyGeneration"], 0, "no key revoked yet");
    assert_eq!(found["matches"], json!([]));
    assert!(found["tracks"].is_array(), "{found}");

    let mut played = Played::new();
    let player = Player {
        key: body["user"]["key"].as_str().expect("a key").to_owned(),
        id: AccountId(id),
        friend_code: safezone_core::domain::FriendCode::parse(
            body["user"]["friend_code"].as_str().expect("a code"),
        )
        .expect("a friend code"),
    };
    played.join(&player);
    app.report_now(
        &mut played,
        mode("solo"),
        vec![Line::new(player.id, 1, 3, 600)],
    )
    .await;
    app.post(&format!("/api/validate/device/{device}"))
        .await
        .success();

    // The device id is matched by its SHA-256, which is also the stored subject.
    let subject = DeviceId::parse(&device)
        .expect("a device id")
        .stored_identifier();
    let path = format!("/operator/api/players?provider=device&subject={subject}");
    let by_identity = operator.get(&app, &path, &secret).await;
    let found = by_identity.success();
    assert_eq!(found["account"]["id"], id);
    assert_eq!(found["keyGeneration"], 0, "a sign-in revokes nothing");
    let matches = found["matches"].as_array().expect("matches");
    assert_eq!(matches.len(), 1, "{found}");
    assert_eq!(
        (
            &matches[0]["mode"],
            &matches[0]["placement"],
            &matches[0]["kills"]
        ),
        (&json!("solo"), &json!(1), &json!(3))
    );

    for (query, parameter) in [
        ("provider=device", "subject"),
        ("subject=abc", "provider"),
        ("deviceId=android-1&accountId=1", "friendCode"),
    ] {
        let answer = operator
            .get(&app, &format!("/operator/api/players?{query}"), &secret)
            .await;
        let error = answer.error(400, "invalid_parameter");
        assert!(
            error["message"]
                .as_str()
                .expect("a message")
                .contains(parameter),
            "{query}: {error}"
        );
    }
    operator
        .get(
            &app,
            "/operator/api/players?deviceId=android-unknown",
            &secret,
        )
        .await
        .error(404, "unknown_user");
}

async fn items_and_packs_are_removed_all_or_nothing(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "alice", "full").await;
    let player = app.player().await;
    let grant = json!({
        "items": ["outfit-ranger"], "packs": ["basic-chest:2"], "reason": "ticket 20",
    });
    operator
        .post(&app, &players_path(&player, "grant"), &secret, grant)
        .await
        .success();

    let remove = json!({
        "items": ["outfit-ranger"], "packs": ["basic-chest"], "reason": "ticket 21: refunded",
    });
    operator
        .post(&app, &players_path(&player, "remove"), &secret, remove)
        .await
        .success();
    let holdings = |answer: &Answer| {
        let body = answer.success().clone();
        let items: Vec<Value> = body["items"].as_array().expect("items").clone();
        let packs: Vec<(Value, Value)> = body["packs"]
            .as_array()
            .expect("packs")
            .iter()
            .map(|pack| (pack["sku"].clone(), pack["quantity"].clone()))
            .collect();
        (items, packs)
    };
    let path = format!("/operator/api/players?accountId={}", player.id.0);
    let (items, packs) = holdings(&operator.get(&app, &path, &secret).await);
    assert!(
        items.iter().all(|item| item["sku"] != "outfit-ranger"),
        "{items:?}"
    );
    assert_eq!(packs, [(json!("basic-chest"), json!(1))]);

    // Each of these holds more than the account has: nothing of it is removed.
    for (body, code) in [
        (
            json!({"items": ["outfit-ranger"], "reason": "again"}),
            "not_owned",
        ),
        (
            json!({"packs": ["basic-chest:2"], "reason": "too many"}),
            "not_enough_packs",
        ),
        (
            json!({"packs": ["basic-chest"], "coins": 1, "reason": "with coins"}),
            "balance_too_low",
        ),
    ] {
        operator
            .post(&app, &players_path(&player, "remove"), &secret, body)
            .await
            .error(409, code);
    }
    let (_, packs) = holdings(&operator.get(&app, &path, &secret).await);
    assert_eq!(packs, [(json!("basic-chest"), json!(1))], "nothing removed");
    operator
        .post(
            &app,
            &players_path(&player, "remove"),
            &secret,
            json!({"items": ["no-such-sku"], "reason": "typo"}),
        )
        .await
        .error(404, "not_in_catalog");
    let audit = audit_of(&app, &player).await;
    let results: Vec<&str> = audit.iter().map(|row| row.entry.result.as_str()).collect();
    assert_eq!(results.len(), 6, "{results:?}");
    assert!(
        results[1..4].iter().all(|r| r.starts_with("refused: ")),
        "{results:?}"
    );
    assert_eq!(results[4..], ["done", "done"]);
}

async fn a_deletion_needs_the_friend_code_typed_again(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "alice", "full").await;
    let player = app.player().await;
    let other = app.player().await;

    let wrong = json!({"confirm": other.friend_code.to_string(), "reason": "GDPR request 4"});
    let answer = operator
        .post(&app, &players_path(&player, "delete"), &secret, wrong)
        .await;
    let error = answer.error(400, "invalid_body");
    let code = player.friend_code.to_string();
    assert!(
        error["message"]
            .as_str()
            .expect("a message")
            .contains(&code),
        "{error}"
    );
    app.stored_account(player.id).await;

    let right = json!({"confirm": code.to_lowercase(), "reason": "GDPR request 4"});
    let answer = operator
        .post(&app, &players_path(&player, "delete"), &secret, right)
        .await;
    assert_eq!(answer.success()["deleted"], player.id.0);
    let gone = app.store.account(player.id).await.expect("the store reads");
    assert!(gone.is_none(), "the account is erased");
    app.get(&format!("/api/user/{}", player.key))
        .await
        .error(401, "invalid_user_key");
    app.get(&format!("/api/user/{}", other.key)).await.success();
    operator
        .get(
            &app,
            &format!("/operator/api/players?accountId={}", player.id.0),
            &secret,
        )
        .await
        .error(404, "unknown_user");

    let audit = audit_of(&app, &player).await;
    let rows = summary(&audit);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0], row("delete", "GDPR request 4", "done"));
    assert!(
        rows[1].2.starts_with("refused: request body `confirm`"),
        "{rows:?}"
    );
}

async fn removed_results_leave_every_board_and_later_results_count(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "alice", "full").await;
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 2).await;
    let (cheater, other) = (&players[0], &players[1]);
    let caller = Some((other.key.as_str(), other.id));
    for _ in 0..2 {
        app.report_now(
            &mut played,
            mode("squad"),
            vec![
                Line::new(cheater.id, 1, 30, 900),
                Line::new(other.id, 2, 2, 800),
            ],
        )
        .await;
    }
    app.await_every_board(&played, caller).await;

    let answer = operator
        .post(
            &app,
            &players_path(cheater, "remove-results"),
            &secret,
            json!({"reason": "aimbot, report 9"}),
        )
        .await;
    assert_eq!(answer.success()["removed"], 2);
    played.forget_results(cheater.id);
    app.assert_every_board(&played, caller).await;
    let body = app.board(&query(mode("squad"), "all", "kills", None)).await;
    assert_eq!(codes(&body), [other.friend_code.to_string()]);
    let left = app
        .store
        .recent_results(cheater.id, 10)
        .await
        .expect("the match log reads");
    assert!(left.is_empty(), "{left:?}");

    // A later result counts afresh, from nothing.
    app.report_now(
        &mut played,
        mode("squad"),
        vec![
            Line::new(cheater.id, 3, 1, 100),
            Line::new(other.id, 1, 0, 700),
        ],
    )
    .await;
    app.assert_every_board(&played, caller).await;

    // A player without results has nothing to remove; an unknown account is a 404.
    let answer = operator
        .post(
            &app,
            &players_path(cheater, "remove-results"),
            &secret,
            json!({"reason": "again"}),
        )
        .await;
    assert_eq!(answer.success()["removed"], 1);
    let answer = operator
        .post(
            &app,
            &players_path(cheater, "remove-results"),
            &secret,
            json!({"reason": "once more"}),
        )
        .await;
    assert_eq!(answer.success()["removed"], 0);
    operator
        .post(
            &app,
            "/operator/api/players/987654321/remove-results",
            &secret,
            json!({"reason": "x"}),
        )
        .await
        .error(404, "unknown_user");
    let rows = summary(&audit_of(&app, cheater).await);
    assert_eq!(rows[2], row("remove-results", "aimbot, report 9", "done"));
}

/// The operator API's body limit (`operator_api::BODY_LIMIT`).
const OPERATOR_BODY_LIMIT: usize = 8 * 1024 * 1024;

/// The status line answering a POST to the operator listener of `head` (its own framing
/// headers) and then `body`, over plain TCP: the server may answer before it has read it all.
async fn post_raw(
    operator: &Operator,
    path: &str,
    secret: &str,
    head: &str,
    body: Vec<u8>,
) -> String {
    let address = operator.listener.local_addr();
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {secret}\r\n\
         Content-Type: application/json\r\n{head}Connection: close\r\n\r\n"
    )
    .into_bytes();
    request.extend(body);
    tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(address).expect("a connection");
        let _ = stream.write_all(&request);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer)
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned()
    })
    .await
    .expect("the exchange ends")
}

async fn a_body_over_the_limit_is_audited_refused_declared_or_chunked(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "alice", "full").await;
    let player = app.player().await;
    let path = players_path(&player, "grant");
    let coins = app.stored_account(player.id).await.coins;
    let over = OPERATOR_BODY_LIMIT + 1;

    // Declared: the length alone is over the limit (what follows is never read).
    let declared = post_raw(
        &operator,
        &path,
        &secret,
        &format!("Content-Length: {over}\r\n"),
        b"{".to_vec(),
    )
    .await;
    assert!(declared.contains(" 413 "), "{declared}");
    // Chunked: the body runs past the limit as it is read.
    let mut chunked = Vec::new();
    for chunk in vec![b' '; over].chunks(64 * 1024) {
        chunked.extend(format!("{:x}\r\n", chunk.len()).bytes());
        chunked.extend(chunk);
        chunked.extend(b"\r\n");
    }
    chunked.extend(b"0\r\n\r\n");
    let streamed = post_raw(
        &operator,
        &path,
        &secret,
        "Transfer-Encoding: chunked\r\n",
        chunked,
    )
    .await;
    assert!(streamed.contains(" 413 "), "{streamed}");

    let refused =
        format!("refused: request body is larger than the limit of {OPERATOR_BODY_LIMIT} bytes");
    assert_eq!(
        summary(&audit_of(&app, &player).await),
        [row("grant", "", &refused), row("grant", "", &refused)],
        "both refusals audited alike"
    );
    let account = app.stored_account(player.id).await;
    assert_eq!(account.coins, coins, "nothing granted");
}
