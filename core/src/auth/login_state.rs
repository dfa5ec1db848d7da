//! The login-state cookie: what a login flow must find again when the provider sends the
//! browser back (provider, csrf value, state, nonce, PKCE verifier, client kind), signed with
//! HMAC-SHA256 so that it cannot be forged, and short-lived.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use time::{Duration, OffsetDateTime};

/// How long a login flow may take.
pub const LOGIN_STATE_LIFETIME: Duration = Duration::minutes(10);

/// What the browser carries between the login and the validate page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoginState {
    /// The provider the flow went to.
    pub provider: String,
    /// The client's csrf value, returned with the login result.
    pub csrf: String,
    /// The OAuth2 `state` sent to the provider, checked on return.
    pub state: String,
    /// The OpenID Connect nonce, checked in the ID token.
    pub nonce: String,
    /// The PKCE code verifier.
    pub pkce_verifier: String,
    /// Whether the client is the Windows client (no opener: the loopback image is used).
    pub windows: bool,
    /// When the flow expires, in Unix seconds.
    pub expires: i64,
}

/// Why a login-state cookie was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginStateError {
    /// Not in the signed format, or the signature does not match.
    Forged,
    /// Older than [`LOGIN_STATE_LIFETIME`].
    Expired,
}

impl LoginState {
    /// The cookie value: base64url JSON, a dot, the base64url HMAC of the JSON.
    pub fn seal(&self, secret: &[u8]) -> String {
        let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(self).unwrap_or_default());
        let signature = URL_SAFE_NO_PAD.encode(sign(secret, payload.as_bytes()));
        format!("{payload}.{signature}")
    }

    /// The state in a cookie value, if its signature matches and it has not expired at `now`.
    pub fn open(value: &str, secret: &[u8], now: OffsetDateTime) -> Result<Self, LoginStateError> {
        let (payload, signature) = value.split_once('.').ok_or(LoginStateError::Forged)?;
        let signature = URL_SAFE_NO_PAD
            .decode(signature)
            .map_err(|_| LoginStateError::Forged)?;
        mac(secret)
            .chain_update(payload.as_bytes())
            .verify_slice(&signature)
            .map_err(|_| LoginStateError::Forged)?;
        let json = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| LoginStateError::Forged)?;
        let state: Self = serde_json::from_slice(&json).map_err(|_| LoginStateError::Forged)?;
        if now.unix_timestamp() >= state.expires {
            return Err(LoginStateError::Expired);
        }
        Ok(state)
    }
}

fn mac(secret: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length; `new_from_slice` cannot fail for it.
    <Hmac<Sha256> as Mac>::new_from_slice(secret).unwrap_or_else(|_| unreachable!())
}

fn sign(secret: &[u8], payload: &[u8]) -> Vec<u8> {
    mac(secret)
        .chain_update(payload)
        .finalize()
        .into_bytes()
        .to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";
    const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

    fn state() -> LoginState {
        LoginState {
            provider: "idpone".to_owned(),
            csrf: "c".to_owned(),
            state: "s".to_owned(),
            nonce: "n".to_owned(),
            pkce_verifier: "v".to_owned(),
            windows: false,
            expires: (NOW + LOGIN_STATE_LIFETIME).unix_timestamp(),
        }
    }

    #[test]
    fn round_trips_until_it_expires() {
        let sealed = state().seal(SECRET);
        assert_eq!(LoginState::open(&sealed, SECRET, NOW), Ok(state()));
        assert_eq!(
            LoginState::open(&sealed, SECRET, NOW + LOGIN_STATE_LIFETIME),
            Err(LoginStateError::Expired)
        );
    }

    #[test]
    fn tampering_and_other_secrets_are_forgeries() {
        let sealed = state().seal(SECRET);
        let (payload, signature) = sealed.split_once('.').unwrap();
        let mut other = state();
        other.csrf = "attacker".to_owned();
        let (forged_payload, _) = other
            .seal(b"another secret of thirty-two bytes")
            .split_once('.')
            .map(|(p, s)| (p.to_owned(), s.to_owned()))
            .unwrap();
        for value in [
            format!("{forged_payload}.{signature}"),
            format!("{payload}.AAAA"),
            payload.to_owned(),
            String::new(),
        ] {
            assert_eq!(
                LoginState::open(&value, SECRET, NOW),
                Err(LoginStateError::Forged)
            );
        }
        assert_eq!(
            LoginState::open(&sealed, b"another secret of thirty-two bytes", NOW),
            Err(LoginStateError::Forged)
        );
    }
}
