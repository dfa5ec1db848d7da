//! The tournaments' part of the storage contract: tournaments, their entrants and whitelists.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{
    AccountId, Closing, Entrant, NewAuditEntry, NewTournament, StoreError, Tournament,
    TournamentCode, TournamentEdit, TournamentEditRefusal, TournamentRefusal, TournamentStanding,
    WhitelistEdit, WhitelistEdited,
};
use crate::domain::FriendCode;

/// Tournaments with their whitelists and entrants: created, edited, closed and whitelisted by
/// the operator, joined by players; each change one transaction that checks its preconditions
/// and answers the first that fails as a refusal.
///
/// The changes an operator makes take an `audit`: with one, the operator's audit row (and its
/// `operator_action` event) is appended in the change's own transaction when the change is
/// made (closing what was closed already included); a refusal writes nothing.
#[async_trait]
pub trait TournamentStore: Send + Sync {
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
}
