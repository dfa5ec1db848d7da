//! `POST /api/user/{userKey}/buy`: buying an item, packs or a timed deal.

use super::shared::change;
use super::shared::session;
use crate::App;
use crate::domain::{DealId, ItemId, PackId};
use crate::economy::{PACKS_PER_PURCHASE_MAX, Purchase, PurchaseError, plan_purchase};
use crate::http::{ApiError, ErrorCode, Incoming, Query, Reply};
use crate::openapi::{
    ErrorBody, IdempotencyKey, InsufficientFunds, InvalidParameterOrKey, PathKeyShopForbidden,
    Success, UserKeyPath,
};
use change::ChangeAnswer;

/// The parameters that name what to buy; exactly one must be present.
const WHAT: [&str; 3] = ["itemId", "packId", "timedDealId"];

#[utoipa::path(
    post,
    path = "/api/user/{userKey}/buy",
    tag = "shop",
    operation_id = "buy",
    description = "Buys an item, packs or a timed deal with coins or gems: exactly one of `itemId`, `packId`, `timedDealId`.",
    params(
        UserKeyPath,
        ("itemId" = Option<i64>, Query, description = "The item to buy", minimum = 1),
        ("packId" = Option<i64>, Query, description = "The pack to buy", minimum = 1),
        ("timedDealId" = Option<i64>, Query, description = "The timed deal to buy", minimum = 1),
        ("quantity" = i64, Query, description = "How many: 1 for an item or a deal", minimum = 1, maximum = 100),
        IdempotencyKey,
    ),
    responses(
        (status = 200, description = "Done: the account as it is now", body = Success<ChangeAnswer>),
        (status = 400, response = InvalidParameterOrKey),
        (status = 403, response = PathKeyShopForbidden),
        (status = 402, response = InsufficientFunds),
        (status = 404, description = "The shop has no such item, pack or deal (`not_in_catalog`)", body = ErrorBody),
        (status = 409, description = "The account's state refuses it (`already_owned`, `pack_limit`, `balance_limit`, `idempotency_key_reused`, `progress_changed`, ...)", body = ErrorBody),
    )
)]
/// `POST /api/user/{userKey}/buy?quantity=&itemId=|packId=|timedDealId=`: `{status, user,
/// rewards}`.
pub(super) async fn buy(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    let purchase = purchase(&incoming.query)?;
    let quantity = incoming
        .query
        .required_number("quantity", 1..=PACKS_PER_PURCHASE_MAX)?;
    let planned = plan_purchase(&app.content.catalog, purchase, quantity, app.clock.now())
        .map_err(purchase_error)?;
    let outcome = change::apply(
        &app,
        &incoming.headers,
        &session,
        "buy",
        planned.reference,
        planned.steps,
    )
    .await?;
    Ok(change::answer(&app, &session, &outcome, ()))
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
            code: ErrorCode::NotInCatalog,
            message: format!("the shop has no {purchase}"),
        },
        PurchaseError::NotForSale(purchase) => ApiError::Conflict {
            code: ErrorCode::NotForSale,
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
