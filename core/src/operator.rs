//! The operator's changes: coins, gems, items or packs given to an account (by friend code from
//! the command line, by id from the operator API), and any other movement of its currencies,
//! through the same atomic change and ledger as every other movement.

use std::fmt;

use time::OffsetDateTime;

use crate::content::{Content, RewardSpec};
use crate::domain::FriendCode;
use crate::economy::reward_steps;
use crate::hooks::Hooks;
use crate::store::{
    Account, AccountId, Applied, Change, Currency, Granted, NewAuditEntry, Refusal, Step, Store,
    StoreError,
};

/// What an operator gives, or takes away.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grant {
    /// Coins to give.
    pub coins: i64,
    /// Gems to give.
    pub gems: i64,
    /// Item SKUs to give (each refused if the account owns it already; stock items are owned
    /// by every account).
    pub items: Vec<String>,
    /// Pack SKUs to give, with how many of each.
    pub packs: Vec<(String, i64)>,
}

/// What the ledger rows of an operator's change say: why (`reason`) and on whose behalf
/// (`reference`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribution {
    /// The ledger rows' reason.
    pub reason: String,
    /// The ledger rows' reference.
    pub reference: String,
}

impl Attribution {
    /// The command line's grant: reason `grant`, reference `operator`.
    pub fn command_line() -> Self {
        Self {
            reason: "grant".to_owned(),
            reference: "operator".to_owned(),
        }
    }
}

/// Why a grant was not made; nothing was given.
#[derive(Debug)]
pub enum GrantError {
    /// The grant gives nothing, or a negative amount.
    Empty,
    /// No item or pack has this SKU.
    UnknownSku(String),
    /// No account has this friend code.
    UnknownAccount(FriendCode),
    /// The store refused the change (an item already owned, a limit reached, a ban).
    Refused(Refusal),
    /// The database failed.
    Store(StoreError),
}

impl fmt::Display for GrantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => {
                f.write_str("nothing to grant: give positive coins, gems, items or packs")
            }
            Self::UnknownSku(sku) => write!(f, "no item or pack has the SKU `{sku}`"),
            Self::UnknownAccount(code) => write!(f, "no account has the friend code {code}"),
            Self::Refused(refusal) => write!(f, "refused: {refusal}"),
            Self::Store(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for GrantError {}

impl From<StoreError> for GrantError {
    fn from(error: StoreError) -> Self {
        Self::Store(error)
    }
}

/// Gives `grant` to the account with friend code `to` at `now`, in one change with reason
/// `grant` and reference `operator`, once the studio's grant hook (of `hooks`) has seen it;
/// answers the account afterwards and what was given.
pub async fn grant(
    store: &dyn Store,
    content: &Content,
    to: &FriendCode,
    grant: &Grant,
    now: OffsetDateTime,
    hooks: &Hooks,
) -> Result<(Account, Vec<Granted>), GrantError> {
    let steps = grant_steps(content, grant)?;
    let account = store
        .account_by_friend_code(to)
        .await?
        .ok_or_else(|| GrantError::UnknownAccount(to.clone()))?;
    let by = Attribution::command_line();
    let mut change = change(account.id, steps, &by, now);
    hooks.adjust_grant(&mut change);
    applied(store, change, None).await
}

/// Gives `grant` to `account` at `now`, in one change whose ledger rows say `by` (with the
/// operator API's `audit` row), once the studio's grant hook (of `hooks`) has seen it; answers
/// the account afterwards and what was given (an unknown account is refused with
/// [`Refusal::NoAccount`]).
pub async fn grant_account(
    store: &dyn Store,
    content: &Content,
    (account, grant): (AccountId, &Grant),
    by: &Attribution,
    now: OffsetDateTime,
    audit: Option<&NewAuditEntry>,
    hooks: &Hooks,
) -> Result<(Account, Vec<Granted>), GrantError> {
    let steps = grant_steps(content, grant)?;
    let mut change = change(account, steps, by, now);
    hooks.adjust_grant(&mut change);
    applied(store, change, audit).await
}

/// Applies `steps` (credits, debits, grants: each with its precondition) to `account` at `now`
/// in one change whose ledger rows say `by`, all or nothing, with the operator API's `audit`
/// row when given; answers the account as the change left it (read in its transaction) and
/// what was given.
pub async fn apply(
    store: &dyn Store,
    account: AccountId,
    steps: Vec<Step>,
    by: &Attribution,
    now: OffsetDateTime,
    audit: Option<&NewAuditEntry>,
) -> Result<(Account, Vec<Granted>), GrantError> {
    applied(store, change(account, steps, by, now), audit).await
}

/// The operator's change of `steps` to `account` at `now`, attributed to `by`.
fn change(account: AccountId, steps: Vec<Step>, by: &Attribution, now: OffsetDateTime) -> Change {
    Change {
        account,
        now,
        reason: by.reason.clone(),
        reference: by.reference.clone(),
        idempotency: None,
        steps,
    }
}

/// Applies the operator's `change` with its `audit` row: the account after it and what it gave.
async fn applied(
    store: &dyn Store,
    change: Change,
    audit: Option<&NewAuditEntry>,
) -> Result<(Account, Vec<Granted>), GrantError> {
    let (applied, view) = store.apply_viewed(change, audit).await?;
    let granted = match applied {
        Applied::Done(granted) | Applied::Replayed(granted) => granted,
        Applied::Refused(refusal) => return Err(GrantError::Refused(refusal)),
    };
    let view = view.ok_or(GrantError::Refused(Refusal::NoAccount))?;
    Ok((view.account, granted))
}

/// Reads a pack to grant, `sku` or `sku:count` (count at least 1, 1 when absent).
pub fn parse_pack(text: &str) -> Result<(String, i64), String> {
    match text.split_once(':') {
        None => Ok((text.to_owned(), 1)),
        Some((sku, count)) => count
            .parse::<i64>()
            .ok()
            .filter(|count| *count >= 1)
            .map(|count| (sku.to_owned(), count))
            .ok_or_else(|| format!("`{count}` is not a count of at least 1")),
    }
}

/// The steps that take `removal` away: its coins and gems as debits, its items and packs as
/// removals, each refused when the account holds less; unknown SKUs and empty or negative
/// removals are errors.
pub fn removal_steps(content: &Content, removal: &Grant) -> Result<Vec<Step>, GrantError> {
    check_amounts(removal)?;
    let catalog = &content.catalog;
    let currencies = [
        (Currency::Coins, removal.coins),
        (Currency::Gems, removal.gems),
    ]
    .into_iter()
    .filter(|(_, amount)| *amount > 0)
    .map(|(currency, amount)| Ok(Step::Debit { currency, amount }));
    let items = removal.items.iter().map(|sku| {
        let item = catalog
            .item_by_sku(sku)
            .ok_or_else(|| GrantError::UnknownSku(sku.clone()))?;
        Ok(Step::RemoveItem { item: item.id })
    });
    let packs = removal.packs.iter().map(|(sku, quantity)| {
        let pack = catalog
            .pack_by_sku(sku)
            .ok_or_else(|| GrantError::UnknownSku(sku.clone()))?;
        Ok(Step::RemovePacks {
            pack: pack.id,
            quantity: *quantity,
        })
    });
    currencies.chain(items).chain(packs).collect()
}

/// Refuses a grant or removal that moves nothing, or a negative amount.
fn check_amounts(grant: &Grant) -> Result<(), GrantError> {
    let negative = grant.coins < 0 || grant.gems < 0 || grant.packs.iter().any(|(_, n)| *n < 1);
    let empty =
        grant.coins == 0 && grant.gems == 0 && grant.items.is_empty() && grant.packs.is_empty();
    if negative || empty {
        Err(GrantError::Empty)
    } else {
        Ok(())
    }
}

/// The steps of a grant; unknown SKUs and empty or negative grants are errors.
fn grant_steps(content: &Content, grant: &Grant) -> Result<Vec<Step>, GrantError> {
    check_amounts(grant)?;
    let catalog = &content.catalog;
    let mut rewards = Vec::new();
    if grant.coins > 0 {
        rewards.push(RewardSpec::Coins(grant.coins));
    }
    if grant.gems > 0 {
        rewards.push(RewardSpec::Gems(grant.gems));
    }
    for (sku, quantity) in &grant.packs {
        let pack = catalog
            .pack_by_sku(sku)
            .ok_or_else(|| GrantError::UnknownSku(sku.clone()))?;
        rewards.push(RewardSpec::Pack {
            pack: pack.id,
            quantity: *quantity,
        });
    }
    let mut steps = reward_steps(catalog, &rewards);
    for sku in &grant.items {
        let item = catalog
            .item_by_sku(sku)
            .ok_or_else(|| GrantError::UnknownSku(sku.clone()))?;
        if item.is_stock {
            return Err(GrantError::Refused(Refusal::AlreadyOwned(item.id)));
        }
        steps.push(Step::AddItem { item: item.id });
    }
    Ok(steps)
}
