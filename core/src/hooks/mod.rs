//! A studio's own rules over the changes of money and holdings ([`Hooks`]), registered when it
//! builds the service ([`Safezone::hooks`](crate::Safezone::hooks)).
//!
//! A hook is a plain function given the planned change, whole and not yet applied
//! ([`Planned`]), and an [`Adjustment`] to ask for more: a limit the store checks in the
//! change's transaction, more credits, the plan's credits scaled. It accepts the change
//! (`Ok(())`) or refuses it with the studio's [`Rejection`] (its code, a 403, 409 or 429, its
//! message). Hooks run after the plan is made and before the store is called, every time the
//! change is planned (again), for purchases, operator grants, reward claims, renames and each
//! player's match result.
//!
//! Whatever a hook decides, the store decides last and atomically: a refusal becomes a
//! [`Step::Reject`] placed first (so that the store still answers a repeated idempotency key
//! with its first answer, and otherwise writes nothing: no ledger row, no event, no idempotency
//! record), and a limit a [`Step::Limit`] whose claims the store records in the change's
//! transaction. A change so adjusted is never applied with other purchases in one batch: it
//! gets a transaction of its own. Without a hook for a kind of change, nothing runs and nothing
//! is allocated.

mod adjustment;
mod planned;

use std::fmt;
use std::sync::Arc;

pub use adjustment::{Adjustment, LIMIT_KEY_PREFIX, LIMIT_MAX};
pub use planned::{Bought, OperatorGrant, Planned, PlayerMatchResult, Rename, RewardClaim};

use crate::store::{Change, Rejection, Step};

/// A hook over changes about `W`: accepts the planned change (with what `Adjustment` asks) or
/// refuses it.
type Hook<W> = Arc<dyn Fn(&Planned<'_, W>, &mut Adjustment) -> Result<(), Rejection> + Send + Sync>;

/// The studio's hooks, at most one per kind of change; none by default.
///
/// ```
/// use safezone_core::hooks::Hooks;
/// use safezone_core::store::{Currency, Rejection, RejectionCode, RejectionStatus};
///
/// const DAILY_LIMIT: RejectionCode = RejectionCode::new("daily_limit");
///
/// let hooks = Hooks::new().on_purchase(|planned, adjust| {
///     let day = planned.now.date();
///     let full = Rejection::new(
///         RejectionStatus::TooManyRequests,
///         DAILY_LIMIT,
///         "at most 3 shop purchases a day",
///     );
///     adjust.limit(format!("daily-buy/{day}"), 3, full);
///     Ok(())
/// });
/// ```
#[derive(Clone, Default)]
pub struct Hooks {
    purchase: Option<Hook<Bought>>,
    grant: Option<Hook<OperatorGrant>>,
    reward_claim: Option<Hook<RewardClaim>>,
    rename: Option<Hook<Rename>>,
    match_result: Option<Hook<PlayerMatchResult>>,
}

impl Hooks {
    /// No hooks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `hook` on every shop purchase (an item, packs, a timed deal), replacing any before.
    pub fn on_purchase<F>(mut self, hook: F) -> Self
    where
        F: Fn(&Planned<'_, Bought>, &mut Adjustment) -> Result<(), Rejection>
            + Send
            + Sync
            + 'static,
    {
        self.purchase = Some(Arc::new(hook));
        self
    }

    /// Runs `hook` on every operator grant (operator API or command line), replacing any
    /// before.
    pub fn on_grant<F>(mut self, hook: F) -> Self
    where
        F: Fn(&Planned<'_, OperatorGrant>, &mut Adjustment) -> Result<(), Rejection>
            + Send
            + Sync
            + 'static,
    {
        self.grant = Some(Arc::new(hook));
        self
    }

    /// Runs `hook` on every reward claim, replacing any before.
    pub fn on_reward_claim<F>(mut self, hook: F) -> Self
    where
        F: Fn(&Planned<'_, RewardClaim>, &mut Adjustment) -> Result<(), Rejection>
            + Send
            + Sync
            + 'static,
    {
        self.reward_claim = Some(Arc::new(hook));
        self
    }

    /// Runs `hook` on every friend-code rename, replacing any before.
    pub fn on_rename<F>(mut self, hook: F) -> Self
    where
        F: Fn(&Planned<'_, Rename>, &mut Adjustment) -> Result<(), Rejection>
            + Send
            + Sync
            + 'static,
    {
        self.rename = Some(Arc::new(hook));
        self
    }

    /// Runs `hook` on each player's result of every match report, replacing any before. A
    /// refusal of one player's result refuses the whole report (nothing of it is recorded), so
    /// that a game server retrying it is answered the same.
    pub fn on_match_result<F>(mut self, hook: F) -> Self
    where
        F: Fn(&Planned<'_, PlayerMatchResult>, &mut Adjustment) -> Result<(), Rejection>
            + Send
            + Sync
            + 'static,
    {
        self.match_result = Some(Arc::new(hook));
        self
    }

    /// Adjusts the purchase `change` of what `bought` tells, if a purchase hook is registered.
    pub(crate) fn adjust_purchase(&self, change: &mut Change, bought: impl FnOnce() -> Bought) {
        adjust(self.purchase.as_ref(), change, bought);
    }

    /// Adjusts the operator's grant `change`, if a grant hook is registered.
    pub(crate) fn adjust_grant(&self, change: &mut Change) {
        adjust(self.grant.as_ref(), change, || OperatorGrant);
    }

    /// Adjusts the reward claim `change` of what `claim` tells, if a reward-claim hook is
    /// registered.
    pub(crate) fn adjust_reward_claim(
        &self,
        change: &mut Change,
        claim: impl FnOnce() -> RewardClaim,
    ) {
        adjust(self.reward_claim.as_ref(), change, claim);
    }

    /// Adjusts the rename `change` of what `rename` tells, if a rename hook is registered.
    pub(crate) fn adjust_rename(&self, change: &mut Change, rename: impl FnOnce() -> Rename) {
        adjust(self.rename.as_ref(), change, rename);
    }

    /// Adjusts a player's `change` of a match report of what `result` tells, if a match-result
    /// hook is registered.
    pub(crate) fn adjust_match_result(
        &self,
        change: &mut Change,
        result: impl FnOnce() -> PlayerMatchResult,
    ) {
        adjust(self.match_result.as_ref(), change, result);
    }
}

/// Runs `hook`, when there is one, on `change` about `what()`: its adjustment applied when it
/// accepts, its rejection placed first when it refuses.
fn adjust<W>(hook: Option<&Hook<W>>, change: &mut Change, what: impl FnOnce() -> W) {
    let Some(hook) = hook else {
        return;
    };
    let what = what();
    let mut adjustment = Adjustment::default();
    let planned = Planned {
        account: change.account,
        now: change.now,
        reason: &change.reason,
        reference: &change.reference,
        steps: &change.steps,
        what: &what,
    };
    match hook(&planned, &mut adjustment) {
        Ok(()) => adjustment.apply_to(&mut change.steps),
        Err(rejection) => change.steps.insert(0, Step::Reject(rejection)),
    }
}

impl fmt::Debug for Hooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hooks")
            .field("purchase", &self.purchase.is_some())
            .field("grant", &self.grant.is_some())
            .field("reward_claim", &self.reward_claim.is_some())
            .field("rename", &self.rename.is_some())
            .field("match_result", &self.match_result.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;
    use crate::domain::PackId;
    use crate::economy::Purchase;
    use crate::store::{AccountId, Currency, RejectionCode, RejectionStatus};

    const CLOSED: RejectionCode = RejectionCode::new("shop_closed");

    fn purchase() -> Change {
        Change {
            account: AccountId(7),
            now: datetime!(2026-11-28 10:00 UTC),
            reason: "buy".to_owned(),
            reference: "pack:2x1".to_owned(),
            idempotency: None,
            steps: vec![
                Step::Debit {
                    currency: Currency::Gems,
                    amount: 250,
                },
                Step::GrantPacks {
                    pack: PackId(2),
                    quantity: 1,
                },
            ],
        }
    }

    fn bought() -> Bought {
        Bought {
            purchase: Purchase::Pack(PackId(2)),
            quantity: 1,
        }
    }

    #[test]
    fn without_a_hook_the_plan_is_untouched_and_nothing_is_asked() {
        let mut change = purchase();
        Hooks::new().adjust_purchase(&mut change, || panic!("nothing to describe"));
        assert_eq!(change.steps, purchase().steps);
    }

    #[test]
    fn a_hook_sees_the_whole_plan_and_its_adjustment_follows_it() {
        let hooks = Hooks::new().on_purchase(|planned, adjust| {
            assert_eq!(planned.account, AccountId(7));
            assert_eq!(planned.reference, "pack:2x1");
            assert_eq!(planned.price(Currency::Gems), 250);
            assert_eq!(planned.price(Currency::Coins), 0);
            assert_eq!(planned.what.purchase, Purchase::Pack(PackId(2)));
            adjust.credit(Currency::Coins, 40);
            Ok(())
        });
        let mut change = purchase();
        hooks.adjust_purchase(&mut change, bought);
        let mut expected = purchase().steps;
        expected.push(Step::Credit {
            currency: Currency::Coins,
            amount: 40,
        });
        assert_eq!(change.steps, expected);
    }

    #[test]
    fn a_refusal_comes_first_and_drops_what_the_hook_asked() {
        let closed = Rejection::new(RejectionStatus::Forbidden, CLOSED, "closed on Sundays");
        let refusal = closed.clone();
        let hooks = Hooks::new().on_purchase(move |_, adjust| {
            adjust.credit(Currency::Coins, 40);
            Err(refusal.clone())
        });
        let mut change = purchase();
        hooks.adjust_purchase(&mut change, bought);
        let mut expected = vec![Step::Reject(closed)];
        expected.extend(purchase().steps);
        assert_eq!(change.steps, expected);
    }

    #[test]
    fn each_kind_runs_its_own_hook_only() {
        let hooks = Hooks::new().on_rename(|planned, _| {
            assert_eq!(planned.what.name, "Ana");
            Err(Rejection::new(RejectionStatus::Conflict, CLOSED, "no"))
        });
        let mut change = purchase();
        hooks.adjust_purchase(&mut change, bought);
        hooks.adjust_grant(&mut change);
        assert_eq!(change.steps, purchase().steps);
        hooks.adjust_rename(&mut change, || Rename {
            name: "Ana".to_owned(),
        });
        assert!(matches!(change.steps[0], Step::Reject(_)));
        assert_eq!(
            format!("{hooks:?}"),
            "Hooks { purchase: false, grant: false, reward_claim: false, rename: true, \
             match_result: false }"
        );
    }
}
