//! The polls' part of the storage contract.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{
    AccountId, Closing, NewAuditEntry, NewPoll, Poll, PollEdit, PollEditRefusal, PollId,
    PollResults, StoreError, Vote, VoteRefusal,
};

/// Polls: created, edited and closed by the operator, voted in by players; each change one
/// transaction that checks its preconditions and answers the first that fails as a refusal.
///
/// The changes an operator makes take an `audit`: with one, the operator's audit row (and its
/// `operator_action` event) is appended in the change's own transaction when the change is
/// made (closing what was closed already included); a refusal writes nothing.
#[async_trait]
pub trait PollStore: Send + Sync {
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
}
