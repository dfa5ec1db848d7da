//! Clans: available, create (tag, name, description rules), invite, join, leave, and the
//! account's `clans`.

use futures_util::future::join as together;
use safezone_tests::community::Player;
use safezone_tests::{Answer, TestApp, each_combination};
use serde_json::{Value, json};

each_combination!(
    creating_makes_the_creator_a_member,
    tags_are_exactly_three_ascii_letters,
    tags_are_unique_regardless_of_case,
    names_and_descriptions_have_limits,
    an_account_is_in_one_clan,
    members_invite_other_players,
    players_join_only_when_invited,
    leaving_hands_the_clan_on_and_the_last_member_dissolves_it,
    available_lists_own_and_inviting_clans_or_the_largest,
    clans_need_a_key,
    members_leaving_and_deleting_accounts_at_once_leave_no_clan_behind,
    joins_and_invites_racing_deletions_are_kept_or_refused,
);

async fn create(app: &TestApp, player: &Player, query: &str) -> Answer {
    app.post(&format!("/api/clan/create?{query}&userKey={}", player.key))
        .await
}

/// Creates clan `tag` for `player`; answers the clan's id.
async fn created(app: &TestApp, player: &Player, tag: &str) -> i64 {
    let answer = create(app, player, &format!("tag={tag}&name=Team%20{tag}")).await;
    answer.success()["clan"]["id"].as_i64().expect("an id")
}

async fn invite(app: &TestApp, clan: i64, by: &Player, user: i64) -> Answer {
    app.post(&format!(
        "/api/clan/{clan}/invite?userId={user}&userKey={}",
        by.key
    ))
    .await
}

async fn join(app: &TestApp, clan: i64, player: &Player) -> Answer {
    app.post(&format!("/api/clan/{clan}/join?userKey={}", player.key))
        .await
}

async fn leave(app: &TestApp, clan: i64, player: &Player) -> Answer {
    app.post(&format!("/api/clan/{clan}/leave?userKey={}", player.key))
        .await
}

fn member_ids(clan: &Value) -> Vec<i64> {
    clan["members"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|member| member["id"].as_i64())
        .collect()
}

async fn creating_makes_the_creator_a_member(app: TestApp) {
    let player = app.player().await;
    let answer = create(
        &app,
        &player,
        "tag=Abc&name=Alpha%20Squad&description=We%20drop%20hot.",
    )
    .await;
    let body = answer.success().clone();
    let clan = &body["clan"];
    let id = clan["id"].as_i64().expect("an id");
    let expected = json!({
        "id": id,
        "creator_id": player.id.0,
        "tag": "Abc",
        "name": "Alpha Squad",
        "description": "We drop hot.",
        "privacy": "invite_only",
        "region": null,
        "total_members": 1,
        "max_members": 50,
        "members": [{
            "id": player.id.0,
            "friend_code": player.friend_code.to_string(),
            "name": player.friend_code.name(),
            "avatar": null,
            "status": "offline",
        }],
        "messages": [],
    });
    assert_eq!(clan, &expected);
    assert_eq!(body["user"]["id"], player.id.0);
    assert_eq!(body["user"]["clans"], json!([expected]));
    let user = app.get(&format!("/api/user/{}", player.key)).await;
    assert_eq!(user.success()["user"]["clans"], json!([expected]));

    let other = app.player().await;
    let without_description = create(&app, &other, "tag=Xyz&name=Xyz%20Team&description=").await;
    assert_eq!(
        without_description.success()["clan"]["description"],
        Value::Null
    );
}

async fn tags_are_exactly_three_ascii_letters(app: TestApp) {
    let player = app.player().await;
    for tag in [
        "ab",
        "abcd",
        "a1b",
        "%C3%A4bc",
        "%C3%84%C3%96",
        "a%20b",
        "ab-",
        "%E2%82%AC",
    ] {
        create(&app, &player, &format!("tag={tag}&name=Valid%20Name"))
            .await
            .error_naming(400, "invalid_parameter", "tag");
    }
    create(&app, &player, "name=Valid%20Name")
        .await
        .error_naming(400, "missing_parameter", "tag");
    create(&app, &player, "tag=&name=Valid%20Name")
        .await
        .error_naming(400, "missing_parameter", "tag");
    let user = app.get(&format!("/api/user/{}", player.key)).await;
    assert_eq!(
        user.success()["user"]["clans"],
        json!([]),
        "no clan was created"
    );
    create(&app, &player, "tag=aBc&name=Valid%20Name")
        .await
        .success();
}

async fn tags_are_unique_regardless_of_case(app: TestApp) {
    let [ace, bee] = [app.player().await, app.player().await];
    created(&app, &ace, "ABC").await;
    for tag in ["abc", "ABC", "aBc"] {
        let answer = create(&app, &bee, &format!("tag={tag}&name=Other%20Team")).await;
        answer.error(409, "clan_tag_taken");
    }
    created(&app, &bee, "ABD").await;
}

async fn names_and_descriptions_have_limits(app: TestApp) {
    let player = app.player().await;
    let long_name = "n".repeat(33);
    let long_description = "d".repeat(201);
    for (query, parameter, code) in [
        ("tag=Abc".to_owned(), "name", "missing_parameter"),
        ("tag=Abc&name=ab".to_owned(), "name", "invalid_parameter"),
        (
            "tag=Abc&name=%20%20%20%20".to_owned(),
            "name",
            "invalid_parameter",
        ),
        (
            format!("tag=Abc&name={long_name}"),
            "name",
            "invalid_parameter",
        ),
        (
            "tag=Abc&name=Bad%0AName".to_owned(),
            "name",
            "invalid_parameter",
        ),
        (
            format!("tag=Abc&name=Good%20Name&description={long_description}"),
            "description",
            "invalid_parameter",
        ),
        (
            "tag=Abc&name=Good%20Name&description=a%00b".to_owned(),
            "description",
            "invalid_parameter",
        ),
    ] {
        create(&app, &player, &query)
            .await
            .error_naming(400, code, parameter);
    }
    let name = "n".repeat(32);
    let description = "d".repeat(200);
    let answer = create(
        &app,
        &player,
        &format!("tag=Abc&name={name}&description={description}"),
    )
    .await;
    assert_eq!(answer.success()["clan"]["name"], name.as_str());
}

async fn an_account_is_in_one_clan(app: TestApp) {
    let [ace, bee] = [app.player().await, app.player().await];
    let abc = created(&app, &ace, "Abc").await;
    create(&app, &ace, "tag=Xyz&name=Second%20Team")
        .await
        .error(409, "already_in_clan");
    let xyz = created(&app, &bee, "Xyz").await;
    invite(&app, xyz, &bee, ace.id.0).await.success();
    join(&app, xyz, &ace).await.error(409, "already_in_clan");
    leave(&app, abc, &ace).await.success();
    join(&app, xyz, &ace).await.success();
}

async fn members_invite_other_players(app: TestApp) {
    let [ace, bee, cat] = [app.player().await, app.player().await, app.player().await];
    let abc = created(&app, &ace, "Abc").await;
    let answer = invite(&app, abc, &ace, bee.id.0).await;
    assert_eq!(answer.success(), &json!({"status": "success"}));
    invite(&app, abc, &ace, bee.id.0)
        .await
        .error(409, "already_invited");
    invite(&app, abc, &ace, ace.id.0)
        .await
        .error_naming(400, "invalid_parameter", "userId");
    invite(&app, abc, &bee, cat.id.0)
        .await
        .error(403, "not_a_member");
    invite(&app, abc, &ace, cat.id.0 + 1000)
        .await
        .error(404, "unknown_user");
    invite(&app, abc + 1000, &ace, cat.id.0)
        .await
        .error(404, "unknown_clan");
    for bad in ["abc", "0", "-2"] {
        app.post(&format!(
            "/api/clan/{abc}/invite?userId={bad}&userKey={}",
            ace.key
        ))
        .await
        .error_naming(400, "invalid_parameter", "userId");
    }
    app.post(&format!("/api/clan/{abc}/invite?userKey={}", ace.key))
        .await
        .error_naming(400, "missing_parameter", "userId");
    app.post(&format!(
        "/api/clan/x/invite?userId={}&userKey={}",
        cat.id.0, ace.key
    ))
    .await
    .error_naming(400, "invalid_parameter", "clanId");

    join(&app, abc, &bee).await.success();
    invite(&app, abc, &ace, bee.id.0)
        .await
        .error(409, "already_member");
    invite(&app, abc, &bee, cat.id.0).await.success();
}

async fn players_join_only_when_invited(app: TestApp) {
    let [ace, bee, cat] = [app.player().await, app.player().await, app.player().await];
    let abc = created(&app, &ace, "Abc").await;
    join(&app, abc, &bee).await.error(403, "not_invited");
    join(&app, abc + 1000, &bee)
        .await
        .error(404, "unknown_clan");
    invite(&app, abc, &ace, bee.id.0).await.success();
    let answer = join(&app, abc, &bee).await;
    let body = answer.success();
    assert_eq!(member_ids(&body["clan"]), [ace.id.0, bee.id.0]);
    assert_eq!(body["clan"]["total_members"], 2);
    assert_eq!(body["clan"]["creator_id"], ace.id.0);
    assert_eq!(body["user"]["id"], bee.id.0);
    assert_eq!(body["user"]["clans"][0]["id"], abc);
    join(&app, abc, &bee).await.error(409, "already_in_clan");
    join(&app, abc, &cat).await.error(403, "not_invited");
}

async fn leaving_hands_the_clan_on_and_the_last_member_dissolves_it(app: TestApp) {
    let [ace, bee, cat] = [app.player().await, app.player().await, app.player().await];
    let abc = created(&app, &ace, "Abc").await;
    for player in [&bee, &cat] {
        invite(&app, abc, &ace, player.id.0).await.success();
        join(&app, abc, player).await.success();
    }
    let answer = leave(&app, abc, &ace).await;
    let body = answer.success();
    assert!(body.get("clan").is_none(), "{body}");
    assert_eq!(body["user"]["clans"], json!([]));
    leave(&app, abc, &ace).await.error(403, "not_a_member");

    let user = app.get(&format!("/api/user/{}", cat.key)).await;
    let clan = user.success()["user"]["clans"][0].clone();
    assert_eq!(
        clan["creator_id"], bee.id.0,
        "the longest-standing member leads"
    );
    assert_eq!(member_ids(&clan), [bee.id.0, cat.id.0]);

    leave(&app, abc, &bee).await.success();
    let user = app.get(&format!("/api/user/{}", cat.key)).await;
    assert_eq!(user.success()["user"]["clans"][0]["creator_id"], cat.id.0);
    leave(&app, abc, &cat).await.success();
    leave(&app, abc, &cat).await.error(404, "unknown_clan");
    let available = app.get("/api/clan/available").await;
    assert_eq!(available.success()["clans"], json!([]));
    created(&app, &ace, "ABC").await;
}

async fn available_lists_own_and_inviting_clans_or_the_largest(app: TestApp) {
    let players = app.players(5).await;
    let aaa = created(&app, &players[0], "Aaa").await;
    let bbb = created(&app, &players[1], "Bbb").await;
    let ccc = created(&app, &players[2], "Ccc").await;
    invite(&app, ccc, &players[2], players[3].id.0)
        .await
        .success();
    join(&app, ccc, &players[3]).await.success();
    invite(&app, aaa, &players[0], players[3].id.0)
        .await
        .success();

    let ids = |answer: &Answer| -> Vec<i64> {
        answer.success()["clans"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|clan| clan["id"].as_i64())
            .collect()
    };
    let anonymous = app.get("/api/clan/available").await;
    assert_eq!(ids(&anonymous), [ccc, aaa, bbb]);
    assert_eq!(anonymous.json["clans"][0]["total_members"], 2);
    let member = app
        .get(&format!("/api/clan/available?userKey={}", players[3].key))
        .await;
    assert_eq!(
        ids(&member),
        [ccc, aaa],
        "its own clan, then the inviting one"
    );
    let loner = app
        .get(&format!("/api/clan/available?userKey={}", players[4].key))
        .await;
    assert_eq!(ids(&loner), Vec::<i64>::new());
}

async fn clans_need_a_key(app: TestApp) {
    app.post("/api/clan/create?tag=Abc&name=Alpha")
        .await
        .error(401, "missing_user_key");
    app.post("/api/clan/1/invite?userId=2")
        .await
        .error(401, "missing_user_key");
    app.post("/api/clan/1/join")
        .await
        .error(401, "missing_user_key");
    app.post("/api/clan/1/leave")
        .await
        .error(401, "missing_user_key");
    app.get(&format!("/api/clan/available?userKey={}", "0".repeat(48)))
        .await
        .error(401, "invalid_user_key");
}

/// How many times each race below is run.
const TRIES: u8 = 12;

/// A tag of its own for race try `n`.
fn race_tag(n: u8) -> String {
    format!(
        "Q{}{}",
        char::from(b'a' + n / 26),
        char::from(b'a' + n % 26)
    )
}

/// A player with the second key that deleting the account needs.
type Deletable = (Player, String);

/// Takes the member out of the clan by leaving (`false`) or deleting the account (`true`);
/// either is answered 200.
async fn depart(app: &TestApp, clan: i64, (player, confirmation): &Deletable, delete: bool) {
    if delete {
        app.delete_account(player, confirmation).await;
    } else {
        leave(app, clan, player).await.success();
    }
}

/// Asserts that no clan holds `tag` any more: `founder` creates one with it and leaves it.
async fn assert_tag_free(app: &TestApp, founder: &Player, tag: &str) {
    let clan = created(app, founder, tag).await;
    leave(app, clan, founder).await.success();
}

async fn members_leaving_and_deleting_accounts_at_once_leave_no_clan_behind(app: TestApp) {
    let founder = app.player().await;
    for n in 0..TRIES {
        let lead = app.deletable_player().await;
        let mate = app.deletable_player().await;
        let tag = race_tag(n);
        let clan = created(&app, &lead.0, &tag).await;
        invite(&app, clan, &lead.0, mate.0.id.0).await.success();
        join(&app, clan, &mate.0).await.success();
        // Both delete, or one leaves while the other deletes.
        let (lead_deletes, mate_deletes) =
            [(true, true), (false, true), (true, false)][usize::from(n % 3)];
        together(
            depart(&app, clan, &lead, lead_deletes),
            depart(&app, clan, &mate, mate_deletes),
        )
        .await;
        for (player, _) in [&lead, &mate] {
            assert_eq!(app.store.clan_of(player.id).await.expect("read"), None);
        }
        assert_tag_free(&app, &founder, &tag).await;
    }
    let left = app.store.clans_available(None, 100).await.expect("read");
    assert!(left.is_empty(), "no clan is left: {left:?}");
}

async fn joins_and_invites_racing_deletions_are_kept_or_refused(app: TestApp) {
    let founder = app.player().await;
    let host = app.player().await;
    let hosting = created(&app, &host, "Inv").await;
    for n in 0..TRIES {
        // The clan's only member deletes the account while an invited player joins.
        let lead = app.deletable_player().await;
        let joiner = app.player().await;
        let tag = race_tag(n);
        let clan = created(&app, &lead.0, &tag).await;
        invite(&app, clan, &lead.0, joiner.id.0).await.success();
        let (joined, ()) = together(
            join(&app, clan, &joiner),
            app.delete_account(&lead.0, &lead.1),
        )
        .await;
        let kept = app.store.clan_of(joiner.id).await.expect("read");
        if joined.status == 200 {
            let kept = kept.expect("an answered join is a membership");
            assert_eq!(kept.creator, joiner.id, "the one left leads");
            assert_eq!(kept.members.len(), 1);
        } else {
            joined.error(404, "unknown_clan");
            assert_eq!(kept, None);
            assert_tag_free(&app, &founder, &tag).await;
        }

        // A member invites a player who deletes the account meanwhile.
        let invitee = app.deletable_player().await;
        let (invited, ()) = together(
            invite(&app, hosting, &host, invitee.0.id.0),
            app.delete_account(&invitee.0, &invitee.1),
        )
        .await;
        if invited.status != 200 {
            invited.error(404, "unknown_user");
        }
    }
}
