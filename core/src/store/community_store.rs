//! The community's part of the storage contract: polls, tournaments with their whitelists, and
//! clans.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{
    AccountId, Clan, ClanId, ClanLeft, ClanRefusal, Closing, Entrant, NewAuditEntry, NewClan,
    NewPoll, NewTournament, Poll, PollEdit, PollEditRefusal, PollId, PollResults, StoreError,
    Tournament, TournamentCode, TournamentEdit, TournamentEditRefusal, TournamentRefusal,
    TournamentStanding, Vote, VoteRefusal, WhitelistEdit, WhitelistEdited,
};
use crate::domain::FriendCode;

/// Polls, tournaments with their whitelists, and clans: each change one transaction that
/// checks its preconditions and answers the first that fails as a refusal.
///
/// The changes an operator makes take an `audit`: with one, the operator's audit row (and its
/// `operator_action` event) is appended in the change's own transaction when the change is
/// made (closing what was closed already included); a refusal writes nothing.
#[async_trait]
pub trait CommunityStore: Send + Sync {
    /// Creates a poll with its options in one transaction; answers it as stored. The audit row
    /// names the poll created ([`NewAuditEntry::on_created`]: `poll` becomes `poll:7`).
    async fn create_poll(
        &self,
        poll: NewPoll,
        audit: Option<&NewAuditEntry>,
    ) -> Result<Poll, StoreError>;

    /// Closes a poll at `now`: it takes no more votes.
    async fn close_poll(
        &self,
        poll: PollId,
        now: OffsetDateTime,
        audit: Option<&NewAuditEntry>,
    ) -> Result<Closing, StoreError>;

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

    /// The newest polls (at most `limit`), newest first, each with its votes per option.
    async fn polls(&self, limit: i64) -> Result<Vec<PollResults>, StoreError>;

    /// Edits a poll in one transaction with its row locked, by [`Poll::edited`]; answers it
    /// as stored.
    async fn edit_poll(
        &self,
        edit: PollEdit,
        audit: Option<&NewAuditEntry>,
    ) -> Result<Result<Poll, PollEditRefusal>, StoreError>;

    /// Creates a tournament. Answers `false` (creating nothing) when the code is taken.
    async fn create_tournament(
        &self,
        tournament: NewTournament,
        audit: Option<&NewAuditEntry>,
    ) -> Result<bool, StoreError>;

    /// Closes a tournament at `now`: nobody joins any more.
    async fn close_tournament(
        &self,
        code: &TournamentCode,
        now: OffsetDateTime,
        audit: Option<&NewAuditEntry>,
    ) -> Result<Closing, StoreError>;

    /// The tournament with this code, or `None`.
    async fn tournament(&self, code: &TournamentCode) -> Result<Option<Tournament>, StoreError>;

    /// The newest tournaments (at most `limit`), the last created first.
    async fn tournaments(&self, limit: i64) -> Result<Vec<Tournament>, StoreError>;

    /// Edits a tournament in one transaction with its row locked (joins wait for it), by
    /// [`Tournament::edited`]; answers it as stored.
    async fn edit_tournament(
        &self,
        edit: TournamentEdit,
        audit: Option<&NewAuditEntry>,
    ) -> Result<Result<Tournament, TournamentEditRefusal>, StoreError>;

    /// The accounts that joined the tournament, in the order they joined, or `None` when there
    /// is no such tournament.
    async fn tournament_entrants(
        &self,
        code: &TournamentCode,
    ) -> Result<Option<Vec<Entrant>>, StoreError>;

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
        audit: Option<&NewAuditEntry>,
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

    /// Creates a clan with its creator as the first member, and the creator's `clan_joined`
    /// event, in one transaction; one clan per account, tags unique regardless of letter case.
    async fn create_clan(&self, clan: NewClan) -> Result<Result<Clan, ClanRefusal>, StoreError>;

    /// Invites `invitee` to the clan on behalf of `inviter`, who must be a member.
    async fn invite_to_clan(
        &self,
        clan: ClanId,
        inviter: AccountId,
        invitee: AccountId,
        now: OffsetDateTime,
    ) -> Result<Result<(), ClanRefusal>, StoreError>;

    /// Makes the account a member of the clan, using up its invitation, with its `clan_joined`
    /// event; answers the clan.
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
}
