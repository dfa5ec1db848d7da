//! The operator API's own document (served at `GET /operator/api/openapi.json` on the operator
//! listener, written by `openapi --operator`): the operations its declarations hand in, with
//! what every operator operation shares added once: the envelopes, the operator token's
//! security scheme, and the errors any read or change may answer.

use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{Components, OpenApi, ResponseBuilder};
use utoipa::{OpenApi as _, PartialSchema, ToSchema};

use super::Documented;
use super::shared::{Done, ErrorBody, SuccessStatus, error_content};
use crate::domain::{FriendCode, GameMode};
use crate::http::ErrorCode;
use crate::leaderboard::{Category, TimeWindow};
use crate::store::TournamentCode;

/// The security scheme of an operator token's secret, or a console session of one, sent as
/// `Authorization: Bearer`.
const OPERATOR_TOKEN: &str = "operatorToken";

/// What the operator document says before its operations: the title, the tags and the schemas
/// that only parameters name.
#[derive(utoipa::OpenApi)]
#[openapi(
    info(
        title = "Safezone operator API",
        description = "The operator side of Safezone, served only on the operator listener \
            (`--operator-listen`), never on the public port. Every call presents an operator \
            token (`Authorization: Bearer <secret>`, created by `operator-token create`) or a \
            console session of one. A read-only token may only read. Every change takes a \
            JSON body with the operator's `reason` and appends exactly one audit row, refused \
            ones too. Every JSON answer is an envelope: `{\"status\":\"success\", ...}` or \
            `{\"status\":\"error\",\"code\":...,\"message\":...}`."
    ),
    servers((url = "/", description = "The operator listener that serves this document")),
    components(schemas(FriendCode, TournamentCode, GameMode, TimeWindow, Category)),
    tags(
        (name = "players", description = "Players: lookup, holdings, ledger, changes"),
        (name = "leaderboards", description = "The live boards, and a player's neighbours"),
        (name = "matches", description = "The recorded matches, and a player's result removed"),
        (name = "activity", description = "Counts per hour and per day, for the charts"),
        (name = "audit", description = "The audit of every operator change"),
        (name = "polls", description = "Polls"),
        (name = "tournaments", description = "Tournaments and their whitelists"),
        (name = "content", description = "The published content, its versions and rollbacks"),
        (name = "webhooks", description = "The webhooks' delivery log and dead letters' replays"),
        (name = "sessions", description = "The console's sessions of an operator token"),
        (name = "status", description = "This node as an operator sees it"),
    )
)]
struct Preamble;

/// Whether an operation reads or changes: what its errors and its token must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperatorAccess {
    /// Any operator token.
    Read,
    /// A full token, a JSON body with a `reason`, one audit row per call.
    Change,
}

/// The operator API's document: the `declared` operations, each with its access.
pub fn operator_document(
    declared: impl IntoIterator<Item = (Documented, OperatorAccess)>,
) -> OpenApi {
    let mut document = Preamble::openapi();
    let components = document.components.get_or_insert_with(Components::new);
    for (name, schema) in [
        (ErrorBody::name(), ErrorBody::schema()),
        (ErrorCode::name(), ErrorCode::schema()),
        (Done::name(), Done::schema()),
        (SuccessStatus::name(), SuccessStatus::schema()),
    ] {
        components.schemas.insert(name.into_owned(), schema);
    }
    components.add_security_scheme(
        OPERATOR_TOKEN,
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .description(Some(
                    "An operator token's secret (`operator-token create`) or a console \
                     session's id (`POST /operator/api/sessions`)",
                ))
                .build(),
        ),
    );
    for (documented, access) in declared {
        let mut operation = documented.operation;
        add_operator_answers(&mut operation, access);
        components.schemas.extend(documented.schemas);
        document
            .paths
            .add_path_operation(&documented.path, documented.methods, operation);
    }
    document
}

/// Adds the operator token's security requirement and the errors every operator operation
/// may answer (what the operation declares itself is kept).
fn add_operator_answers(operation: &mut Operation, access: OperatorAccess) {
    operation.security = Some(vec![SecurityRequirement::new::<_, _, &str>(
        OPERATOR_TOKEN,
        [],
    )]);
    let mut errors = vec![
        (
            "400",
            "A parameter or the body is bad (`invalid_parameter`, `invalid_body`, ...)",
        ),
        (
            "401",
            "No operator token, or one that is malformed, unknown or revoked, or a console \
             session that no longer works (`operator_token_required`, `invalid_operator_token`)",
        ),
        ("404", "What the path or the query names does not exist"),
        (
            "503",
            "The database does not answer (`database_unavailable`)",
        ),
    ];
    if access == OperatorAccess::Change {
        errors.extend([
            (
                "403",
                "The token is read-only (`operator_read_only`): a change needs a full token",
            ),
            (
                "409",
                "The state refuses the change (`balance_too_low`, `poll_closed`, ...)",
            ),
            (
                "413",
                "The body is larger than the limit (`body_too_large`)",
            ),
        ]);
    }
    for (status, description) in errors {
        operation
            .responses
            .responses
            .entry(status.to_owned())
            .or_insert_with(|| {
                ResponseBuilder::new()
                    .description(description)
                    .content("application/json", error_content())
                    .build()
                    .into()
            });
    }
}
