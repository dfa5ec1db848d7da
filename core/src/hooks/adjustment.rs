//! What a studio's hook may change in a planned change ([`Adjustment`]): add a limit the store
//! checks in the change's transaction, add credits, scale the plan's own credits. Nothing here
//! removes a step or its precondition, and no amount becomes negative.

use crate::store::{BALANCE_MAX, Currency, Rejection, Step};

/// The most keys one limit may have: "at most this many" per period.
pub const LIMIT_MAX: u32 = 1_000;

/// The prefix of every claim key a limit records, so that a studio's keys never meet
/// Safezone's own (`first`, `deal/7`, `level/5`).
pub const LIMIT_KEY_PREFIX: &str = "hook/";

/// The changes a hook asks for, applied to the plan when the hook accepts it
/// ([`Hooks`](super::Hooks)); discarded when it refuses.
#[derive(Debug, Default)]
pub struct Adjustment {
    /// Steps added after the plan's: limits, then credits.
    added: Vec<Step>,
    /// Percentages applied to the plan's own credits of a currency, in order.
    scaled: Vec<(Currency, u32)>,
}

impl Adjustment {
    /// At most `at_most` changes per `key` for the account, ever: the change records one of the
    /// claims `hook/<key>/1` to `hook/<key>/<at_most>` in its transaction, and is refused with
    /// `rejection` when every one is recorded. Race-free: concurrent changes each need a claim
    /// of their own. Put the period in the key (`daily-buy/2026-11-28`) for "at most N per
    /// period"; `at_most` is capped at [`LIMIT_MAX`], and 0 refuses every change.
    pub fn limit(&mut self, key: impl AsRef<str>, at_most: u32, rejection: Rejection) {
        let key = key.as_ref();
        let step = match at_most.min(LIMIT_MAX) {
            0 => Step::Reject(rejection),
            at_most => Step::Limit {
                keys: (1..=at_most)
                    .map(|number| format!("{LIMIT_KEY_PREFIX}{key}/{number}"))
                    .collect(),
                rejection,
            },
        };
        self.added.push(step);
    }

    /// Gives `amount` more of `currency` with the change (its own ledger row, among the
    /// change's rewards); refused like any credit past the balance's maximum. Zero adds nothing.
    pub fn credit(&mut self, currency: Currency, amount: u32) {
        if amount > 0 {
            self.added.push(Step::Credit {
                currency,
                amount: i64::from(amount),
            });
        }
    }

    /// Scales the plan's own credits of `currency` to `percent` percent (200 doubles, 50
    /// halves), rounded down; a credit scaled to nothing is left out. The rewards of levels,
    /// quests and tiers that the change reaches (given once ever) and the hook's own
    /// [`credit`](Self::credit)s are not scaled.
    pub fn scale_credits(&mut self, currency: Currency, percent: u32) {
        self.scaled.push((currency, percent));
    }

    /// The plan `steps` as adjusted: its own credits scaled, then the added steps after it.
    pub(super) fn apply_to(self, steps: &mut Vec<Step>) {
        for (currency, percent) in self.scaled {
            steps.retain_mut(|step| match step {
                Step::Credit {
                    currency: given,
                    amount,
                } if *given == currency => {
                    *amount = scaled(*amount, percent);
                    *amount > 0
                }
                _ => true,
            });
        }
        steps.extend(self.added);
    }
}

/// `amount` times `percent` / 100, rounded down, at most [`BALANCE_MAX`].
fn scaled(amount: i64, percent: u32) -> i64 {
    let product = i128::from(amount) * i128::from(percent) / 100;
    i64::try_from(product.min(i128::from(BALANCE_MAX))).unwrap_or(BALANCE_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{RejectionCode, RejectionStatus};

    const FULL: RejectionCode = RejectionCode::new("full");

    fn rejection() -> Rejection {
        Rejection::new(RejectionStatus::TooManyRequests, FULL, "full today")
    }

    fn coins(amount: i64) -> Step {
        Step::Credit {
            currency: Currency::Coins,
            amount,
        }
    }

    #[test]
    fn a_limit_offers_one_namespaced_key_per_allowed_change() {
        let mut adjustment = Adjustment::default();
        adjustment.limit("daily-buy/2026-11-28", 3, rejection());
        let mut steps = vec![coins(10)];
        adjustment.apply_to(&mut steps);
        assert_eq!(
            steps,
            vec![
                coins(10),
                Step::Limit {
                    keys: vec![
                        "hook/daily-buy/2026-11-28/1".to_owned(),
                        "hook/daily-buy/2026-11-28/2".to_owned(),
                        "hook/daily-buy/2026-11-28/3".to_owned(),
                    ],
                    rejection: rejection(),
                },
            ]
        );
    }

    #[test]
    fn a_limit_of_none_refuses_and_a_huge_one_is_capped() {
        let mut adjustment = Adjustment::default();
        adjustment.limit("never", 0, rejection());
        adjustment.limit("often", u32::MAX, rejection());
        let mut steps = Vec::new();
        adjustment.apply_to(&mut steps);
        assert_eq!(steps[0], Step::Reject(rejection()));
        let Step::Limit { keys, .. } = &steps[1] else {
            panic!("a limit: {:?}", steps[1]);
        };
        assert_eq!(keys.len(), LIMIT_MAX as usize);
    }

    #[test]
    fn scaling_touches_the_plans_own_credits_of_one_currency_only() {
        let gems = Step::Credit {
            currency: Currency::Gems,
            amount: 5,
        };
        let level_reward = Step::Once {
            key: "level/2".to_owned(),
            steps: vec![coins(100)],
        };
        let debit = Step::Debit {
            currency: Currency::Coins,
            amount: 30,
        };
        let mut steps = vec![debit.clone(), coins(25), gems.clone(), level_reward.clone()];
        let mut adjustment = Adjustment::default();
        adjustment.scale_credits(Currency::Coins, 200);
        adjustment.credit(Currency::Coins, 7);
        adjustment.credit(Currency::Gems, 0);
        adjustment.apply_to(&mut steps);
        assert_eq!(steps, vec![debit, coins(50), gems, level_reward, coins(7)]);
    }

    #[test]
    fn a_credit_scaled_to_nothing_is_left_out_and_a_huge_one_saturates() {
        let mut steps = vec![coins(1), coins(BALANCE_MAX)];
        let mut adjustment = Adjustment::default();
        adjustment.scale_credits(Currency::Coins, 50);
        adjustment.scale_credits(Currency::Coins, u32::MAX);
        adjustment.apply_to(&mut steps);
        assert_eq!(steps, vec![coins(BALANCE_MAX)]);
    }
}
