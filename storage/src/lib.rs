//! SQLite and PostgreSQL implementations of Safezone's storage traits.

use std::sync::Arc;

use safezone_core::store::Store;

/// Opens the store named by a database URL (`sqlite://path` or `postgres://...`), creating
/// the SQLite file on first start and running the migrations.
pub async fn open(database_url: &str) -> Result<Arc<dyn Store>, OpenError> {
    Err(OpenError(format!("not implemented yet: {database_url}")))
}

/// Why a store could not be opened.
#[derive(Debug)]
pub struct OpenError(pub String);

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OpenError {}
