//! The legacy validate endpoints: 410 with what to use instead.

use crate::App;
use crate::http::{ApiError, Incoming, Reply};
use crate::openapi::Obsolete;

fn gone(instead: &str) -> Result<Reply, ApiError> {
    Err(ApiError::Gone {
        message: format!("this sign-in endpoint is obsolete; use {instead}"),
    })
}

/// `POST /api/validate/idpthree`.
#[utoipa::path(post, path = "/api/validate/idpthree", tag = "sign-in", operation_id = "validateIdpthree", responses((status = 410, response = Obsolete)))]
pub(super) async fn idpthree(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    gone("/user/login/idpone or /user/login/idptwo")
}

/// `POST /api/validate/gamenet`.
#[utoipa::path(post, path = "/api/validate/gamenet", tag = "sign-in", operation_id = "validateGamenet", responses((status = 410, response = Obsolete)))]
pub(super) async fn gamenet(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    gone("POST /api/validate/device/{deviceId} on mobile, or /user/login/{provider}")
}

/// `POST /api/validate/idpone/{authCode}`.
#[utoipa::path(post, path = "/api/validate/idpone/{authCode}", tag = "sign-in", operation_id = "validateIdpone", params(("authCode" = String, Path, description = "Ignored")), responses((status = 410, response = Obsolete)))]
pub(super) async fn idpone(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    gone("/user/login/idpone, which returns through /user/validate/idpone")
}

/// `POST /api/validate/idptwo/{accessToken}`.
#[utoipa::path(post, path = "/api/validate/idptwo/{accessToken}", tag = "sign-in", operation_id = "validateIdptwo", params(("accessToken" = String, Path, description = "Ignored")), responses((status = 410, response = Obsolete)))]
pub(super) async fn idptwo(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    gone("/user/login/idptwo, which returns through /user/validate/idptwo")
}
