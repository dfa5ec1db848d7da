//! Migration `poll_vote_counts` keeps each poll option's count of votes in its row: the votes
//! cast before it (no count, as the schema before it left them) are counted by the migration's
//! own statement, and the count then follows new votes and account deletions; on SQLite and
//! PostgreSQL.

use std::sync::Arc;

use safezone_core::store::{NewPoll, NewPollOption, Store, Vote};
use safezone_storage::test_support;
use time::OffsetDateTime;
use time::macros::datetime;

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00 UTC);

const POSTGRES_MIGRATION: &str = include_str!("../migrations/postgres/0023_poll_vote_counts.sql");
const SQLITE_MIGRATION: &str = include_str!("../migrations/sqlite/0022_poll_vote_counts.sql");

/// The migration's statement counting the votes already cast.
fn counting_statement() -> &'static str {
    assert_eq!(
        POSTGRES_MIGRATION, SQLITE_MIGRATION,
        "one migration for both"
    );
    POSTGRES_MIGRATION
        .lines()
        .find(|line| line.starts_with("UPDATE"))
        .expect("the migration counts the votes")
}

async fn votes_cast_before_the_migration_are_counted(store: Arc<dyn Store>, url: &str) {
    let poll = store
        .create_poll(
            NewPoll {
                question: "Which map?".to_owned(),
                options: ["Desert", "Forest"]
                    .map(|name| NewPollOption {
                        name: name.to_owned(),
                        color_code: "#00ff00".to_owned(),
                    })
                    .to_vec(),
                opens: NOW - time::Duration::hours(1),
                closes: NOW + time::Duration::hours(1),
                now: NOW,
            },
            None,
        )
        .await
        .expect("the poll is created");
    let mut voters = Vec::new();
    for n in 0..5_usize {
        let voter = test_support::new_account(store.as_ref(), &format!("Voter#{n:04}"), NOW).await;
        let vote = Vote {
            account: voter.id,
            poll: poll.id,
            option: poll.options[n % 2].id,
            now: NOW,
        };
        store
            .vote(vote)
            .await
            .expect("no store error")
            .expect("the vote counts");
        voters.push(voter.id);
    }
    let votes = || async {
        store
            .poll_results(poll.id)
            .await
            .expect("the poll reads")
            .map(|results| results.votes)
    };
    assert_eq!(votes().await, Some(vec![3, 2]));
    // The rows as the schema before the migration left them, then the migration's count.
    test_support::execute_sql(url, "UPDATE poll_options SET votes = 0").await;
    assert_eq!(votes().await, Some(vec![0, 0]));
    test_support::execute_sql(url, counting_statement()).await;
    assert_eq!(votes().await, Some(vec![3, 2]));
    // A deleted account's vote leaves the count with it.
    assert!(
        store
            .delete_account(voters[0], None)
            .await
            .expect("the deletion runs")
    );
    assert_eq!(votes().await, Some(vec![2, 2]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = test_support::fresh_sqlite_url(dir.path());
    let store = safezone_storage::open(&url).await.expect("the store opens");
    votes_cast_before_the_migration_are_counted(store, &url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres() {
    let url = test_support::fresh_postgres_url().await;
    let store = safezone_storage::open(&url).await.expect("the store opens");
    votes_cast_before_the_migration_are_counted(store, &url).await;
    test_support::drop_postgres_database(&url).await;
}
