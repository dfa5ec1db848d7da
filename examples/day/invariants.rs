//! The checks at the end of the day, read from the database once every sink caught up.
//!
//! "Every committed change has exactly one event", precisely (accounts still there unless
//! said otherwise):
//! - each account has one `account_created` and one first `signed_in`; an account gone has its
//!   `deleted` event;
//! - each later sign-in answered 2xx has its `signed_in` event, and an account has no more of
//!   them than sign-ins were sent for it (one left unanswered may have committed);
//! - each applied economy change (the generator sends every buy, opening, claim and rename with
//!   an `Idempotency-Key`, so the applied ones are the `idempotency_keys` rows, whose
//!   fingerprint is `reason:reference`) has one `purchase`, `pack_opened`, `reward_claimed` or
//!   `renamed` event of that account, reason and reference, and no such event is without one;
//! - each row of the account log (rename, ban or lift, deletion) has one event of its kind and
//!   account, and the other way round;
//! - each recorded match has one `match_reported` event with its id, and the other way round;
//! - each operator audit row has one `operator_action` event with its token, action, target and
//!   result, and the other way round;
//! - each reward-track tier granted (a `track/T/tier/N` claim) has one `tier_reached` event, and
//!   an account's newest `level_reached` is its level;
//! - each ledger row belongs to a change told by an event: an applied economy change of its
//!   fingerprint, its match, or an operator's change of its account audited `done`.
//!
//! The seeded history (`DAY_HISTORY_PLAYERS`: accounts of provider `seed`, matches `seed-<n>`)
//! was written by SQL before the day, not by requests, so it has no events: the checks of one
//! event per account and per match leave it out. Its accounts have no balance, ledger, claim
//! or level, so every other check covers them as they are.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use sqlx::PgPool;

use crate::consumers::Received;

/// One check: what it asks and how many rows break it.
#[derive(Serialize)]
pub struct Check {
    /// The check's name.
    pub name: &'static str,
    /// Rows (or events) that break it; 0 when it holds.
    pub violations: i64,
    /// What it covered (rows read), for the report.
    pub covered: i64,
}

/// Each SQL check: name, the query counting what breaks it, the query counting what it covers.
const SQL_CHECKS: [(&str, &str, &str); 14] = [
    (
        "balance equals the sum of its ledger (coins and gems)",
        "SELECT count(*) FROM accounts a LEFT JOIN (SELECT account_id, \
         COALESCE(sum(delta) FILTER (WHERE currency = 'coins'), 0) AS coins, \
         COALESCE(sum(delta) FILTER (WHERE currency = 'gems'), 0) AS gems \
         FROM ledger GROUP BY account_id) l ON l.account_id = a.id \
         WHERE a.coins <> COALESCE(l.coins, 0) OR a.gems <> COALESCE(l.gems, 0)",
        "SELECT count(*) FROM accounts",
    ),
    (
        "each ledger row's balance_after is the running sum",
        "SELECT count(*) FROM (SELECT balance_after, sum(delta) OVER \
         (PARTITION BY account_id, currency ORDER BY id) AS running FROM ledger) r \
         WHERE balance_after <> running",
        "SELECT count(*) FROM ledger",
    ),
    (
        "no negative balance",
        "SELECT count(*) FROM accounts WHERE coins < 0 OR gems < 0",
        "SELECT count(*) FROM accounts",
    ),
    (
        "each account has one account_created event",
        "SELECT count(*) FROM accounts a LEFT JOIN (SELECT account_id, count(*) AS n FROM events \
         WHERE kind = 'account_created' GROUP BY account_id) e ON e.account_id = a.id \
         WHERE COALESCE(e.n, 0) <> 1 AND a.provider <> 'seed'",
        "SELECT count(*) FROM accounts WHERE provider <> 'seed'",
    ),
    (
        "each account gone has its deleted event",
        "SELECT count(*) FROM events c WHERE c.kind = 'account_created' \
         AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = c.account_id) \
         AND NOT EXISTS (SELECT 1 FROM events d WHERE d.kind = 'deleted' \
         AND d.account_id = c.account_id)",
        "SELECT count(*) FROM events WHERE kind = 'deleted'",
    ),
    (
        "each account has one first sign-in (signed_in with first_login)",
        "SELECT count(*) FROM accounts a LEFT JOIN (SELECT account_id, count(*) AS n FROM events \
         WHERE kind = 'signed_in' AND payload::jsonb->>'first_login' = 'true' \
         GROUP BY account_id) e ON e.account_id = a.id \
         WHERE COALESCE(e.n, 0) <> 1 AND a.provider <> 'seed'",
        "SELECT count(*) FROM accounts WHERE provider <> 'seed'",
    ),
    (
        "each applied economy change has one event, and each such event its change",
        "WITH applied AS (SELECT account_id, split_part(fingerprint, ':', 1) AS reason, \
         CASE WHEN split_part(fingerprint, ':', 1) = 'rename' THEN '' \
         ELSE substr(fingerprint, strpos(fingerprint, ':') + 1) END AS reference, \
         count(*) AS n FROM idempotency_keys GROUP BY 1, 2, 3), \
         told AS (SELECT account_id, CASE kind WHEN 'purchase' THEN p->>'reason' \
         WHEN 'pack_opened' THEN 'pack' WHEN 'reward_claimed' THEN 'claim' ELSE 'rename' END \
         AS reason, CASE kind WHEN 'renamed' THEN '' ELSE p->>'reference' END AS reference, \
         count(*) AS n FROM (SELECT account_id, kind, payload::jsonb AS p FROM events \
         WHERE kind IN ('purchase', 'pack_opened', 'reward_claimed', 'renamed') \
         AND account_id IN (SELECT id FROM accounts)) e GROUP BY 1, 2, 3) \
         SELECT count(*) FROM applied FULL JOIN told USING (account_id, reason, reference) \
         WHERE applied.n IS DISTINCT FROM told.n",
        "SELECT count(*) FROM idempotency_keys",
    ),
    (
        "each account log row has one event of its kind, and each such event its row",
        "SELECT count(*) FROM (SELECT account_id, kind, count(*) AS n FROM account_log \
         GROUP BY 1, 2) l FULL JOIN (SELECT account_id, kind, count(*) AS n FROM events \
         WHERE kind IN ('renamed', 'banned', 'deleted') GROUP BY 1, 2) e \
         USING (account_id, kind) WHERE l.n IS DISTINCT FROM e.n",
        "SELECT count(*) FROM account_log",
    ),
    (
        "each match has one match_reported event, and each such event its match",
        "SELECT count(*) FROM (SELECT id FROM matches WHERE id NOT LIKE 'seed-%') m \
         FULL JOIN (SELECT payload::jsonb->>'match_id' AS id, \
         count(*) AS n FROM events WHERE kind = 'match_reported' GROUP BY 1) e \
         ON e.id = m.id WHERE e.n IS DISTINCT FROM 1 OR m.id IS NULL",
        "SELECT count(*) FROM matches WHERE id NOT LIKE 'seed-%'",
    ),
    (
        "each operator audit row has one operator_action event, and each such event its row",
        "SELECT count(*) FROM (SELECT token_id, action, target, result, count(*) AS n \
         FROM operator_audit GROUP BY 1, 2, 3, 4) a FULL JOIN (SELECT (p->>'token')::BIGINT \
         AS token_id, p->>'action' AS action, p->>'target' AS target, p->>'result' AS result, \
         count(*) AS n FROM (SELECT payload::jsonb AS p FROM events \
         WHERE kind = 'operator_action') e GROUP BY 1, 2, 3, 4) t \
         USING (token_id, action, target, result) WHERE a.n IS DISTINCT FROM t.n",
        "SELECT count(*) FROM operator_audit",
    ),
    (
        "each reward-track tier granted has one tier_reached event",
        "SELECT count(*) FROM accounts a \
         LEFT JOIN (SELECT account_id, count(*) AS n FROM claims \
         WHERE claim_key LIKE 'track/%/tier/%' GROUP BY account_id) c ON c.account_id = a.id \
         LEFT JOIN (SELECT account_id, count(*) AS n FROM events WHERE kind = 'tier_reached' \
         GROUP BY account_id) e ON e.account_id = a.id \
         WHERE COALESCE(c.n, 0) <> COALESCE(e.n, 0)",
        "SELECT count(*) FROM claims WHERE claim_key LIKE 'track/%/tier/%'",
    ),
    (
        "each account's newest level_reached event is its level",
        "SELECT count(*) FROM accounts a LEFT JOIN (SELECT DISTINCT ON (account_id) \
         account_id, (payload::jsonb->>'level')::BIGINT AS level FROM events \
         WHERE kind = 'level_reached' ORDER BY account_id, id DESC) e ON e.account_id = a.id \
         WHERE COALESCE(e.level, 1) <> a.level",
        "SELECT count(*) FROM events WHERE kind = 'level_reached'",
    ),
    (
        "each ledger row belongs to a change told by an event",
        "SELECT count(*) FROM ledger l WHERE NOT ( \
         EXISTS (SELECT 1 FROM idempotency_keys k WHERE k.account_id = l.account_id \
         AND k.fingerprint = l.reason || ':' || l.reference) \
         OR (l.reason = 'match' AND EXISTS (SELECT 1 FROM matches m WHERE m.id = l.reference)) \
         OR (l.reference LIKE 'operator:%' AND EXISTS (SELECT 1 FROM operator_audit o \
         WHERE o.target = 'account:' || l.account_id \
         AND o.action = split_part(l.reference, ':', 3) AND o.result = 'done')))",
        "SELECT count(*) FROM ledger",
    ),
    (
        "the relay sequenced every event and every sink delivered it",
        "SELECT (SELECT count(*) FROM events WHERE position IS NULL) + \
         (SELECT count(*) FROM event_consumers \
         WHERE position < (SELECT COALESCE(max(position), 0) FROM events))",
        "SELECT count(*) FROM event_consumers",
    ),
];

/// Waits (up to `patience`) until the relay sequenced every event and every sink delivered it.
pub async fn drained(pool: &PgPool, patience: std::time::Duration) -> Result<bool, sqlx::Error> {
    let started = std::time::Instant::now();
    loop {
        let behind: i64 = sqlx::query_scalar(SQL_CHECKS[13].1).fetch_one(pool).await?;
        if behind == 0 {
            return Ok(true);
        }
        if started.elapsed() > patience {
            return Ok(false);
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
}

/// Runs every SQL check.
pub async fn sql_checks(pool: &PgPool) -> Result<Vec<Check>, sqlx::Error> {
    let mut checks = Vec::new();
    for (name, violations, covered) in SQL_CHECKS {
        checks.push(Check {
            name,
            violations: sqlx::query_scalar(violations).fetch_one(pool).await?,
            covered: sqlx::query_scalar(covered).fetch_one(pool).await?,
        });
    }
    Ok(checks)
}

/// Every economy change answered 2xx is applied (its key is in the database), unless its
/// account was deleted since.
pub async fn acknowledged_applied(
    pool: &PgPool,
    acknowledged: &[(i64, String)],
) -> Result<Check, sqlx::Error> {
    let keys: HashSet<(i64, String)> =
        sqlx::query_as::<_, (i64, String)>("SELECT account_id, idem_key FROM idempotency_keys")
            .fetch_all(pool)
            .await?
            .into_iter()
            .collect();
    let accounts: HashSet<i64> = sqlx::query_scalar::<_, i64>("SELECT id FROM accounts")
        .fetch_all(pool)
        .await?
        .into_iter()
        .collect();
    let lost = acknowledged
        .iter()
        .filter(|ack| accounts.contains(&ack.0) && !keys.contains(ack))
        .count();
    Ok(Check {
        name: "each economy change answered 2xx is in the database",
        violations: lost as i64,
        covered: acknowledged.len() as i64,
    })
}

/// Each account's later sign-ins: answered 2xx <= `signed_in` events (not first) <= sent.
pub async fn sign_ins(
    pool: &PgPool,
    sent: &HashMap<i64, (u32, u32)>,
) -> Result<Check, sqlx::Error> {
    let told: HashMap<i64, i64> = sqlx::query_as::<_, (i64, i64)>(
        "SELECT e.account_id, count(*) FROM events e JOIN accounts a ON a.id = e.account_id \
         WHERE e.kind = 'signed_in' AND e.payload::jsonb->>'first_login' = 'false' \
         GROUP BY e.account_id",
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .collect();
    let accounts: HashSet<i64> = sqlx::query_scalar::<_, i64>("SELECT id FROM accounts")
        .fetch_all(pool)
        .await?
        .into_iter()
        .collect();
    let broken = accounts
        .iter()
        .filter(|account| {
            let (sent, acknowledged) = sent.get(account).copied().unwrap_or_default();
            let told = told.get(account).copied().unwrap_or_default();
            told < i64::from(acknowledged) || told > i64::from(sent)
        })
        .count();
    Ok(Check {
        name: "each later sign-in answered 2xx has one signed_in event, none beyond those sent",
        violations: broken as i64,
        covered: told.values().sum(),
    })
}

/// What a consumer missed and repeated of the events in the database.
#[derive(Serialize)]
pub struct Delivery {
    /// The consumer.
    pub consumer: &'static str,
    /// Events in the database.
    pub events: i64,
    /// Events it never received (must be 0).
    pub missing: i64,
    /// Ids it received that the database does not hold (must be 0).
    pub unknown: i64,
    /// Deliveries beyond the first of an event (at least once allows them).
    pub duplicates: i64,
    /// An example of a missing id.
    pub first_missing: Option<i64>,
}

/// Compares what `received` got with every event id in the database.
pub async fn delivery(
    pool: &PgPool,
    consumer: &'static str,
    received: &Received,
) -> Result<Delivery, sqlx::Error> {
    let ids: Vec<i64> = sqlx::query_scalar("SELECT id FROM events ORDER BY id")
        .fetch_all(pool)
        .await?;
    let stored: HashSet<i64> = ids.iter().copied().collect();
    let count = |id: i64| {
        usize::try_from(id)
            .ok()
            .and_then(|index| received.counts.get(index))
            .copied()
            .unwrap_or(0)
    };
    let missing: Vec<i64> = ids.iter().copied().filter(|&id| count(id) == 0).collect();
    let unknown = received
        .counts
        .iter()
        .enumerate()
        .filter(|&(id, &n)| n > 0 && !stored.contains(&(id as i64)))
        .count();
    let duplicates: u64 = received
        .counts
        .iter()
        .map(|&n| u64::from(n.saturating_sub(1)))
        .sum();
    Ok(Delivery {
        consumer,
        events: ids.len() as i64,
        missing: missing.len() as i64,
        unknown: unknown as i64,
        duplicates: duplicates as i64,
        first_missing: missing.first().copied(),
    })
}
