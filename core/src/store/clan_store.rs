//! The clans' part of the storage contract.

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{AccountId, Clan, ClanId, ClanLeft, ClanRefusal, NewClan, StoreError};

/// Clans and their members and invitations: each change one transaction that checks its
/// preconditions and answers the first that fails as a refusal.
#[async_trait]
pub trait ClanStore: Send + Sync {
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
