//! `GET /operator/console/players/{accountId}/ledger?currency=&reason=&from=&until=&after=`: a
//! player's whole ledger a page at a time, newest first, filtered (the API's ledger read); the
//! times typed in `datetime-local` inputs, in UTC.

use askama::Template;
use http::StatusCode;

use super::form::{local_input, rfc3339};
use super::frame::Frame;
use super::session::Session;
use super::{ConsoleState, PREFIX, response};
use crate::http::params::RequestParams;
use crate::http::{ApiError, Incoming, Reply};
use crate::operator_api::Failure;
use crate::operator_api::ledger::{Ledger, LedgerEntryView, LedgerQuery};

/// One page of a ledger, with the filters as the form shows them.
#[derive(Template)]
#[template(path = "console/ledger.html")]
struct LedgerPage {
    frame: Frame,
    id: String,
    currency: String,
    reason: String,
    from: String,
    until: String,
    entries: Vec<LedgerEntryView>,
    /// The console's address of the next (older) page.
    next: Option<String>,
    error: Option<String>,
}

/// The page the path and query name.
pub(super) async fn ledger(
    state: ConsoleState,
    session: Session,
    incoming: Incoming,
) -> Result<Reply, ApiError> {
    let id = incoming.path("accountId")?.to_owned();
    let text = |name: &str| {
        incoming
            .query
            .optional(name)
            .unwrap_or_default()
            .trim()
            .to_owned()
    };
    let [currency, reason, from, until] = ["currency", "reason", "from", "until"].map(text);
    let answer = match LedgerQuery::from_request(&incoming) {
        Ok(mut query) => {
            query.from = query.from.as_deref().map(rfc3339);
            query.until = query.until.as_deref().map(rfc3339);
            state.api.read::<Ledger>(session.secret(), &query).await
        }
        Err(error) => Err(Failure::from(error)),
    };
    let (status, entries, next, error) = match answer {
        Ok(page) => {
            let next = page.next.map(|after| {
                let query = form_urlencoded::Serializer::new(String::new())
                    .append_pair("currency", &currency)
                    .append_pair("reason", &reason)
                    .append_pair("from", &from)
                    .append_pair("until", &until)
                    .append_pair("after", &after)
                    .finish();
                format!("{PREFIX}/players/{id}/ledger?{query}")
            });
            (StatusCode::OK, page.entries, next, None)
        }
        Err(failure) => (failure.status, Vec::new(), None, Some(failure.to_string())),
    };
    Ok(response::page(
        status,
        &LedgerPage {
            frame: Frame::of(&session, &incoming),
            id,
            currency,
            reason,
            from: local_input(&rfc3339(&from)),
            until: local_input(&rfc3339(&until)),
            entries,
            next,
            error,
        },
    ))
}
