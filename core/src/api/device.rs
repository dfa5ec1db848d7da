//! `POST /api/validate/device/{deviceId}`: device sign-in for the iOS and Android apps.

use sha2::{Digest, Sha256};

use super::params;
use super::sign_in::{self, Identity};
use crate::App;
use crate::domain::DeviceId;
use crate::http::{ApiError, Incoming, Reply};

/// The provider name of device accounts.
const DEVICE_PROVIDER: &str = "device";

/// Creates the device's account on first use and signs in after; answers a fresh key.
///
/// The platform is told by the `platform` parameter or, without it, by the device id's
/// `{platform}-` prefix; it must be `android` or `ios` (403 `platform_not_allowed` otherwise,
/// 400 when neither tells). The device id is a long-lived credential, so only its SHA-256 is
/// stored, as the account's `identifier`.
pub(super) async fn sign_in(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let device = DeviceId::parse(incoming.path("deviceId")?)
        .map_err(|reason| ApiError::invalid("deviceId", reason))?;
    let platform = match params::platform(&incoming.query)? {
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
            code: "platform_not_allowed",
            message: format!(
                "device accounts are usable only from the iOS and Android apps, not from {platform}"
            ),
        });
    }
    let signed_in = sign_in::complete(
        &app,
        Identity {
            provider: DEVICE_PROVIDER.to_owned(),
            identifier: hex::encode(Sha256::digest(device.as_str().as_bytes())),
            name: None,
            avatar: None,
            email: None,
        },
    )
    .await?;
    Ok(signed_in.answer())
}
