//! `GET /operator/api/players/{accountId}/ledger`: a player's ledger a page at a time, newest
//! first, filtered by currency, reason and time, each row with the balance after it and what
//! it bought or gave by name.

use http::Method;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::OperatorState;
use super::endpoint::{Endpoint, NoBody, Read, Reads};
use super::fields::optional_time;
use super::players::existing;
use super::views::{self, When};
use crate::content::Catalog;
use crate::http::ApiError;
use crate::http::params::{PositiveId, WholeNumber, request_parameters};
use crate::store::{AccountId, Currency, LEDGER_PAGE_MAX, LedgerCursor, LedgerEntry, LedgerFilter};

request_parameters! {
    /// The player, the filters, and where the page starts.
    pub(crate) struct LedgerQuery {
        /// The account's id
        id: PositiveId = Path "accountId",
        /// Only this currency's rows (`coins` or `gems`)
        currency: Option<String> = Query "currency",
        /// Only the rows of this reason (`buy`, `match`, `refund`, ...)
        reason: Option<String> = Query "reason",
        /// Only the rows at or after this time (RFC 3339)
        from: Option<String> = Query "from",
        /// Only the rows before this time (RFC 3339)
        until: Option<String> = Query "until",
        /// Where the page starts: the `next` of the page before
        after: Option<String> = Query "after",
        /// At most this many rows (100 unless given)
        limit: Option<WholeNumber<1, 100>> = Query "limit",
    }
}

impl LedgerQuery {
    /// The filters the query names; 400 naming the one at fault.
    fn filter(&self) -> Result<LedgerFilter, ApiError> {
        let currency = match self.currency.as_deref() {
            None => None,
            Some("coins") => Some(Currency::Coins),
            Some("gems") => Some(Currency::Gems),
            Some(_) => return Err(ApiError::invalid("currency", "must be `coins` or `gems`")),
        };
        let time = |name: &'static str, text: Option<&str>| {
            optional_time(name, text).map_err(|_| {
                ApiError::invalid(
                    name,
                    "must be an RFC 3339 time such as 2026-11-22T08:00:00Z",
                )
            })
        };
        Ok(LedgerFilter {
            currency,
            reason: self.reason.clone(),
            from: time("from", self.from.as_deref())?,
            until: time("until", self.until.as_deref())?,
        })
    }
}

/// One ledger row.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LedgerEntryView {
    /// The row's id.
    pub id: i64,
    /// When.
    pub at: When,
    /// `coins` or `gems`.
    pub currency: String,
    /// The movement (negative: spent or removed).
    pub delta: i64,
    /// The currency's balance after it.
    pub balance_after: i64,
    /// Why, as the ledger names it.
    pub reason: String,
    /// The change's reference (`item:7`, `pack:3x2`, a match, an operator's action).
    pub reference: String,
    /// The item or pack the reference names, by the name players see (`null`: none, or one
    /// the content no longer has).
    pub what: Option<String>,
}

impl LedgerEntryView {
    /// A row, its reference named from `catalog`.
    fn of(entry: &LedgerEntry, catalog: &Catalog) -> Self {
        Self {
            id: entry.id,
            at: entry.created.into(),
            currency: entry.currency.as_str().to_owned(),
            delta: entry.delta,
            balance_after: entry.balance_after,
            reason: entry.reason.clone(),
            reference: entry.reference.clone(),
            what: views::named(catalog, &entry.reference),
        }
    }

    /// The movement with its sign (`+5`, `-100`).
    pub fn signed_delta(&self) -> String {
        format!("{:+}", self.delta)
    }
}

/// One page of a ledger.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub(crate) struct LedgerAnswer {
    /// The rows, newest first.
    pub entries: Vec<LedgerEntryView>,
    /// Where the next page starts (`after`); `null` on the last page.
    pub next: Option<String>,
}

/// `GET /players/{accountId}/ledger`.
pub(crate) struct Ledger;

impl Endpoint for Ledger {
    const METHOD: Method = Method::GET;
    const PATH: &'static str = "/players/{accountId}/ledger";
    const ID: &'static str = "ledger";
    const TAG: &'static str = "players";
    const ABOUT: &'static str = "The player's ledger, newest first, a page at a time (at most \
        100), filtered by `currency`, `reason` and a time range (`from` included, `until` \
        excluded); each row with the balance after it and the item or pack its reference \
        names; `next` is the `after` of the next page; 404 `unknown_user`.";
    type Params = LedgerQuery;
    type Answer = LedgerAnswer;
}

impl Reads for Ledger {
    type Body = NoBody;

    async fn answer(
        state: OperatorState,
        call: Read<LedgerQuery>,
    ) -> Result<LedgerAnswer, ApiError> {
        let query = call.params;
        let filter = query.filter()?;
        let after = query
            .after
            .as_deref()
            .map(|text| {
                LedgerCursor::parse(text)
                    .ok_or_else(|| ApiError::invalid("after", "is not the `next` of a page"))
            })
            .transpose()?;
        let account = existing(&state, AccountId(query.id.0)).await?;
        let limit = query.limit.map_or(LEDGER_PAGE_MAX, |limit| {
            u32::try_from(limit.0).unwrap_or(LEDGER_PAGE_MAX)
        });
        let page = state
            .app
            .store
            .ledger_page(account.id, &filter, after, limit)
            .await?;
        let published = state.app.content.current();
        let catalog = &published.content.catalog;
        Ok(LedgerAnswer {
            entries: page
                .entries
                .iter()
                .map(|entry| LedgerEntryView::of(entry, catalog))
                .collect(),
            next: page.next.map(|cursor| cursor.to_string()),
        })
    }
}
