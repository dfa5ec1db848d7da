//! A new player's first session, played through the public API exactly as the game's clients
//! do: sign in, read the configuration, claim the welcome rewards, buy and open a chest, rename,
//! vote in the poll, read the quests and the tracks. Once with every parameter in the query
//! string and empty POST bodies without a content type (the web and mobile clients), once with
//! the POST parameters in form bodies and C# booleans (the Unity client). Every call succeeds on
//! the shipped content alone.

use reqwest::Method;
use safezone_core::clock::Clock;
use safezone_core::starter;
use safezone_tests::economy::{int, pack_count};
use safezone_tests::leaderboard::RENAME_PRICE;
use safezone_tests::{Answer, TestApp, each_combination, shipped_content};

each_combination!(
    a_first_session_with_query_strings_succeeds,
    a_first_session_with_form_bodies_and_csharp_booleans_succeeds,
);

/// How a client sends a POST's parameters.
#[derive(Clone, Copy)]
enum Client {
    /// In the query string, with an empty body and no content type.
    QueryString,
    /// In an `application/x-www-form-urlencoded` body, booleans written `True`/`False`.
    FormBody,
}

impl Client {
    /// `POST path` with `parameters` (`a=1&b=2`) sent as this client sends them.
    async fn post(self, app: &TestApp, path: &str, parameters: &str) -> Answer {
        match self {
            Self::QueryString => {
                let separator = if path.contains('?') { '&' } else { '?' };
                app.post(&format!("{path}{separator}{parameters}")).await
            }
            Self::FormBody => {
                app.send(
                    Method::POST,
                    path,
                    &[("content-type", "application/x-www-form-urlencoded")],
                    Some(parameters.as_bytes().to_vec()),
                )
                .await
            }
        }
    }

    /// A boolean as this client writes it.
    fn boolean(self, value: bool) -> &'static str {
        match (self, value) {
            (Self::QueryString, true) => "true",
            (Self::QueryString, false) => "false",
            (Self::FormBody, true) => "True",
            (Self::FormBody, false) => "False",
        }
    }
}

async fn a_first_session_with_query_strings_succeeds(app: TestApp) {
    play_first_session(&app, Client::QueryString).await;
}

async fn a_first_session_with_form_bodies_and_csharp_booleans_succeeds(app: TestApp) {
    play_first_session(&app, Client::FormBody).await;
}

async fn play_first_session(app: &TestApp, client: Client) {
    // The server as a fresh binary starts it: with the starter poll and tournament.
    starter::seed(
        app.store.as_ref(),
        &shipped_content().modes,
        app.clock.now(),
    )
    .await
    .expect("seeded");

    let device = format!("ios-{}", uuid::Uuid::new_v4());
    let signed_in = client
        .post(app, &format!("/api/validate/device/{device}"), "")
        .await
        .success()
        .clone();
    assert_eq!(signed_in["firstLogin"], true);
    let key = signed_in["user"]["key"].as_str().expect("a key").to_owned();

    let config = app
        .get(&format!(
            "/api/config?platform=ios&version=2.8.1&version2=&isPolledUpdate={}&userKey={key}",
            client.boolean(false)
        ))
        .await
        .success()
        .clone();
    assert_eq!(config["config"]["update_required"], false);
    assert!(config["extras"]["season_preview"]["season"].as_i64() >= Some(1));
    assert!(config["extras"]["limited_event"].is_object());

    let welcome = client
        .post(app, &format!("/api/user/{key}/rewards/claim"), "type=first")
        .await
        .success()
        .clone();
    let (coins, gems) = (
        int(&welcome["user"], "coins"),
        int(&welcome["user"], "gems"),
    );
    assert!(coins > 0 && gems >= RENAME_PRICE, "{welcome}");

    let bought = client
        .post(app, &format!("/api/user/{key}/buy"), "packId=1&quantity=1")
        .await
        .success()
        .clone();
    let chests = pack_count(&bought["user"], 1);
    assert!(chests >= 1, "{bought}");
    for _ in 0..chests {
        client
            .post(app, &format!("/api/user/{key}/pack/open"), "packId=1")
            .await
            .success();
    }

    let renamed = client
        .post(
            app,
            &format!("/api/user/{key}/friend-code/update"),
            "name=NewRecruit",
        )
        .await
        .success()
        .clone();
    let code = renamed["user"]["friend_code"].as_str().unwrap_or_default();
    assert!(code.starts_with("NewRecruit#"), "{renamed}");
    assert_eq!(int(&renamed["user"], "gems"), gems - RENAME_PRICE);

    let polls = app
        .get(&format!("/api/poll/available?userKey={key}"))
        .await
        .success()
        .clone();
    let poll = &polls["poll"][0];
    let (poll_id, option_id) = (int(poll, "id"), int(&poll["options"][0], "id"));
    client
        .post(
            app,
            &format!("/api/poll/vote/{poll_id}"),
            &format!("optionId={option_id}&userKey={key}"),
        )
        .await
        .success();

    let quests = app
        .get(&format!("/api/quest/available?userKey={key}"))
        .await
        .success()
        .clone();
    assert!(
        !quests["quests"].as_array().is_none_or(Vec::is_empty),
        "{quests}"
    );
    let tracks = app
        .get(&format!("/api/reward/tracks?userKey={key}"))
        .await
        .success()
        .clone();
    let running = tracks["tracks"].as_array().map_or(0, Vec::len);
    assert!(running >= 2, "a free track and a pass: {tracks}");

    let user = app.user(&key).await;
    assert_eq!(pack_count(&user, 1), 0, "every chest opened");
    app.assert_key_ledger_balanced(&key).await;
}
