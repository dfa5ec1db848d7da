//! What a change's handler is given and what its body must give: the call (who asks, what
//! its path names, its body, its audit row) and the operator's reason.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::store::{NewAuditEntry, OperatorToken};

/// What every change's body gives: why.
pub(crate) trait Reasoned: DeserializeOwned {
    /// The operator's reason, as sent.
    fn reason(&self) -> &str;
}

/// Implements [`Reasoned`] for bodies whose `reason` field is the operator's reason:
/// `reasoned!(GrantBody, RefundBody);`.
macro_rules! reasoned {
    ($($body:ty),+ $(,)?) => {
        $(
            impl $crate::operator_api::change_call::Reasoned for $body {
                fn reason(&self) -> &str {
                    &self.reason
                }
            }
        )+
    };
}

pub(super) use reasoned;

/// One change, as [`Changes::change`](super::endpoint::Changes::change) runs it: who asks, what its path names, its body, and
/// the audit row its store call appends with the change.
pub(crate) struct Write<P, B> {
    /// The caller's token (a full one).
    pub token: OperatorToken,
    /// Its parameters: what the path names (an account, a poll, a tournament).
    pub path: P,
    /// The body, read and with its reason checked.
    pub body: B,
    /// The audit row of the change made (`done`), which the change's store method appends in
    /// its transaction; a store method that creates what it names (a poll, a content version)
    /// completes its target.
    pub(super) audit: NewAuditEntry,
}

impl<P, B> Write<P, B> {
    /// The audit row to hand to the store method that makes the change.
    pub fn audit(&self) -> Option<&NewAuditEntry> {
        Some(&self.audit)
    }
}

/// The body of a change that gives only its reason.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReasonBody {
    /// Why, for the audit.
    pub reason: String,
}

reasoned!(ReasonBody);
