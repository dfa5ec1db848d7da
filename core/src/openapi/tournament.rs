//! What the operations on one tournament share: the answers about it.

use utoipa::ToResponse;
use utoipa::openapi::{RefOr, Response};

use super::shared::error_response;

error_response!(
    /// 400 of an operation whose only parameter is the tournament code.
    InvalidTournamentCode,
    "A malformed `tournamentCode` (`invalid_parameter`)"
);
error_response!(
    /// 404 of an operation on one tournament.
    UnknownTournament,
    "No such tournament (`unknown_tournament`)"
);

/// The responses of this module, for the components.
pub(super) fn responses() -> [(&'static str, RefOr<Response>); 2] {
    [
        InvalidTournamentCode::response(),
        UnknownTournament::response(),
    ]
}
