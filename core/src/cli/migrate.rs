//! The schema's subcommands (`migrate apply`, `migrate status`) and `backup`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::DatabaseSettings;
use crate::database::Database;

/// The exit code of `migrate status` while migrations are pending.
pub const PENDING_EXIT_CODE: u8 = 3;

/// The schema's migrations.
#[derive(Debug, Clone, Subcommand)]
pub enum MigrateCommand {
    /// Applies the pending migrations (creating a missing SQLite file) and prints each one
    /// applied.
    Apply,
    /// Prints the applied and the pending migrations: exit 0 when up to date, 3 while
    /// migrations are pending.
    Status,
}

impl MigrateCommand {
    /// Runs the command on `settings`' database: exit 0 when done (up to date for
    /// `status`), [`PENDING_EXIT_CODE`] for `status` with migrations pending, 1 when the
    /// database fails.
    pub async fn run(&self, database: &dyn Database, settings: &DatabaseSettings) -> ExitCode {
        match self {
            Self::Apply => match database.migrate(settings).await {
                Ok(applied) => {
                    for migration in &applied {
                        println!("applied {migration}");
                    }
                    if applied.is_empty() {
                        println!("up to date: no migration pending");
                    }
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("cannot migrate the database: {error}");
                    ExitCode::FAILURE
                }
            },
            Self::Status => match database.migrations(settings).await {
                Ok(migrations) => {
                    for migration in &migrations.applied {
                        println!("applied {migration}");
                    }
                    for migration in &migrations.pending {
                        println!("pending {migration}");
                    }
                    if migrations.pending.is_empty() {
                        println!("up to date");
                        ExitCode::SUCCESS
                    } else {
                        println!(
                            "{} migration(s) pending: run `migrate apply`",
                            migrations.pending.len()
                        );
                        ExitCode::from(PENDING_EXIT_CODE)
                    }
                }
                Err(error) => {
                    eprintln!("cannot read the database's migrations: {error}");
                    ExitCode::FAILURE
                }
            },
        }
    }
}

/// `backup --to PATH`.
#[derive(Debug, Clone, Args)]
pub struct BackupArgs {
    /// The new file to write the copy to (an existing file is refused).
    #[arg(long)]
    pub to: PathBuf,
}

impl BackupArgs {
    /// Writes the copy: exit 0 and `backed up to PATH` when done, 1 when refused (an existing
    /// file, a PostgreSQL database: `pg_dump` is the way) or the database fails.
    pub async fn run(&self, database: &dyn Database, settings: &DatabaseSettings) -> ExitCode {
        if self.to.exists() {
            eprintln!(
                "cannot back up: {} exists already; name a new file",
                self.to.display()
            );
            return ExitCode::FAILURE;
        }
        match database.backup(settings, &self.to).await {
            Ok(()) => {
                println!("backed up to {}", self.to.display());
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("cannot back up: {error}");
                ExitCode::FAILURE
            }
        }
    }
}
