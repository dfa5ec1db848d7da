//! A planned change of an account's money and holdings, which a store applies atomically.
//!
//! Core decides what should happen (debit 120 gems, grant item 7, consume one pack 3, record the
//! claim `gift/2026-11-22T08`); [`EconomyStore::apply`](super::EconomyStore::apply) applies
//! every step in one transaction or none, checking each step's precondition inside that
//! transaction.

use std::fmt;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{AccountId, Rejection};
use crate::domain::{IapId, ItemId, PackId, TrackId};

/// The two currencies an account holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Currency {
    /// Coins, earned in play and from rewards.
    Coins,
    /// Gems, the premium currency.
    Gems,
}

impl Currency {
    /// The currency's name, as stored in the ledger and shown to clients.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Coins => "coins",
            Self::Gems => "gems",
        }
    }
}

/// The largest balance of either currency an account may hold; credits beyond it are refused.
pub const BALANCE_MAX: i64 = 1_000_000_000_000;

/// The most unopened packs of one kind an account may hold.
pub const PACKS_MAX: i64 = 1_000_000;

/// One change, applied all at once or not at all.
#[derive(Debug, Clone)]
pub struct Change {
    /// The account whose money and holdings change.
    pub account: AccountId,
    /// When the change happens.
    pub now: OffsetDateTime,
    /// Why, for the ledger: a short category such as `buy`, `pack`, `claim`, `rename`, `grant`.
    pub reason: String,
    /// What, for the ledger: the thing bought or claimed (`item:7`, `gift/2026-11-22T08`).
    pub reference: String,
    /// The client's idempotency key, when it sent one.
    pub idempotency: Option<Idempotency>,
    /// The steps, applied in order.
    pub steps: Vec<Step>,
}

/// A client's idempotency key for one request: a repeat with the same key changes nothing.
#[derive(Debug, Clone)]
pub struct Idempotency {
    /// The key the client chose (per account).
    pub key: String,
    /// What the request asked for; a repeat of the key for another request is refused.
    pub fingerprint: String,
}

/// One step of a [`Change`], with the precondition the store checks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Takes `amount` of a currency; refused when the balance is smaller.
    Debit {
        /// Which currency.
        currency: Currency,
        /// How much (positive).
        amount: i64,
    },
    /// Gives `amount` of a currency; refused past [`BALANCE_MAX`].
    Credit {
        /// Which currency.
        currency: Currency,
        /// How much (positive).
        amount: i64,
    },
    /// Adds experience points.
    AddExperience {
        /// How many (positive).
        amount: i64,
    },
    /// Gives an item (bought, or granted by an operator); refused when the account already
    /// owns it.
    AddItem {
        /// The item.
        item: ItemId,
    },
    /// Gives an item from a pack or a reward; an item already owned (or owned by everyone)
    /// becomes `duplicate_coins` coins instead.
    GrantItem {
        /// The item.
        item: ItemId,
        /// Coins given instead when the account already owns the item.
        duplicate_coins: i64,
        /// Whether every account owns the item already (a stock item).
        owned_by_everyone: bool,
    },
    /// Gives unopened packs; refused past [`PACKS_MAX`].
    GrantPacks {
        /// The pack.
        pack: PackId,
        /// How many (positive).
        quantity: i64,
    },
    /// Takes an item away (an operator's removal); refused when the account does not own it.
    RemoveItem {
        /// The item.
        item: ItemId,
    },
    /// Takes unopened packs away (an operator's removal); refused when the account holds
    /// fewer.
    RemovePacks {
        /// The pack.
        pack: PackId,
        /// How many (positive).
        quantity: i64,
    },
    /// Consumes one unopened pack; refused when the account has none.
    OpenPack {
        /// The pack.
        pack: PackId,
    },
    /// Records the first of `keys` not yet recorded for the account; refused when all are.
    Claim {
        /// Claim keys in order of preference (`first`, `gift/2026-11-22T08`, `recurring/2026-11-22/2`).
        keys: Vec<String>,
    },
    /// Refused unless the change happens within `[starts, ends)` (a timed deal's window).
    RequireWindow {
        /// When the window opens.
        starts: OffsetDateTime,
        /// When it closes.
        ends: OffsetDateTime,
    },
    /// Refused unless the account's linked chat-platform account has a premium subscription.
    RequirePremium,
    /// Records an in-app purchase verified by its store; refused when that store transaction
    /// was recorded before (for any account).
    RecordPurchase {
        /// The store (`chat`, `engine`).
        store: String,
        /// The store's transaction id.
        transaction_id: String,
        /// The product bought.
        iap: IapId,
        /// What it cost, in cents.
        cost_cents: i64,
        /// For a subscription: when it ends (`None` for a one-off product, or a subscription
        /// without an end the store told).
        subscription: Option<Option<OffsetDateTime>>,
    },
    /// Renames the friend code to `name` with the first of `digits` free for that name;
    /// refused when the name is the current one or every one is taken.
    ChangeFriendCode {
        /// The new name.
        name: String,
        /// Digits in order of preference.
        digits: Vec<u16>,
    },
    /// Refused unless the account's progress version is still `version` (the one the plan was
    /// made from), and moves it on: a change planned from progress that another change has
    /// since moved is refused as [`Refusal::Stale`], to be planned again.
    RequireProgressVersion {
        /// The progress version the plan was made from.
        version: i64,
    },
    /// Sets a progress counter (`quest/12`, `challenge/3`, `track/1/stars`) to `value`.
    SetProgress {
        /// The counter's key.
        counter: String,
        /// Its new value.
        value: i64,
    },
    /// Sets the account's level.
    SetLevel {
        /// The new level.
        level: i64,
    },
    /// Records `key` as a claim and applies `steps` if the key is new; skips them (without
    /// refusing) when the key was recorded before. For grants that must happen once ever:
    /// a level's rewards (`level/5`), a completed quest (`quest/12`), a track tier
    /// (`track/1/tier/4`).
    Once {
        /// The claim key.
        key: String,
        /// What to apply the first time.
        steps: Vec<Step>,
    },
    /// Gives the account a reward track's premium pass; refused when it owns it.
    GrantTrackPass {
        /// The track.
        track: TrackId,
    },
    /// A studio's limit (added by its hook, [`crate::hooks`]): records the first of `keys` not
    /// yet recorded for the account, as [`Step::Claim`] does; refused with the studio's
    /// `rejection` when all are.
    Limit {
        /// Claim keys in order (`hook/daily-buy/2026-11-28/1`, `.../2`, ...).
        keys: Vec<String>,
        /// What the refusal answers.
        rejection: Rejection,
    },
    /// A studio's refusal (its hook refused the change, [`crate::hooks`]): always refused with
    /// `rejection`, after a repeated idempotency key is recognized, so that a repeat of a
    /// request done before is still answered as done.
    Reject(Rejection),
}

/// What a step gave the account; the rewards of an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "granted", rename_all = "snake_case")]
pub enum Granted {
    /// Currency.
    Currency {
        /// Which currency.
        currency: Currency,
        /// How much.
        amount: i64,
    },
    /// Experience points.
    Experience {
        /// How many.
        amount: i64,
    },
    /// A newly owned item.
    Item {
        /// The item.
        item: ItemId,
    },
    /// Coins given in place of an item the account already owned.
    DuplicateItem {
        /// The item already owned.
        item: ItemId,
        /// The coins given instead.
        coins: i64,
    },
    /// Unopened packs.
    Packs {
        /// The pack.
        pack: PackId,
        /// How many.
        quantity: i64,
    },
}

/// How [`EconomyStore::apply`](super::EconomyStore::apply) ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// Every step was applied; what they gave.
    Done(Vec<Granted>),
    /// The idempotency key was used before for the same request: nothing changed now; what the
    /// first application gave.
    Replayed(Vec<Granted>),
    /// A precondition failed; nothing changed.
    Refused(Refusal),
}

/// The precondition that stopped a [`Change`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The account does not exist (any more).
    NoAccount,
    /// An operator banned the account.
    Banned,
    /// The idempotency key was used before for a different request.
    IdempotencyKeyReused,
    /// The balance is smaller than the debit.
    InsufficientFunds {
        /// Which currency.
        currency: Currency,
        /// The debit.
        needed: i64,
        /// The balance when the change was tried.
        balance: i64,
    },
    /// The credit would take the balance past [`BALANCE_MAX`].
    BalanceLimit {
        /// Which currency.
        currency: Currency,
    },
    /// The account already owns the item.
    AlreadyOwned(ItemId),
    /// The grant would take the account past [`PACKS_MAX`] unopened packs of this kind.
    PackLimit(PackId),
    /// The account has no unopened pack of this kind.
    NoPackToOpen(PackId),
    /// The account does not own the item to remove.
    NotOwned(ItemId),
    /// The account holds fewer unopened packs of this kind than the removal takes.
    NotEnoughPacks {
        /// The pack.
        pack: PackId,
        /// How many the removal takes.
        quantity: i64,
    },
    /// Every offered claim key is already recorded.
    AlreadyClaimed,
    /// The change happens outside the window it needs.
    OutsideWindow {
        /// When the window opens.
        starts: OffsetDateTime,
        /// When it closes.
        ends: OffsetDateTime,
    },
    /// The store transaction was recorded before.
    ReceiptAlreadyUsed,
    /// The account has no linked chat-platform account.
    NoChatLink,
    /// The linked chat-platform account has no premium subscription.
    NotPremium,
    /// The friend code already has exactly this name.
    SameFriendCodeName,
    /// Every offered friend code for the name is taken.
    FriendCodeTaken,
    /// The account's progress moved since the change was planned; plan it again.
    Stale,
    /// The account already owns the reward track's pass.
    TrackAlreadyOwned(TrackId),
    /// A studio's hook refused the change, or its limit is reached.
    Rejected(Rejection),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoAccount => f.write_str("the account does not exist"),
            Self::Banned => f.write_str("the account is banned"),
            Self::IdempotencyKeyReused => {
                f.write_str("the idempotency key was used for another request")
            }
            Self::InsufficientFunds {
                currency,
                needed,
                balance,
            } => write!(
                f,
                "needs {needed} {currency} and the account has {balance}",
                currency = currency.as_str()
            ),
            Self::BalanceLimit { currency } => {
                write!(
                    f,
                    "the {} balance would pass its maximum",
                    currency.as_str()
                )
            }
            Self::AlreadyOwned(item) => write!(f, "the account already owns item {}", item.0),
            Self::PackLimit(pack) => {
                write!(
                    f,
                    "the account would hold more than the maximum of pack {}",
                    pack.0
                )
            }
            Self::NoPackToOpen(pack) => write!(f, "the account has no unopened pack {}", pack.0),
            Self::NotOwned(item) => write!(f, "the account does not own item {}", item.0),
            Self::NotEnoughPacks { pack, quantity } => write!(
                f,
                "the account holds fewer than {quantity} unopened packs {}",
                pack.0
            ),
            Self::AlreadyClaimed => f.write_str("already claimed"),
            Self::OutsideWindow { starts, ends } => {
                write!(f, "only possible from {starts} to {ends}")
            }
            Self::ReceiptAlreadyUsed => f.write_str("the store transaction was already used"),
            Self::NoChatLink => f.write_str("the account has no linked chat-platform account"),
            Self::NotPremium => f.write_str("the linked chat-platform account is not premium"),
            Self::SameFriendCodeName => f.write_str("the friend code already has this name"),
            Self::FriendCodeTaken => f.write_str("every friend code with this name is taken"),
            Self::Stale => f.write_str("the account's progress changed meanwhile"),
            Self::TrackAlreadyOwned(track) => {
                write!(f, "the account already owns reward track {}", track.0)
            }
            Self::Rejected(rejection) => write!(f, "{rejection}"),
        }
    }
}
