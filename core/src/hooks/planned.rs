//! What a studio's hook is shown of a planned change ([`Planned`]): who, when, why, its steps,
//! and what the change is about, one record per kind of change.

use time::OffsetDateTime;

use crate::domain::GameMode;
use crate::economy::Purchase;
use crate::store::{AccountId, Currency, PlayerResult, Step};

/// A planned change as a hook sees it, whole and not yet applied: `what` says what it is about
/// (a [`Bought`], an [`OperatorGrant`], a [`RewardClaim`], a [`Rename`] or a
/// [`PlayerMatchResult`]).
#[derive(Debug)]
pub struct Planned<'a, W> {
    /// The account whose money and holdings change.
    pub account: AccountId,
    /// When the change happens: the time the store applies it at, and that a hook's dated
    /// limits and events go by.
    pub now: OffsetDateTime,
    /// Why, as the ledger will say (`buy`, `claim`, `rename`, `grant`, `match`).
    pub reason: &'a str,
    /// What, as the ledger will say (`item:7`, `pack:2x3`, `deal:1`, a reward type's name,
    /// `name:Ana`, a match id).
    pub reference: &'a str,
    /// The planned steps, in order, each with the precondition the store checks.
    pub steps: &'a [Step],
    /// What the change is about.
    pub what: &'a W,
}

impl<W> Planned<'_, W> {
    /// What the change takes of `currency`: the sum of its debits.
    pub fn price(&self, currency: Currency) -> i64 {
        self.sum_of(|step| match step {
            Step::Debit {
                currency: taken,
                amount,
            } if *taken == currency => Some(*amount),
            _ => None,
        })
    }

    /// What the change gives of `currency` in its own credits (not counting the rewards of
    /// levels, quests or tiers it reaches, which are given once ever).
    pub fn credits(&self, currency: Currency) -> i64 {
        self.sum_of(|step| match step {
            Step::Credit {
                currency: given,
                amount,
            } if *given == currency => Some(*amount),
            _ => None,
        })
    }

    /// The sum of what `amount` reads from the change's own steps.
    fn sum_of(&self, amount: impl Fn(&Step) -> Option<i64>) -> i64 {
        self.steps
            .iter()
            .filter_map(amount)
            .fold(0, i64::saturating_add)
    }
}

/// A shop purchase (`POST /api/user/{userKey}/buy`): an item, packs or a timed deal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bought {
    /// What is bought.
    pub purchase: Purchase,
    /// How many (packs; 1 for an item or a deal).
    pub quantity: i64,
}

/// An operator's grant (the operator API's `grant`, or the command line's `grant` through
/// [`operator::grant`](crate::operator::grant)): what it gives is the plan's steps, on whose
/// behalf its `reason` and `reference`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperatorGrant;

/// A reward claim (`POST /api/user/{userKey}/rewards/claim`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewardClaim {
    /// The reward type claimed (`gift`, `recurring`, ...).
    pub reward_type: String,
}

/// A friend code's rename (`POST /api/user/{userKey}/friend-code/update`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rename {
    /// The new name.
    pub name: String,
}

/// One player's result in a game server's match report (`POST /internal/matches`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerMatchResult {
    /// The report's match id.
    pub match_id: String,
    /// The match's game mode.
    pub mode: GameMode,
    /// When the match ended.
    pub ended: OffsetDateTime,
    /// The player's placement, kills, time alive and statistics as they are recorded.
    pub result: PlayerResult,
}
