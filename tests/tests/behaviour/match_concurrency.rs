//! Simultaneous progression requests: buys and skips of one pass at once, skips racing to the
//! last tier, one match reported many times at once, and different matches of the same players
//! at once, bans and deletions landing while a report is planned. Each applies exactly once:
//! every tier's and level's rewards are granted once, and the ledger stays equal to the balances.

use std::collections::{BTreeMap, BTreeSet};

use futures_util::future::{join, join_all};
use safezone_core::content::Content;
use safezone_core::domain::{GameMode, ItemId};
use safezone_core::store::Currency;
use safezone_tests::community::Player;
use safezone_tests::economy::{gems, int};
use safezone_tests::progression::{
    IN_SEASON, Line, Model, Report, assert_player, pass_track, stock_track,
};
use safezone_tests::{Answer, TestApp, each_combination, expected_tally, tally};
use serde_json::Value;

each_combination!(
    simultaneous_buys_and_skips_of_one_pass,
    simultaneous_skips_stop_at_the_last_tier,
    one_match_reported_ten_times_at_once_applies_once,
    simultaneous_matches_of_the_same_players_all_apply,
    bans_and_deletions_racing_a_report_leave_each_player_in_or_out,
);

/// The answer header that marks a replay.
const REPLAYED: &str = "idempotent-replayed";

/// The experience a player's entry of a match answer lists among its rewards (the match's own
/// and any experience reward).
fn experience_granted(player: &Value) -> i64 {
    player["rewards"]
        .as_array()
        .expect("rewards")
        .iter()
        .filter(|reward| reward["type"] == "experience")
        .map(|reward| int(reward, "quantity"))
        .sum()
}

/// How many successes a tally holds.
fn successes(answers: &[Answer]) -> usize {
    answers.iter().filter(|answer| answer.status == 200).count()
}

/// The number of gem ledger rows of the holder of `key` that moved exactly `delta`.
async fn gem_rows(app: &TestApp, key: &str, delta: i64) -> usize {
    app.ledger_of(key)
        .await
        .iter()
        .filter(|entry| entry.currency == Currency::Gems && entry.delta == delta)
        .count()
}

/// Ten buys and ten one-tier skips of one pass at once, with gems for all: exactly one buy is
/// charged, the skips that came before it are 409 `track_not_owned`, the others each advance
/// one tier; then ten more skips at once all apply. Every tier's rewards are granted exactly
/// once, and the balances equal the ledger.
async fn simultaneous_buys_and_skips_of_one_pass(app: TestApp) {
    app.clock.set(IN_SEASON);
    let content = Content::shipped();
    let pass = pass_track(&content, IN_SEASON);
    assert!(pass.max_tier >= 20, "room for twenty skips");
    let player = app.player().await;
    let mut model = Model::new(player.id);
    app.grant_to(&player.key, gems(100_000)).await;
    model.fund(0, 100_000);

    let buys = join_all((0..10).map(|_| app.buy_track(&player.key, pass.id)));
    let skips = join_all((0..10).map(|_| app.skip_track(&player.key, pass.id, 1)));
    let (buys, skips) = join(buys, skips).await;
    assert_eq!(
        tally(&buys),
        expected_tally(&[(200, "", 1), (409, "already_owned", 9)])
    );
    let skipped = successes(&skips);
    assert_eq!(
        tally(&skips),
        expected_tally(&[(200, "", skipped), (409, "track_not_owned", 10 - skipped)])
    );
    model.buy(pass.id, IN_SEASON);
    for _ in 0..skipped {
        model.skip(pass.id, 1);
    }
    app.assert_model(&player.key, &model).await;

    let skips = join_all((0..10).map(|_| app.skip_track(&player.key, pass.id, 1))).await;
    assert_eq!(tally(&skips), expected_tally(&[(200, "", 10)]));
    let level_before = model.level;
    for _ in 0..10 {
        model.skip(pass.id, 1);
    }
    // Every skip granted a different tier, together each tier from 1 once, and the levels their
    // experience reached once each.
    let rewards: Vec<Value> = skips
        .iter()
        .flat_map(|answer| {
            answer.json["rewards"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    let tiers = i64::try_from(skipped).expect("a small count") + 10;
    let levels = &content.progression.levels;
    let expected: usize = (tiers - 9..=tiers)
        .map(|tier| pass.tier_rewards(tier).len())
        .chain((level_before + 1..=model.level).map(|level| levels.rewards_for(level).len()))
        .sum();
    assert_eq!(rewards.len(), expected);
    assert_eq!(
        int(
            &app.track_seen(&player.key, pass.id).await["personal"],
            "tier"
        ),
        tiers
    );
    app.assert_model(&player.key, &model).await;
    let price = pass.price_at(IN_SEASON).gems;
    assert_eq!(
        gem_rows(&app, &player.key, -price).await,
        1,
        "one buy charged"
    );
    let per_tier = -pass.cost_gems_per_tier;
    assert_eq!(
        gem_rows(&app, &player.key, per_tier).await,
        skipped + 10,
        "one charge per skip"
    );
}

/// Ten skips of three tiers at once on the stock track: as many apply as fit below the last
/// tier, the rest are 409 `past_max_tier` and charge nothing.
async fn simultaneous_skips_stop_at_the_last_tier(app: TestApp) {
    app.clock.set(IN_SEASON);
    let content = Content::shipped();
    let stock = stock_track(&content, IN_SEASON);
    let player = app.player().await;
    let mut model = Model::new(player.id);
    app.grant_to(&player.key, gems(100_000)).await;
    model.fund(0, 100_000);
    let fit = usize::try_from(stock.max_tier / 3).expect("a small count");
    assert!(fit < 10, "not every skip fits");

    let skips = join_all((0..10).map(|_| app.skip_track(&player.key, stock.id, 3))).await;
    assert_eq!(
        tally(&skips),
        expected_tally(&[(200, "", fit), (409, "past_max_tier", 10 - fit)])
    );
    for _ in 0..fit {
        model.skip(stock.id, 3);
    }
    app.assert_model(&player.key, &model).await;
    assert_eq!(
        gem_rows(&app, &player.key, -3 * stock.cost_gems_per_tier).await,
        fit
    );
}

/// One match reported ten times at once: exactly one report applies, the nine others answer
/// the same body with `Idempotent-Replayed: true`; every player moved once.
async fn one_match_reported_ten_times_at_once_applies_once(app: TestApp) {
    app.clock.set(IN_SEASON);
    let [a, b] = [app.player().await, app.player().await];
    let mut models = [Model::new(a.id), Model::new(b.id)];
    let report = app.finished(
        "eu-9:1",
        GameMode::parse("squad").expect("a mode"),
        vec![
            Line::best(a.id).stat("damage", 6000),
            Line::new(b.id, 2, 10, 3000).stat("damage", 2000),
        ],
    );
    let body = report.body();
    let answers = join_all((0..10).map(|_| app.send_report(&body))).await;
    assert_eq!(tally(&answers), expected_tally(&[(200, "", 10)]));
    let replayed = answers
        .iter()
        .filter(|answer| answer.header_values(REPLAYED) == ["true"])
        .count();
    assert_eq!(replayed, 9, "all but one are replays");
    for answer in &answers {
        assert_eq!(answer.json, answers[0].json);
    }
    for ((model, line), answered) in models
        .iter_mut()
        .zip(&report.lines)
        .zip(answers[0].json["players"].as_array().expect("players"))
    {
        assert_player(answered, &model.play(&report, line));
    }
    for (player, model) in [&a, &b].into_iter().zip(&models) {
        app.assert_model(&player.key, model).await;
        assert_eq!(app.match_log_of(player.id).await.len(), 1);
        assert_eq!(
            app.stats_of(player.id, GameMode::parse("squad").expect("a mode"))
                .await["rounds"],
            1
        );
    }
}

/// Ten different matches of the same three players reported at once all apply, each exactly
/// once: experience is the sum of the matches' and the experience rewards granted; statistics,
/// match log, quest and track progress add up; each level's rewards come once; every coin, gem,
/// pack and item held is one that an answer granted.
async fn simultaneous_matches_of_the_same_players_all_apply(app: TestApp) {
    app.clock.set(IN_SEASON);
    let content = Content::shipped();
    let players: Vec<Player> = app.players(3).await;
    let reports: Vec<Report> = (0..10_i64)
        .map(|index| {
            let lines = players
                .iter()
                .enumerate()
                .map(|(seat, player)| {
                    let seat = i64::try_from(seat).expect("a small seat");
                    Line::new(
                        player.id,
                        1 + (index + seat) % 3,
                        index % 4 + seat,
                        600 + 60 * index,
                    )
                    .stat("damage", 400 * (seat + 1))
                })
                .collect();
            app.finished(
                &format!("race:{index}"),
                GameMode::parse("duo").expect("a mode"),
                lines,
            )
        })
        .collect();
    let bodies: Vec<Value> = reports.iter().map(Report::body).collect();
    let answers = join_all(bodies.iter().map(|body| app.send_report(body))).await;
    assert_eq!(tally(&answers), expected_tally(&[(200, "", 10)]));
    assert!(
        answers
            .iter()
            .all(|answer| answer.header_values(REPLAYED).is_empty()),
        "no report is a replay"
    );

    for (seat, player) in players.iter().enumerate() {
        // The order-independent part of the model: quest and track progress.
        let mut model = Model::new(player.id);
        for report in &reports {
            model.play(report, &report.lines[seat]);
        }
        let entries: Vec<&Value> = answers
            .iter()
            .map(|answer| &answer.json["players"][seat])
            .collect();
        assert!(
            entries
                .iter()
                .all(|entry| entry["accountId"] == player.id.0)
        );
        let rewards: Vec<&Value> = entries
            .iter()
            .flat_map(|entry| entry["rewards"].as_array().into_iter().flatten())
            .collect();
        let total = |kind: &str| -> i64 {
            rewards
                .iter()
                .filter(|reward| reward["type"] == kind)
                .map(|reward| int(reward, "quantity"))
                .sum()
        };
        let match_experience: i64 = reports
            .iter()
            .map(|report| report.lines[seat].experience(&content))
            .sum();
        let answered_experience: i64 = entries.iter().map(|entry| int(entry, "experience")).sum();
        assert_eq!(answered_experience, match_experience);

        let user = app.user(&player.key).await;
        // Each answer lists its match's experience among its rewards, with the experience
        // rewards of levels, quests and tiers.
        assert_eq!(
            int(&user, "experience"),
            total("experience"),
            "the matches' experience and the experience rewards, each once"
        );
        assert!(total("experience") >= match_experience);
        assert_eq!(int(&user, "coins"), total("coins"));
        assert_eq!(int(&user, "gems"), total("gems"));
        let mut packs: BTreeMap<i64, i64> = BTreeMap::new();
        for reward in rewards.iter().filter(|reward| reward["type"] == "pack") {
            *packs.entry(int(reward, "packId")).or_insert(0) += int(reward, "quantity");
        }
        let held: BTreeMap<i64, i64> = user["packs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|stock| (int(stock, "pack_id"), int(stock, "quantity")))
            .collect();
        assert_eq!(held, packs);
        let items: BTreeSet<i64> = rewards
            .iter()
            .filter(|reward| reward["type"] == "item")
            .map(|reward| int(reward, "itemId"))
            .collect();
        let owned: BTreeSet<i64> = user["licenses"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|license| int(license, "item_id"))
            .filter(|item| {
                content
                    .catalog
                    .item(ItemId(*item))
                    .is_none_or(|item| !item.is_stock)
            })
            .collect();
        assert_eq!(owned, items);

        // Levels: each report's levels follow on from another's, each level once.
        let level = int(&user, "level");
        let mut reached: Vec<i64> = entries
            .iter()
            .flat_map(|entry| int(entry, "levelBefore") + 1..=int(entry, "levelAfter"))
            .collect();
        reached.sort_unstable();
        assert_eq!(reached, (2..=level).collect::<Vec<_>>(), "each level once");
        let claims: Vec<String> = (2..=level + 1)
            .map(|level| format!("level/{level}"))
            .collect();
        let claimed = app
            .store
            .claimed(player.id, &claims)
            .await
            .expect("the claims read");
        assert_eq!(claimed.len(), claims.len() - 1, "{claimed:?}");

        for quest in app.quests(Some(&player.key)).await {
            let id = int(&quest, "id");
            assert_eq!(
                int(&quest["personal"], "value"),
                model.counter(&format!("quest/{id}")),
                "quest {quest}"
            );
        }
        for track in app.tracks(Some(&player.key)).await {
            let id = int(&track, "id");
            let personal = &track["personal"];
            assert_eq!(
                (int(personal, "experience"), int(personal, "stars")),
                (
                    model.counter(&format!("track/{id}/experience")),
                    model.counter(&format!("track/{id}/stars"))
                ),
                "track {id}"
            );
        }
        let mut stats: BTreeMap<String, i64> = BTreeMap::new();
        for report in &reports {
            for (key, value) in report.lines[seat].stored_stats() {
                *stats.entry(key).or_insert(0) += value;
            }
        }
        assert_eq!(
            app.stats_of(player.id, GameMode::parse("duo").expect("a mode"))
                .await,
            stats
        );
        assert_eq!(app.match_log_of(player.id).await.len(), reports.len());
        app.assert_ledger_balanced(player.id).await;
    }
    let log = app.match_log().await;
    assert_eq!(log.len(), 30);
    assert!(log.windows(2).all(|pair| pair[0].seq < pair[1].seq));
}

/// Rounds of five reports of the same twelve players sent at once while eight of them are
/// banned and four deleted, one after another: the store refuses a plan that a ban or deletion
/// overtook and the report is planned again, reading every player afresh, so every report is
/// recorded. In each, every player either played or is skipped (`account_banned` after a ban,
/// `account_unknown` after a deletion), never both, never neither; a banned player's match log
/// and experience hold exactly the reports it played in.
///
/// The bans and deletions are spread a few milliseconds apart so that some land while reports
/// are planned; whichever way each interleaving goes, the checks hold.
async fn bans_and_deletions_racing_a_report_leave_each_player_in_or_out(app: TestApp) {
    app.clock.set(IN_SEASON);
    for round in 0..4 {
        let players = app.players(12).await;
        let banned = &players[..8];
        let is_banned = |player: &Player| banned.iter().any(|other| other.id == player.id);
        let reports: Vec<Report> = (0..5)
            .map(|n| {
                let lines = (1..)
                    .zip(&players)
                    .map(|(placement, player)| Line::new(player.id, placement, n, 600))
                    .collect();
                app.finished(
                    &format!("eu-race:{round}:{n}"),
                    GameMode::parse("solo").expect("a mode"),
                    lines,
                )
            })
            .collect();
        let bodies: Vec<Value> = reports.iter().map(Report::body).collect();
        let sent = join_all(bodies.iter().map(|body| app.send_report(body)));
        // Spread over the reports' planning, one at a time.
        let overtaking = async {
            for (n, player) in (1..).zip(&players) {
                tokio::time::sleep(std::time::Duration::from_millis(n * 3)).await;
                if is_banned(player) {
                    app.set_banned(player, true).await;
                } else {
                    let existed = app.store.delete_account(player.id, None).await;
                    assert!(existed.expect("account deleted"));
                }
            }
        };
        let (answers, ()) = join(sent, overtaking).await;
        assert_eq!(tally(&answers), expected_tally(&[(200, "", 5)]));
        let mut played_in: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
        for (answer, report) in answers.iter().zip(&reports) {
            let played: BTreeMap<i64, i64> = answer.json["players"]
                .as_array()
                .expect("players")
                .iter()
                .map(|player| (int(player, "accountId"), experience_granted(player)))
                .collect();
            let skipped: BTreeMap<i64, &str> = answer.json["skipped"]
                .as_array()
                .expect("skipped")
                .iter()
                .map(|entry| {
                    let reason = entry["reason"].as_str().expect("a reason");
                    (int(entry, "accountId"), reason)
                })
                .collect();
            assert_eq!(played.len() + skipped.len(), report.lines.len());
            for player in &players {
                let id = player.id.0;
                let expected_skip = if is_banned(player) {
                    "account_banned"
                } else {
                    "account_unknown"
                };
                match (played.get(&id), skipped.get(&id)) {
                    (Some(experience), None) => played_in.entry(id).or_default().push(*experience),
                    (None, Some(reason)) => assert_eq!(*reason, expected_skip),
                    _ => panic!("player {id} both played and was skipped, or neither"),
                }
            }
        }
        for player in banned {
            let played = played_in.remove(&player.id.0).unwrap_or_default();
            assert_eq!(app.match_log_of(player.id).await.len(), played.len());
            assert_eq!(
                int(&app.user(&player.key).await, "experience"),
                played.iter().sum::<i64>()
            );
        }
    }
}
