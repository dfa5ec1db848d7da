//! `POST /api/user/{userKey}/buy`: buying an item, packs or a timed deal.

use super::change;
use super::session;
use crate::App;
use crate::domain::{DealId, ItemId, PackId};
use crate::economy::{PACKS_PER_PURCHASE_MAX, Purchase, PurchaseError, plan_purchase};
use crate::http::{ApiError, Incoming, Query, Reply};

/// The parameters that name what to buy; exactly one must be present.
const WHAT: [&str; 3] = ["itemId", "packId", "timedDealId"];

/// `POST /api/user/{userKey}/buy?quantity=&itemId=|packId=|timedDealId=`: `{status, user,
/// rewards}`.
pub(super) async fn buy(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    let purchase = purchase(&incoming.query)?;
    let quantity = incoming
        .query
        .required_number("quantity", 1..=PACKS_PER_PURCHASE_MAX)?;
    let planned =
        plan_purchase(&app.content.catalog, purchase, quantity).map_err(purchase_error)?;
    let outcome = change::apply(
        &app,
        &incoming.headers,
        &session,
        "buy",
        planned.reference,
        planned.steps,
    )
    .await?;
    change::answer(&app, &session, &outcome, ()).await
}

/// The one of `itemId`, `packId`, `timedDealId` that the request names.
fn purchase(query: &Query) -> Result<Purchase, ApiError> {
    let given: Vec<&'static str> = WHAT
        .into_iter()
        .filter(|name| query.optional(name).is_some())
        .collect();
    let [name] = given.as_slice() else {
        return Err(ApiError::ExactlyOneOf {
            names: &WHAT,
            given,
        });
    };
    let id = query
        .optional(name)
        .and_then(|value| value.parse::<i64>().ok())
        .filter(|id| *id > 0)
        .ok_or_else(|| ApiError::invalid(name, "must be a positive whole number"))?;
    Ok(match *name {
        "itemId" => Purchase::Item(ItemId(id)),
        "packId" => Purchase::Pack(PackId(id)),
        _ => Purchase::Deal(DealId(id)),
    })
}

fn purchase_error(error: PurchaseError) -> ApiError {
    match error {
        PurchaseError::Unknown(purchase) => ApiError::NotFound {
            code: "not_in_catalog",
            message: format!("the shop has no {purchase}"),
        },
        PurchaseError::NotForSale(purchase) => ApiError::Conflict {
            code: "not_for_sale",
            message: format!("{purchase} is not for sale"),
        },
        PurchaseError::QuantityMustBeOne => ApiError::invalid(
            "quantity",
            "must be 1: items are owned once and timed deals are bought once",
        ),
        PurchaseError::QuantityOutOfRange => ApiError::invalid(
            "quantity",
            format!("must be a whole number from 1 to {PACKS_PER_PURCHASE_MAX}"),
        ),
    }
}
