//! `POST /api/user/{userKey}/friend-code/update`: renaming for gems, keeping the digits where
//! that code is free, refusing bad names without charging.

use safezone_core::domain::FriendCode;
use safezone_core::store::Currency;
use safezone_tests::economy::{gems, int};
use safezone_tests::leaderboard::RENAME_PRICE;
use safezone_tests::{TestApp, each_combination, shipped_content};

each_combination!(
    a_rename_keeps_the_digits_and_charges_gems,
    a_taken_code_gets_other_digits,
    invalid_names_are_400_and_charge_nothing,
    renaming_without_gems_is_402,
    the_same_name_is_409_and_a_case_change_is_a_rename,
);

/// The rename price of the shipped content file.
const PRICE: i64 = RENAME_PRICE;

#[test]
fn the_rename_price_is_the_shipped_files() {
    assert_eq!(PRICE, shipped_content().friend_code.rename_cost_gems);
}

/// `POST /api/user/{key}/friend-code/update?name={name}` (`name` already query-encoded).
async fn rename(app: &TestApp, key: &str, name: &str) -> safezone_tests::Answer {
    app.act(key, "friend-code/update", &format!("name={name}"))
        .await
}

/// `(name, digits)` of a friend code as the wire shows it.
fn split(code: &str) -> (String, String) {
    let (name, digits) = code.rsplit_once('#').expect("Name#dddd");
    (name.to_owned(), digits.to_owned())
}

/// The friend code of the holder of `key`.
async fn code_of(app: &TestApp, key: &str) -> String {
    app.user(key).await["friend_code"]
        .as_str()
        .expect("a friend code")
        .to_owned()
}

async fn a_rename_keeps_the_digits_and_charges_gems(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, gems(300)).await;
    let (_, digits) = split(&code_of(&app, &key).await);
    let answer = rename(&app, &key, "Frosty").await;
    let body = answer.success();
    let mut fields: Vec<&String> = body.as_object().expect("object").keys().collect();
    fields.sort();
    assert_eq!(fields, ["status", "user"]);
    let code = format!("Frosty#{digits}");
    assert_eq!(body["user"]["friend_code"], code.as_str());
    assert_eq!(int(&body["user"], "gems"), 300 - PRICE);
    assert_eq!(code_of(&app, &key).await, code);
    let found = app
        .store
        .account_by_friend_code(&FriendCode::parse(&code).expect("a code"))
        .await
        .expect("the store answers")
        .expect("the account is found by its new code");
    assert_eq!(found.id, app.account_id(&key).await);

    let last = app.ledger_of(&key).await.pop().expect("a ledger row");
    assert_eq!(
        (last.currency, last.delta, last.balance_after),
        (Currency::Gems, -PRICE, 300 - PRICE)
    );
    assert_eq!(last.reason, "rename");
    app.assert_key_ledger_balanced(&key).await;
}

async fn a_taken_code_gets_other_digits(app: TestApp) {
    // The holder of Taken#dddd, and an account whose code has the same digits.
    let holder = app.new_key().await;
    app.grant_to(&holder, gems(PRICE)).await;
    let (_, digits) = split(&code_of(&app, &holder).await);
    rename(&app, &holder, "Taken").await.success();
    assert_eq!(code_of(&app, &holder).await, format!("Taken#{digits}"));

    for (name, wanted) in [("Same", "Taken"), ("Upper", "TAKEN")] {
        let key = app.player_with_code(&format!("{name}#{digits}")).await.key;
        app.grant_to(&key, gems(PRICE)).await;
        let body = rename(&app, &key, wanted).await.success().clone();
        let code = body["user"]["friend_code"].as_str().unwrap_or_default();
        let (new_name, new_digits) = split(code);
        assert_eq!(new_name, wanted);
        assert_ne!(new_digits, digits, "{code} repeats the holder's code");
        assert_eq!(new_digits.len(), 4);
        assert!(new_digits.bytes().all(|b| b.is_ascii_digit()), "{code}");
        assert_eq!(int(&body["user"], "gems"), 0);
    }
    assert_eq!(code_of(&app, &holder).await, format!("Taken#{digits}"));
}

async fn invalid_names_are_400_and_charge_nothing(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, gems(1000)).await;
    let before = app.snapshot(&key).await;
    let seventeen = "a".repeat(17);
    for name in [
        "ab",
        "a",
        seventeen.as_str(),
        "has%20space",
        "has+space",
        "%C3%A9t%C3%A9",
        "%C3%A9",
        "a%23b",
        "a%231234",
        "under_score",
        "dash-name",
        "dot.name",
    ] {
        rename(&app, &key, name)
            .await
            .error_naming(400, "invalid_parameter", "name");
    }
    app.post(&format!("/api/user/{key}/friend-code/update"))
        .await
        .error_naming(400, "missing_parameter", "name");
    rename(&app, &key, "")
        .await
        .error_naming(400, "missing_parameter", "name");
    assert_eq!(app.snapshot(&key).await, before);

    // The length limits themselves are accepted.
    let sixteen = "B".repeat(16);
    for (renames, name) in (1..).zip(["abc", sixteen.as_str(), "Digits123"]) {
        let gems_left = 1000 - renames * PRICE;
        let body = rename(&app, &key, name).await.success().clone();
        let (new_name, _) = split(body["user"]["friend_code"].as_str().unwrap_or_default());
        assert_eq!(new_name, name);
        assert_eq!(int(&body["user"], "gems"), gems_left);
    }
    app.assert_key_ledger_balanced(&key).await;
}

async fn renaming_without_gems_is_402(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, gems(PRICE - 1)).await;
    let before = app.snapshot(&key).await;
    let answer = rename(&app, &key, "Frosty").await;
    let message = answer.error(402, "insufficient_funds")["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.contains(&PRICE.to_string())
            && message.contains(&(PRICE - 1).to_string())
            && message.contains("gems"),
        "{message}"
    );
    assert_eq!(app.snapshot(&key).await, before);
}

async fn the_same_name_is_409_and_a_case_change_is_a_rename(app: TestApp) {
    let key = app.new_key().await;
    app.grant_to(&key, gems(1000)).await;
    let (name, digits) = split(&code_of(&app, &key).await);
    let before = app.snapshot(&key).await;
    rename(&app, &key, &name).await.error(409, "same_name");
    assert_eq!(app.snapshot(&key).await, before);

    rename(&app, &key, "Frosty").await.success();
    let before = app.snapshot(&key).await;
    rename(&app, &key, "Frosty").await.error(409, "same_name");
    assert_eq!(app.snapshot(&key).await, before);

    let body = rename(&app, &key, "FROSTY").await.success().clone();
    assert_eq!(
        body["user"]["friend_code"],
        format!("FROSTY#{digits}").as_str(),
        "a change of letter case keeps the digits"
    );
    assert_eq!(int(&body["user"], "gems"), 1000 - 2 * PRICE);
    app.assert_key_ledger_balanced(&key).await;
}
