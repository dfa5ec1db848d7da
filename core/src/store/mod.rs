//! The storage contract: the traits a database must implement and the records they exchange.
//!
//! Core decides *what* should happen; a store applies it atomically, in one transaction that also
//! checks its preconditions. Uniqueness in the database (provider identities, friend codes, key
//! hashes) is what makes concurrent duplicates impossible; no store method is a read-then-write.
//!
//! `safezone-storage` implements [`Store`] for SQLite and PostgreSQL.

mod change;
mod community;
mod error;
mod holdings;
mod matches;
mod records;

pub use change::{
    Applied, BALANCE_MAX, Change, Currency, Granted, Idempotency, PACKS_MAX, Refusal, Step,
};
pub use community::{
    Clan, ClanId, ClanLeft, ClanMember, ClanRefusal, Closing, NewClan, NewPoll, NewPollOption,
    NewTournament, NotOpen, POLL_OPTION_MAX_CHARS, POLL_OPTIONS_MAX, POLL_OPTIONS_MIN,
    POLL_QUESTION_MAX_CHARS, Poll, PollId, PollOption, PollOptionId, PollResults,
    TOURNAMENT_CAPACITY_MAX, TOURNAMENT_CODE_MAX, Tournament, TournamentCode, TournamentRefusal,
    TournamentStanding, Vote, VoteRefusal, WHITELIST_EDIT_MAX, WhitelistEdit, WhitelistEdited,
    Window, is_color_code,
};
pub use error::StoreError;
pub use holdings::{Holdings, IapPurchase, LedgerEntry, License, PackStock, Subscription};
pub use matches::{
    AccountChange, AccountLogEntry, BoardPlayer, MATCH_ID_MAX_CHARS, MatchApplied, MatchId,
    MatchLogEntry, MatchRecord, PlayerResult, Progress, RecordedMatch,
};
pub use records::{
    Account, AccountId, AccountView, KeySession, NewSignIn, Role, SessionView, SignedIn,
};

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::domain::{FriendCode, GameMode, KeyHash};

/// Everything Safezone keeps: accounts, their sign-in identities, user keys, money and holdings.
///
/// Implementations must be safe to share between tasks and must make every method that changes
/// state atomic.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Answers `Ok` when the database answers a trivial query.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Signs in the account of `(provider, identifier)`, creating it on first use.
    ///
    /// In one transaction: finds or creates the account (a new account takes the first free
    /// friend code of `sign_in.friend_code_candidates`), then records the new key's hash with its
    /// expiry. Concurrent first sign-ins of one identity create exactly one account. A
    /// deletion of the account racing the sign-in either ends first, and the sign-in creates a
    /// fresh account, or waits for it and takes the new key with the account.
    /// Fails with [`StoreError::FriendCodesExhausted`] when every candidate is taken.
    async fn sign_in(&self, sign_in: NewSignIn) -> Result<SignedIn, StoreError>;

    /// The account and expiry of an unexpired, unrevoked key (one query), or `None`.
    async fn session(
        &self,
        key: &KeyHash,
        now: OffsetDateTime,
    ) -> Result<Option<KeySession>, StoreError>;

    /// The session of an unexpired, unrevoked key with the account's holdings and clan, or
    /// `None`: what [`session`](Self::session), [`holdings`](Self::holdings) and
    /// [`clan_of`](Self::clan_of) answer together, in one statement when the account is in no
    /// clan (two when it is).
    async fn session_view(
        &self,
        key: &KeyHash,
        now: OffsetDateTime,
    ) -> Result<Option<SessionView>, StoreError>;

    /// The account with this id, or `None` when there is none (never existed or deleted).
    async fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError>;

    /// Revokes one key. Answers whether a key was revoked.
    async fn revoke_key(&self, key: &KeyHash) -> Result<bool, StoreError>;

    /// Revokes every key of the account. Answers how many were revoked.
    async fn revoke_all_keys(&self, account: AccountId) -> Result<u64, StoreError>;

    /// Deletes up to `limit` user keys that expired at or before `now` (keys no session
    /// accepts any more), in one short transaction; answers how many went. Safe to run on
    /// several nodes at once: a key deleted by another is not counted.
    async fn delete_expired_keys(&self, now: OffsetDateTime, limit: u32)
    -> Result<u64, StoreError>;

    /// Forgets up to `limit` idempotency keys recorded before `before`, in one short
    /// transaction; answers how many went. A forgotten key used again applies its request
    /// afresh. Nothing refers to an idempotency key (ledger rows carry the change's reason and
    /// reference), so forgetting one leaves every holding and ledger row as it is. Safe to run
    /// on several nodes at once.
    async fn forget_idempotency_keys(
        &self,
        before: OffsetDateTime,
        limit: u32,
    ) -> Result<u64, StoreError>;

    /// Deletes the account with its identities, keys and personal data, freeing the places of
    /// its tournament entries. Answers whether it existed. A write of the account racing its
    /// deletion either ends before it (and goes with the account) or finds no account.
    async fn delete_account(&self, account: AccountId) -> Result<bool, StoreError>;

    /// The account with this friend code (the name compared regardless of letter case).
    async fn account_by_friend_code(
        &self,
        code: &FriendCode,
    ) -> Result<Option<Account>, StoreError>;

    /// Applies a planned change of money and holdings in one transaction: every step or none.
    ///
    /// The account row is locked first, so changes of one account never interleave. With an
    /// idempotency key, a key already used for the same request answers
    /// [`Applied::Replayed`] with the first application's grants and changes nothing; every coin
    /// and gem movement writes a ledger row in the same transaction.
    async fn apply(&self, change: Change) -> Result<Applied, StoreError>;

    /// Like [`apply`](Self::apply), and also reads the account as the change (or, for a
    /// repeat, the first application) left it, with its holdings and clan, in the same
    /// transaction: `None` only for a refusal.
    async fn apply_viewed(
        &self,
        change: Change,
    ) -> Result<(Applied, Option<AccountView>), StoreError>;

    /// The account's items and unopened packs.
    async fn holdings(&self, account: AccountId) -> Result<Holdings, StoreError>;

    /// Which of `keys` the account has claimed.
    async fn claimed(&self, account: AccountId, keys: &[String])
    -> Result<Vec<String>, StoreError>;

    /// The account's ledger, oldest first.
    async fn ledger(&self, account: AccountId) -> Result<Vec<LedgerEntry>, StoreError>;

    /// Whether the account's linked chat-platform account has a premium subscription; `None`
    /// without a link.
    async fn chat_premium(&self, account: AccountId) -> Result<Option<bool>, StoreError>;

    /// Links a chat-platform account (`chat_user`) to the account, recording whether it has a
    /// premium subscription; a later link replaces the earlier one. Answers whether the account
    /// exists: nothing is linked to an account deleted before (or while) linking.
    async fn link_chat(
        &self,
        account: AccountId,
        chat_user: &str,
        premium: bool,
        now: OffsetDateTime,
    ) -> Result<bool, StoreError>;

    /// Sets the account's role. Answers whether the account exists.
    async fn set_role(&self, account: AccountId, role: Role) -> Result<bool, StoreError>;

    /// Bans (`true`) or unbans the account. Answers whether the account exists.
    async fn set_banned(&self, account: AccountId, banned: bool) -> Result<bool, StoreError>;

    /// Creates a poll with its options in one transaction; answers it as stored.
    async fn create_poll(&self, poll: NewPoll) -> Result<Poll, StoreError>;

    /// Closes a poll at `now`: it takes no more votes.
    async fn close_poll(&self, poll: PollId, now: OffsetDateTime) -> Result<Closing, StoreError>;

    /// The polls open at `now` in which the account has not voted, oldest first.
    async fn polls_to_vote(
        &self,
        account: AccountId,
        now: OffsetDateTime,
    ) -> Result<Vec<Poll>, StoreError>;

    /// Records a vote in one transaction that checks the voter (exists, not banned), the
    /// poll's window and the option; a second vote of the account in the poll, concurrent or
    /// not, is [`VoteRefusal::AlreadyVoted`].
    async fn vote(&self, vote: Vote) -> Result<Result<(), VoteRefusal>, StoreError>;

    /// The poll with its votes per option, or `None` when there is no such poll.
    async fn poll_results(&self, poll: PollId) -> Result<Option<PollResults>, StoreError>;

    /// Creates a tournament. Answers `false` (creating nothing) when the code is taken.
    async fn create_tournament(&self, tournament: NewTournament) -> Result<bool, StoreError>;

    /// Closes a tournament at `now`: nobody joins any more.
    async fn close_tournament(
        &self,
        code: &TournamentCode,
        now: OffsetDateTime,
    ) -> Result<Closing, StoreError>;

    /// The tournament with this code, or `None`.
    async fn tournament(&self, code: &TournamentCode) -> Result<Option<Tournament>, StoreError>;

    /// Whether the account is on the tournament's whitelist and whether it joined.
    async fn tournament_standing(
        &self,
        code: &TournamentCode,
        account: AccountId,
    ) -> Result<TournamentStanding, StoreError>;

    /// Registers the account for the tournament in one transaction that checks
    /// [`Tournament::admits`] (the account must exist and not be banned); concurrent joins never
    /// pass the capacity and an account joins once. Answers the tournament with its new count.
    async fn join_tournament(
        &self,
        code: &TournamentCode,
        account: AccountId,
        now: OffsetDateTime,
    ) -> Result<Result<Tournament, TournamentRefusal>, StoreError>;

    /// The tournament's whitelist in the order added, or `None` when there is no such
    /// tournament.
    async fn whitelist(&self, code: &TournamentCode)
    -> Result<Option<Vec<FriendCode>>, StoreError>;

    /// Edits a tournament's whitelist in one transaction; friend codes no account has are
    /// answered in [`WhitelistEdited::unknown`]. `None` when there is no such tournament.
    async fn edit_whitelist(
        &self,
        edit: WhitelistEdit,
    ) -> Result<Option<WhitelistEdited>, StoreError>;

    /// With an account: its clan (first) and the clans that invited it. Without one: the
    /// largest clans, at most `limit`.
    async fn clans_available(
        &self,
        account: Option<AccountId>,
        limit: i64,
    ) -> Result<Vec<Clan>, StoreError>;

    /// The clan the account is a member of, if any.
    async fn clan_of(&self, account: AccountId) -> Result<Option<Clan>, StoreError>;

    /// Creates a clan with its creator as the first member, in one transaction; one clan per
    /// account, tags unique regardless of letter case.
    async fn create_clan(&self, clan: NewClan) -> Result<Result<Clan, ClanRefusal>, StoreError>;

    /// Invites `invitee` to the clan on behalf of `inviter`, who must be a member.
    async fn invite_to_clan(
        &self,
        clan: ClanId,
        inviter: AccountId,
        invitee: AccountId,
        now: OffsetDateTime,
    ) -> Result<Result<(), ClanRefusal>, StoreError>;

    /// Makes the account a member of the clan, using up its invitation; answers the clan.
    async fn join_clan(
        &self,
        clan: ClanId,
        account: AccountId,
        now: OffsetDateTime,
    ) -> Result<Result<Clan, ClanRefusal>, StoreError>;

    /// Takes the account out of the clan. The last member leaving dissolves the clan; the
    /// leader leaving hands it to the longest-standing member (also when an account is deleted).
    async fn leave_clan(
        &self,
        clan: ClanId,
        account: AccountId,
        now: OffsetDateTime,
    ) -> Result<Result<ClanLeft, ClanRefusal>, StoreError>;

    /// The progress of each of `accounts` that exists, in the order asked (missing accounts
    /// are left out), and whether it is banned: one read tells which of a match's players
    /// exist and which are banned, however many.
    async fn progress(
        &self,
        accounts: &[AccountId],
    ) -> Result<Vec<(AccountId, Progress)>, StoreError>;

    /// Records a finished match and applies every player's change, in one transaction: all of
    /// it or none. A match id recorded before changes nothing and answers the first report.
    async fn report_match(
        &self,
        record: &MatchRecord,
        changes: &[Change],
    ) -> Result<MatchApplied, StoreError>;

    /// The stored answer of a match id already reported, if it was.
    async fn recorded_match(&self, id: &MatchId) -> Result<Option<RecordedMatch>, StoreError>;

    /// Sums of an account's statistics in `mode` for matches that ended at or after `since`
    /// (by the hour), by stat key; stats never moved are absent.
    async fn stat_totals(
        &self,
        account: AccountId,
        mode: GameMode,
        since: OffsetDateTime,
    ) -> Result<std::collections::BTreeMap<String, i64>, StoreError>;

    /// Up to `limit` entries of the match log after position `after` (0 for the start), in
    /// order.
    async fn match_log(&self, after: i64, limit: u32) -> Result<Vec<MatchLogEntry>, StoreError>;

    /// Up to `limit` accounts with at least one match log entry and an id above `after`, in id
    /// order, as the leaderboards show them.
    async fn board_players(
        &self,
        after: AccountId,
        limit: u32,
    ) -> Result<Vec<BoardPlayer>, StoreError>;

    /// Those of `accounts` that exist, as the leaderboards show them (in no particular order).
    async fn board_players_of(
        &self,
        accounts: &[AccountId],
    ) -> Result<Vec<BoardPlayer>, StoreError>;

    /// Up to `limit` entries of the account log (friend-code renames and deletions) after
    /// position `after` (0 for the start), in order.
    async fn account_log(&self, after: i64, limit: u32)
    -> Result<Vec<AccountLogEntry>, StoreError>;

    /// The position of the account log's last entry (0 while it is empty).
    async fn account_log_head(&self) -> Result<i64, StoreError>;

    /// The state of each connection pool, for the metrics; none for a store without pools.
    fn pools(&self) -> Vec<PoolStatus> {
        Vec::new()
    }
}

/// One connection pool of a store as it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStatus {
    /// The pool's name among the store's pools (`main`, or `writer` for SQLite's writer).
    pub name: &'static str,
    /// Connections open, in use or idle.
    pub open: u32,
    /// Connections open and idle.
    pub idle: u32,
    /// The most connections the pool opens.
    pub max: u32,
}
