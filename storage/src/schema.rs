//! The schema's migrations as sqlx keeps them (a dialect's [`Migrator`] and its
//! `_sqlx_migrations` table): what is applied and pending, and the errors of opening,
//! migrating and copying a database as the command line reports them.

use safezone_core::database::{DatabaseError, Migration, Migrations};
use sqlx::migrate::{AppliedMigration, MigrateError, Migrator};

use crate::error::is_unavailable;

/// The migrations of `migrator` against those `applied` to a database (none for a database
/// without the migrations table): applied ones in version order (a version the migrator does
/// not know is described as such), then the pending ones in version order.
pub(crate) fn migrations(migrator: &Migrator, applied: &[AppliedMigration]) -> Migrations {
    let known = |version: i64| {
        migrator
            .iter()
            .find(|migration| migration.version == version)
    };
    let applied_versions: Vec<i64> = applied.iter().map(|migration| migration.version).collect();
    Migrations {
        applied: applied_versions
            .iter()
            .map(|&version| Migration {
                version,
                description: known(version).map_or_else(
                    || "(unknown to this binary)".to_owned(),
                    |migration| migration.description.to_string(),
                ),
            })
            .collect(),
        pending: migrator
            .iter()
            .filter(|migration| {
                !migration.migration_type.is_down_migration()
                    && !applied_versions.contains(&migration.version)
            })
            .map(|migration| Migration {
                version: migration.version,
                description: migration.description.to_string(),
            })
            .collect(),
    }
}

/// Every migration of `migrator`, as pending on a database without a schema.
pub(crate) fn all_pending(migrator: &Migrator) -> Vec<Migration> {
    migrations(migrator, &[]).pending
}

/// The migrations pending `before` that are applied `after`: those a run applied.
pub(crate) fn newly_applied(before: Migrations, after: &Migrations) -> Vec<Migration> {
    before
        .pending
        .into_iter()
        .filter(|migration| {
            after
                .applied
                .iter()
                .any(|applied| applied.version == migration.version)
        })
        .collect()
}

/// `err` with what was being done (`context`): [`DatabaseError::Unreachable`] when trying
/// again may work, else [`DatabaseError::Failed`].
pub(crate) fn database_error(context: &str, err: &sqlx::Error) -> DatabaseError {
    let message = format!("{context}: {err}");
    if is_unavailable(err) {
        DatabaseError::Unreachable(message)
    } else {
        DatabaseError::Failed(message)
    }
}

/// A migration's failure, as [`database_error`] tells a statement's.
pub(crate) fn migrate_error(context: &str, err: &MigrateError) -> DatabaseError {
    match err {
        MigrateError::Execute(err) => database_error(context, err),
        other => DatabaseError::Failed(format!("{context}: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    static SQLITE: Migrator = sqlx::migrate!("./migrations/sqlite");

    fn applied(versions: &[i64]) -> Vec<AppliedMigration> {
        versions
            .iter()
            .map(|&version| AppliedMigration {
                version,
                checksum: Cow::Borrowed(&[]),
            })
            .collect()
    }

    #[test]
    fn a_fresh_database_has_every_migration_pending() {
        let status = migrations(&SQLITE, &[]);
        assert!(status.applied.is_empty());
        assert_eq!(status.pending.len(), SQLITE.iter().count());
        assert_eq!(status.pending[0].to_string(), "0001 accounts");
    }

    #[test]
    fn applied_and_unknown_versions_are_told_apart() {
        let status = migrations(&SQLITE, &applied(&[1, 2, 9999]));
        assert_eq!(status.applied[1].description, "economy");
        assert_eq!(status.applied[2].description, "(unknown to this binary)");
        assert_eq!(status.pending[0].version, 3);
        let after = migrations(&SQLITE, &applied(&[1, 2, 3]));
        let applied_now = newly_applied(status, &after);
        assert_eq!(applied_now.len(), 1);
        assert_eq!(applied_now[0].version, 3);
    }
}
