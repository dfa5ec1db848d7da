//! `POST /api/user/{userKey}/pack/open`: opening one unopened pack.

use super::shared::{change, session};
use crate::App;
use crate::domain::PackId;
use crate::economy::pack_opening_steps;
use crate::http::params::{WholeNumber, parameters};
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::openapi::{
    ErrorBody, IdempotencyKey, InvalidParameterOrKey, PathKeyShopForbidden, Success, UserKeyPath,
};
use change::ChangeAnswer;

parameters! {
    /// The parameters of `POST /api/user/{userKey}/pack/open` besides the key.
    struct OpenParams {
        /// The pack to open
        pack: WholeNumber<1, { i64::MAX }> = Query "packId",
    }
}

#[utoipa::path(
    post,
    path = "/api/user/{userKey}/pack/open",
    tag = "shop",
    operation_id = "openPack",
    description = "Opens one unopened pack: its drop table is rolled on the server.",
    params(
        UserKeyPath,
        OpenParams,
        IdempotencyKey,
    ),
    responses(
        (status = 200, description = "Done: the account as it is now", body = Success<ChangeAnswer>),
        (status = 400, response = InvalidParameterOrKey),
        (status = 403, response = PathKeyShopForbidden),
        (status = 404, description = "The shop has no such pack (`not_in_catalog`)", body = ErrorBody),
        (status = 409, description = "The account's state refuses it (`already_owned`, `pack_limit`, `balance_limit`, `idempotency_key_reused`, `progress_changed`, ...)", body = ErrorBody),
    )
)]
/// `POST /api/user/{userKey}/pack/open?packId=`: consumes one unopened pack, rolls its drop
/// table here on the server and gives the items (an item already owned becomes the pack's
/// duplicate coins); `{status, user, rewards}`.
pub(super) async fn open(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let published = app.content.current();
    let session = session::required(&app, &incoming).await?;
    let id = PackId(OpenParams::read(&incoming)?.pack.0);
    let catalog = &published.content.catalog;
    let pack = catalog.pack(id).ok_or_else(|| ApiError::NotFound {
        code: ErrorCode::NotInCatalog,
        message: format!("the shop has no pack {}", id.0),
    })?;
    let rolled = pack.roll(&mut rand::rng());
    let steps = pack_opening_steps(catalog, pack, &rolled);
    let outcome = change::apply(
        &app,
        &incoming.headers,
        &session,
        "pack",
        format!("open:{}", id.0),
        steps,
        change::unadjusted,
    )
    .await?;
    Ok(change::answer(&app, &session, &outcome, ()))
}
