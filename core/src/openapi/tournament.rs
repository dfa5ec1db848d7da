//! What the operations on one tournament share: the code in their path and the answers about it.

use utoipa::openapi::{RefOr, Response};
use utoipa::{IntoParams, ToResponse};

use super::shared::error_response;
use crate::store::TournamentCode;

/// The tournament code of the path.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct TournamentCodePath {
    /// The tournament's code, in any letter case
    #[param(rename = "tournamentCode")]
    pub tournament_code: TournamentCode,
}

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
