//! The friend-code rules (`[friend_code]`).

use serde::Deserialize;
use toml::Spanned;

use super::price::MAX_PRICE;
use super::{ContentError, Locate};

/// How friend codes may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FriendCodeRules {
    /// The gems a change of friend code costs, 0 to 1 000 000 000.
    pub rename_cost_gems: i64,
}

/// `[friend_code]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FriendCodeSection {
    rename_cost_gems: Spanned<i64>,
}

impl FriendCodeSection {
    pub(super) fn validate(self, locate: &Locate<'_>) -> Result<FriendCodeRules, ContentError> {
        let rename_cost_gems = self.rename_cost_gems.get_ref();
        if (0..=MAX_PRICE).contains(rename_cost_gems) {
            Ok(FriendCodeRules {
                rename_cost_gems: *rename_cost_gems,
            })
        } else {
            Err(locate(
                self.rename_cost_gems.span(),
                "friend_code.rename_cost_gems",
                format!("{rename_cost_gems} is out of range; write 0 to {MAX_PRICE}"),
            ))
        }
    }
}
