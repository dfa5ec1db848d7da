//! `tournament create`, `tournament close`, and `whitelist show|add|remove`.

use clap::{Args, Subcommand};
use time::OffsetDateTime;

use super::{Failure, Outcome, parse_friend_code, parse_time, utc};
use crate::content::Content;
use crate::content_publication::Named;
use crate::domain::{FriendCode, GameMode};
use crate::live_content::newest_or;
use crate::store::{
    Closing, NewTournament, Store, TOURNAMENT_CAPACITY_MAX, TournamentCode, WHITELIST_EDIT_MAX,
    WhitelistEdit,
};

/// The `tournament` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum TournamentCommand {
    /// Creates a tournament.
    Create(TournamentCreateArgs),
    /// Closes a tournament: nobody joins any more.
    Close(TournamentCodeArgs),
}

/// The flags of `tournament create`.
#[derive(Debug, Clone, Args)]
pub struct TournamentCreateArgs {
    /// The code players join with (letters, digits, `-`, `_`; compared regardless of case).
    #[arg(long, value_parser = parse_code)]
    pub code: TournamentCode,
    /// The mode: one the content served names (`solo`, `duo`, `squad` or `limited` in the
    /// shipped content).
    #[arg(long, value_parser = parse_mode)]
    pub mode: GameMode,
    /// When joining opens (RFC 3339, e.g. `2026-11-22T08:00:00Z`); now when left out.
    #[arg(long, value_parser = parse_time)]
    pub opens: Option<OffsetDateTime>,
    /// When joining closes (RFC 3339).
    #[arg(long, value_parser = parse_time)]
    pub closes: OffsetDateTime,
    /// The most entrants.
    #[arg(long, value_parser = clap::value_parser!(i64).range(1..=TOURNAMENT_CAPACITY_MAX))]
    pub capacity: i64,
    /// Only accounts on the tournament's whitelist may join.
    #[arg(long)]
    pub whitelist_only: bool,
}

/// The flags of `tournament close` and `whitelist show`.
#[derive(Debug, Clone, Args)]
pub struct TournamentCodeArgs {
    /// The tournament's code.
    #[arg(long, value_parser = parse_code)]
    pub code: TournamentCode,
}

/// The `whitelist` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum WhitelistCommand {
    /// Prints the friend codes on a tournament's whitelist.
    Show(TournamentCodeArgs),
    /// Puts accounts on a tournament's whitelist.
    Add(WhitelistArgs),
    /// Takes accounts off a tournament's whitelist.
    Remove(WhitelistArgs),
}

/// The flags of `whitelist add` and `whitelist remove`.
#[derive(Debug, Clone, Args)]
pub struct WhitelistArgs {
    /// The tournament's code.
    #[arg(long, value_parser = parse_code)]
    pub code: TournamentCode,
    /// An account's friend code, e.g. `Sneeza#0001`; repeat for several.
    #[arg(long, value_parser = parse_friend_code, required = true)]
    pub to: Vec<FriendCode>,
}

impl TournamentCommand {
    /// Runs the subcommand at `now`, for nodes started with `file`.
    pub async fn run(self, store: &dyn Store, file: &Named<'_>, now: OffsetDateTime) -> Outcome {
        match self {
            Self::Create(args) => args.run(store, file, now).await,
            Self::Close(TournamentCodeArgs { code }) => {
                match store.close_tournament(&code, now, None).await? {
                    Closing::Closed => Ok(format!("closed tournament {code}")),
                    Closing::AlreadyClosed => Ok(format!("tournament {code} was closed already")),
                    Closing::Unknown => Err(unknown(&code)),
                }
            }
        }
    }
}

impl TournamentCreateArgs {
    /// Checks and creates the tournament; a taken code, or a mode the content the nodes serve
    /// (the newest published, else `file`) does not name, is refused.
    pub async fn run(self, store: &dyn Store, file: &Named<'_>, now: OffsetDateTime) -> Outcome {
        let fallback = Content::parse(file.text, &file.name)
            .map_err(|error| Failure::BadInput(error.to_string()))?;
        let served = newest_or(store, fallback, None).await;
        if !served.modes.has(self.mode) {
            return Err(Failure::BadInput(format!(
                "the mode `{}` {}",
                self.mode,
                served.modes.unknown_mode()
            )));
        }
        let tournament = NewTournament {
            code: self.code,
            mode: self.mode,
            opens: self.opens.unwrap_or(now),
            closes: self.closes,
            capacity: self.capacity,
            whitelist_only: self.whitelist_only,
            now,
        };
        tournament.check().map_err(Failure::BadInput)?;
        if !store.create_tournament(tournament.clone(), None).await? {
            return Err(Failure::Refused(format!(
                "the tournament code {} is taken",
                tournament.code
            )));
        }
        Ok(format!(
            "created tournament {} ({}, {} places{}), open from {} to {}",
            tournament.code,
            tournament.mode.as_str(),
            tournament.capacity,
            if tournament.whitelist_only {
                ", whitelist only"
            } else {
                ""
            },
            utc(tournament.opens),
            utc(tournament.closes)
        ))
    }
}

impl WhitelistCommand {
    /// Runs the subcommand at `now`. Friend codes that no account has are refused (exit 1)
    /// after the others were applied.
    pub async fn run(self, store: &dyn Store, now: OffsetDateTime) -> Outcome {
        let (args, adding) = match self {
            Self::Show(TournamentCodeArgs { code }) => {
                let whitelist = store
                    .whitelist(&code)
                    .await?
                    .ok_or_else(|| unknown(&code))?;
                return Ok(describe(&code, &whitelist));
            }
            Self::Add(args) => (args, true),
            Self::Remove(args) => (args, false),
        };
        if args.to.len() > WHITELIST_EDIT_MAX {
            return Err(Failure::BadInput(format!(
                "at most {WHITELIST_EDIT_MAX} friend codes at once"
            )));
        }
        let (add, remove) = if adding {
            (args.to, Vec::new())
        } else {
            (Vec::new(), args.to)
        };
        let edit = WhitelistEdit {
            code: args.code.clone(),
            replace: false,
            add,
            remove,
            now,
        };
        let edited = store
            .edit_whitelist(edit, None)
            .await?
            .ok_or_else(|| unknown(&args.code))?;
        let line = describe(&args.code, &edited.whitelist);
        if edited.unknown.is_empty() {
            Ok(line)
        } else {
            Err(Failure::Refused(format!(
                "no account has the friend code(s) {}; {line}",
                list(&edited.unknown)
            )))
        }
    }
}

/// `tournament x whitelist (2): A#0001, B#0002`.
fn describe(code: &TournamentCode, whitelist: &[FriendCode]) -> String {
    format!(
        "tournament {code} whitelist ({}): {}",
        whitelist.len(),
        if whitelist.is_empty() {
            "empty".to_owned()
        } else {
            list(whitelist)
        }
    )
}

fn list(codes: &[FriendCode]) -> String {
    let codes: Vec<String> = codes.iter().map(ToString::to_string).collect();
    codes.join(", ")
}

fn unknown(code: &TournamentCode) -> Failure {
    Failure::Refused(format!("there is no tournament {code}"))
}

fn parse_code(text: &str) -> Result<TournamentCode, String> {
    crate::api::tournament_code(text).map_err(|reason| format!("the tournament code {reason}"))
}

fn parse_mode(text: &str) -> Result<GameMode, String> {
    GameMode::parse(text).ok_or_else(|| format!("`{text}` is not a mode: it {}", GameMode::RULE))
}
