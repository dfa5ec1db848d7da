//! The legacy validate endpoints: 410 with what to use instead.

use crate::App;
use crate::http::{ApiError, Incoming, Reply};

fn gone(instead: &str) -> Result<Reply, ApiError> {
    Err(ApiError::Gone {
        message: format!("this sign-in endpoint is obsolete; use {instead}"),
    })
}

/// `POST /api/validate/idpthree`.
pub(super) async fn idpthree(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    gone("/user/login/idpone or /user/login/idptwo")
}

/// `POST /api/validate/gamenet`.
pub(super) async fn gamenet(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    gone("POST /api/validate/device/{deviceId} on mobile, or /user/login/{provider}")
}

/// `POST /api/validate/idpone/{authCode}`.
pub(super) async fn idpone(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    gone("/user/login/idpone, which returns through /user/validate/idpone")
}

/// `POST /api/validate/idptwo/{accessToken}`.
pub(super) async fn idptwo(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    gone("/user/login/idptwo, which returns through /user/validate/idptwo")
}
