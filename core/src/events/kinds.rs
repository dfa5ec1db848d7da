//! The events and their payloads, as stored (JSON) and delivered.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::store::{AccountId, Currency, Granted};

/// One event: what happened to an account, when, under the id consumers deduplicate by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DomainEvent {
    /// The event's id: unique, and growing in commit order for one account's events.
    pub id: i64,
    /// When the change happened.
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    /// The account it happened to (`None` for an operator action on no account).
    pub account: Option<AccountId>,
    /// What happened; its `kind` names it.
    #[serde(flatten)]
    pub payload: EventPayload,
}

/// An event with its relay position: the order the relay gave the committed events, which
/// every sink and subscriber follows. Unlike ids (which may commit out of order across
/// accounts), positions are given in increasing order to committed events only, so reading the
/// outbox after the last position seen never skips one
/// ([`SafezoneService::events_after`](crate::SafezoneService::events_after)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayedEvent {
    /// The relay position (from 1, growing).
    pub position: i64,
    /// The event.
    pub event: DomainEvent,
}

/// What the relay's follower needs of a relayed event when no subscriber needs the event
/// itself: its id, its position and the accounts whose views it changed (those it names: its
/// own, a match report's players; none for [`EventPayload::VIEWLESS_KINDS`]), whose change
/// counters it moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayedChange {
    /// The event's id.
    pub event: i64,
    /// The relay position.
    pub position: i64,
    /// The accounts whose views the event changed.
    pub accounts: Vec<AccountId>,
}

impl RelayedChange {
    /// The change the event `event` (id) at `position` of `account` tells, with its `payload`
    /// when it is a kind naming other accounts ([`EventPayload::NAMING_KINDS`]; any other
    /// payload may be left out). The caller leaves out `account` of a kind changing no view
    /// ([`EventPayload::VIEWLESS_KINDS`]).
    pub fn new(
        event: i64,
        position: i64,
        account: Option<AccountId>,
        payload: Option<&EventPayload>,
    ) -> Self {
        let accounts = match payload {
            Some(payload) => payload.accounts_concerned(account),
            None => account.into_iter().collect(),
        };
        Self {
            event,
            position,
            accounts,
        }
    }

    /// The change `relayed` tells.
    pub fn of(relayed: &RelayedEvent) -> Self {
        let payload = &relayed.event.payload;
        let viewless = EventPayload::VIEWLESS_KINDS.contains(&payload.kind());
        Self::new(
            relayed.event.id,
            relayed.position,
            relayed.event.account.filter(|_| !viewless),
            Some(payload),
        )
    }
}

/// A price paid: one currency's amount.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Price {
    /// Which currency.
    pub currency: Currency,
    /// How much.
    pub amount: i64,
}

/// One player's result in a [`EventPayload::MatchReported`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchPlayer {
    /// The player's account.
    pub account: AccountId,
    /// The player's placement (1 = won).
    pub placement: i64,
    /// The player's kills.
    pub kills: i64,
    /// Seconds the player stayed alive.
    pub time_alive_secs: i64,
    /// What the match gave the player (empty for a banned player, whose change is refused).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub granted: Vec<Drop>,
}

/// What a pack, a reward or a purchase gave: the store's [`Granted`].
pub type Drop = Granted;

/// What happened, tagged by `kind` (`account_created`, `signed_in`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventPayload {
    /// An account was created by its first sign-in.
    AccountCreated {
        /// How it signed in (`device`, `chat`, a provider's name).
        provider: String,
        /// Its friend code (`Name#1234`).
        friend_code: String,
    },
    /// An account signed in (its first sign-in too, after [`Self::AccountCreated`]).
    SignedIn {
        /// How (`device`, `chat`, a provider's name).
        provider: String,
        /// Whether this sign-in created the account.
        first_login: bool,
    },
    /// A purchase: an item, pack, deal, in-app product or reward-track pass or tiers.
    Purchase {
        /// What was bought, as the ledger names it (`buy`, `iap`, `track`).
        reason: String,
        /// Which thing (`item:7`, `pack:3x2`, `chat:tx-1`, `buy:1`).
        reference: String,
        /// What it cost (empty for a product paid in a store).
        price: Vec<Price>,
        /// What it gave.
        granted: Vec<Drop>,
    },
    /// An unopened pack was opened.
    PackOpened {
        /// Which pack (`open:3`).
        reference: String,
        /// What it gave.
        drops: Vec<Drop>,
    },
    /// A reward was claimed.
    RewardClaimed {
        /// The reward type (`first`, `gift`, `recurring`, ...).
        reward_type: String,
        /// The claim as the ledger names it (`gift`, `recurring:2`).
        reference: String,
        /// What it gave.
        granted: Vec<Drop>,
    },
    /// The account's friend code changed.
    Renamed {
        /// The new friend code (`Name#1234`).
        friend_code: String,
    },
    /// The account reached a level.
    LevelReached {
        /// The level reached.
        level: i64,
    },
    /// The account reached a tier of a reward track (its rewards were granted).
    TierReached {
        /// The track's id.
        track: i64,
        /// The tier reached.
        tier: i64,
    },
    /// A game server's match report was recorded: one event per report (not tied to one
    /// account), carrying each player's result and what it gave them.
    MatchReported {
        /// The match's id.
        match_id: String,
        /// The game mode (`solo`, `duo`, ...).
        mode: String,
        /// Each player's result, in the report's order.
        players: Vec<MatchPlayer>,
    },
    /// An operator banned (`banned: true`) or unbanned the account.
    Banned {
        /// Whether the account is banned now.
        banned: bool,
    },
    /// The account was deleted.
    Deleted,
    /// Holdings moved by an operator or the command line (`grant`, `refund`, `remove`): the
    /// operator's audit row is told by its own [`Self::OperatorAction`].
    HoldingsChanged {
        /// Why, as the ledger names it.
        reason: String,
        /// The change's reference.
        reference: String,
        /// The currencies it took.
        price: Vec<Price>,
        /// What it gave.
        granted: Vec<Drop>,
    },
    /// The account's user keys were revoked: every one (`all: true`, by the player or an
    /// operator) or the one it signed out with.
    KeysRevoked {
        /// Whether every key went.
        all: bool,
    },
    /// The account's role was set (`player`, `admin`).
    RoleChanged {
        /// The role now.
        role: String,
    },
    /// The account was linked to the chat platform, or its link's premium changed.
    ChatLinked {
        /// Whether the chat platform says it is premium.
        premium: bool,
    },
    /// The account invited another account (`invitee`) to its clan; the invitee is told too.
    ClanInvited {
        /// The clan's id.
        clan: i64,
        /// The account invited.
        invitee: AccountId,
    },
    /// The account created (`created: true`) or joined a clan.
    ClanJoined {
        /// The clan's id.
        clan: i64,
        /// Whether the account created it.
        created: bool,
    },
    /// The account asked another to be friends; the other is told too.
    FriendRequested {
        /// The account asked.
        friend: AccountId,
    },
    /// The account and another became friends: it accepted the other's request, or its
    /// request met the other's; the other is told too.
    FriendAccepted {
        /// The new friend.
        friend: AccountId,
    },
    /// The account declined another's friend request (or blocked its sender); the other is
    /// told too.
    FriendRequestDeclined {
        /// The account whose request it declined.
        friend: AccountId,
    },
    /// The account withdrew its friend request to another (or blocked the account it asked);
    /// the other is told too.
    FriendRequestCancelled {
        /// The account it had asked.
        friend: AccountId,
    },
    /// The account ended a friendship (removing the friend, or blocking it); the other is told
    /// too.
    FriendRemoved {
        /// The former friend.
        friend: AccountId,
    },
    /// The account blocked (`blocked: true`) or unblocked another. Told to the acting account
    /// only: the payload names no account to be told.
    PlayerBlocked {
        /// The account blocked or unblocked.
        player: AccountId,
        /// Whether it is blocked now.
        blocked: bool,
    },
    /// An operator acted through the operator API (one per audit row, refused ones too).
    OperatorAction {
        /// The name of the operator token's id that acted.
        token: i64,
        /// What (`grant`, `refund`, `remove`, `ban`, ...).
        action: String,
        /// On what (`account:42`).
        target: String,
        /// Why, as the operator said.
        reason: String,
        /// `done`, or `refused: why`.
        result: String,
    },
}

impl EventPayload {
    /// The event's kind, as in its JSON `kind` and the NATS subject.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::AccountCreated { .. } => "account_created",
            Self::SignedIn { .. } => "signed_in",
            Self::Purchase { .. } => "purchase",
            Self::PackOpened { .. } => "pack_opened",
            Self::RewardClaimed { .. } => "reward_claimed",
            Self::Renamed { .. } => "renamed",
            Self::LevelReached { .. } => "level_reached",
            Self::TierReached { .. } => "tier_reached",
            Self::MatchReported { .. } => "match_reported",
            Self::Banned { .. } => "banned",
            Self::Deleted => "deleted",
            Self::HoldingsChanged { .. } => "holdings_changed",
            Self::KeysRevoked { .. } => "keys_revoked",
            Self::RoleChanged { .. } => "role_changed",
            Self::ChatLinked { .. } => "chat_linked",
            Self::ClanInvited { .. } => "clan_invited",
            Self::ClanJoined { .. } => "clan_joined",
            Self::FriendRequested { .. } => "friend_requested",
            Self::FriendAccepted { .. } => "friend_accepted",
            Self::FriendRequestDeclined { .. } => "friend_request_declined",
            Self::FriendRequestCancelled { .. } => "friend_request_cancelled",
            Self::FriendRemoved { .. } => "friend_removed",
            Self::PlayerBlocked { .. } => "player_blocked",
            Self::OperatorAction { .. } => "operator_action",
        }
    }

    /// The kinds of events that change no account's view, so that no view kept in memory is
    /// read again for them: an existing account's sign-in (which writes only its event; a
    /// first sign-in comes with `account_created`).
    pub const VIEWLESS_KINDS: [&'static str; 1] = ["signed_in"];

    /// The kinds whose payload names accounts besides the event's own (what a reader of the
    /// accounts an event concerns needs the payload of).
    pub const NAMING_KINDS: [&'static str; 7] = [
        "match_reported",
        "clan_invited",
        "friend_requested",
        "friend_accepted",
        "friend_request_declined",
        "friend_request_cancelled",
        "friend_removed",
    ];

    /// The accounts an event of `account` with this payload concerns, each once: its own
    /// `account` and those the payload names (a match report's players, a clan invite's
    /// invitee, the other account of a friend request, acceptance, decline, cancellation or
    /// removal; a block names nobody: the blocked player is not told).
    pub fn accounts_concerned(&self, account: Option<AccountId>) -> Vec<AccountId> {
        let mut accounts: Vec<AccountId> = account.into_iter().collect();
        match self {
            Self::MatchReported { players, .. } => {
                accounts.extend(players.iter().map(|player| player.account));
            }
            Self::ClanInvited { invitee, .. } => accounts.push(*invitee),
            Self::FriendRequested { friend }
            | Self::FriendAccepted { friend }
            | Self::FriendRequestDeclined { friend }
            | Self::FriendRequestCancelled { friend }
            | Self::FriendRemoved { friend } => accounts.push(*friend),
            _ => {}
        }
        accounts.sort_unstable();
        accounts.dedup();
        accounts
    }

    /// Whether the payload names an account besides the event's own: its kind is one of
    /// [`NAMING_KINDS`](Self::NAMING_KINDS).
    pub fn names_others(&self) -> bool {
        Self::NAMING_KINDS.contains(&self.kind())
    }

    /// The payload as stored: its JSON object with its `kind`.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    /// A stored payload read back.
    pub fn from_json(json: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_one_flat_json_object_tagged_by_kind() {
        let event = DomainEvent {
            id: 7,
            at: time::macros::datetime!(2026-11-23 12:00 UTC),
            account: Some(AccountId(3)),
            payload: EventPayload::LevelReached { level: 4 },
        };
        let json = serde_json::to_value(&event).expect("serializes");
        assert_eq!(
            json,
            serde_json::json!({
                "id": 7, "at": "2026-11-23T12:00:00Z", "account": 3,
                "kind": "level_reached", "level": 4
            })
        );
        let back: DomainEvent = serde_json::from_value(json).expect("reads back");
        assert_eq!(back, event);
        assert_eq!(event.payload.kind(), "level_reached");
    }

    #[test]
    fn an_existing_accounts_sign_in_changes_no_view() {
        let relayed = |payload| RelayedEvent {
            position: 5,
            event: DomainEvent {
                id: 9,
                at: time::macros::datetime!(2026-11-23 12:00 UTC),
                account: Some(AccountId(3)),
                payload,
            },
        };
        let signed_in = relayed(EventPayload::SignedIn {
            provider: "device".to_owned(),
            first_login: false,
        });
        assert_eq!(RelayedChange::of(&signed_in).accounts, []);
        let leveled = relayed(EventPayload::LevelReached { level: 4 });
        assert_eq!(RelayedChange::of(&leveled).accounts, [AccountId(3)]);
    }

    #[test]
    fn friend_events_concern_the_other_account_and_blocks_nobody_else() {
        let friend = AccountId(9);
        let named = [
            EventPayload::FriendRequested { friend },
            EventPayload::FriendAccepted { friend },
            EventPayload::FriendRequestDeclined { friend },
            EventPayload::FriendRequestCancelled { friend },
            EventPayload::FriendRemoved { friend },
        ];
        for payload in &named {
            assert!(
                EventPayload::NAMING_KINDS.contains(&payload.kind()),
                "{}",
                payload.kind()
            );
            let change = RelayedChange::new(9, 4, Some(AccountId(3)), Some(payload));
            assert_eq!(change.accounts, [AccountId(3), friend]);
        }
        let block = EventPayload::PlayerBlocked {
            player: friend,
            blocked: true,
        };
        assert!(!EventPayload::NAMING_KINDS.contains(&block.kind()));
        assert_eq!(block.accounts_concerned(Some(AccountId(3))), [AccountId(3)]);
        let json = serde_json::to_value(&named[0]).expect("serializes");
        assert_eq!(
            json,
            serde_json::json!({"kind": "friend_requested", "friend": 9})
        );
    }
}
