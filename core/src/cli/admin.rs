//! The operator's admin commands: account roles and bans, polls, tournaments and their
//! whitelists, publishing content, the operator API's tokens, and the content-file check. Each prints one line and exits
//! 0 when done, 1 when refused (an unknown account, poll or tournament, a taken code) or the
//! database fails, and 2 for bad input (clap's own parse errors exit 2 as well).

mod accounts;
mod content;
mod operator_tokens;
mod polls;
mod tournaments;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

pub use accounts::{AccountArgs, MakeAdminArgs};
pub use content::{
    ContentCommand, ContentFileArgs, ContentPublishArgs, ContentRollbackArgs, ContentShowArgs,
};
pub use operator_tokens::{OperatorTokenCommand, OperatorTokenCreateArgs, OperatorTokenNameArgs};
pub use polls::{PollCommand, PollCreateArgs, PollIdArgs};
pub use tournaments::{
    TournamentCodeArgs, TournamentCommand, TournamentCreateArgs, WhitelistArgs, WhitelistCommand,
};

use super::{Cli, Command};
use crate::content::{Content, SHIPPED};
use crate::content_publication::Named;
use crate::domain::{FriendCode, format_plain_datetime};
use crate::store::{Account, Store, StoreError};

/// The admin commands that work on the database.
#[derive(Debug, Clone, Subcommand)]
pub enum AdminCommand {
    /// Makes an account an admin (it may then read and edit tournament whitelists through the
    /// API); with `--revoke`, a player again.
    MakeAdmin(MakeAdminArgs),
    /// Bans an account: refused on the shop, rewards, polls, tournaments and clans, and
    /// `is_banned` in its answers.
    Ban(AccountArgs),
    /// Lifts an account's ban.
    Unban(AccountArgs),
    /// Creates, closes and counts polls.
    #[command(subcommand)]
    Poll(PollCommand),
    /// Creates and closes tournaments.
    #[command(subcommand)]
    Tournament(TournamentCommand),
    /// Shows and edits a tournament's whitelist.
    #[command(subcommand)]
    Whitelist(WhitelistCommand),
    /// Publishes content files to every node without a restart, and rolls them back.
    #[command(subcommand)]
    Content(ContentCommand),
    /// Creates, revokes and lists the operator API's tokens.
    #[command(subcommand)]
    OperatorToken(OperatorTokenCommand),
}

impl AdminCommand {
    /// Reads an admin command from command-line words after the program name, as the server
    /// binaries read them (`["make-admin", "--to", "Sneeza#0001"]`). A bad command line is
    /// clap's error, whose exit code is 2.
    pub fn from_args<I, T>(args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let program = std::iter::once(std::ffi::OsString::from("safezone"));
        let cli = Cli::try_parse_from(program.chain(args.into_iter().map(Into::into)))?;
        match cli.command {
            Some(Command::Admin(command)) => Ok(command),
            _ => Err(clap::Error::raw(
                clap::error::ErrorKind::InvalidSubcommand,
                "not an admin command\n",
            )),
        }
    }

    /// Runs the command on `store`, for nodes started with `file` (their `--content` file, or
    /// the shipped one, named), prints its result (standard output when done, standard error
    /// otherwise) and answers the exit code.
    pub async fn run(self, store: Arc<dyn Store>, file: &Named<'_>) -> ExitCode {
        finish(
            self.execute_for(store.as_ref(), file, OffsetDateTime::now_utc())
                .await,
        )
    }

    /// Runs the command on `store` at `now`, for nodes started without `--content` (on the
    /// shipped content), and answers its result or why it failed, printing nothing.
    pub async fn execute(self, store: &dyn Store, now: OffsetDateTime) -> Outcome {
        let shipped = Named {
            name: SHIPPED_NAME.to_owned(),
            text: SHIPPED,
        };
        self.execute_for(store, &shipped, now).await
    }

    /// Runs the command on `store` at `now`, for nodes started with `file` (their `--content`
    /// file, named), and answers its result or why it failed, printing nothing.
    pub async fn execute_for(
        self,
        store: &dyn Store,
        file: &Named<'_>,
        now: OffsetDateTime,
    ) -> Outcome {
        match self {
            Self::MakeAdmin(args) => args.run(store).await,
            Self::Ban(args) => args.ban(store, true).await,
            Self::Unban(args) => args.ban(store, false).await,
            Self::Poll(command) => command.run(store, now).await,
            Self::Tournament(command) => command.run(store, file, now).await,
            Self::Whitelist(command) => command.run(store, now).await,
            Self::Content(command) => command.run(store, file, now).await,
            Self::OperatorToken(command) => command.run(store, now).await,
        }
    }
}

/// The flags of `check-content`.
#[derive(Debug, Clone, Args)]
pub struct CheckContentArgs {
    /// The content file (TOML) to check.
    pub path: PathBuf,
}

impl CheckContentArgs {
    /// Loads and validates the file without opening the database: prints `ok` and exits 0, or
    /// prints the error (with the line) and exits 2.
    pub fn run(&self) -> ExitCode {
        finish(
            Content::load(&self.path)
                .map(|_| "ok".to_owned())
                .map_err(|error| Failure::BadInput(error.to_string())),
        )
    }
}

/// What [`AdminCommand::execute`] names the shipped content file.
pub const SHIPPED_NAME: &str = "the shipped content";

/// Why an admin command did not do its work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The input is wrong (exit code 2).
    BadInput(String),
    /// The input is wrong (exit code 2), but the command printed what it could all the same
    /// (`content diff` of a file that does not pass the check).
    BadInputAfter {
        /// What it printed (on standard output).
        output: String,
        /// What is wrong (on standard error).
        why: String,
    },
    /// The store refused or failed (exit code 1).
    Refused(String),
}

impl From<StoreError> for Failure {
    fn from(error: StoreError) -> Self {
        Self::Refused(error.to_string())
    }
}

/// What an admin command answers: the line to print when done, or why not.
pub type Outcome = Result<String, Failure>;

/// Prints the outcome and answers its exit code. A reader that stops reading (`| head`) ends
/// the printing quietly, with the outcome's exit code.
fn finish(outcome: Outcome) -> ExitCode {
    let (output, why, code) = match outcome {
        Ok(line) => (Some(line), None, ExitCode::SUCCESS),
        Err(Failure::Refused(why)) => (None, Some(why), ExitCode::FAILURE),
        Err(Failure::BadInput(why)) => (None, Some(why), ExitCode::from(2)),
        Err(Failure::BadInputAfter { output, why }) => (Some(output), Some(why), ExitCode::from(2)),
    };
    if let Some(output) = output
        && let Err(error) = print_line(&mut std::io::stdout().lock(), &output)
    {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            return code;
        }
        eprintln!("cannot write the output: {error}");
        return ExitCode::FAILURE;
    }
    if let Some(why) = why {
        // Standard error closed too: nothing is left to tell.
        let _ = print_line(&mut std::io::stderr().lock(), &why);
    }
    code
}

/// Writes `line` and a line end to `out`, flushed.
fn print_line(out: &mut impl std::io::Write, line: &str) -> std::io::Result<()> {
    writeln!(out, "{line}")?;
    out.flush()
}

/// The account with this friend code; an unknown one is refused.
async fn account(store: &dyn Store, code: &FriendCode) -> Result<Account, Failure> {
    store
        .account_by_friend_code(code)
        .await?
        .ok_or_else(|| Failure::Refused(format!("no account has the friend code {code}")))
}

/// Reads a friend code argument (`Sneeza#0001`).
fn parse_friend_code(text: &str) -> Result<FriendCode, String> {
    FriendCode::parse(text).map_err(|error| error.to_string())
}

/// Reads an RFC 3339 time argument (`2026-11-22T08:00:00Z`).
fn parse_time(text: &str) -> Result<OffsetDateTime, String> {
    OffsetDateTime::parse(text, &Rfc3339).map_err(|error| {
        format!("`{text}` is not an RFC 3339 time such as 2026-11-22T08:00:00Z: {error}")
    })
}

/// `2026-11-22 08:00:00 UTC`, for the printed lines.
fn utc(at: OffsetDateTime) -> String {
    format!("{} UTC", format_plain_datetime(at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc_3339() {
        let at = parse_time("2026-11-22T09:00:00+01:00").unwrap();
        assert_eq!(utc(at), "2026-11-22 08:00:00 UTC");
        assert!(parse_time("2026-11-22 08:00").is_err());
    }
}
