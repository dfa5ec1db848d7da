//! A studio's own rules over Safezone's changes of money and holdings, written as hooks when
//! it builds the service: at most 3 shop purchases per player and UTC day (a 4th is refused
//! with the studio's code `daily_limit`, 429), and a weekend event: each purchase on a Saturday
//! or Sunday gives 100 bonus coins, and match results give double coins.
//!
//! ```text
//! cargo run -p safezone-examples --example hooks
//! ```

use std::sync::Arc;

use http_body_util::{BodyExt, Empty};
use safezone_core::clock::ManualClock;
use safezone_core::content::Content;
use safezone_core::domain::FriendCode;
use safezone_core::hooks::{Adjustment, Bought, Hooks, Planned};
use safezone_core::http::BoxError;
use safezone_core::operator::{self, Grant};
use safezone_core::store::{Currency, Rejection, RejectionCode, RejectionStatus, Store};
use safezone_core::{Safezone, SafezoneService};
use serde_json::Value;
use time::{OffsetDateTime, Weekday};
use tower::ServiceExt;

/// The studio's error code for a purchase past the day's limit.
const DAILY_LIMIT: RejectionCode = RejectionCode::new("daily_limit");

/// The most shop purchases a player makes per UTC day.
const PURCHASES_PER_DAY: u32 = 3;

/// The coins each purchase on a weekend gives besides what it buys.
const WEEKEND_PURCHASE_BONUS: u32 = 100;

/// The studio's hooks: the daily limit and the weekend event.
fn studio_hooks() -> Hooks {
    Hooks::new()
        .on_purchase(|planned: &Planned<'_, Bought>, adjust: &mut Adjustment| {
            let day = planned.now.date();
            let full = Rejection::new(
                RejectionStatus::TooManyRequests,
                DAILY_LIMIT,
                format!("at most {PURCHASES_PER_DAY} shop purchases per UTC day; more tomorrow"),
            );
            adjust.limit(format!("daily-buy/{day}"), PURCHASES_PER_DAY, full);
            if is_weekend(planned.now) {
                adjust.credit(Currency::Coins, WEEKEND_PURCHASE_BONUS);
            }
            Ok(())
        })
        .on_match_result(|planned, adjust| {
            if is_weekend(planned.now) {
                adjust.scale_credits(Currency::Coins, 200);
            }
            Ok(())
        })
}

/// Whether `now` is on a Saturday or a Sunday (UTC).
fn is_weekend(now: OffsetDateTime) -> bool {
    matches!(now.weekday(), Weekday::Saturday | Weekday::Sunday)
}

/// The service over `store` with the studio's hooks and `clock`.
fn studio_service(store: Arc<dyn Store>, clock: ManualClock) -> SafezoneService {
    Safezone::new(store)
        .clock(Arc::new(clock))
        .hooks(studio_hooks())
        .service()
}

/// `POST path` in-process; answers the status and the JSON body.
async fn post(service: &SafezoneService, path: &str) -> Result<(u16, Value), BoxError> {
    let request = http::Request::post(path).body(Empty::<bytes::Bytes>::new())?;
    let response = service.clone().oneshot(request).await?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await?.to_bytes();
    Ok((status, serde_json::from_slice(&body)?))
}

/// A new player holding `gems` gems (an operator's grant): its user key.
async fn funded_player(
    service: &SafezoneService,
    store: &dyn Store,
    gems: i64,
    now: OffsetDateTime,
) -> Result<String, BoxError> {
    let (_, signed_in) = post(service, "/api/validate/device/android-hooks-example").await?;
    let user = &signed_in["user"];
    let code = FriendCode::parse(user["friend_code"].as_str().ok_or("no friend code")?)?;
    let grant = Grant {
        gems,
        ..Grant::default()
    };
    let content = Content::shipped();
    operator::grant(store, &content, &code, &grant, now, &Hooks::new()).await?;
    Ok(user["key"].as_str().ok_or("no key")?.to_owned())
}

/// Buys one rare chest (250 gems) four times on a Saturday: three bought, each with its
/// weekend bonus; the fourth refused.
async fn four_purchases_on_a_saturday(
    store: Arc<dyn Store>,
) -> Result<Vec<(u16, Value)>, BoxError> {
    let saturday = time::macros::datetime!(2026-11-28 10:00 UTC);
    let service = studio_service(Arc::clone(&store), ManualClock::new(saturday));
    let key = funded_player(&service, store.as_ref(), 1000, saturday).await?;
    let mut answers = Vec::new();
    for _ in 0..4 {
        answers.push(
            post(
                &service,
                &format!("/api/user/{key}/buy?packId=2&quantity=1"),
            )
            .await?,
        );
    }
    Ok(answers)
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let directory = tempfile::tempdir()?;
    let url = format!("sqlite://{}", directory.path().join("studio.db").display());
    let store = safezone_storage::open(&url).await?;
    for (status, body) in four_purchases_on_a_saturday(store).await? {
        match status {
            200 => println!(
                "bought: now {} coins, {} gems",
                body["user"]["coins"], body["user"]["gems"]
            ),
            _ => println!("refused ({status}): {} {}", body["code"], body["message"]),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_fourth_purchase_of_the_day_is_refused_and_the_weekend_gives_a_bonus() {
        let directory = tempfile::tempdir().expect("a directory");
        let url = format!("sqlite://{}", directory.path().join("studio.db").display());
        let store = safezone_storage::open(&url).await.expect("the store opens");
        let answers = four_purchases_on_a_saturday(Arc::clone(&store))
            .await
            .expect("the purchases are answered");
        let statuses: Vec<u16> = answers.iter().map(|(status, _)| *status).collect();
        assert_eq!(statuses, [200, 200, 200, 429], "{answers:?}");
        let (_, refused) = &answers[3];
        assert_eq!(refused["status"], "error");
        assert_eq!(refused["code"], "daily_limit");
        assert!(
            refused["message"]
                .as_str()
                .is_some_and(|message| message.contains("at most 3")),
            "{refused}"
        );
        let (_, third) = &answers[2];
        assert_eq!(third["user"]["gems"], 1000 - 3 * 250);
        assert_eq!(
            third["user"]["coins"],
            3 * 100,
            "a bonus per weekend purchase"
        );
        let id =
            safezone_core::store::AccountId(third["user"]["id"].as_i64().expect("the account id"));
        let ledger = store.ledger(id).await.expect("the ledger reads");
        let rows: Vec<(&str, &str, i64)> = ledger
            .iter()
            .map(|entry| (entry.reason.as_str(), entry.currency.as_str(), entry.delta))
            .collect();
        let purchase = [("buy", "gems", -250), ("buy", "coins", 100)];
        let mut expected = vec![("grant", "gems", 1000)];
        for _ in 0..3 {
            expected.extend(purchase);
        }
        assert_eq!(rows, expected, "the refused purchase wrote no row");
    }

    #[test]
    fn the_weekend_is_saturday_and_sunday() {
        assert!(is_weekend(time::macros::datetime!(2026-11-28 00:00 UTC)));
        assert!(is_weekend(time::macros::datetime!(2026-11-29 23:59 UTC)));
        assert!(!is_weekend(time::macros::datetime!(2026-11-30 00:00 UTC)));
    }
}
