//! `poll create`, `poll close` and `poll results`.

use clap::{Args, Subcommand};
use time::OffsetDateTime;

use super::{Failure, Outcome, parse_time, utc};
use crate::store::{Closing, NewPoll, NewPollOption, PollId, Store, is_color_code};

/// The `poll` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum PollCommand {
    /// Creates a poll; prints its id and its options' ids.
    Create(PollCreateArgs),
    /// Closes a poll: it takes no more votes.
    Close(PollIdArgs),
    /// Prints a poll's votes per option.
    Results(PollIdArgs),
}

/// The flags of `poll create`.
#[derive(Debug, Clone, Args)]
pub struct PollCreateArgs {
    /// The question.
    #[arg(long)]
    pub question: String,
    /// An option as `Name:#rrggbb` (its colour); repeat for each, in display order.
    #[arg(long = "option", value_parser = parse_option, required = true)]
    pub options: Vec<NewPollOption>,
    /// When voting opens (RFC 3339, e.g. `2026-11-22T08:00:00Z`); now when left out.
    #[arg(long, value_parser = parse_time)]
    pub starts: Option<OffsetDateTime>,
    /// When voting ends (RFC 3339).
    #[arg(long, value_parser = parse_time)]
    pub ends: OffsetDateTime,
}

/// The flags of `poll close` and `poll results`.
#[derive(Debug, Clone, Args)]
pub struct PollIdArgs {
    /// The poll's id.
    #[arg(long, value_parser = clap::value_parser!(i64).range(1..))]
    pub id: i64,
}

impl PollCommand {
    /// Runs the subcommand at `now`.
    pub async fn run(self, store: &dyn Store, now: OffsetDateTime) -> Outcome {
        match self {
            Self::Create(args) => args.run(store, now).await,
            Self::Close(args) => close(store, PollId(args.id), now).await,
            Self::Results(args) => results(store, PollId(args.id)).await,
        }
    }
}

impl PollCreateArgs {
    /// Checks and creates the poll.
    pub async fn run(self, store: &dyn Store, now: OffsetDateTime) -> Outcome {
        let poll = NewPoll {
            question: self.question,
            options: self.options,
            opens: self.starts.unwrap_or(now),
            closes: self.ends,
            now,
        };
        poll.check().map_err(Failure::BadInput)?;
        let created = store.create_poll(poll, None).await?;
        let options: Vec<String> = created
            .options
            .iter()
            .map(|option| format!("{} {} ({})", option.id.0, option.name, option.color_code))
            .collect();
        Ok(format!(
            "created poll {} {:?}: options {}; open from {} to {}",
            created.id.0,
            created.question,
            options.join(", "),
            utc(created.window.opens),
            utc(created.window.closes)
        ))
    }
}

async fn close(store: &dyn Store, poll: PollId, now: OffsetDateTime) -> Outcome {
    match store.close_poll(poll, now, None).await? {
        Closing::Closed => Ok(format!("closed poll {}", poll.0)),
        Closing::AlreadyClosed => Ok(format!("poll {} was closed already", poll.0)),
        Closing::Unknown => Err(unknown(poll)),
    }
}

async fn results(store: &dyn Store, poll: PollId) -> Outcome {
    let results = store
        .poll_results(poll)
        .await?
        .ok_or_else(|| unknown(poll))?;
    let counts: Vec<String> = results
        .poll
        .options
        .iter()
        .zip(&results.votes)
        .map(|(option, votes)| format!("{} {} {votes}", option.id.0, option.name))
        .collect();
    let total: i64 = results.votes.iter().sum();
    let state = match results.poll.window.closed_at {
        Some(at) => format!("closed at {}", utc(at)),
        None => format!(
            "open from {} to {}",
            utc(results.poll.window.opens),
            utc(results.poll.window.closes)
        ),
    };
    Ok(format!(
        "poll {} {:?} ({state}): {}; {total} votes",
        poll.0,
        results.poll.question,
        counts.join(", ")
    ))
}

fn unknown(poll: PollId) -> Failure {
    Failure::Refused(format!("there is no poll {}", poll.0))
}

/// `Name:#rrggbb`: the option's name and colour (the last `:` separates them).
fn parse_option(text: &str) -> Result<NewPollOption, String> {
    let (name, color) = text
        .rsplit_once(':')
        .ok_or_else(|| format!("`{text}` is not `Name:#rrggbb`"))?;
    if !is_color_code(color) {
        return Err(format!("`{color}` is not a colour: write `#rrggbb` in hex"));
    }
    Ok(NewPollOption {
        name: name.to_owned(),
        color_code: color.to_ascii_lowercase(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_name_and_colour() {
        let option = parse_option("Sky: blue:#00AAFF").unwrap();
        assert_eq!(option.name, "Sky: blue");
        assert_eq!(option.color_code, "#00aaff");
        assert!(parse_option("Red").is_err());
        assert!(parse_option("Red:red").is_err());
    }
}
