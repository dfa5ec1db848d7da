//! Reward tracks (season passes): `GET /api/reward/tracks`, `POST
//! /api/reward/tracks/{trackId}/buy` and `.../skip?tiers=` (also spelled `/api/reward/track/`),
//! and the obsolete mid-season endpoints. Tracks are listed while their season runs, as the
//! content file says, with the caller's standing; a pass is bought once at its current price and
//! grants the tiers already reached; skipping buys tiers with gems, never past the last.

use reqwest::Method;
use safezone_core::content::{Content, RewardSpec, RewardTrack};
use safezone_core::domain::GameMode;
use safezone_core::store::Currency;
use safezone_tests::community::Player;
use safezone_tests::economy::{gems, int};
use safezone_tests::progression::{
    IN_SEASON, Line, Model, api_date, assert_player, pass_track, reward_json, rewards_json, sorted,
    stock_track,
};
use safezone_tests::{TestApp, each_combination};
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

each_combination!(
    running_tracks_are_listed_as_the_content_file_says,
    tracks_are_listed_only_while_their_season_runs,
    the_personal_standing_follows_matches,
    a_pass_is_bought_once_at_the_discounted_price,
    after_the_discount_the_full_price_is_charged,
    a_pass_grants_the_tiers_already_reached_then_the_next_ones,
    skipping_charges_gems_and_grants_the_tiers,
    a_skipped_tiers_experience_reaches_its_level_at_once,
    skips_never_pass_the_last_tier,
    skipping_a_pass_needs_the_pass,
    track_errors_change_nothing,
    mid_season_endpoints_answer_not_available,
    the_singular_spelling_buys_and_skips,
    buy_and_skip_accept_an_idempotency_key,
);

/// The answer header that marks a replay.
const REPLAYED: &str = "idempotent-replayed";

/// A track as `GET /api/reward/tracks` lists it at `now` (tier ids left out), with the standing
/// of `viewer` when given.
fn track_json(
    content: &Content,
    track: &RewardTrack,
    now: OffsetDateTime,
    viewer: Option<&Model>,
) -> Value {
    let price = track.price_at(now);
    let id = track.id.0;
    let tiers: Vec<Value> = track
        .tiers
        .iter()
        .map(|tier| {
            json!({"track_id": id, "tier": tier.tier, "rewards": rewards_json(content, &tier.rewards)})
        })
        .collect();
    let challenges: Vec<Value> = track
        .challenges
        .iter()
        .map(|challenge| {
            let personal = viewer.map_or(Value::Null, |model| {
                let value = model.counter(&format!("challenge/{}", challenge.id.0));
                json!({
                    "id": challenge.id.0,
                    "user_id": model.account.0,
                    "challenge_id": challenge.id.0,
                    "value": value,
                    "is_completed": value >= challenge.required,
                })
            });
            json!({
                "id": challenge.id.0,
                "track_id": id,
                "name": challenge.name,
                "stat_key": challenge.stat_key,
                "required": challenge.required,
                "reward": {"type": "star", "quantity": challenge.stars},
                "created": api_date(track.starts),
                "personal": personal,
            })
        })
        .collect();
    let evolutions: Vec<Value> = track
        .evolutions
        .iter()
        .map(|evolution| {
            let sku = &content
                .catalog
                .item(evolution.required_item)
                .expect("the item exists")
                .sku;
            json!({
                "id": evolution.id.0,
                "track_id": id,
                "required_item_sku": sku,
                "name": evolution.name,
                "stat_key": evolution.stat_key,
                "required": evolution.required,
                "reward": reward_json(content, &evolution.reward),
            })
        })
        .collect();
    json!({
        "id": id,
        "name": track.shown_name(),
        "season": track.season,
        "max_level": track.max_level,
        "max_tier": track.max_tier,
        "cost_coins": price.coins,
        "cost_gems": price.gems,
        "cost_gems_per_tier": track.cost_gems_per_tier,
        "is_stock": track.is_stock,
        "is_repeatable": track.is_repeatable,
        "created": api_date(track.starts),
        "expires": api_date(track.ends),
        "tiers": tiers,
        "challenges": challenges,
        "evolutions": evolutions,
        "personal": viewer.map_or(Value::Null, |model| personal_json(track, model, now)),
    })
}

/// A track's `personal` for the account of `model` at `now`; at the last level or tier (of a
/// track that does not repeat) the progress towards the next one is 0 of 0.
fn personal_json(track: &RewardTrack, model: &Model, now: OffsetDateTime) -> Value {
    let id = track.id.0;
    let experience = model.counter(&format!("track/{id}/experience"));
    let stars = model.counter(&format!("track/{id}/stars"));
    let (level, tier) = (track.level_for(experience), track.tier_for(stars));
    let owned = track.is_stock || model.passes.contains(&track.id);
    let last_level = level >= track.max_level;
    let last_tier = tier >= track.max_tier && !track.is_repeatable;
    json!({
        "id": id,
        "user_id": model.account.0,
        "track_id": id,
        "experience": experience,
        "level": level,
        "stars": stars,
        "tier": tier,
        "has_discount_available": !owned
            && track.discount.is_some_and(|discount| now < discount.ends),
        "progressionTier": {
            "currentStars": if last_tier { 0 } else { stars - tier * track.stars_per_tier },
            "requiredStars": if last_tier { 0 } else { track.stars_per_tier },
        },
        "progressionLevel": {
            "currentExperience": if last_level { 0 } else { experience - level * track.experience_per_level },
            "requiredExperience": if last_level { 0 } else { track.experience_per_level },
        },
    })
}

/// The listed tracks with the tier ids taken out; asserts those ids are integers, unique.
fn without_tier_ids(mut tracks: Vec<Value>) -> Vec<Value> {
    let mut ids = Vec::new();
    for track in &mut tracks {
        for tier in track["tiers"].as_array_mut().into_iter().flatten() {
            let id = tier
                .as_object_mut()
                .and_then(|tier| tier.remove("id"))
                .and_then(|id| id.as_i64())
                .unwrap_or_else(|| panic!("a tier without an integer id: {tier}"));
            ids.push(id);
        }
    }
    let count = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), count, "tier ids are unique");
    tracks
}

/// What `GET /api/reward/tracks` should list at `now` for `viewer`.
fn expected_tracks(content: &Content, now: OffsetDateTime, viewer: Option<&Model>) -> Vec<Value> {
    content
        .tracks_at(now)
        .map(|track| track_json(content, &track, now, viewer))
        .collect()
}

/// The clock at [`IN_SEASON`], the shipped content and a new player with its model.
async fn start(app: &TestApp) -> (Content, Player, Model) {
    app.clock.set(IN_SEASON);
    let player = app.player().await;
    let model = Model::new(player.id);
    (Content::shipped(), player, model)
}

/// Gives the player `amount` gems, in the model as well.
async fn fund(app: &TestApp, player: &Player, model: &mut Model, amount: i64) {
    app.grant_to(&player.key, gems(amount)).await;
    model.fund(0, amount);
}

/// Reports the best match of the player (with `damage`), checking its answer against the model.
async fn play_best(app: &TestApp, model: &mut Model, id: &str, damage: i64) -> Value {
    let report = app.finished(
        id,
        GameMode::parse("squad").expect("a mode"),
        vec![Line::best(model.account).stat("damage", damage)],
    );
    let body = app.report(&report).await;
    let answered = body["players"][0].clone();
    assert_player(&answered, &model.play(&report, &report.lines[0]));
    answered
}

/// Asserts a buy or skip answer: `{status, user, rewards}`, the rewards the model expects (in
/// any order) and the user's balances.
#[track_caller]
fn assert_bought(body: &Value, rewards: &[Value], model: &Model) {
    let mut fields: Vec<&String> = body.as_object().expect("an object").keys().collect();
    fields.sort();
    assert_eq!(fields, ["rewards", "status", "user"]);
    assert_eq!(sorted(&body["rewards"]), sorted(&json!(rewards)), "{body}");
    assert_eq!(
        (int(&body["user"], "coins"), int(&body["user"], "gems")),
        (model.coins, model.gems),
        "{body}"
    );
}

/// The running tracks are listed as the content file says, at their current price, with
/// `personal: null` without a key and the caller's (new) standing with one, by query or bearer.
async fn running_tracks_are_listed_as_the_content_file_says(app: TestApp) {
    let (content, player, model) = start(&app).await;
    let running = expected_tracks(&content, IN_SEASON, None);
    assert!(running.len() >= 2, "a stock track and a pass run");
    assert_eq!(without_tier_ids(app.tracks(None).await), running);
    assert_eq!(without_tier_ids(app.tracks(Some("")).await), running);

    let personal = expected_tracks(&content, IN_SEASON, Some(&model));
    assert_eq!(
        without_tier_ids(app.tracks(Some(&player.key)).await),
        personal
    );
    let bearer = format!("Bearer {}", player.key);
    let answer = app
        .send(
            Method::GET,
            "/api/reward/tracks",
            &[("authorization", bearer.as_str())],
            None,
        )
        .await;
    let listed = answer.success()["tracks"]
        .as_array()
        .cloned()
        .expect("tracks");
    assert_eq!(without_tier_ids(listed), personal);
    // The pass shows its discount to a player who does not own it.
    let pass = pass_track(&content, IN_SEASON);
    let seen = app.track_seen(&player.key, pass.id).await;
    assert_eq!(
        seen["personal"]["has_discount_available"],
        pass.discount
            .is_some_and(|discount| IN_SEASON < discount.ends)
    );
    for key in ["short", &"0".repeat(48)] {
        app.get(&format!("/api/reward/tracks?userKey={key}"))
            .await
            .error(401, "invalid_user_key");
    }
}

/// A track is listed from its start (included) to its end (excluded), and not otherwise.
async fn tracks_are_listed_only_while_their_season_runs(app: TestApp) {
    let content = Content::shipped();
    for track in &content.tracks {
        for (at, listed) in [
            (track.starts - Duration::seconds(1), false),
            (track.starts, true),
            (track.ends - Duration::seconds(1), true),
            (track.ends, false),
        ] {
            app.clock.set(at);
            let tracks = without_tier_ids(app.tracks(None).await);
            assert_eq!(tracks, expected_tracks(&content, at, None), "at {at}");
            let ids: Vec<i64> = tracks.iter().map(|track| int(track, "id")).collect();
            assert_eq!(
                ids.contains(&track.id.0),
                listed,
                "track {} at {at}",
                track.id.0
            );
        }
    }
}

/// The caller's standing on each running track (experience, level, stars, tier, progress to the
/// next level and tier, each challenge's progress) follows the matches reported.
async fn the_personal_standing_follows_matches(app: TestApp) {
    let (content, player, mut model) = start(&app).await;
    for (round, damage) in [(1, 4000), (2, 30_000), (3, 0)] {
        let answered = play_best(&app, &mut model, &format!("standing:{round}"), damage).await;
        assert!(
            answered["tracks"]
                .as_array()
                .is_some_and(|tracks| tracks.iter().all(|track| int(track, "stars") > 0)),
            "every running track gained stars: {answered}"
        );
        assert_eq!(
            without_tier_ids(app.tracks(Some(&player.key)).await),
            expected_tracks(&content, IN_SEASON, Some(&model)),
            "after match {round}"
        );
    }
    app.assert_model(&player.key, &model).await;
}

/// While the discount runs the pass costs the discounted price: bought once, it charges that
/// price (one ledger row) and grants nothing when no tier is reached; a second buy, in either
/// spelling, is 409 `already_owned` and changes nothing; the owner sees no discount.
async fn a_pass_is_bought_once_at_the_discounted_price(app: TestApp) {
    let (content, player, mut model) = start(&app).await;
    let pass = pass_track(&content, IN_SEASON);
    let discount = pass.discount.expect("the shipped pass has a discount");
    assert!(IN_SEASON < discount.ends);
    let price = pass.price_at(IN_SEASON);
    assert_eq!(price, discount.cost);
    fund(&app, &player, &mut model, 2 * price.gems + 1).await;
    let seen = app.track_seen(&player.key, pass.id).await;
    assert_eq!(
        (int(&seen, "cost_coins"), int(&seen, "cost_gems")),
        (price.coins, price.gems)
    );

    let rows_before = app.ledger_of(&player.key).await.len();
    let body = app.buy_track(&player.key, pass.id).await.success().clone();
    let rewards = model.buy(pass.id, IN_SEASON);
    assert!(rewards.is_empty());
    assert_bought(&body, &rewards, &model);
    let ledger = app.ledger_of(&player.key).await;
    assert_eq!(ledger.len(), rows_before + 1, "one ledger row");
    let last = ledger.last().expect("a ledger row");
    assert_eq!((last.currency, last.delta), (Currency::Gems, -price.gems));

    let before = app.snapshot(&player.key).await;
    app.buy_track(&player.key, pass.id)
        .await
        .error(409, "already_owned");
    app.post(&format!(
        "/api/reward/track/{}/buy?userKey={}",
        pass.id.0, player.key
    ))
    .await
    .error(409, "already_owned");
    assert_eq!(app.snapshot(&player.key).await, before);
    let seen = app.track_seen(&player.key, pass.id).await;
    assert_eq!(seen["personal"]["has_discount_available"], false);
    app.assert_model(&player.key, &model).await;
}

/// From the end of the discount the pass costs its full price: the list shows it, one gem short
/// is 402 `insufficient_funds` changing nothing, and the buy charges it all.
async fn after_the_discount_the_full_price_is_charged(app: TestApp) {
    let content = Content::shipped();
    let pass = pass_track(&content, IN_SEASON);
    let discount = pass.discount.expect("the shipped pass has a discount");
    app.clock.set(discount.ends - Duration::seconds(1));
    let player = app.player().await;
    let mut model = Model::new(player.id);
    let seen = app.track_seen(&player.key, pass.id).await;
    assert_eq!(int(&seen, "cost_gems"), discount.cost.gems);
    assert_eq!(seen["personal"]["has_discount_available"], true);

    app.clock.set(discount.ends);
    let now = discount.ends;
    assert_eq!(pass.price_at(now), pass.cost);
    let seen = app.track_seen(&player.key, pass.id).await;
    assert_eq!(
        (int(&seen, "cost_coins"), int(&seen, "cost_gems")),
        (pass.cost.coins, pass.cost.gems)
    );
    assert_eq!(seen["personal"]["has_discount_available"], false);
    fund(&app, &player, &mut model, pass.cost.gems - 1).await;
    let before = app.snapshot(&player.key).await;
    app.buy_track(&player.key, pass.id)
        .await
        .error(402, "insufficient_funds");
    assert_eq!(app.snapshot(&player.key).await, before);
    assert_eq!(
        app.track_seen(&player.key, pass.id).await["personal"],
        seen["personal"]
    );

    fund(&app, &player, &mut model, 1).await;
    let body = app.buy_track(&player.key, pass.id).await.success().clone();
    let rewards = model.buy(pass.id, now);
    assert_bought(&body, &rewards, &model);
    assert_eq!(int(&body["user"], "gems"), 0);
    app.assert_model(&player.key, &model).await;
}

/// Tiers reached before the pass was bought give nothing then (the answer says the track is not
/// owned); buying grants all of them at once; later matches grant the next tiers (and an
/// evolution of an item the pass gave) exactly once.
async fn a_pass_grants_the_tiers_already_reached_then_the_next_ones(app: TestApp) {
    let (content, player, mut model) = start(&app).await;
    let pass = pass_track(&content, IN_SEASON);
    fund(&app, &player, &mut model, pass.price_at(IN_SEASON).gems).await;
    for round in 1..=2 {
        let answered = play_best(&app, &mut model, &format!("before:{round}"), 13_000).await;
        let step = answered["tracks"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|track| track["id"] == pass.id.0)
            .cloned()
            .expect("the pass moved");
        assert_eq!(step["owned"], false);
    }
    let reached = pass.tier_for(model.counter(&format!("track/{}/stars", pass.id.0)));
    assert!(reached >= 1, "a tier is reached before buying");
    app.assert_model(&player.key, &model).await;

    let body = app.buy_track(&player.key, pass.id).await.success().clone();
    let rewards = model.buy(pass.id, IN_SEASON);
    let expected: Vec<Value> = (1..=reached)
        .flat_map(|tier| rewards_json(&content, pass.tier_rewards(tier)))
        .collect();
    assert_eq!(sorted(&json!(rewards)), sorted(&json!(expected)));
    assert_bought(&body, &rewards, &model);
    app.assert_model(&player.key, &model).await;

    for round in 1..=3 {
        let answered = play_best(&app, &mut model, &format!("after:{round}"), 0).await;
        let step = answered["tracks"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|track| track["id"] == pass.id.0)
            .cloned()
            .expect("the pass moved");
        assert_eq!(step["owned"], true);
        assert!(int(&step, "tierAfter") > int(&step, "tierBefore"), "{step}");
        app.assert_model(&player.key, &model).await;
    }
}

/// Skipping `tiers` tiers of an owned pass charges `cost_gems_per_tier` gems for each (one
/// ledger row), moves the stars on by as many tiers and grants those tiers' rewards.
async fn skipping_charges_gems_and_grants_the_tiers(app: TestApp) {
    let (content, player, mut model) = start(&app).await;
    let pass = pass_track(&content, IN_SEASON);
    fund(&app, &player, &mut model, 10_000).await;
    app.buy_track(&player.key, pass.id).await.success();
    model.buy(pass.id, IN_SEASON);
    for (tiers, tier_after) in [(3, 3), (2, 5), (1, 6)] {
        let rows_before = app.ledger_of(&player.key).await.len();
        let body = app
            .skip_track(&player.key, pass.id, tiers)
            .await
            .success()
            .clone();
        let rewards = model.skip(pass.id, tiers);
        let expected: Vec<Value> = (tier_after - tiers + 1..=tier_after)
            .flat_map(|tier| rewards_json(&content, pass.tier_rewards(tier)))
            .collect();
        assert_eq!(sorted(&json!(rewards)), sorted(&json!(expected)));
        assert_bought(&body, &rewards, &model);
        let ledger = app.ledger_of(&player.key).await;
        let charges: Vec<i64> = ledger[rows_before..]
            .iter()
            .filter(|entry| entry.currency == Currency::Gems && entry.delta < 0)
            .map(|entry| entry.delta)
            .collect();
        assert_eq!(charges, [-pass.cost_gems_per_tier * tiers]);
        let personal = &app.track_seen(&player.key, pass.id).await["personal"];
        assert_eq!(int(personal, "tier"), tier_after);
        assert_eq!(int(personal, "stars"), tier_after * pass.stars_per_tier);
    }
    app.assert_model(&player.key, &model).await;
}

/// Skipping to a tier whose reward is experience gives the level that experience reaches, and
/// its rewards, in the same skip: the answer's user has the level and is not stale.
async fn a_skipped_tiers_experience_reaches_its_level_at_once(app: TestApp) {
    let (content, player, mut model) = start(&app).await;
    let stock = stock_track(&content, IN_SEASON);
    let tiers = (1..=stock.max_tier)
        .find(|&tier| {
            stock
                .tier_rewards(tier)
                .iter()
                .any(|reward| matches!(reward, RewardSpec::Experience(_)))
        })
        .expect("a tier of the free track gives experience");
    fund(&app, &player, &mut model, stock.cost_gems_per_tier * tiers).await;
    let body = app
        .skip_track(&player.key, stock.id, tiers)
        .await
        .success()
        .clone();
    let rewards = model.skip(stock.id, tiers);
    assert!(model.level > 1, "the tier's experience reaches a level");
    assert!(model.claims.contains("level/2"));
    assert_bought(&body, &rewards, &model);
    assert_eq!(int(&body["user"], "level"), model.level);
    assert_eq!(body["user"]["progression"]["isStale"], false);
    app.assert_model(&player.key, &model).await;
}

/// A skip past the last tier is 409 `past_max_tier` and charges nothing, on the stock track and
/// on the (repeatable) pass; up to the last tier is accepted; `tiers` must be 1 to `max_tier`;
/// a skip without the gems is 402; matches after the last tier still count.
async fn skips_never_pass_the_last_tier(app: TestApp) {
    let (content, player, mut model) = start(&app).await;
    let stock = stock_track(&content, IN_SEASON);
    let pass = pass_track(&content, IN_SEASON);
    assert!(
        stock.cost_gems_per_tier > 0,
        "the stock track's tiers can be skipped"
    );

    let poor = app.player().await;
    app.grant_to(&poor.key, gems(stock.cost_gems_per_tier - 1))
        .await;
    let before = app.snapshot(&poor.key).await;
    app.skip_track(&poor.key, stock.id, 1)
        .await
        .error(402, "insufficient_funds");
    assert_eq!(app.snapshot(&poor.key).await, before);

    fund(&app, &player, &mut model, 100_000).await;
    let before = app.snapshot(&player.key).await;
    let too_many = (stock.max_tier + 1).to_string();
    for tiers in [
        "0",
        "-1",
        too_many.as_str(),
        "abc",
        "1.5",
        "99999999999999999999",
    ] {
        app.post(&format!(
            "/api/reward/tracks/{}/skip?userKey={}&tiers={tiers}",
            stock.id.0, player.key
        ))
        .await
        .error_naming(400, "invalid_parameter", "tiers");
    }
    for query in ["", "&tiers="] {
        app.post(&format!(
            "/api/reward/tracks/{}/skip?userKey={}{query}",
            stock.id.0, player.key
        ))
        .await
        .error_naming(400, "missing_parameter", "tiers");
    }
    assert_eq!(app.snapshot(&player.key).await, before);

    for track in [stock, pass] {
        if !track.is_stock {
            app.buy_track(&player.key, track.id).await.success();
            model.buy(track.id, IN_SEASON);
        }
        let body = app
            .skip_track(&player.key, track.id, track.max_tier - 2)
            .await
            .success()
            .clone();
        let rewards = model.skip(track.id, track.max_tier - 2);
        assert_bought(&body, &rewards, &model);
        let before = app.snapshot(&player.key).await;
        let answer = app.skip_track(&player.key, track.id, 3).await;
        answer.error(409, "past_max_tier");
        assert_eq!(app.snapshot(&player.key).await, before);
        let body = app
            .skip_track(&player.key, track.id, 2)
            .await
            .success()
            .clone();
        let rewards = model.skip(track.id, 2);
        assert_bought(&body, &rewards, &model);
        let before = app.snapshot(&player.key).await;
        app.skip_track(&player.key, track.id, 1)
            .await
            .error(409, "past_max_tier");
        assert_eq!(app.snapshot(&player.key).await, before);
        let seen = app.track_seen(&player.key, track.id).await;
        assert_eq!(seen["personal"], personal_json(&track, &model, IN_SEASON));
        assert_eq!(int(&seen["personal"], "tier"), track.max_tier);
    }
    // Matches still count after the last tier: a repeatable track goes on.
    play_best(&app, &mut model, "after-the-last", 0).await;
    app.assert_model(&player.key, &model).await;
}

/// Skipping tiers of a pass not bought is 409 `track_not_owned` and charges nothing.
async fn skipping_a_pass_needs_the_pass(app: TestApp) {
    let (content, player, mut model) = start(&app).await;
    let pass = pass_track(&content, IN_SEASON);
    fund(&app, &player, &mut model, 10_000).await;
    let before = app.snapshot(&player.key).await;
    app.skip_track(&player.key, pass.id, 1)
        .await
        .error(409, "track_not_owned");
    app.post(&format!(
        "/api/reward/track/{}/skip?userKey={}&tiers=2",
        pass.id.0, player.key
    ))
    .await
    .error(409, "track_not_owned");
    assert_eq!(app.snapshot(&player.key).await, before);
    app.assert_model(&player.key, &model).await;
}

/// Unknown tracks are 404, malformed ids 400, missing or bad keys 401, the stock track is not
/// for sale, a track outside its season is closed, and a buy without the gems is 402: none of
/// them changes anything.
async fn track_errors_change_nothing(app: TestApp) {
    let (content, player, mut model) = start(&app).await;
    let stock = stock_track(&content, IN_SEASON);
    let pass = pass_track(&content, IN_SEASON);
    let closed = content
        .tracks
        .iter()
        .find(|track| !track.is_running(IN_SEASON) && !track.is_stock)
        .expect("a pass outside its season");
    let poor = app.player().await;
    fund(&app, &player, &mut model, 100_000).await;
    let before = [
        app.snapshot(&player.key).await,
        app.snapshot(&poor.key).await,
    ];
    let key = &player.key;

    for spelling in ["tracks", "track"] {
        for action in ["buy?", "skip?tiers=1&"] {
            let path =
                |track: &str| format!("/api/reward/{spelling}/{track}/{action}userKey={key}");
            app.post(&path("999")).await.error(404, "track_not_found");
            for bad in ["abc", "0", "-1", "1.5", "99999999999999999999"] {
                app.post(&path(bad))
                    .await
                    .error_naming(400, "invalid_parameter", "trackId");
            }
            app.post(&path(&closed.id.0.to_string()))
                .await
                .error(409, "track_closed");
            let anonymous = format!("/api/reward/{spelling}/{}/{action}", pass.id.0);
            app.post(&anonymous).await.error(401, "missing_user_key");
            app.post(&format!("{anonymous}userKey=short"))
                .await
                .error(401, "invalid_user_key");
        }
        app.post(&format!(
            "/api/reward/{spelling}/{}/buy?userKey={key}",
            stock.id.0
        ))
        .await
        .error(409, "not_for_sale");
    }
    app.buy_track(&poor.key, pass.id)
        .await
        .error(402, "insufficient_funds");
    assert_eq!(
        [
            app.snapshot(&player.key).await,
            app.snapshot(&poor.key).await
        ],
        before
    );
    app.assert_model(&player.key, &model).await;

    // After the season the pass and the stock track are closed as well.
    app.clock.set(pass.ends);
    let late = app.player().await;
    app.grant_to(&late.key, gems(100_000)).await;
    let before = app.snapshot(&late.key).await;
    app.buy_track(&late.key, pass.id)
        .await
        .error(409, "track_closed");
    app.skip_track(&late.key, stock.id, 1)
        .await
        .error(409, "track_closed");
    assert_eq!(app.snapshot(&late.key).await, before);
}

/// The obsolete mid-season endpoints answer `{status: "success", is_available: false,
/// cost_gems: 0}` with 200, as the wire contract shapes them, to everyone: with a key, without
/// one and with a key that opens no account (it is not read); and they charge nothing.
async fn mid_season_endpoints_answer_not_available(app: TestApp) {
    let (_, player, mut model) = start(&app).await;
    fund(&app, &player, &mut model, 10_000).await;
    let before = app.snapshot(&player.key).await;
    let unknown = "0".repeat(48);
    let not_available = json!({"status": "success", "is_available": false, "cost_gems": 0});
    for key in [
        Some(player.key.as_str()),
        None,
        Some(unknown.as_str()),
        Some("not-a-key"),
    ] {
        let query = key.map_or_else(String::new, |key| format!("?userKey={key}"));
        let listed = app
            .get(&format!("/api/reward/tracks/mid-season{query}"))
            .await;
        assert_eq!(listed.success(), &not_available, "{key:?}");
        let bought = app
            .post(&format!("/api/reward/tracks/mid-season/buy{query}"))
            .await;
        assert_eq!(bought.success(), &not_available, "{key:?}");
    }
    assert_eq!(app.snapshot(&player.key).await, before);
}

/// `/api/reward/track/{trackId}/buy` and `.../skip` (singular) buy and skip like the plural.
async fn the_singular_spelling_buys_and_skips(app: TestApp) {
    let (content, player, mut model) = start(&app).await;
    let pass = pass_track(&content, IN_SEASON);
    fund(&app, &player, &mut model, 10_000).await;
    let body = app
        .post(&format!(
            "/api/reward/track/{}/buy?userKey={}",
            pass.id.0, player.key
        ))
        .await
        .success()
        .clone();
    let rewards = model.buy(pass.id, IN_SEASON);
    assert_bought(&body, &rewards, &model);
    let body = app
        .post(&format!(
            "/api/reward/track/{}/skip?userKey={}&tiers=2",
            pass.id.0, player.key
        ))
        .await
        .success()
        .clone();
    let rewards = model.skip(pass.id, 2);
    assert_bought(&body, &rewards, &model);
    app.assert_model(&player.key, &model).await;
}

/// With an `Idempotency-Key`, a repeated buy or skip answers the first answer's rewards with
/// `Idempotent-Replayed: true` and charges nothing more; the key reused for another skip is 409.
async fn buy_and_skip_accept_an_idempotency_key(app: TestApp) {
    let (content, player, mut model) = start(&app).await;
    let pass = pass_track(&content, IN_SEASON);
    fund(&app, &player, &mut model, 10_000).await;
    let once = |path: String, idempotency: &'static str| {
        let app = app.clone();
        async move {
            app.send(
                Method::POST,
                &path,
                &[("idempotency-key", idempotency)],
                None,
            )
            .await
        }
    };
    let buy = format!(
        "/api/reward/tracks/{}/buy?userKey={}",
        pass.id.0, player.key
    );
    let skip = |tiers: i64| {
        format!(
            "/api/reward/tracks/{}/skip?userKey={}&tiers={tiers}",
            pass.id.0, player.key
        )
    };

    let first = once(buy.clone(), "pass-1").await;
    let first_body = first.success().clone();
    assert!(first.header_values(REPLAYED).is_empty());
    let rewards = model.buy(pass.id, IN_SEASON);
    assert_bought(&first_body, &rewards, &model);
    let again = once(buy, "pass-1").await;
    assert_eq!(again.header_values(REPLAYED), ["true"]);
    assert_eq!(again.success()["rewards"], first_body["rewards"]);

    let first = once(skip(2), "skip-1").await;
    let first_body = first.success().clone();
    let rewards = model.skip(pass.id, 2);
    assert_bought(&first_body, &rewards, &model);
    for _ in 0..2 {
        let again = once(skip(2), "skip-1").await;
        assert_eq!(again.header_values(REPLAYED), ["true"]);
        assert_eq!(again.success()["rewards"], first_body["rewards"]);
    }
    let before = app.snapshot(&player.key).await;
    once(skip(3), "skip-1")
        .await
        .error(409, "idempotency_key_reused");
    assert_eq!(app.snapshot(&player.key).await, before);
    let body = once(skip(2), "skip-2").await.success().clone();
    let rewards = model.skip(pass.id, 2);
    assert_bought(&body, &rewards, &model);
    app.assert_model(&player.key, &model).await;
}
