//! `POST /api/user/{userKey}/buy`: buying an item, packs or a timed deal.

use super::shared::change;
use super::shared::session;
use crate::App;
use crate::domain::{DealId, ItemId, PackId};
use crate::economy::{PACKS_PER_PURCHASE_MAX, Purchase, PurchaseError, plan_purchase};
use crate::hooks::Bought;
use crate::http::params::{PositiveId, WholeNumber, parameters};
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::openapi::{
    ErrorBody, IdempotencyKey, InsufficientFunds, InvalidParameterOrKey, PathKeyShopForbidden,
    Success, UserKeyPath,
};
use change::ChangeAnswer;

/// The parameters that name what to buy; exactly one must be present.
const WHAT: [&str; 3] = ["itemId", "packId", "timedDealId"];

parameters! {
    /// The parameters of `POST /api/user/{userKey}/buy` besides the key: exactly one of the
    /// three ids, and a quantity.
    struct BuyParams {
        /// The item to buy
        item: Option<PositiveId> = Query "itemId",
        /// The pack to buy
        pack: Option<PositiveId> = Query "packId",
        /// The timed deal to buy
        deal: Option<PositiveId> = Query "timedDealId",
        /// How many: 1 for an item or a deal
        quantity: WholeNumber<1, PACKS_PER_PURCHASE_MAX> = Query "quantity",
    }
}

#[utoipa::path(
    post,
    path = "/api/user/{userKey}/buy",
    tag = "shop",
    operation_id = "buy",
    description = "Buys an item, packs or a timed deal with coins or gems: exactly one of `itemId`, `packId`, `timedDealId`.",
    params(
        UserKeyPath,
        BuyParams,
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
    let published = app.content.current();
    let session = session::required(&app, &incoming).await?;
    let params = BuyParams::read(&incoming)?;
    let purchase = purchase(&params)?;
    let quantity = params.quantity.0;
    let planned = plan_purchase(
        &published.content.catalog,
        purchase,
        quantity,
        app.clock.now(),
    )
    .map_err(purchase_error)?;
    let outcome = change::apply(
        &app,
        &incoming.headers,
        &session,
        "buy",
        planned.reference,
        planned.steps,
        |change| {
            app.hooks
                .adjust_purchase(change, || Bought { purchase, quantity });
        },
    )
    .await?;
    Ok(change::answer(&app, &session, &outcome, ()))
}

/// The one of `itemId`, `packId`, `timedDealId` that the request names.
fn purchase(params: &BuyParams) -> Result<Purchase, ApiError> {
    let named = [
        params.item.map(|id| Purchase::Item(ItemId(id.0))),
        params.pack.map(|id| Purchase::Pack(PackId(id.0))),
        params.deal.map(|id| Purchase::Deal(DealId(id.0))),
    ];
    let given: Vec<&'static str> = WHAT
        .into_iter()
        .zip(&named)
        .filter_map(|(name, purchase)| purchase.is_some().then_some(name))
        .collect();
    let mut named = named.into_iter().flatten();
    match (named.next(), named.next()) {
        (Some(purchase), None) => Ok(purchase),
        _ => Err(ApiError::ExactlyOneOf {
            names: &WHAT,
            given,
        }),
    }
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
