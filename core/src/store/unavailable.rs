//! A store that answers every call "unavailable", for tests that need a store but never reach
//! it (the layers' tests).

use std::collections::BTreeMap;

use async_trait::async_trait;
use time::OffsetDateTime;

use super::{
    Account, AccountId, AccountLogEntry, AccountLogStore, AccountStore, AccountView, Applied,
    AuditEntry, AuditFilter, BoardPlayer, BoardSnapshotInfo, BoardSnapshotStore, Change, Clan,
    ClanId, ClanLeft, ClanRefusal, ClanStore, Closing, ContentStore, EconomyStore, EventConsumer,
    EventStore, HealthStore, Holdings, KeptPositions, KeyLookup, KeySession, LedgerEntry,
    MatchApplied, MatchId, MatchLogEntry, MatchRecord, MatchStore, NewAuditEntry, NewClan,
    NewOperatorToken, NewPoll, NewSignIn, NewTournament, OperatorStore, OperatorToken, Poll,
    PollId, PollResults, PollStore, Progress, PublishedContent, RecordedMatch, RemovedResults,
    Role, SequenceRound, SessionView, Settlement, SignedIn, StoreError, Tournament, TournamentCode,
    TournamentRefusal, TournamentStanding, TournamentStore, Vote, VoteRefusal, WebhookAttempt,
    WebhookDelivery, WebhookOutcome, WhitelistEdit, WhitelistEdited,
};
use super::{
    ContentVersion, Entrant, NewOperatorSession, OperatorSessionStore, PollEdit, PollEditRefusal,
    ReplayOutcome, ReplayRequested, TournamentEdit, TournamentEditRefusal, WebhookReplay,
};
use crate::domain::{FriendCode, GameMode};
use crate::events::{DomainEvent, RelayedEvent};

/// A store without a database: every method answers [`StoreError::Unavailable`].
pub(crate) struct UnavailableStore;

/// The answer of every method.
fn unavailable<T>() -> Result<T, StoreError> {
    Err(StoreError::Unavailable("no store in this test".to_owned()))
}

#[async_trait]
impl AccountStore for UnavailableStore {
    async fn account_by_identity(&self, _: &str, _: &str) -> Result<Option<Account>, StoreError> {
        unavailable()
    }
    async fn key_generation(&self, _: AccountId) -> Result<Option<u32>, StoreError> {
        unavailable()
    }
    async fn stored_key_secret(&self, _: &str) -> Result<String, StoreError> {
        unavailable()
    }
    async fn sign_in(&self, _: NewSignIn) -> Result<SignedIn, StoreError> {
        unavailable()
    }
    async fn sign_in_account(
        &self,
        _: AccountId,
        _: &str,
        _: OffsetDateTime,
    ) -> Result<Option<u32>, StoreError> {
        unavailable()
    }
    async fn session(
        &self,
        _: &KeyLookup,
        _: OffsetDateTime,
    ) -> Result<Option<KeySession>, StoreError> {
        unavailable()
    }
    async fn session_view(
        &self,
        _: &KeyLookup,
        _: OffsetDateTime,
    ) -> Result<Option<SessionView>, StoreError> {
        unavailable()
    }
    async fn account(&self, _: AccountId) -> Result<Option<Account>, StoreError> {
        unavailable()
    }
    async fn account_by_friend_code(&self, _: &FriendCode) -> Result<Option<Account>, StoreError> {
        unavailable()
    }
    async fn revoke_key(&self, _: &KeyLookup) -> Result<bool, StoreError> {
        unavailable()
    }
    async fn revoke_all_keys(
        &self,
        _: AccountId,
        _: Option<&NewAuditEntry>,
    ) -> Result<bool, StoreError> {
        unavailable()
    }
    async fn delete_expired_keys(&self, _: OffsetDateTime, _: u32) -> Result<u64, StoreError> {
        unavailable()
    }
    async fn forget_idempotency_keys(&self, _: OffsetDateTime, _: u32) -> Result<u64, StoreError> {
        unavailable()
    }
    async fn delete_account(
        &self,
        _: AccountId,
        _: Option<&NewAuditEntry>,
    ) -> Result<bool, StoreError> {
        unavailable()
    }
    async fn link_chat(
        &self,
        _: AccountId,
        _: &str,
        _: bool,
        _: OffsetDateTime,
    ) -> Result<bool, StoreError> {
        unavailable()
    }
    async fn set_role(&self, _: AccountId, _: Role) -> Result<bool, StoreError> {
        unavailable()
    }
    async fn set_banned(
        &self,
        _: AccountId,
        _: bool,
        _: Option<&NewAuditEntry>,
    ) -> Result<bool, StoreError> {
        unavailable()
    }
}

#[async_trait]
impl EconomyStore for UnavailableStore {
    async fn apply(&self, _: Change, _: Option<&NewAuditEntry>) -> Result<Applied, StoreError> {
        unavailable()
    }
    async fn apply_viewed(
        &self,
        _: Change,
        _: Option<&NewAuditEntry>,
    ) -> Result<(Applied, Option<AccountView>), StoreError> {
        unavailable()
    }
    async fn holdings(&self, _: AccountId) -> Result<Holdings, StoreError> {
        unavailable()
    }
    async fn claimed(&self, _: AccountId, _: &[String]) -> Result<Vec<String>, StoreError> {
        unavailable()
    }
    async fn ledger(&self, _: AccountId) -> Result<Vec<LedgerEntry>, StoreError> {
        unavailable()
    }
    async fn chat_premium(&self, _: AccountId) -> Result<Option<bool>, StoreError> {
        unavailable()
    }
}

#[async_trait]
impl PollStore for UnavailableStore {
    async fn create_poll(&self, _: NewPoll, _: Option<&NewAuditEntry>) -> Result<Poll, StoreError> {
        unavailable()
    }
    async fn close_poll(
        &self,
        _: PollId,
        _: OffsetDateTime,
        _: Option<&NewAuditEntry>,
    ) -> Result<Closing, StoreError> {
        unavailable()
    }
    async fn polls_to_vote(
        &self,
        _: AccountId,
        _: OffsetDateTime,
    ) -> Result<Vec<Poll>, StoreError> {
        unavailable()
    }
    async fn vote(&self, _: Vote) -> Result<Result<(), VoteRefusal>, StoreError> {
        unavailable()
    }
    async fn poll_results(&self, _: PollId) -> Result<Option<PollResults>, StoreError> {
        unavailable()
    }
    async fn polls(&self, _: i64) -> Result<Vec<PollResults>, StoreError> {
        unavailable()
    }
    async fn edit_poll(
        &self,
        _: PollEdit,
        _: Option<&NewAuditEntry>,
    ) -> Result<Result<Poll, PollEditRefusal>, StoreError> {
        unavailable()
    }
}

#[async_trait]
impl TournamentStore for UnavailableStore {
    async fn create_tournament(
        &self,
        _: NewTournament,
        _: Option<&NewAuditEntry>,
    ) -> Result<bool, StoreError> {
        unavailable()
    }
    async fn close_tournament(
        &self,
        _: &TournamentCode,
        _: OffsetDateTime,
        _: Option<&NewAuditEntry>,
    ) -> Result<Closing, StoreError> {
        unavailable()
    }
    async fn tournament(&self, _: &TournamentCode) -> Result<Option<Tournament>, StoreError> {
        unavailable()
    }
    async fn tournaments(&self, _: i64) -> Result<Vec<Tournament>, StoreError> {
        unavailable()
    }
    async fn edit_tournament(
        &self,
        _: TournamentEdit,
        _: Option<&NewAuditEntry>,
    ) -> Result<Result<Tournament, TournamentEditRefusal>, StoreError> {
        unavailable()
    }
    async fn tournament_entrants(
        &self,
        _: &TournamentCode,
    ) -> Result<Option<Vec<Entrant>>, StoreError> {
        unavailable()
    }
    async fn tournament_standing(
        &self,
        _: &TournamentCode,
        _: AccountId,
    ) -> Result<TournamentStanding, StoreError> {
        unavailable()
    }
    async fn join_tournament(
        &self,
        _: &TournamentCode,
        _: AccountId,
        _: OffsetDateTime,
    ) -> Result<Result<Tournament, TournamentRefusal>, StoreError> {
        unavailable()
    }
    async fn whitelist(&self, _: &TournamentCode) -> Result<Option<Vec<FriendCode>>, StoreError> {
        unavailable()
    }
    async fn edit_whitelist(
        &self,
        _: WhitelistEdit,
        _: Option<&NewAuditEntry>,
    ) -> Result<Option<WhitelistEdited>, StoreError> {
        unavailable()
    }
}

#[async_trait]
impl ClanStore for UnavailableStore {
    async fn clans_available(&self, _: Option<AccountId>, _: i64) -> Result<Vec<Clan>, StoreError> {
        unavailable()
    }
    async fn clan_of(&self, _: AccountId) -> Result<Option<Clan>, StoreError> {
        unavailable()
    }
    async fn create_clan(&self, _: NewClan) -> Result<Result<Clan, ClanRefusal>, StoreError> {
        unavailable()
    }
    async fn invite_to_clan(
        &self,
        _: ClanId,
        _: AccountId,
        _: AccountId,
        _: OffsetDateTime,
    ) -> Result<Result<(), ClanRefusal>, StoreError> {
        unavailable()
    }
    async fn join_clan(
        &self,
        _: ClanId,
        _: AccountId,
        _: OffsetDateTime,
    ) -> Result<Result<Clan, ClanRefusal>, StoreError> {
        unavailable()
    }
    async fn leave_clan(
        &self,
        _: ClanId,
        _: AccountId,
        _: OffsetDateTime,
    ) -> Result<Result<ClanLeft, ClanRefusal>, StoreError> {
        unavailable()
    }
}

#[async_trait]
impl MatchStore for UnavailableStore {
    async fn progress(&self, _: &[AccountId]) -> Result<Vec<(AccountId, Progress)>, StoreError> {
        unavailable()
    }
    async fn report_match(
        &self,
        _: &MatchRecord,
        _: &[Change],
    ) -> Result<MatchApplied, StoreError> {
        unavailable()
    }
    async fn recorded_match(&self, _: &MatchId) -> Result<Option<RecordedMatch>, StoreError> {
        unavailable()
    }
    async fn stat_totals(
        &self,
        _: AccountId,
        _: GameMode,
        _: OffsetDateTime,
    ) -> Result<BTreeMap<String, i64>, StoreError> {
        unavailable()
    }
    async fn delete_stat_hours(&self, _: OffsetDateTime, _: u32) -> Result<u64, StoreError> {
        unavailable()
    }
    async fn match_log(&self, _: i64, _: u32) -> Result<Vec<MatchLogEntry>, StoreError> {
        unavailable()
    }
    async fn board_players_of(&self, _: &[AccountId]) -> Result<Vec<BoardPlayer>, StoreError> {
        unavailable()
    }

    async fn results_of(
        &self,
        _: AccountId,
        _: i64,
        _: i64,
    ) -> Result<Vec<MatchLogEntry>, StoreError> {
        unavailable()
    }

    async fn recent_results(&self, _: AccountId, _: u32) -> Result<Vec<MatchLogEntry>, StoreError> {
        unavailable()
    }

    async fn remove_results(
        &self,
        _: AccountId,
        _: OffsetDateTime,
        _: Option<&NewAuditEntry>,
    ) -> Result<Option<RemovedResults>, StoreError> {
        unavailable()
    }
}

#[async_trait]
impl AccountLogStore for UnavailableStore {
    async fn account_log(&self, _: i64, _: u32) -> Result<Vec<AccountLogEntry>, StoreError> {
        unavailable()
    }
    async fn account_log_head(&self) -> Result<i64, StoreError> {
        unavailable()
    }
}

#[async_trait]
impl BoardSnapshotStore for UnavailableStore {
    async fn begin_board_snapshot(
        &self,
        _: i64,
        _: i64,
        _: OffsetDateTime,
        _: OffsetDateTime,
    ) -> Result<Option<i64>, StoreError> {
        unavailable()
    }
    async fn write_board_snapshot_part(&self, _: i64, _: u32, _: &[u8]) -> Result<(), StoreError> {
        unavailable()
    }
    async fn finish_board_snapshot(&self, _: i64, _: u32, _: u32) -> Result<bool, StoreError> {
        unavailable()
    }
    async fn newest_board_snapshot(&self) -> Result<Option<BoardSnapshotInfo>, StoreError> {
        unavailable()
    }
    async fn board_snapshot_part(&self, _: i64, _: u32) -> Result<Option<Vec<u8>>, StoreError> {
        unavailable()
    }
}

#[async_trait]
impl HealthStore for UnavailableStore {
    async fn ping(&self) -> Result<(), StoreError> {
        unavailable()
    }
}

#[async_trait]
impl ContentStore for UnavailableStore {
    async fn publish_content(
        &self,
        _: &str,
        _: &super::Publication,
        _: OffsetDateTime,
        _: Option<&NewAuditEntry>,
    ) -> Result<i64, StoreError> {
        unavailable()
    }
    async fn content_head(&self) -> Result<i64, StoreError> {
        unavailable()
    }
    async fn published_content(&self, _: i64) -> Result<Option<PublishedContent>, StoreError> {
        unavailable()
    }
    async fn content_versions(&self, _: i64) -> Result<Vec<ContentVersion>, StoreError> {
        unavailable()
    }
}

#[async_trait]
impl OperatorStore for UnavailableStore {
    async fn create_operator_token(
        &self,
        _: NewOperatorToken,
    ) -> Result<Option<OperatorToken>, StoreError> {
        unavailable()
    }
    async fn operator_token_by_hash(&self, _: &str) -> Result<Option<OperatorToken>, StoreError> {
        unavailable()
    }
    async fn revoke_operator_token(&self, _: &str, _: OffsetDateTime) -> Result<bool, StoreError> {
        unavailable()
    }
    async fn operator_tokens(&self) -> Result<Vec<OperatorToken>, StoreError> {
        unavailable()
    }
    async fn append_audit(&self, _: NewAuditEntry) -> Result<i64, StoreError> {
        unavailable()
    }
    async fn audit(&self, _: &AuditFilter) -> Result<Vec<AuditEntry>, StoreError> {
        unavailable()
    }
}

#[async_trait]
impl EventStore for UnavailableStore {
    async fn sequence_events(&self, _: u32) -> Result<SequenceRound, StoreError> {
        unavailable()
    }
    async fn relay_head(&self) -> Result<i64, StoreError> {
        unavailable()
    }
    async fn oldest_unsequenced(&self) -> Result<Option<OffsetDateTime>, StoreError> {
        unavailable()
    }
    async fn relayed_events(&self, _: i64, _: u32) -> Result<Vec<RelayedEvent>, StoreError> {
        unavailable()
    }
    async fn account_events(
        &self,
        _: AccountId,
        _: i64,
        _: u32,
    ) -> Result<Vec<RelayedEvent>, StoreError> {
        unavailable()
    }
    async fn kept_positions(&self) -> Result<KeptPositions, StoreError> {
        unavailable()
    }
    async fn events(&self, _: i64, _: u32) -> Result<Vec<(DomainEvent, Option<i64>)>, StoreError> {
        unavailable()
    }
    async fn event_consumer(
        &self,
        _: &str,
        _: OffsetDateTime,
    ) -> Result<EventConsumer, StoreError> {
        unavailable()
    }
    async fn lease_event_consumer(
        &self,
        _: &str,
        _: &str,
        _: i64,
        _: OffsetDateTime,
        _: OffsetDateTime,
    ) -> Result<bool, StoreError> {
        unavailable()
    }
    async fn settle_event_consumer(
        &self,
        _: &str,
        _: &str,
        _: i64,
        _: Settlement,
        _: OffsetDateTime,
    ) -> Result<bool, StoreError> {
        unavailable()
    }
    async fn event_consumers(&self) -> Result<Vec<EventConsumer>, StoreError> {
        unavailable()
    }
    async fn release_event_leases(&self, _: &str) -> Result<u64, StoreError> {
        unavailable()
    }
    async fn record_webhook_attempts(&self, _: &[WebhookAttempt]) -> Result<(), StoreError> {
        unavailable()
    }
    async fn delete_delivered_events(&self, _: OffsetDateTime, _: u32) -> Result<u64, StoreError> {
        unavailable()
    }
    async fn delete_webhook_deliveries(
        &self,
        _: OffsetDateTime,
        _: u32,
    ) -> Result<u64, StoreError> {
        unavailable()
    }
    async fn webhook_deliveries(
        &self,
        _: Option<WebhookOutcome>,
        _: u32,
    ) -> Result<Vec<WebhookDelivery>, StoreError> {
        unavailable()
    }
    async fn webhook_delivery(&self, _: i64) -> Result<Option<WebhookDelivery>, StoreError> {
        unavailable()
    }
    async fn request_webhook_replay(
        &self,
        _: &WebhookDelivery,
        _: OffsetDateTime,
        _: Option<&NewAuditEntry>,
    ) -> Result<ReplayRequested, StoreError> {
        unavailable()
    }
    async fn claim_webhook_replay(
        &self,
        _: &str,
        _: &str,
        _: OffsetDateTime,
        _: OffsetDateTime,
    ) -> Result<Option<WebhookReplay>, StoreError> {
        unavailable()
    }
    async fn settle_webhook_replay(
        &self,
        _: i64,
        _: &str,
        _: ReplayOutcome,
        _: OffsetDateTime,
    ) -> Result<bool, StoreError> {
        unavailable()
    }
    async fn webhook_replays(&self, _: u32) -> Result<Vec<WebhookReplay>, StoreError> {
        unavailable()
    }
    async fn delete_webhook_replays(&self, _: OffsetDateTime, _: u32) -> Result<u64, StoreError> {
        unavailable()
    }
}

#[async_trait]
impl OperatorSessionStore for UnavailableStore {
    async fn open_operator_session(&self, _: NewOperatorSession) -> Result<bool, StoreError> {
        unavailable()
    }
    async fn operator_session_token(
        &self,
        _: &str,
        _: OffsetDateTime,
    ) -> Result<Option<OperatorToken>, StoreError> {
        unavailable()
    }
    async fn end_operator_session(&self, _: &str, _: OffsetDateTime) -> Result<bool, StoreError> {
        unavailable()
    }
    async fn delete_finished_operator_sessions(
        &self,
        _: OffsetDateTime,
        _: u32,
    ) -> Result<u64, StoreError> {
        unavailable()
    }
}
