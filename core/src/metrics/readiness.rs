//! Whether a node is ready for traffic, as the operator listener's `/readyz` tells it: the
//! database answers, the content is loaded, the leaderboards are loaded.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use crate::leaderboard::Leaderboards;
use crate::store::Store;

/// The longest `/readyz` waits for the database's answer.
const PING_PATIENCE: Duration = Duration::from_secs(2);

/// What a readiness check reads: the store and the boards.
pub(super) struct Probes {
    store: Arc<dyn Store>,
    leaderboards: Arc<Leaderboards>,
}

/// The checks' results: each `None` when it passed, else why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readiness {
    /// Why the database did not answer a ping.
    pub database: Option<String>,
    /// Why the leaderboards are not answering (still loading).
    pub leaderboards: Option<String>,
}

impl Probes {
    /// Checks over `store` and `leaderboards`.
    pub(super) fn new(store: Arc<dyn Store>, leaderboards: Arc<Leaderboards>) -> Self {
        Self {
            store,
            leaderboards,
        }
    }

    /// Pings the database (2 s at most) and asks the boards whether they are loaded.
    pub(super) async fn check(&self) -> Readiness {
        let database = match tokio::time::timeout(PING_PATIENCE, self.store.ping()).await {
            Ok(Ok(())) => None,
            Ok(Err(error)) => Some(error.to_string()),
            Err(_) => Some(format!("no answer within {} s", PING_PATIENCE.as_secs())),
        };
        let boards = self.leaderboards.status();
        let leaderboards = (!boards.ready).then(|| {
            format!(
                "loading ({} match results read so far)",
                boards.loaded_results
            )
        });
        Readiness {
            database,
            leaderboards,
        }
    }
}

impl Readiness {
    /// Whether every check passed.
    pub fn is_ready(&self) -> bool {
        self.database.is_none() && self.leaderboards.is_none()
    }

    /// The body `/readyz` answers: `{"ready": bool, "failed": [names], "checks": {name:
    /// "ok" or why}}`. The content is always `ok`: a node loads it before it serves, so a node
    /// that answers has it.
    pub fn to_json(&self) -> serde_json::Value {
        let outcome = |check: &Option<String>| check.as_deref().unwrap_or("ok").to_owned();
        let failed: Vec<&str> = [
            ("database", &self.database),
            ("leaderboards", &self.leaderboards),
        ]
        .into_iter()
        .filter_map(|(name, check)| check.as_ref().map(|_| name))
        .collect();
        json!({
            "ready": self.is_ready(),
            "failed": failed,
            "checks": {
                "database": outcome(&self.database),
                "content": "ok",
                "leaderboards": outcome(&self.leaderboards),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::store::UnavailableStore;

    #[tokio::test]
    async fn a_database_that_does_not_answer_and_boards_not_loaded_fail() {
        let store: Arc<dyn Store> = Arc::new(UnavailableStore);
        let clock = Arc::new(ManualClock::new(
            time::macros::datetime!(2026-11-22 08:00 UTC),
        ));
        // Not started: the boards stay unloaded.
        let leaderboards = Leaderboards::new(Arc::clone(&store), clock);
        let readiness = Probes::new(store, leaderboards).check().await;
        assert!(!readiness.is_ready());
        assert!(
            readiness
                .database
                .as_deref()
                .is_some_and(|why| why.contains("no store in this test")),
            "{readiness:?}"
        );
        assert_eq!(
            readiness.to_json()["failed"],
            json!(["database", "leaderboards"])
        );
    }

    #[test]
    fn the_body_names_each_failed_check() {
        let ready = Readiness {
            database: None,
            leaderboards: None,
        };
        assert!(ready.is_ready());
        assert_eq!(
            ready.to_json(),
            json!({"ready": true, "failed": [],
                   "checks": {"database": "ok", "content": "ok", "leaderboards": "ok"}})
        );
        let loading = Readiness {
            database: None,
            leaderboards: Some("loading".to_owned()),
        };
        assert!(!loading.is_ready());
        assert_eq!(loading.to_json()["failed"], json!(["leaderboards"]));
        assert_eq!(loading.to_json()["checks"]["leaderboards"], "loading");
    }
}
