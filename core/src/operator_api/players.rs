//! `GET /operator/api/players?friendCode=|accountId=`: an account, its holdings and its ledger.

use serde_json::json;

use super::{OperatorState, auth, views};
use crate::domain::FriendCode;
use crate::http::params::{PositiveId, parameters};
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::store::{Account, AccountId};

parameters! {
    /// The player of `GET /operator/api/players`: exactly one of the two.
    struct PlayerQuery {
        /// The account's friend code (`Sneeza#0001`, `#` as `%23`)
        code: Option<FriendCode> = Query "friendCode",
        /// The account's id
        id: Option<PositiveId> = Query "accountId",
    }
}

/// The account (by friend code or id), its items and packs, and its ledger, oldest first,
/// with the coin and gem balances after each row; 404 `unknown_user` for no such account.
pub(super) async fn player(state: OperatorState, incoming: Incoming) -> Result<Reply, ApiError> {
    auth::caller(&state, &incoming).await?;
    let query = PlayerQuery::read(&incoming)?;
    let store = state.app.store.as_ref();
    let found = match (&query.code, query.id) {
        (Some(code), None) => store.account_by_friend_code(code).await?,
        (None, Some(id)) => store.account(AccountId(id.0)).await?,
        (code, id) => {
            let given = [(code.is_some(), "friendCode"), (id.is_some(), "accountId")];
            return Err(ApiError::ExactlyOneOf {
                names: &["friendCode", "accountId"],
                given: given
                    .into_iter()
                    .filter(|(is, _)| *is)
                    .map(|(_, name)| name)
                    .collect(),
            });
        }
    };
    let account = found.ok_or_else(unknown_account)?;
    let holdings = store.holdings(account.id).await?;
    let ledger = store.ledger(account.id).await?;
    let published = state.app.content.current();
    let (items, packs) = views::holdings(&published.content.catalog, &holdings);
    Ok(Reply::success(&json!({
        "account": views::account(&account),
        "items": items,
        "packs": packs,
        "ledger": views::ledger(&ledger),
    })))
}

/// 404 `unknown_user`.
pub(super) fn unknown_account() -> ApiError {
    ApiError::NotFound {
        code: ErrorCode::UnknownUser,
        message: "no account has this friend code or id".to_owned(),
    }
}

/// The account with `id`, or 404 `unknown_user`.
pub(super) async fn existing(state: &OperatorState, id: AccountId) -> Result<Account, ApiError> {
    state
        .app
        .store
        .account(id)
        .await?
        .ok_or_else(unknown_account)
}
