//! The storage contract: the traits a database must implement and the records they exchange.
//!
//! Core decides *what* should happen; a store applies it atomically, in one transaction that also
//! checks its preconditions. Uniqueness in the database (provider identities, friend codes, key
//! hashes) is what makes concurrent duplicates impossible; no store method is a read-then-write.
//!
//! [`Store`] is the sum of one trait per area: [`AccountStore`] (sign-in, keys, sessions,
//! account lookups, roles, bans, deletion), [`EconomyStore`] (changes of money and holdings),
//! [`PollStore`] (polls and votes), [`TournamentStore`] (tournaments, their entrants and
//! whitelists), [`ClanStore`] (clans), [`MatchStore`] (progress, match reports, the match log),
//! [`AccountLogStore`] (the account log), [`ContentStore`] (published content),
//! [`OperatorStore`] (operator tokens and their audit), [`OperatorSessionStore`] (the console's
//! sessions of those tokens), [`EventStore`] (the domain events' outbox and the webhooks'
//! delivery log), [`HealthStore`] (ping, pools), [`PlayerDirectory`] (finding and listing
//! players), [`LedgerHistory`] (a ledger paged and filtered), [`ActivityStore`] (the
//! activity rollup's hourly counters and last sign-ins), [`MatchBrowser`] (the recorded
//! matches browsed, and one result removed), [`FriendStore`] (friend requests, friendships
//! and blocks) and [`PresenceStore`] (who has a realtime channel open, and when last seen).
//! `safezone-storage` implements each of them, and so [`Store`], for SQLite and PostgreSQL.

mod account_changes;
mod account_id;
mod account_log_store;
mod account_store;
mod activity_store;
mod board_snapshot_store;
mod change;
mod clan_store;
mod clans;
mod content_store;
mod economy_store;
mod error;
mod event_store;
mod friend_code_search;
mod friend_store;
mod friends;
mod health_store;
mod holdings;
mod ledger_history;
mod match_browser;
mod match_store;
mod matches;
mod operator_session_store;
mod operator_store;
mod player_directory;
mod poll_store;
mod polls;
mod presence;
mod presence_store;
mod records;
mod rejection;
mod tournament_store;
mod tournaments;
#[cfg(test)]
mod unavailable;
mod webhook_replays;
mod window;

pub use account_changes::AccountChanges;
pub use account_id::AccountId;
pub use account_log_store::AccountLogStore;
pub use account_store::AccountStore;
pub use activity_store::{
    ActivityBatch, ActivityCount, ActivityMetric, ActivityPoint, ActivityStore, Bucket,
};
pub use board_snapshot_store::{BoardSnapshotInfo, BoardSnapshotStore};

pub use change::{
    Applied, BALANCE_MAX, Change, Currency, Granted, Idempotency, PACKS_MAX, Refusal, Step,
};
pub use clan_store::ClanStore;
pub use clans::{Clan, ClanId, ClanLeft, ClanMember, ClanRefusal, NewClan};
pub use content_store::{ContentStore, ContentVersion, Publication, PublishedContent};
pub use economy_store::EconomyStore;
pub use error::StoreError;
pub use event_store::{
    EventConsumer, EventStore, KeptPositions, SequenceRound, Settlement, WebhookAttempt,
    WebhookDelivery, WebhookOutcome,
};
pub use friend_code_search::FriendCodeSearch;
pub use friend_store::FriendStore;
pub use friends::{
    ClanBadge, FRIEND_REQUEST_EXPIRY, FriendChange, FriendChanged, FriendLimits, FriendLists,
    FriendRefusal, Listed, PlayerCard,
};
pub use health_store::{HealthStore, PoolStatus};
pub use holdings::{Holdings, IapPurchase, LedgerEntry, License, PackStock, Subscription};
pub use ledger_history::{LEDGER_PAGE_MAX, LedgerCursor, LedgerFilter, LedgerHistory, LedgerPage};
pub use match_browser::{
    MATCH_PAGE_MAX, MatchBrowser, MatchCursor, MatchPage, MatchResult, MatchResults, MatchSummary,
    ResultRemoval,
};
pub use match_store::MatchStore;
pub use matches::{
    AccountChange, AccountLogEntry, BoardPlayer, MATCH_ID_MAX_CHARS, MatchApplied, MatchId,
    MatchLogEntry, MatchRecord, PlayerResult, Progress, RecordedMatch, RemovedResults,
};
pub use operator_session_store::{NewOperatorSession, OperatorSessionStore};
pub use operator_store::{
    AuditEntry, AuditFilter, NewAuditEntry, NewOperatorToken, OperatorRole, OperatorStore,
    OperatorToken,
};
pub use player_directory::{
    PLAYER_PAGE_MAX, PlayerCursor, PlayerDirectory, PlayerListing, PlayerPage, PlayerSummary,
};
pub use poll_store::PollStore;
pub use polls::{
    NewPoll, NewPollOption, POLL_OPTION_MAX_CHARS, POLL_OPTIONS_MAX, POLL_OPTIONS_MIN,
    POLL_QUESTION_MAX_CHARS, Poll, PollEdit, PollEditRefusal, PollId, PollOption, PollOptionId,
    PollResults, Vote, VoteRefusal, is_color_code,
};
pub use presence::{PRESENCE_NODE_ALIVE, PRESENCE_NODE_FORGOTTEN, Presence};
pub use presence_store::PresenceStore;
pub use records::{
    Account, AccountView, KeyLookup, KeySession, NewSignIn, Role, SessionView, SignedIn,
};
pub use rejection::{REJECTION_CODE_MAX, Rejection, RejectionCode, RejectionStatus};
pub use tournament_store::TournamentStore;
pub use tournaments::{
    Entrant, NewTournament, TOURNAMENT_CAPACITY_MAX, TOURNAMENT_CODE_MAX, Tournament,
    TournamentCode, TournamentEdit, TournamentEditRefusal, TournamentRefusal, TournamentStanding,
    WHITELIST_EDIT_MAX, WhitelistEdit, WhitelistEdited,
};
#[cfg(test)]
pub(crate) use unavailable::UnavailableStore;
pub use webhook_replays::{ReplayOutcome, ReplayRequested, ReplayState, WebhookReplay};
pub use window::{Closing, NotOpen, Window};

/// Everything Safezone keeps: accounts, their sign-in identities, user keys, money and holdings,
/// the community, matches, the logs the leaderboards follow, the published content and the
/// operator tokens with their audit and console sessions. The sum
/// of the stores by area; every type that implements all of them is a `Store`.
///
/// Implementations must be safe to share between tasks and must make every method that changes
/// state atomic.
pub trait Store:
    AccountStore
    + EconomyStore
    + PollStore
    + TournamentStore
    + ClanStore
    + MatchStore
    + AccountLogStore
    + BoardSnapshotStore
    + ContentStore
    + OperatorStore
    + OperatorSessionStore
    + EventStore
    + HealthStore
    + PlayerDirectory
    + LedgerHistory
    + ActivityStore
    + MatchBrowser
    + FriendStore
    + PresenceStore
    + 'static
{
}

impl<T> Store for T where
    T: AccountStore
        + EconomyStore
        + PollStore
        + TournamentStore
        + ClanStore
        + MatchStore
        + AccountLogStore
        + BoardSnapshotStore
        + ContentStore
        + OperatorStore
        + OperatorSessionStore
        + EventStore
        + HealthStore
        + PlayerDirectory
        + LedgerHistory
        + ActivityStore
        + MatchBrowser
        + FriendStore
        + PresenceStore
        + 'static
{
}
