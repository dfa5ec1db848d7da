//! A studio's hooks over real HTTP: a daily purchase limit (at most 3 shop purchases per UTC
//! day, the 4th refused with the studio's `daily_limit`, 429) that writes nothing when it
//! refuses, holds under 20 simultaneous purchases, and keeps idempotency (a refused request is
//! planned again when retried, a done one replays); a weekend event (a purchase's bonus coins,
//! match results' coins doubled, reward claims' coins tripled) applied with its ledger rows;
//! refusals of other kinds of change (a rename, a reward claim, an operator's grant through the
//! core call and the operator API, a player's match result, which refuses the whole report)
//! with the studio's status and code, writing nothing.

use futures_util::future::join_all;
use safezone_core::content::Content;
use safezone_core::hooks::Hooks;
use safezone_core::operator::GrantError;
use safezone_core::store::{
    AccountId, Currency, LedgerEntry, Refusal, Rejection, RejectionCode, RejectionStatus,
};
use safezone_tests::economy::{coins, gems, int, pack_count};
use safezone_tests::progression::Line;
use safezone_tests::{TestApp, each_combination, expected_tally, mode, tally};
use serde_json::json;
use time::macros::datetime;
use time::{OffsetDateTime, Weekday};

use super::operator_api::{Operator, token};

each_combination!(
    hooks = studio_hooks;
    the_fourth_purchase_of_a_day_is_refused_and_writes_nothing,
    twenty_simultaneous_purchases_against_a_limit_of_three,
    a_weekend_purchase_gives_its_bonus_with_its_ledger_row,
    weekend_match_results_give_double_coins,
    a_hook_refuses_renames_and_grants_with_its_own_status,
    reward_claims_are_adjusted_and_refused_by_their_hook,
    an_operator_api_grant_is_refused_with_the_studios_code,
    a_refused_player_result_refuses_the_whole_report,
);

const DAILY_LIMIT: RejectionCode = RejectionCode::new("daily_limit");
const NAME_RESERVED: RejectionCode = RejectionCode::new("name_reserved");
const GRANT_TOO_LARGE: RejectionCode = RejectionCode::new("grant_too_large");
const NOT_FOLLOWING: RejectionCode = RejectionCode::new("not_following");
const SUSPICIOUS_RESULT: RejectionCode = RejectionCode::new("suspicious_result");

/// The test studio's hooks: 3 shop purchases a day, 100 bonus coins per weekend purchase,
/// double coins for weekend match results (more than 50 kills refused), triple coins for weekend reward claims, the `social`
/// reward refused, the name `Admin` reserved, and grants of more than 10 000 gems refused.
fn studio_hooks() -> Hooks {
    Hooks::new()
        .on_purchase(|planned, adjust| {
            let full = Rejection::new(
                RejectionStatus::TooManyRequests,
                DAILY_LIMIT,
                "at most 3 shop purchases per UTC day",
            );
            adjust.limit(format!("daily-buy/{}", planned.now.date()), 3, full);
            if is_weekend(planned.now) {
                adjust.credit(Currency::Coins, 100);
            }
            Ok(())
        })
        .on_match_result(|planned, adjust| {
            if planned.what.result.kills > 50 {
                return Err(Rejection::new(
                    RejectionStatus::Forbidden,
                    SUSPICIOUS_RESULT,
                    "more than 50 kills is reviewed first",
                ));
            }
            if is_weekend(planned.now) {
                adjust.scale_credits(Currency::Coins, 200);
            }
            Ok(())
        })
        .on_reward_claim(|planned, adjust| {
            if planned.what.reward_type == "social" {
                return Err(Rejection::new(
                    RejectionStatus::Forbidden,
                    NOT_FOLLOWING,
                    "follow the game first",
                ));
            }
            if is_weekend(planned.now) {
                adjust.scale_credits(Currency::Coins, 300);
            }
            Ok(())
        })
        .on_rename(|planned, _| {
            if planned.what.name.eq_ignore_ascii_case("admin") {
                return Err(Rejection::new(
                    RejectionStatus::Forbidden,
                    NAME_RESERVED,
                    "this name is reserved",
                ));
            }
            Ok(())
        })
        .on_grant(|planned, _| {
            if planned.credits(Currency::Gems) > 10_000 {
                return Err(Rejection::new(
                    RejectionStatus::Conflict,
                    GRANT_TOO_LARGE,
                    "grants give at most 10000 gems",
                ));
            }
            Ok(())
        })
}

fn is_weekend(now: OffsetDateTime) -> bool {
    matches!(now.weekday(), Weekday::Saturday | Weekday::Sunday)
}

/// The ledger rows of the holder of `key` with `reason`, as (currency, delta).
async fn ledger_rows(app: &TestApp, key: &str, reason: &str) -> Vec<(Currency, i64)> {
    app.ledger_of(key)
        .await
        .into_iter()
        .filter(|entry: &LedgerEntry| entry.reason == reason)
        .map(|entry| (entry.currency, entry.delta))
        .collect()
}

/// How many `purchase` events the outbox holds for `account`.
async fn purchase_events(app: &TestApp, account: AccountId) -> usize {
    app.store
        .events(0, 10_000)
        .await
        .expect("the events read")
        .iter()
        .filter(|(event, _)| event.account == Some(account) && event.payload.kind() == "purchase")
        .count()
}

const BUY_RARE_CHEST: &str = "packId=2&quantity=1";

async fn the_fourth_purchase_of_a_day_is_refused_and_writes_nothing(app: TestApp) {
    let key = app.new_key().await;
    let account = app.account_id(&key).await;
    app.grant_to(&key, gems(2000)).await;
    for number in 1..=3 {
        app.buy_once(&key, BUY_RARE_CHEST, &format!("buy-{number}"))
            .await
            .success();
    }
    let refused = app.buy_once(&key, BUY_RARE_CHEST, "buy-4").await;
    let body = refused.error(429, "daily_limit");
    assert_eq!(body["message"], "at most 3 shop purchases per UTC day");
    // Nothing of the refused purchase: no ledger row, no event, no pack, no gems taken.
    let buys = ledger_rows(&app, &key, "buy").await;
    assert_eq!(buys, vec![(Currency::Gems, -250); 3]);
    assert_eq!(purchase_events(&app, account).await, 3);
    let user = app.user(&key).await;
    assert_eq!(pack_count(&user, 2), 3);
    assert_eq!(int(&user, "gems"), 2000 - 3 * 250);
    // A done request replays (the limit is not asked again); a refused one is planned again,
    // and refused again the same day.
    let replayed = app.buy_once(&key, BUY_RARE_CHEST, "buy-1").await;
    replayed.success();
    assert_eq!(replayed.header_values("idempotent-replayed"), ["true"]);
    app.buy_once(&key, BUY_RARE_CHEST, "buy-4")
        .await
        .error(429, "daily_limit");
    // The next day, the refused request's key is free: planned again, and done.
    app.clock.advance(time::Duration::days(1));
    let next_day = app.buy_once(&key, BUY_RARE_CHEST, "buy-4").await;
    next_day.success();
    assert!(next_day.header_values("idempotent-replayed").is_empty());
    assert_eq!(ledger_rows(&app, &key, "buy").await.len(), 4);
    assert_eq!(purchase_events(&app, account).await, 4);
    app.assert_key_ledger_balanced(&key).await;
}

async fn twenty_simultaneous_purchases_against_a_limit_of_three(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, gems(20 * 250)).await;
    let answers = join_all((0..20).map(|_| app.buy(&key, BUY_RARE_CHEST))).await;
    assert_eq!(
        tally(&answers),
        expected_tally(&[(200, "", 3), (429, "daily_limit", 17)])
    );
    let user = app.user(&key).await;
    assert_eq!(pack_count(&user, 2), 3);
    assert_eq!(int(&user, "gems"), 17 * 250);
    assert_eq!(ledger_rows(&app, &key, "buy").await.len(), 3);
    assert_eq!(purchase_events(&app, app.account_id(&key).await).await, 3);
    app.assert_key_ledger_balanced(&key).await;
}

async fn a_weekend_purchase_gives_its_bonus_with_its_ledger_row(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, gems(1000)).await;
    // Monday: no bonus.
    let monday = app.buy(&key, BUY_RARE_CHEST).await;
    assert_eq!(int(&monday.success()["user"], "coins"), 0);
    app.clock.set(datetime!(2026-11-28 09:00 UTC));
    let saturday = app.buy(&key, BUY_RARE_CHEST).await;
    assert_eq!(int(&saturday.success()["user"], "coins"), 100);
    assert_eq!(
        ledger_rows(&app, &key, "buy").await,
        vec![
            (Currency::Gems, -250),
            (Currency::Gems, -250),
            (Currency::Coins, 100),
        ]
    );
    app.assert_key_ledger_balanced(&key).await;
}

async fn weekend_match_results_give_double_coins(app: TestApp) {
    let key = app.new_key().await;
    let account = app.account_id(&key).await;
    let content = Content::shipped();
    let line = Line::new(account, 3, 4, 600);
    let base = line.coins(&content);
    assert!(base > 0);
    let monday = app.finished("hooks-monday", mode("solo"), vec![line.clone()]);
    let answer = app.report(&monday).await;
    assert_eq!(answer["players"][0]["coins"], base);
    app.clock.set(datetime!(2026-11-29 20:00 UTC));
    let sunday = app.finished("hooks-sunday", mode("solo"), vec![line]);
    let answer = app.report(&sunday).await;
    assert_eq!(answer["players"][0]["coins"], 2 * base, "{answer}");
    // Each match's own coins are its first coin row (level rewards, given once, come after).
    let ledger = app.ledger_of(&key).await;
    let first_coins = |reference: &str| {
        ledger
            .iter()
            .find(|entry| entry.reference == reference && entry.currency == Currency::Coins)
            .map(|entry| (entry.reason.clone(), entry.delta))
    };
    assert_eq!(
        first_coins("hooks-monday"),
        Some(("match".to_owned(), base))
    );
    assert_eq!(
        first_coins("hooks-sunday"),
        Some(("match".to_owned(), 2 * base))
    );
    // The report's repeat answers what it did, doubled.
    let repeat = app.send_report(&sunday.body()).await;
    assert_eq!(repeat.success()["players"][0]["coins"], 2 * base);
    app.assert_key_ledger_balanced(&key).await;
}

async fn a_hook_refuses_renames_and_grants_with_its_own_status(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, gems(10_000)).await;
    let before = app.user(&key).await;
    let refused = app
        .post(&format!("/api/user/{key}/friend-code/update?name=Admin"))
        .await;
    assert_eq!(
        refused.error(403, "name_reserved")["message"],
        "this name is reserved"
    );
    let after = app.user(&key).await;
    assert_eq!(after["friend_code"], before["friend_code"]);
    assert_eq!(after["gems"], before["gems"]);
    assert!(ledger_rows(&app, &key, "rename").await.is_empty());
    app.post(&format!("/api/user/{key}/friend-code/update?name=Adaline"))
        .await
        .success();
    let code = app.user(&key).await["friend_code"]
        .as_str()
        .expect("a friend code")
        .to_owned();
    let refused = app
        .grant_to_code(&code, &gems(10_001))
        .await
        .expect_err("too many gems");
    let GrantError::Refused(Refusal::Rejected(rejection)) = refused else {
        panic!("refused by the hook: {refused}");
    };
    assert_eq!(rejection.code, GRANT_TOO_LARGE);
    assert_eq!(rejection.status, RejectionStatus::Conflict);
    app.grant_to_code(&code, &coins(500))
        .await
        .expect("a small grant");
    assert_eq!(
        ledger_rows(&app, &key, "grant").await,
        [(Currency::Gems, 10_000), (Currency::Coins, 500)]
    );
}

async fn reward_claims_are_adjusted_and_refused_by_their_hook(app: TestApp) {
    let key = app.new_key().await;
    let account = app.account_id(&key).await;
    // Monday's gift gives its 150 coins; Saturday's three times as many.
    app.claim(&key, "gift").await.success();
    app.clock.set(datetime!(2026-11-28 09:00 UTC));
    let saturday = app.claim(&key, "gift").await;
    assert_eq!(int(&saturday.success()["user"], "coins"), 150 + 450);
    assert_eq!(
        ledger_rows(&app, &key, "claim").await,
        [(Currency::Coins, 150), (Currency::Coins, 450)]
    );
    // A refused claim writes nothing: no ledger row, no event.
    let refused = app.claim(&key, "social").await;
    assert_eq!(
        refused.error(403, "not_following")["message"],
        "follow the game first"
    );
    assert_eq!(ledger_rows(&app, &key, "claim").await.len(), 2);
    let claims = app
        .store
        .events(0, 10_000)
        .await
        .expect("the events read")
        .iter()
        .filter(|(event, _)| {
            event.account == Some(account) && event.payload.kind() == "reward_claimed"
        })
        .count();
    assert_eq!(claims, 2);
    app.assert_key_ledger_balanced(&key).await;
}

async fn an_operator_api_grant_is_refused_with_the_studios_code(app: TestApp) {
    let operator = Operator::serve(&app).await;
    let secret = token(&app, "alice", "full").await;
    let player = app.player().await;
    let path = format!("/operator/api/players/{}/grant", player.id.0);
    let large = json!({"gems": 20_000, "reason": "ticket 7"});
    let refused = operator.post(&app, &path, &secret, large).await;
    assert_eq!(
        refused.error(409, "grant_too_large")["message"],
        "grants give at most 10000 gems"
    );
    assert!(
        app.store
            .ledger(player.id)
            .await
            .expect("the ledger reads")
            .is_empty(),
        "nothing granted"
    );
    let small = json!({"gems": 20, "reason": "ticket 8"});
    let answer = operator.post(&app, &path, &secret, small).await;
    assert_eq!(answer.success()["account"]["gems"], 20);
}

async fn a_refused_player_result_refuses_the_whole_report(app: TestApp) {
    let honest = app.player().await;
    let cheater = app.player().await;
    let lines = |kills| {
        vec![
            Line::new(honest.id, 2, 3, 600),
            Line::new(cheater.id, 1, kills, 600),
        ]
    };
    let report = app.finished("hooks-reviewed", mode("solo"), lines(99));
    let refused = app.send_report(&report.body()).await;
    assert_eq!(
        refused.error(403, "suspicious_result")["message"],
        "more than 50 kills is reviewed first"
    );
    // Nothing of the report: the match is not recorded, no player was paid.
    let id = safezone_core::store::MatchId::parse("hooks-reviewed").expect("a match id");
    assert!(
        app.store
            .recorded_match(&id)
            .await
            .expect("the store answers")
            .is_none()
    );
    for player in [&honest, &cheater] {
        assert!(
            app.store
                .ledger(player.id)
                .await
                .expect("the ledger reads")
                .is_empty()
        );
    }
    // The same match reported again, corrected, is recorded.
    let corrected = app.finished("hooks-reviewed", mode("solo"), lines(20));
    let answer = app.report(&corrected).await;
    assert_eq!(answer["players"].as_array().map(Vec::len), Some(2));
}
