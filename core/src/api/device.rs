//! `POST /api/validate/device/{deviceId}`: device sign-in for the iOS and Android apps.

use super::shared::sign_in::{self, Identity, SignInAnswer};
use crate::App;
use crate::domain::{DEVICE_PROVIDER, DeviceId, Platform};
use crate::http::params::parameters;
use crate::http::{ApiError, ErrorCode, Incoming, Reply};
use crate::openapi::{ErrorBody, Success};

parameters! {
    /// The parameters of `POST /api/validate/device/{deviceId}`.
    struct DeviceParams {
        /// The device's id, printable ASCII; `android-` or `ios-` prefixed unless `platform`
        /// is sent
        device: DeviceId = Path "deviceId",
        /// The client's platform
        platform: Option<Platform> = Query "platform",
    }
}

/// Creates the device's account on first use and signs in after; answers a fresh key.
#[utoipa::path(
    post,
    path = "/api/validate/device/{deviceId}",
    tag = "sign-in",
    operation_id = "signInDevice",
    description = "Device sign-in for the iOS and Android apps: creates the device's account on first use; answers the account with a fresh key.",
    params(DeviceParams),
    responses(
        (status = 200, description = "Signed in", body = Success<SignInAnswer>),
        (status = 400, description = "A bad `deviceId` or `platform` (`invalid_parameter`)", body = ErrorBody),
        (status = 403, description = "Device accounts are for the mobile apps only (`platform_not_allowed`)", body = ErrorBody),
    )
)]
///
/// The platform is told by the `platform` parameter or, without it, by the device id's
/// `{platform}-` prefix; it must be `android` or `ios` (403 `platform_not_allowed` otherwise,
/// 400 when neither tells). The device id is a long-lived credential, so only its SHA-256 is
/// stored, as the account's `identifier`.
pub(super) async fn sign_in(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let DeviceParams { device, platform } = DeviceParams::read(&incoming)?;
    let platform = match platform {
        Some(platform) => platform,
        None => device.platform().ok_or_else(|| {
            ApiError::invalid(
                "deviceId",
                "must start with its platform (`android-` or `ios-`), or send `platform`",
            )
        })?,
    };
    if !platform.allows_device_accounts() {
        return Err(ApiError::Forbidden {
            code: ErrorCode::PlatformNotAllowed,
            message: format!(
                "device accounts are usable only from the iOS and Android apps, not from {platform}"
            ),
        });
    }
    let signed_in = sign_in::complete(
        &app,
        Identity {
            provider: DEVICE_PROVIDER.to_owned(),
            identifier: device.stored_identifier(),
            name: None,
            avatar: None,
            email: None,
        },
    )
    .await?;
    Ok(signed_in.answer())
}
