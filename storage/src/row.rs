//! Rows as both databases return them, and their conversion into core's records.

use safezone_core::domain::{FriendCode, GameMode, IapId, ItemId, PackId};
use safezone_core::store::{
    Account, AccountChange, AccountId, AccountLogEntry, AccountView, BoardPlayer, Currency,
    Holdings, IapPurchase, KeySession, LedgerEntry, License, MatchLogEntry, OperatorRole,
    OperatorToken, PackStock, Role, StoreError, Subscription,
};
use safezone_core::store::{
    Clan, ClanId, ClanMember, Entrant, Poll, PollId, PollOption, PollOptionId, PollResults,
    Tournament, TournamentCode, Window,
};

use time::OffsetDateTime;

use crate::micros::from_micros;

/// An `accounts` row, as selected by [`ACCOUNT_BY_ID`](crate::statements::accounts::ACCOUNT_BY_ID).
#[derive(sqlx::FromRow)]
pub(crate) struct AccountRow {
    id: i64,
    provider: String,
    identifier: String,
    name: Option<String>,
    avatar: Option<String>,
    email: Option<String>,
    friend_name: String,
    friend_digits: i32,
    status: String,
    experience: i64,
    level: i64,
    coins: i64,
    gems: i64,
    role: String,
    is_banned: bool,
    created: i64,
    updated: i64,
}

impl AccountRow {
    /// The account's id.
    pub(crate) fn id(&self) -> i64 {
        self.id
    }

    /// The account's sign-in identity: provider and identifier.
    pub(crate) fn identity(&self) -> (&str, &str) {
        (&self.provider, &self.identifier)
    }

    /// The account's friend code as stored: name and digits.
    pub(crate) fn friend_code(&self) -> (&str, i64) {
        (&self.friend_name, i64::from(self.friend_digits))
    }

    /// The account; a row that breaks the record's rules is corrupt data.
    pub(crate) fn into_account(self) -> Result<Account, StoreError> {
        let friend_code = u16::try_from(self.friend_digits)
            .ok()
            .and_then(|digits| FriendCode::new(&self.friend_name, digits).ok())
            .ok_or_else(|| {
                corrupt(
                    self.id,
                    format!("friend code {}#{}", self.friend_name, self.friend_digits),
                )
            })?;
        let role = Role::parse(&self.role)
            .ok_or_else(|| corrupt(self.id, format!("role `{}`", self.role)))?;
        Ok(Account {
            id: AccountId(self.id),
            provider: self.provider,
            identifier: self.identifier,
            name: self.name,
            avatar: self.avatar,
            email: self.email,
            friend_code,
            status: self.status,
            experience: self.experience,
            level: self.level,
            coins: self.coins,
            gems: self.gems,
            role,
            is_banned: self.is_banned,
            created: from_micros(self.created)?,
            updated: from_micros(self.updated)?,
        })
    }
}

/// A key's account and expiry, as selected by [`SESSION`](crate::statements::accounts::SESSION).
#[derive(sqlx::FromRow)]
pub(crate) struct SessionRow {
    #[sqlx(flatten)]
    account: AccountRow,
    key_expires: i64,
}

impl SessionRow {
    /// The key's session.
    pub(crate) fn into_session(self) -> Result<KeySession, StoreError> {
        Ok(KeySession {
            account: self.account.into_account()?,
            expires: from_micros(self.key_expires)?,
        })
    }
}

/// One thing an account holds, as selected by [`HOLDINGS`](crate::statements::economy::HOLDINGS):
/// `kind` says which table it comes from, `thing` is the item, pack or product id, `amount`
/// the quantity (or, for a purchase, the cost in cents).
#[derive(sqlx::FromRow)]
pub(crate) struct HoldingRow {
    kind: String,
    id: i64,
    thing: i64,
    amount: i64,
    expires: Option<i64>,
}

impl HoldingRow {
    /// The holdings these rows make up; an unknown kind is corrupt data.
    pub(crate) fn into_holdings(rows: Vec<Self>) -> Result<Holdings, StoreError> {
        let mut holdings = Holdings::default();
        for row in rows {
            match row.kind.as_str() {
                "license" => holdings.licenses.push(License {
                    id: row.id,
                    item: ItemId(row.thing),
                    quantity: row.amount,
                }),
                "pack" => holdings.packs.push(PackStock {
                    id: row.id,
                    pack: PackId(row.thing),
                    quantity: row.amount,
                }),
                "iap" => holdings.iaps.push(IapPurchase {
                    id: row.id,
                    iap: IapId(row.thing),
                    cost_cents: row.amount,
                }),
                "subscription" => holdings.subscriptions.push(Subscription {
                    id: row.id,
                    iap: IapId(row.thing),
                    expires: row.expires.map(from_micros).transpose()?,
                }),
                other => {
                    return Err(StoreError::Internal(format!(
                        "holdings row {} of unknown kind `{other}`",
                        row.id
                    )));
                }
            }
        }
        Ok(holdings)
    }
}

/// The account's columns of an account view's rows, as selected by
/// [`SESSION_VIEW`](crate::statements::accounts::SESSION_VIEW) and
/// [`ACCOUNT_VIEW`](crate::statements::accounts::ACCOUNT_VIEW): the account, the id of its
/// clan, and the key's expiry (null in an account's view).
#[derive(sqlx::FromRow)]
pub(crate) struct ViewedAccountRow {
    #[sqlx(flatten)]
    account: AccountRow,
    clan_id: Option<i64>,
    key_expires: Option<i64>,
}

impl ViewedAccountRow {
    /// The clan the account is a member of, if any.
    pub(crate) fn clan(&self) -> Option<ClanId> {
        self.clan_id.map(ClanId)
    }

    /// The account's view, holding what the view's rows `held` list, a member of `clan`; and
    /// the key's expiry (`None` in an account's view).
    pub(crate) fn into_view(
        self,
        held: Vec<HeldRow>,
        clan: Option<Clan>,
    ) -> Result<(AccountView, Option<OffsetDateTime>), StoreError> {
        let holdings =
            HoldingRow::into_holdings(held.into_iter().filter_map(HeldRow::holding).collect())?;
        let view = AccountView {
            account: self.account.into_account()?,
            holdings,
            clan,
        };
        Ok((view, self.key_expires.map(from_micros).transpose()?))
    }
}

/// The holding's columns of an account view's row, in the shape of [`HoldingRow`]: all null on
/// the one row of an account that holds nothing.
#[derive(sqlx::FromRow)]
pub(crate) struct HeldRow {
    held_kind: Option<String>,
    held_id: Option<i64>,
    held_thing: Option<i64>,
    held_amount: Option<i64>,
    held_expires: Option<i64>,
}

impl HeldRow {
    /// The holding, if the row holds one.
    fn holding(self) -> Option<HoldingRow> {
        Some(HoldingRow {
            kind: self.held_kind?,
            id: self.held_id?,
            thing: self.held_thing?,
            amount: self.held_amount?,
            expires: self.held_expires,
        })
    }
}

/// A `ledger` row, as selected by [`LEDGER`](crate::statements::economy::LEDGER).
#[derive(sqlx::FromRow)]
pub(crate) struct LedgerRow {
    id: i64,
    account_id: i64,
    currency: String,
    delta: i64,
    balance_after: i64,
    reason: String,
    reference: String,
    created: i64,
}

impl LedgerRow {
    /// The ledger entry; an unknown currency is corrupt data.
    pub(crate) fn into_entry(self) -> Result<LedgerEntry, StoreError> {
        let currency = match self.currency.as_str() {
            "coins" => Currency::Coins,
            "gems" => Currency::Gems,
            other => {
                return Err(StoreError::Internal(format!(
                    "ledger row {} holds an unknown currency `{other}`",
                    self.id
                )));
            }
        };
        Ok(LedgerEntry {
            id: self.id,
            account: AccountId(self.account_id),
            currency,
            delta: self.delta,
            balance_after: self.balance_after,
            reason: self.reason,
            reference: self.reference,
            created: from_micros(self.created)?,
        })
    }
}

fn corrupt(id: i64, what: String) -> StoreError {
    StoreError::Internal(format!("account {id} holds an invalid {what}"))
}

/// A poll with one of its options, as selected by [`POLL`](crate::statements::polls::POLL).
#[derive(sqlx::FromRow)]
pub(crate) struct PollRow {
    poll_id: i64,
    question: String,
    opens: i64,
    closes: i64,
    closed_at: Option<i64>,
    option_id: i64,
    name: String,
    color_code: String,
    votes: i64,
}

impl PollRow {
    /// The polls of rows ordered by poll, each with its votes per option.
    pub(crate) fn into_polls(rows: Vec<Self>) -> Result<Vec<PollResults>, StoreError> {
        let mut polls: Vec<PollResults> = Vec::new();
        for row in rows {
            let option = PollOption {
                id: PollOptionId(row.option_id),
                name: row.name,
                color_code: row.color_code,
            };
            match polls.last_mut() {
                Some(last) if last.poll.id.0 == row.poll_id => {
                    last.poll.options.push(option);
                    last.votes.push(row.votes);
                }
                _ => polls.push(PollResults {
                    poll: Poll {
                        id: PollId(row.poll_id),
                        question: row.question,
                        options: vec![option],
                        window: window(row.opens, row.closes, row.closed_at)?,
                    },
                    votes: vec![row.votes],
                }),
            }
        }
        Ok(polls)
    }
}

/// A window's columns, as selected by [`POLL_WINDOW`](crate::statements::polls::POLL_WINDOW).
#[derive(sqlx::FromRow)]
pub(crate) struct WindowRow {
    opens: i64,
    closes: i64,
    closed_at: Option<i64>,
}

impl WindowRow {
    /// The window.
    pub(crate) fn into_window(self) -> Result<Window, StoreError> {
        window(self.opens, self.closes, self.closed_at)
    }
}

fn window(opens: i64, closes: i64, closed_at: Option<i64>) -> Result<Window, StoreError> {
    Ok(Window {
        opens: from_micros(opens)?,
        closes: from_micros(closes)?,
        closed_at: closed_at.map(from_micros).transpose()?,
    })
}

/// A `tournaments` row, as selected by [`TOURNAMENT`](crate::statements::tournaments::TOURNAMENT).
#[derive(sqlx::FromRow)]
pub(crate) struct TournamentRow {
    code: String,
    mode: String,
    opens: i64,
    closes: i64,
    closed_at: Option<i64>,
    capacity: i64,
    entrants: i64,
    whitelist_only: bool,
}

impl TournamentRow {
    /// The tournament; an invalid code or mode is corrupt data.
    pub(crate) fn into_tournament(self) -> Result<Tournament, StoreError> {
        let invalid = |what: String| {
            StoreError::Internal(format!(
                "tournament `{}` holds an invalid {what}",
                self.code
            ))
        };
        let code =
            TournamentCode::parse(&self.code).map_err(|why| invalid(format!("code: {why}")))?;
        let mode =
            GameMode::parse(&self.mode).ok_or_else(|| invalid(format!("mode `{}`", self.mode)))?;
        Ok(Tournament {
            code,
            mode,
            window: window(self.opens, self.closes, self.closed_at)?,
            capacity: self.capacity,
            entrants: self.entrants,
            whitelist_only: self.whitelist_only,
        })
    }
}

/// A friend code's parts, as selected by [`WHITELIST`](crate::statements::tournaments::WHITELIST).
#[derive(sqlx::FromRow)]
pub(crate) struct FriendCodeRow {
    friend_name: String,
    friend_digits: i32,
}

impl FriendCodeRow {
    /// The friend code; an invalid one is corrupt data.
    pub(crate) fn into_friend_code(self) -> Result<FriendCode, StoreError> {
        friend_code(&self.friend_name, self.friend_digits)
    }
}

/// An entrant of a tournament, as selected by
/// [`ENTRANTS`](crate::statements::tournaments::ENTRANTS).
#[derive(sqlx::FromRow)]
pub(crate) struct EntrantRow {
    friend_name: String,
    friend_digits: i32,
    created: i64,
}

impl EntrantRow {
    /// The entrant; an invalid friend code or time is corrupt data.
    pub(crate) fn into_entrant(self) -> Result<Entrant, StoreError> {
        Ok(Entrant {
            friend_code: friend_code(&self.friend_name, self.friend_digits)?,
            joined: from_micros(self.created)?,
        })
    }
}

fn friend_code(name: &str, digits: i32) -> Result<FriendCode, StoreError> {
    u16::try_from(digits)
        .ok()
        .and_then(|digits| FriendCode::new(name, digits).ok())
        .ok_or_else(|| StoreError::Internal(format!("invalid stored friend code {name}#{digits}")))
}

/// A clan with one of its members, as selected by [`CLAN`](crate::statements::clans::CLAN).
#[derive(sqlx::FromRow)]
pub(crate) struct ClanRow {
    clan_id: i64,
    creator_id: i64,
    tag: String,
    clan_name: String,
    description: Option<String>,
    max_members: i64,
    created: i64,
    account_id: i64,
    friend_name: String,
    friend_digits: i32,
    avatar: Option<String>,
    status: String,
}

impl ClanRow {
    /// The clans of rows in which each clan's rows follow each other, members in row order.
    pub(crate) fn into_clans(rows: Vec<Self>) -> Result<Vec<Clan>, StoreError> {
        let mut clans: Vec<Clan> = Vec::new();
        for row in rows {
            let member = ClanMember {
                account: AccountId(row.account_id),
                friend_code: friend_code(&row.friend_name, row.friend_digits)?,
                avatar: row.avatar,
                status: row.status,
            };
            match clans.last_mut() {
                Some(last) if last.id.0 == row.clan_id => last.members.push(member),
                _ => clans.push(Clan {
                    id: ClanId(row.clan_id),
                    creator: AccountId(row.creator_id),
                    tag: row.tag,
                    name: row.clan_name,
                    description: row.description,
                    max_members: row.max_members,
                    members: vec![member],
                    created: from_micros(row.created)?,
                }),
            }
        }
        Ok(clans)
    }
}

/// A `match_log` row, as selected by [`MATCH_LOG`](crate::statements::matches::MATCH_LOG).
#[derive(sqlx::FromRow)]
pub(crate) struct MatchLogRow {
    seq: i64,
    account_id: i64,
    mode: String,
    ended: i64,
    placement: i64,
    kills: i64,
    time_alive: i64,
}

impl MatchLogRow {
    /// The log entry; an unknown mode is corrupt data.
    pub(crate) fn into_entry(self) -> Result<MatchLogEntry, StoreError> {
        let mode = GameMode::parse(&self.mode).ok_or_else(|| {
            StoreError::Internal(format!(
                "match log entry {} holds an invalid mode `{}`",
                self.seq, self.mode
            ))
        })?;
        Ok(MatchLogEntry {
            seq: self.seq,
            account: AccountId(self.account_id),
            mode,
            ended: from_micros(self.ended)?,
            placement: self.placement,
            kills: self.kills,
            time_alive_secs: self.time_alive,
        })
    }
}

/// An account as the leaderboards show it, as selected by
/// [`BOARD_PLAYERS_OF`](crate::statements::matches::BOARD_PLAYERS_OF).
#[derive(sqlx::FromRow)]
pub(crate) struct BoardPlayerRow {
    id: i64,
    friend_name: String,
    friend_digits: i32,
    is_banned: bool,
}

impl BoardPlayerRow {
    /// The player; a friend code that does not parse is corrupt data.
    pub(crate) fn into_player(self) -> Result<BoardPlayer, StoreError> {
        Ok(BoardPlayer {
            account: AccountId(self.id),
            friend_code: friend_code(&self.friend_name, self.friend_digits)?,
            is_banned: self.is_banned,
        })
    }
}

/// An `account_log` row, as selected by
/// [`ACCOUNT_LOG`](crate::statements::account_log::ACCOUNT_LOG).
#[derive(sqlx::FromRow)]
pub(crate) struct AccountLogRow {
    seq: i64,
    account_id: i64,
    kind: String,
    friend_name: Option<String>,
    friend_digits: Option<i32>,
    banned: Option<bool>,
    results_through: Option<i64>,
}

impl AccountLogRow {
    /// The log entry; an unknown kind, or one without its values, is corrupt data.
    pub(crate) fn into_entry(self) -> Result<AccountLogEntry, StoreError> {
        let parts = (
            self.kind.as_str(),
            self.friend_name,
            self.friend_digits,
            self.banned,
            self.results_through,
        );
        let change = match parts {
            ("renamed", Some(name), Some(digits), _, _) => {
                AccountChange::Renamed(friend_code(&name, digits)?)
            }
            ("banned", _, _, Some(banned), _) => AccountChange::Banned(banned),
            ("deleted", _, _, _, _) => AccountChange::Deleted,
            ("results_removed", _, _, _, Some(through)) => {
                AccountChange::ResultsRemoved { through }
            }
            (kind, _, _, _, _) => {
                return Err(StoreError::Internal(format!(
                    "account log entry {} holds an invalid `{kind}` change",
                    self.seq
                )));
            }
        };
        Ok(AccountLogEntry {
            seq: self.seq,
            account: AccountId(self.account_id),
            change,
        })
    }
}

/// An `events` row, as selected by [`EVENTS_AFTER`](crate::statements::events::EVENTS_AFTER)
/// and [`RELAYED_AFTER`](crate::statements::events::RELAYED_AFTER).
#[derive(sqlx::FromRow)]
pub(crate) struct EventRow {
    id: i64,
    account_id: Option<i64>,
    payload: String,
    created: i64,
    position: Option<i64>,
}

impl EventRow {
    /// The event, and its relay position (`None`: not sequenced yet).
    pub(crate) fn into_event(
        self,
    ) -> Result<(safezone_core::events::DomainEvent, Option<i64>), StoreError> {
        let payload = safezone_core::events::EventPayload::from_json(&self.payload)
            .map_err(|err| StoreError::Internal(format!("event {}: {err}", self.id)))?;
        let event = safezone_core::events::DomainEvent {
            id: self.id,
            at: from_micros(self.created)?,
            account: self.account_id.map(AccountId),
            payload,
        };
        Ok((event, self.position))
    }

    /// The event with its relay position, which it must have.
    pub(crate) fn into_relayed(self) -> Result<safezone_core::events::RelayedEvent, StoreError> {
        let id = self.id;
        match self.into_event()? {
            (event, Some(position)) => Ok(safezone_core::events::RelayedEvent { position, event }),
            (_, None) => Err(StoreError::Internal(format!(
                "event {id}: no relay position"
            ))),
        }
    }
}

/// An `event_consumers` row, as selected by
/// [`CONSUMER`](crate::statements::events::CONSUMER).
#[derive(sqlx::FromRow)]
pub(crate) struct ConsumerRow {
    name: String,
    position: i64,
    failures: i32,
    retry_at: Option<i64>,
    error: Option<String>,
    holder: Option<String>,
    lease_until: Option<i64>,
}

impl ConsumerRow {
    /// The sink's cursor.
    pub(crate) fn into_consumer(self) -> Result<safezone_core::store::EventConsumer, StoreError> {
        Ok(safezone_core::store::EventConsumer {
            name: self.name,
            position: self.position,
            failures: u32::try_from(self.failures).unwrap_or(0),
            retry_at: self.retry_at.map(from_micros).transpose()?,
            error: self.error,
            holder: self.holder,
            lease_until: self.lease_until.map(from_micros).transpose()?,
        })
    }
}

/// A `webhook_deliveries` row, as selected by
/// [`WEBHOOK_DELIVERIES`](crate::statements::events::WEBHOOK_DELIVERIES) and
/// [`WEBHOOK_DELIVERY`](crate::statements::events::WEBHOOK_DELIVERY).
#[derive(sqlx::FromRow)]
pub(crate) struct WebhookRow {
    id: i64,
    url: String,
    first_event: i64,
    last_event: i64,
    events: i64,
    attempt: i32,
    outcome: String,
    status: Option<i32>,
    error: Option<String>,
    created: i64,
    first_position: Option<i64>,
    last_position: Option<i64>,
}

impl WebhookRow {
    /// The logged attempt.
    pub(crate) fn into_delivery(self) -> Result<safezone_core::store::WebhookDelivery, StoreError> {
        use safezone_core::store::{WebhookAttempt, WebhookDelivery, WebhookOutcome};
        let outcome = WebhookOutcome::parse(&self.outcome).ok_or_else(|| {
            StoreError::Internal(format!("webhook delivery {}: outcome", self.id))
        })?;
        Ok(WebhookDelivery {
            id: self.id,
            attempt: WebhookAttempt {
                url: self.url,
                first_event: self.first_event,
                last_event: self.last_event,
                events: self.events,
                positions: self.first_position.zip(self.last_position),
                attempt: self.attempt,
                outcome,
                status: self.status,
                error: self.error,
                at: from_micros(self.created)?,
            },
        })
    }
}

/// A `webhook_replays` row, in the columns of
/// [`webhook_replays`](crate::statements::webhook_replays).
#[derive(sqlx::FromRow)]
pub(crate) struct ReplayRow {
    id: i64,
    delivery_id: i64,
    url: String,
    first_position: i64,
    last_position: i64,
    state: String,
    failures: i32,
    retry_at: Option<i64>,
    error: Option<String>,
    requested: i64,
    updated: i64,
}

impl ReplayRow {
    /// The replay.
    pub(crate) fn into_replay(self) -> Result<safezone_core::store::WebhookReplay, StoreError> {
        use safezone_core::store::{ReplayState, WebhookReplay};
        let state = ReplayState::parse(&self.state)
            .ok_or_else(|| StoreError::Internal(format!("webhook replay {}: state", self.id)))?;
        Ok(WebhookReplay {
            id: self.id,
            delivery: self.delivery_id,
            url: self.url,
            positions: (self.first_position, self.last_position),
            state,
            failures: u32::try_from(self.failures).unwrap_or(0),
            retry_at: self.retry_at.map(from_micros).transpose()?,
            error: self.error,
            requested: from_micros(self.requested)?,
            updated: from_micros(self.updated)?,
        })
    }
}

/// An operator token as read, by [`crate::operator`] and [`crate::operator_sessions`]: id, name,
/// role, created at, revoked at.
pub(crate) type OperatorTokenRow = (i64, String, String, i64, Option<i64>);

/// The token of an [`OperatorTokenRow`]; an unknown role is corrupt data.
pub(crate) fn operator_token(row: OperatorTokenRow) -> Result<OperatorToken, StoreError> {
    let (id, name, role, created_at, revoked_at) = row;
    Ok(OperatorToken {
        id,
        name,
        role: OperatorRole::parse(&role).ok_or_else(|| {
            StoreError::Internal(format!("operator token {id} has the role `{role}`"))
        })?,
        created_at: from_micros(created_at)?,
        revoked_at: revoked_at.map(from_micros).transpose()?,
    })
}
