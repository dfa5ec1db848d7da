//! `GET /api/tournament/{code}/whitelist` and `POST /api/tournament/{code}/whitelist/update`:
//! admin accounts only, the JSON body, unknown friend codes reported.

use reqwest::Method;
use safezone_tests::{Answer, TestApp, each_combination};
use serde_json::{Value, json};

each_combination!(
    whitelists_are_for_admins_only,
    admins_read_and_edit_whitelists,
    whitelist_bodies_are_checked,
    unknown_tournaments_are_404,
);

async fn update(app: &TestApp, code: &str, key: &str, body: &str) -> Answer {
    app.send(
        Method::POST,
        &format!("/api/tournament/{code}/whitelist/update?userKey={key}"),
        &[("content-type", "application/json")],
        Some(body.as_bytes().to_vec()),
    )
    .await
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

async fn whitelists_are_for_admins_only(app: TestApp) {
    app.create_tournament("cup", 10, true).await;
    let player = app.player().await;
    let body = json!({"add": [player.friend_code.to_string()]}).to_string();
    let listed = app
        .get(&format!(
            "/api/tournament/cup/whitelist?userKey={}",
            player.key
        ))
        .await;
    listed.error(403, "admin_only");
    update(&app, "cup", &player.key, &body)
        .await
        .error(403, "admin_only");
    app.get("/api/tournament/cup/whitelist")
        .await
        .error(401, "missing_user_key");
    app.send(
        Method::POST,
        "/api/tournament/cup/whitelist/update",
        &[],
        Some(body.into_bytes()),
    )
    .await
    .error(401, "missing_user_key");
    assert_eq!(
        app.store
            .whitelist(&safezone_tests::community::code("cup"))
            .await
            .expect("read"),
        Some(Vec::new()),
        "nothing changed"
    );
}

async fn admins_read_and_edit_whitelists(app: TestApp) {
    app.create_tournament("cup", 10, true).await;
    let admin = app.admin().await;
    let [ace, bee] = [app.player().await, app.player().await];
    let (ace_code, bee_code) = (ace.friend_code.to_string(), bee.friend_code.to_string());

    let empty = app
        .get(&format!(
            "/api/tournament/cup/whitelist?userKey={}",
            admin.key
        ))
        .await;
    assert_eq!(
        empty.success(),
        &json!({"status": "success", "code": "cup", "whitelist_only": true, "whitelist": []})
    );

    let body = json!({"add": [ace_code, "Ghost#0001", bee_code.to_uppercase()]}).to_string();
    let answer = update(&app, "cup", &admin.key, &body).await;
    let body = answer.success();
    assert_eq!(
        strings(&body["whitelist"]),
        [ace_code.clone(), bee_code.clone()]
    );
    assert_eq!(strings(&body["unknown"]), ["Ghost#0001"]);

    let body = json!({"remove": [ace_code]}).to_string();
    let answer = update(&app, "cup", &admin.key, &body).await;
    assert_eq!(
        strings(&answer.success()["whitelist"]),
        std::slice::from_ref(&bee_code)
    );
    assert_eq!(strings(&answer.json["unknown"]), Vec::<String>::new());

    let body = json!({"replace": [ace_code]}).to_string();
    let answer = update(&app, "cup", &admin.key, &body).await;
    assert_eq!(
        strings(&answer.success()["whitelist"]),
        std::slice::from_ref(&ace_code)
    );

    let listed = app
        .get(&format!(
            "/api/tournament/CUP/whitelist?userKey={}",
            admin.key
        ))
        .await;
    assert_eq!(
        strings(&listed.success()["whitelist"]),
        std::slice::from_ref(&ace_code)
    );
    app.post(&format!("/api/tournament/cup/join?userKey={}", ace.key))
        .await
        .success();
    app.post(&format!("/api/tournament/cup/join?userKey={}", bee.key))
        .await
        .error(403, "not_whitelisted");

    let body = json!({"replace": []}).to_string();
    let answer = update(&app, "cup", &admin.key, &body).await;
    assert_eq!(
        strings(&answer.success()["whitelist"]),
        Vec::<String>::new()
    );
}

async fn whitelist_bodies_are_checked(app: TestApp) {
    app.create_tournament("cup", 10, true).await;
    let admin = app.admin().await;
    let player = app.player().await;
    let code = player.friend_code.to_string();
    let cases = [
        (String::new(), "is required"),
        ("not json".to_owned(), "not the expected JSON"),
        ("[]".to_owned(), "not the expected JSON"),
        (
            json!({"add": "Ace#0001"}).to_string(),
            "not the expected JSON",
        ),
        (json!({"adds": [code]}).to_string(), "not the expected JSON"),
        (json!({}).to_string(), "must hold"),
        (json!({"add": [], "remove": []}).to_string(), "must hold"),
        (
            json!({"replace": [code], "add": [code]}).to_string(),
            "alone",
        ),
        (json!({"add": ["nobody"]}).to_string(), "`nobody`"),
        (json!({"remove": ["Ace#12"]}).to_string(), "`Ace#12`"),
    ];
    for (body, why) in cases {
        let answer = update(&app, "cup", &admin.key, &body).await;
        answer.error_naming(400, "invalid_body", why);
    }
    let too_many: Vec<String> = (0..1001)
        .map(|n| format!("Ace#{:04}", n % 10_000))
        .collect();
    let answer = update(
        &app,
        "cup",
        &admin.key,
        &json!({"add": too_many}).to_string(),
    )
    .await;
    answer.error_naming(400, "invalid_body", "1000");
    app.get(&format!(
        "/api/tournament/bad%20code/whitelist?userKey={}",
        admin.key
    ))
    .await
    .error_naming(400, "invalid_parameter", "tournamentCode");
    let whitelist = app
        .store
        .whitelist(&safezone_tests::community::code("cup"))
        .await;
    assert_eq!(
        whitelist.expect("read"),
        Some(Vec::new()),
        "nothing changed"
    );
}

async fn unknown_tournaments_are_404(app: TestApp) {
    let admin = app.admin().await;
    app.get(&format!(
        "/api/tournament/nope/whitelist?userKey={}",
        admin.key
    ))
    .await
    .error(404, "unknown_tournament");
    let body = json!({"add": [admin.friend_code.to_string()]}).to_string();
    update(&app, "nope", &admin.key, &body)
        .await
        .error(404, "unknown_tournament");
}
