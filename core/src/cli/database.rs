//! The node's start: the store opened patiently while the database cannot be reached yet.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::DatabaseSettings;
use crate::database::{Database, DatabaseError, Schema};
use crate::store::Store;

/// The first wait between two tries to reach the database at start.
const FIRST_RETRY: Duration = Duration::from_millis(250);

/// The longest wait between two tries.
const LONGEST_RETRY: Duration = Duration::from_secs(5);

/// Opens the store for the node's start, trying again while the database is unreachable:
/// after 0.25 s, then twice as long each time up to 5 s, until `patience` has passed (the last
/// wait is cut to it). Each failed try is logged as a warning; the last error is answered.
pub(crate) async fn open_patiently(
    database: &dyn Database,
    settings: &DatabaseSettings,
    schema: Schema,
    patience: Duration,
) -> Result<Arc<dyn Store>, DatabaseError> {
    let deadline = Instant::now() + patience;
    let mut wait = FIRST_RETRY;
    loop {
        let answer = database.open(settings, schema).await;
        let left = deadline.saturating_duration_since(Instant::now());
        match answer {
            Err(DatabaseError::Unreachable(message)) if !left.is_zero() => {
                let pause = wait.min(left);
                tracing::warn!(
                    error = %message,
                    retry_in_ms = pause.as_millis(),
                    "the database cannot be reached; trying again"
                );
                tokio::time::sleep(pause).await;
                wait = (wait * 2).min(LONGEST_RETRY);
            }
            answer => return answer,
        }
    }
}
