//! Many changes applied as batches of rows rather than step by step: what the [`Step`]s of
//! every change write, gathered per table, so that one transaction sends a fixed number of
//! statements whatever its number of changes: a match report's changes for its players
//! ([`matches`](crate::matches) sends them), and the concurrent purchases of many accounts
//! ([`purchases`](crate::purchases)).
//!
//! The outcome is the one applying the changes one step at a time, in account order, would
//! have: the same rows, the same grants, and the same first refusal. A [`Step::Once`]'s claims
//! are recorded in waves, one statement per level of nesting ([`Batch::walk`]); what is left
//! are steps whose preconditions the statements check for a whole table at once (a balance or
//! a pack count that only grows is within its limit after every step when it is after the
//! last), and a statement refusing a row is traced back to the first step it refuses
//! ([`AccountWrite::first_refusal`], [`PackWrite::first_refusal`]).

use std::collections::{BTreeMap, HashMap, HashSet};

use safezone_core::store::{BALANCE_MAX, Change, Currency, Granted, PACKS_MAX, Refusal, Step};

use crate::micros::to_micros;

/// A step's place in the order the changes would be applied one by one (accounts in id order,
/// each account's steps in order): the first refusal in this order is the report's.
pub(crate) type Position = usize;

/// An account's claim key, as recorded in `claims`.
pub(crate) type ClaimKey<'c> = (i64, &'c str);

/// The changes of one report in account order (stable: one account's changes keep theirs).
pub(crate) struct Batch<'c> {
    changes: Vec<(usize, &'c Change)>,
}

/// What a walk through the steps found: claims to record before the walk can go on, or every
/// step that writes.
pub(crate) enum Walk<'c> {
    /// Claims of [`Step::Once`]s not recorded yet, with when (the change's time).
    Claims(Vec<(ClaimKey<'c>, i64)>),
    /// Every step that writes, in order, once every claim is known.
    Leaves(Vec<Leaf<'c>>),
}

/// A step that writes (not a [`Step::Once`]) and the change it belongs to.
pub(crate) struct Leaf<'c> {
    change: usize,
    account: i64,
    step: &'c Step,
}

impl<'c> Batch<'c> {
    /// The changes, or `None` when one has a step the batch does not apply (then they are
    /// applied one step at a time): the steps a match plan makes are applied.
    pub(crate) fn new(changes: &'c [Change]) -> Option<Self> {
        Self::when(changes, batched)
    }

    /// The changes, or `None` unless every step of every one is a purchase's: a debit, an item
    /// bought or packs given. Each account then only pays, so a balance that covers the sum of
    /// its debits covers each one.
    pub(crate) fn purchases(changes: &'c [Change]) -> Option<Self> {
        Self::when(changes, |steps| steps.iter().all(is_purchase_step))
    }

    /// The changes in account order, or `None` when `accepted` refuses the steps of one.
    fn when(changes: &'c [Change], accepted: impl Fn(&[Step]) -> bool) -> Option<Self> {
        if !changes.iter().all(|change| accepted(&change.steps)) {
            return None;
        }
        let mut in_order: Vec<(usize, &Change)> = changes.iter().enumerate().collect();
        in_order.sort_by_key(|(_, change)| change.account.0);
        Some(Self { changes: in_order })
    }

    /// Walks every step in order, into the [`Step::Once`]s whose claims `claims` tells (`true`:
    /// recorded now, so applied); stops at each one it does not know yet.
    pub(crate) fn walk(&self, claims: &HashMap<ClaimKey<'c>, bool>) -> Walk<'c> {
        let mut walk = Walker {
            claims,
            seen: HashSet::new(),
            unknown: Vec::new(),
            leaves: Vec::new(),
        };
        for (index, change) in &self.changes {
            walk.visit(*index, change, &change.steps);
        }
        if walk.unknown.is_empty() {
            Walk::Leaves(walk.leaves)
        } else {
            Walk::Claims(walk.unknown)
        }
    }
}

/// Whether the batch applies every one of `steps`.
fn batched(steps: &[Step]) -> bool {
    steps.iter().all(|step| match step {
        Step::Once { steps, .. } => batched(steps),
        Step::Credit { amount, .. } => *amount >= 0,
        Step::GrantPacks { quantity, .. } => *quantity >= 0,
        Step::AddExperience { .. }
        | Step::GrantItem { .. }
        | Step::RequireProgressVersion { .. }
        | Step::SetProgress { .. }
        | Step::SetLevel { .. }
        | Step::GrantTrackPass { .. } => true,
        Step::Debit { .. }
        | Step::AddItem { .. }
        | Step::OpenPack { .. }
        | Step::RemoveItem { .. }
        | Step::RemovePacks { .. }
        | Step::Claim { .. }
        | Step::RequireWindow { .. }
        | Step::RequirePremium
        | Step::RecordPurchase { .. }
        | Step::ChangeFriendCode { .. }
        | Step::Limit { .. }
        | Step::Reject(_) => false,
    })
}

/// Whether `step` is one a shop purchase makes ([`Batch::purchases`]).
pub(crate) fn is_purchase_step(step: &Step) -> bool {
    match step {
        Step::Debit { amount, .. } => *amount >= 0,
        Step::GrantPacks { quantity, .. } => *quantity >= 0,
        Step::AddItem { .. } => true,
        _ => false,
    }
}

/// One walk through the steps.
struct Walker<'w, 'c> {
    claims: &'w HashMap<ClaimKey<'c>, bool>,
    /// The claims met so far: a claim met again is skipped, as its record would be found.
    seen: HashSet<ClaimKey<'c>>,
    unknown: Vec<(ClaimKey<'c>, i64)>,
    leaves: Vec<Leaf<'c>>,
}

impl<'c> Walker<'_, 'c> {
    fn visit(&mut self, index: usize, change: &'c Change, steps: &'c [Step]) {
        let account = change.account.0;
        for step in steps {
            let Step::Once { key, steps } = step else {
                self.leaves.push(Leaf {
                    change: index,
                    account,
                    step,
                });
                continue;
            };
            let claim = (account, key.as_str());
            if !self.seen.insert(claim) {
                continue;
            }
            match self.claims.get(&claim) {
                Some(true) => self.visit(index, change, steps),
                Some(false) => {}
                None => self.unknown.push((claim, to_micros(change.now))),
            }
        }
    }
}

/// The items the leaves give as licenses, `(account, item, when)`: the first grant or
/// purchase of each account's item that not everyone owns (any later one finds it given).
pub(crate) fn licenses(leaves: &[Leaf<'_>], changes: &[Change]) -> Vec<(i64, i64, i64)> {
    let mut first = HashSet::new();
    leaves
        .iter()
        .filter_map(|leaf| {
            let item = match leaf.step {
                Step::GrantItem {
                    item,
                    owned_by_everyone: false,
                    ..
                }
                | Step::AddItem { item } => item,
                _ => return None,
            };
            first
                .insert((leaf.account, item.0))
                .then(|| (leaf.account, item.0, to_micros(changes[leaf.change].now)))
        })
        .collect()
}

/// An account's row as the report leaves it: the sums and last values of its steps, and the
/// steps whose preconditions its statement checks.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct AccountWrite {
    /// The progress version the first [`Step::RequireProgressVersion`] requires.
    pub(crate) version: Option<i64>,
    /// How many times the progress version moves on.
    pub(crate) versions: i64,
    /// Experience added.
    pub(crate) experience: i64,
    /// The level set last.
    pub(crate) level: Option<i64>,
    /// Coins credited, less those debited.
    pub(crate) coins: i64,
    /// Gems credited, less those debited.
    pub(crate) gems: i64,
    checks: Vec<(Position, AccountCheck)>,
}

/// A precondition on an account's row.
#[derive(Debug, PartialEq, Eq)]
enum AccountCheck {
    Version(i64),
    Credit(Currency, i64),
    Debit(Currency, i64),
}

impl AccountWrite {
    /// The first step the account's row refuses, from the row's progress version, coins and
    /// gems before the batch.
    pub(crate) fn first_refusal(
        &self,
        version: i64,
        coins: i64,
        gems: i64,
    ) -> Option<(Position, Refusal)> {
        let mut balances = [coins, gems];
        self.checks.iter().find_map(|(position, check)| {
            let refusal = match check {
                AccountCheck::Version(expected) => (*expected != version).then_some(Refusal::Stale),
                AccountCheck::Credit(currency, amount) => {
                    let balance = &mut balances[usize::from(*currency == Currency::Gems)];
                    *balance = balance.saturating_add(*amount);
                    (*balance > BALANCE_MAX).then_some(Refusal::BalanceLimit {
                        currency: *currency,
                    })
                }
                AccountCheck::Debit(currency, amount) => {
                    let balance = &mut balances[usize::from(*currency == Currency::Gems)];
                    if *balance < *amount {
                        Some(Refusal::InsufficientFunds {
                            currency: *currency,
                            needed: *amount,
                            balance: *balance,
                        })
                    } else {
                        *balance -= amount;
                        None
                    }
                }
            };
            refusal.map(|refusal| (*position, refusal))
        })
    }
}

/// The packs of one kind an account is given: their total, and each grant's place and
/// quantity.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct PackWrite {
    /// How many packs in all.
    pub(crate) total: i64,
    grants: Vec<(Position, i64)>,
}

impl PackWrite {
    /// The first grant past [`PACKS_MAX`] from `stock` packs before the report.
    pub(crate) fn first_refusal(&self, stock: i64) -> Option<Position> {
        let mut stock = stock;
        self.grants.iter().find_map(|(position, quantity)| {
            stock = stock.saturating_add(*quantity);
            (stock > PACKS_MAX).then_some(*position)
        })
    }
}

/// A currency movement, for its ledger row.
pub(crate) struct Movement<'c> {
    change: &'c Change,
    account: i64,
    currency: Currency,
    delta: i64,
}

/// A ledger row to write.
pub(crate) struct LedgerRow<'c> {
    pub(crate) account: i64,
    pub(crate) currency: &'static str,
    pub(crate) delta: i64,
    pub(crate) balance_after: i64,
    pub(crate) reason: &'c str,
    pub(crate) reference: &'c str,
    pub(crate) created: i64,
}

/// Everything the leaves write, per table, and what they grant.
#[derive(Default)]
pub(crate) struct Plan<'c> {
    /// What each change grants, in the order the changes were given.
    pub(crate) granted: Vec<Vec<Granted>>,
    /// Every account's row: the players' and the changed accounts', by id.
    pub(crate) accounts: BTreeMap<i64, AccountWrite>,
    /// Packs given, by account and pack.
    pub(crate) packs: BTreeMap<(i64, i64), PackWrite>,
    /// Track passes given, `(account, track, when, place)`.
    pub(crate) passes: Vec<(i64, i64, i64, Position)>,
    /// Progress counters set, by account and counter.
    pub(crate) counters: BTreeMap<(i64, &'c str), i64>,
    /// Refusals known without asking the database.
    pub(crate) refusals: Vec<(Position, i64, Refusal)>,
    movements: Vec<Movement<'c>>,
}

impl<'c> Plan<'c> {
    /// Plans the leaves of `changes` for the accounts `players` (and the changed ones), given
    /// the licenses just recorded (`(account, item)`).
    pub(crate) fn new(
        changes: &'c [Change],
        players: impl IntoIterator<Item = i64>,
        leaves: &[Leaf<'c>],
        licensed: &HashSet<(i64, i64)>,
    ) -> Self {
        let mut plan = Plan {
            granted: vec![Vec::new(); changes.len()],
            accounts: players
                .into_iter()
                .chain(changes.iter().map(|change| change.account.0))
                .map(|account| (account, AccountWrite::default()))
                .collect(),
            ..Plan::default()
        };
        let mut items_given = HashSet::new();
        let mut passes_given = HashSet::new();
        for (position, leaf) in leaves.iter().enumerate() {
            let change = &changes[leaf.change];
            let account = leaf.account;
            let granted = match leaf.step {
                Step::RequireProgressVersion { version } => {
                    let row = plan.row(account);
                    match row.version {
                        None => {
                            row.version = Some(*version);
                            row.checks.push((position, AccountCheck::Version(*version)));
                        }
                        Some(first) if first.saturating_add(row.versions) != *version => {
                            plan.refusals.push((position, account, Refusal::Stale));
                        }
                        Some(_) => {}
                    }
                    plan.row(account).versions += 1;
                    None
                }
                Step::AddExperience { amount } => {
                    let row = plan.row(account);
                    row.experience = row.experience.saturating_add(*amount);
                    Some(Granted::Experience { amount: *amount })
                }
                Step::SetProgress { counter, value } => {
                    plan.counters.insert((account, counter.as_str()), *value);
                    None
                }
                Step::SetLevel { level } => {
                    plan.row(account).level = Some(*level);
                    None
                }
                Step::Credit { currency, amount } => {
                    plan.move_currency(change, account, *currency, *amount, position);
                    (*amount != 0).then_some(Granted::Currency {
                        currency: *currency,
                        amount: *amount,
                    })
                }
                Step::Debit { currency, amount } => {
                    plan.move_currency(change, account, *currency, -amount, position);
                    None
                }
                Step::AddItem { item } => {
                    if items_given.insert((account, item.0))
                        && licensed.contains(&(account, item.0))
                    {
                        Some(Granted::Item { item: *item })
                    } else {
                        plan.refusals
                            .push((position, account, Refusal::AlreadyOwned(*item)));
                        None
                    }
                }
                Step::GrantItem {
                    item,
                    duplicate_coins,
                    owned_by_everyone,
                } => {
                    if !owned_by_everyone
                        && items_given.insert((account, item.0))
                        && licensed.contains(&(account, item.0))
                    {
                        Some(Granted::Item { item: *item })
                    } else {
                        if *duplicate_coins > 0 {
                            plan.move_currency(
                                change,
                                account,
                                Currency::Coins,
                                *duplicate_coins,
                                position,
                            );
                        }
                        Some(Granted::DuplicateItem {
                            item: *item,
                            coins: *duplicate_coins,
                        })
                    }
                }
                Step::GrantPacks { pack, quantity } => {
                    if *quantity > PACKS_MAX {
                        plan.refusals
                            .push((position, account, Refusal::PackLimit(*pack)));
                    }
                    let write = plan.packs.entry((account, pack.0)).or_default();
                    write.total = write.total.saturating_add(*quantity);
                    write.grants.push((position, *quantity));
                    Some(Granted::Packs {
                        pack: *pack,
                        quantity: *quantity,
                    })
                }
                Step::GrantTrackPass { track } => {
                    if passes_given.insert((account, track.0)) {
                        plan.passes
                            .push((account, track.0, to_micros(change.now), position));
                    } else {
                        plan.refusals
                            .push((position, account, Refusal::TrackAlreadyOwned(*track)));
                    }
                    None
                }
                // Walked into, never a leaf; the rest is never batched (`Batch::when`).
                _ => None,
            };
            plan.granted[leaf.change].extend(granted);
        }
        plan
    }

    fn row(&mut self, account: i64) -> &mut AccountWrite {
        self.accounts.entry(account).or_default()
    }

    /// Moves `delta` of `currency` (negative: a debit): a ledger row, and the limit (a credit)
    /// or the balance (a debit) to check.
    fn move_currency(
        &mut self,
        change: &'c Change,
        account: i64,
        currency: Currency,
        delta: i64,
        position: Position,
    ) {
        if delta == 0 {
            return;
        }
        let row = self.row(account);
        let total = match currency {
            Currency::Coins => &mut row.coins,
            Currency::Gems => &mut row.gems,
        };
        *total = total.saturating_add(delta);
        let check = if delta > 0 {
            AccountCheck::Credit(currency, delta)
        } else {
            AccountCheck::Debit(currency, -delta)
        };
        row.checks.push((position, check));
        self.movements.push(Movement {
            change,
            account,
            currency,
            delta,
        });
    }

    /// The ledger rows, in the order the steps would have written them, from each account's
    /// `(coins, gems)` after the report.
    pub(crate) fn ledger(&self, balances: &HashMap<i64, (i64, i64)>) -> Vec<LedgerRow<'c>> {
        let mut running: HashMap<(i64, Currency), i64> = HashMap::new();
        self.movements
            .iter()
            .map(|movement| {
                let balance = running
                    .entry((movement.account, movement.currency))
                    .or_insert_with(|| {
                        let (coins, gems) =
                            balances.get(&movement.account).copied().unwrap_or_default();
                        let row = &self.accounts[&movement.account];
                        match movement.currency {
                            Currency::Coins => coins - row.coins,
                            Currency::Gems => gems - row.gems,
                        }
                    });
                *balance += movement.delta;
                LedgerRow {
                    account: movement.account,
                    currency: movement.currency.as_str(),
                    delta: movement.delta,
                    balance_after: *balance,
                    reason: &movement.change.reason,
                    reference: &movement.change.reference,
                    created: to_micros(movement.change.now),
                }
            })
            .collect()
    }
}
