//! `POST /api/user/{userKey}/pack/open`: opening one unopened pack.

use super::{change, session};
use crate::App;
use crate::domain::PackId;
use crate::economy::pack_opening_steps;
use crate::http::{ApiError, Incoming, Reply};

/// `POST /api/user/{userKey}/pack/open?packId=`: consumes one unopened pack, rolls its drop
/// table here on the server and gives the items (an item already owned becomes the pack's
/// duplicate coins); `{status, user, rewards}`.
pub(super) async fn open(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let session = session::required(&app, &incoming).await?;
    let id = PackId(incoming.query.required_number("packId", 1..=i64::MAX)?);
    let catalog = &app.content.catalog;
    let pack = catalog.pack(id).ok_or_else(|| ApiError::NotFound {
        code: "not_in_catalog",
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
    )
    .await?;
    change::answer(&app, &session, &outcome, ()).await
}
