//! `POST /api/shop/chat/handle` and `POST /api/shop/engine/handle`: in-app purchase receipts.
//!
//! The client sends the receipt its store gave it as `{"receipt": "<text>"}`. Safezone posts the
//! same `{"receipt": ...}` to that store's verifier (the auth file's `receipts.<store>`), which
//! answers `{"valid": true, "transaction_id": "...", "product_id": "...",
//! "subscription_expires": "<RFC 3339>"|null}` or `{"valid": false, "reason": "..."}`. The
//! product is the catalog's in-app product whose SKU, Apple id or Google id is `product_id`. Its
//! rewards are granted once per store transaction: a replayed receipt grants nothing.

use serde::Deserialize;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use utoipa::ToSchema;

use super::shared::{change, session};
use crate::App;
use crate::content::{Content, IapProduct};
use crate::economy::reward_steps;
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::openapi::{ErrorBody, IdempotencyKey, Success, UserKeyRequired};
use crate::store::Step;
use change::ChangeAnswer;

/// The longest receipt accepted, in bytes.
const RECEIPT_MAX: usize = 16 * 1024;

/// `{"receipt": "<text>"}`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ReceiptBody {
    /// The receipt the store gave the client.
    #[schema(min_length = 1, max_length = 16384)]
    receipt: String,
}

/// What a verifier answers.
#[derive(Deserialize)]
struct Verdict {
    valid: bool,
    #[serde(default)]
    transaction_id: Option<String>,
    #[serde(default)]
    product_id: Option<String>,
    #[serde(default)]
    subscription_expires: Option<String>,
    #[serde(default)]
    reason: Option<String>,
}

/// `POST /api/shop/chat/handle` and `POST /api/shop/engine/handle`: an in-app purchase receipt.
#[utoipa::path(
    post,
    path = "/api/shop/chat/handle",
    tag = "shop",
    operation_id = "chatReceipt",
    description = "Verifies an in-app purchase receipt with the store's verifier and grants the product's rewards once per store transaction.",
    params(IdempotencyKey),
    request_body(content = ReceiptBody, content_type = "application/json"),
    responses(
        (status = 200, description = "Granted: the account as it is now", body = Success<ChangeAnswer>),
        (status = 400, description = "No or a bad body (`invalid_body`), a receipt the store did not confirm (`invalid_receipt`), or a bad `Idempotency-Key` (`invalid_header`)", body = ErrorBody),
        (status = 401, response = UserKeyRequired),
        (status = 403, description = "The account is banned from the shop and rewards (`account_banned`), or the keys sent open different accounts (`key_mismatch`)", body = ErrorBody),
        (status = 404, description = "The receipt is for a product the shop does not sell (`unknown_product`)", body = ErrorBody),
        (status = 409, description = "The purchase was already redeemed (`receipt_already_used`), or the account's state refuses the rewards (`balance_limit`, `pack_limit`, `idempotency_key_reused`, ...)", body = ErrorBody),
        (status = 501, description = "This store's receipt verifier is not configured (`not_configured`)", body = ErrorBody),
        (status = 502, description = "The store's receipt verifier cannot be reached (`store_unavailable`)", body = ErrorBody),
    )
)]
pub(super) async fn chat(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    handle(app, incoming, "chat").await
}

/// `POST /api/shop/engine/handle`: documented as an alias of [`chat`]'s operation.
pub(super) async fn engine(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    handle(app, incoming, "engine").await
}

/// Verifies the receipt with `store`'s verifier and grants the product once per transaction:
/// `{status, user, rewards}`.
async fn handle(app: App, incoming: Incoming, store: &str) -> Result<Reply, ApiError> {
    let published = app.content.current();
    let session = session::required(&app, &incoming).await?;
    let headers = incoming.headers.clone();
    let body: ReceiptBody = incoming.json_body().await?;
    if body.receipt.is_empty() || body.receipt.len() > RECEIPT_MAX {
        return Err(ApiError::InvalidBody {
            reason: format!("`receipt` must be 1 to {RECEIPT_MAX} bytes"),
        });
    }
    let Some(verifier) = app.auth.config.receipts.get(store) else {
        return Err(ApiError::Unconfigured {
            what: "this store's receipt verifier",
        });
    };
    let verdict = verify(&app, &verifier.verify_url, &body.receipt).await?;
    let (transaction_id, product_id, expires) = match verdict {
        Verdict {
            valid: true,
            transaction_id: Some(transaction_id),
            product_id: Some(product_id),
            subscription_expires,
            ..
        } if !transaction_id.is_empty() => (transaction_id, product_id, subscription_expires),
        Verdict { reason, .. } => {
            return Err(ApiError::InvalidReceipt {
                reason: reason.unwrap_or_else(|| "the store did not confirm it".to_owned()),
            });
        }
    };
    let product = product(&published.content, &product_id)?;
    let subscription = if product.kind == "subscription" {
        Some(subscription_end(expires.as_deref())?)
    } else {
        None
    };
    let mut steps = vec![Step::RecordPurchase {
        store: store.to_owned(),
        transaction_id: transaction_id.clone(),
        iap: product.id,
        cost_cents: product.cost_cents,
        subscription,
    }];
    steps.extend(reward_steps(&published.content.catalog, &product.rewards));
    let outcome = change::apply(
        &app,
        &headers,
        &session,
        "iap",
        format!("{store}:{transaction_id}"),
        steps,
        change::unadjusted,
    )
    .await?;
    Ok(change::answer(&app, &session, &outcome, ()))
}

/// Asks the verifier about `receipt`: 502 `store_unavailable` when it cannot be reached or
/// answers something else than a verdict.
async fn verify(app: &App, url: &str, receipt: &str) -> Result<Verdict, ApiError> {
    let unavailable = |why: String| {
        tracing::warn!(%why, "receipt verifier unavailable");
        ApiError::Upstream {
            code: ErrorCode::StoreUnavailable,
            message: "the store's receipt verifier cannot be reached; try again later".to_owned(),
        }
    };
    let answer = app
        .auth
        .http
        .post(url)
        .json(&serde_json::json!({ "receipt": receipt }))
        .send()
        .await
        .map_err(|error| unavailable(error.to_string()))?;
    if !answer.status().is_success() {
        return Err(unavailable(format!("it answered {}", answer.status())));
    }
    answer
        .json()
        .await
        .map_err(|error| unavailable(error.to_string()))
}

/// The catalog's in-app product whose SKU, Apple id or Google id is `product_id`.
fn product<'a>(content: &'a Content, product_id: &str) -> Result<&'a IapProduct, ApiError> {
    content
        .catalog
        .iaps
        .iter()
        .find(|iap| {
            iap.sku == product_id || iap.apple_id == product_id || iap.google_id == product_id
        })
        .ok_or_else(|| ApiError::NotFound {
            code: ErrorCode::UnknownProduct,
            message: format!("the receipt is for `{product_id}`, which the shop does not sell"),
        })
}

/// A subscription's end as the verifier wrote it (RFC 3339), or none.
fn subscription_end(expires: Option<&str>) -> Result<Option<OffsetDateTime>, ApiError> {
    expires
        .map(|text| {
            OffsetDateTime::parse(text, &Rfc3339).map_err(|_| ApiError::Upstream {
                code: ErrorCode::StoreUnavailable,
                message: "the store's verifier gave an unreadable subscription end".to_owned(),
            })
        })
        .transpose()
}
