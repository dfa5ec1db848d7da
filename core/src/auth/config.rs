//! The auth configuration file: identity providers, the web origins and client loopback address
//! of the login pages, the chat platform and the in-app purchase receipt verifiers.
//!
//! It is TOML, separate from the content file because it holds secrets. Loading rejects unknown
//! keys and bad values with the file and the problem.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::Deserialize;

/// The shortest login secret accepted, in bytes.
const LOGIN_SECRET_MIN: usize = 32;

/// The validated auth configuration.
#[derive(Debug, Clone, Default)]
pub struct AuthConfig {
    /// This server's public address; redirect URIs are `{public_url}/user/validate/{provider}`.
    pub public_url: String,
    /// The origins the validate page may post `onLoginSuccess` to.
    pub web_origins: Vec<String>,
    /// The Windows client's loopback listener, loaded by the validate page without an opener.
    pub client_loopback_url: Option<String>,
    /// The secret that signs the login-state cookie; shared by every node.
    pub login_secret: Vec<u8>,
    /// The identity providers by name (`idpone`, `idptwo`, ...).
    pub providers: BTreeMap<String, ProviderConfig>,
    /// The chat platform, if configured.
    pub chat: Option<ChatConfig>,
    /// The receipt verifier of each store (`chat`, `engine`).
    pub receipts: BTreeMap<String, ReceiptConfig>,
}

/// One identity provider.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "lowercase")]
pub enum ProviderConfig {
    /// An OpenID Connect provider: endpoints by discovery, the ID token checked against the
    /// provider's keys.
    Oidc {
        /// The issuer; discovery is at `{issuer}/.well-known/openid-configuration`.
        issuer: String,
        /// Safezone's client id there.
        client_id: String,
        /// Safezone's client secret there.
        client_secret: String,
        /// The scopes asked for (`openid` is always asked).
        #[serde(default)]
        scopes: Vec<String>,
    },
    /// A plain OAuth2 provider with a "current user" address.
    Oauth2 {
        /// The authorization page.
        authorization_url: String,
        /// The token endpoint.
        token_url: String,
        /// The current-user address, called with the access token.
        user_info_url: String,
        /// Safezone's client id there.
        client_id: String,
        /// Safezone's client secret there.
        client_secret: String,
        /// The scopes asked for.
        #[serde(default)]
        scopes: Vec<String>,
        /// Which user-info fields give the id, name, email and avatar.
        fields: UserFields,
    },
}

/// Which fields of a user-info JSON object give the account's identity.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserFields {
    /// The user's id at the provider (a string or a number).
    pub id: String,
    /// The display name.
    #[serde(default)]
    pub name: Option<String>,
    /// The e-mail address.
    #[serde(default)]
    pub email: Option<String>,
    /// The avatar address.
    #[serde(default)]
    pub avatar: Option<String>,
}

/// The chat platform: a bearer token is checked against its current-user address.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatConfig {
    /// The current-user address, called with `Authorization: Bearer <token>`.
    pub user_info_url: String,
    /// Which user-info fields give the account's identity.
    pub fields: UserFields,
    /// The field that tells a premium subscription: premium when present and not null, false,
    /// 0 or empty.
    pub premium_field: String,
}

/// A store's receipt verifier.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReceiptConfig {
    /// The address that verifies a receipt: Safezone POSTs `{"receipt": ...}` to it.
    pub verify_url: String,
}

/// The file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AuthFile {
    public_url: String,
    #[serde(default)]
    web_origins: Vec<String>,
    client_loopback_url: Option<String>,
    login_secret: String,
    #[serde(default)]
    providers: BTreeMap<String, ProviderConfig>,
    chat: Option<ChatConfig>,
    #[serde(default)]
    receipts: BTreeMap<String, ReceiptConfig>,
}

/// Why an auth configuration was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthConfigError(String);

impl fmt::Display for AuthConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AuthConfigError {}

impl AuthConfig {
    /// Reads and validates the auth configuration at `path`.
    pub fn load(path: &Path) -> Result<Self, AuthConfigError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|error| AuthConfigError(format!("auth file {origin}: {error}")))?;
        Self::parse(&text, &origin)
    }

    /// Validates auth configuration text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, AuthConfigError> {
        let fail = |problem: String| AuthConfigError(format!("auth file {origin}: {problem}"));
        let file: AuthFile = toml::from_str(text).map_err(|error| fail(error.to_string()))?;
        let public_url = file.public_url.trim_end_matches('/').to_owned();
        check_url(&public_url, "public_url").map_err(fail)?;
        for origin_url in &file.web_origins {
            check_url(origin_url, "web_origins").map_err(fail)?;
        }
        if let Some(loopback) = &file.client_loopback_url {
            check_url(loopback, "client_loopback_url").map_err(fail)?;
        }
        if file.login_secret.len() < LOGIN_SECRET_MIN {
            return Err(fail(format!(
                "`login_secret` must be at least {LOGIN_SECRET_MIN} bytes of secret material"
            )));
        }
        for (name, provider) in &file.providers {
            check_provider(name, provider).map_err(fail)?;
        }
        if let Some(chat) = &file.chat {
            check_url(&chat.user_info_url, "chat.user_info_url").map_err(fail)?;
        }
        for (store, receipt) in &file.receipts {
            check_url(&receipt.verify_url, &format!("receipts.{store}.verify_url"))
                .map_err(fail)?;
        }
        Ok(Self {
            public_url,
            web_origins: file
                .web_origins
                .into_iter()
                .map(|origin| origin.trim_end_matches('/').to_owned())
                .collect(),
            client_loopback_url: file
                .client_loopback_url
                .map(|url| url.trim_end_matches('/').to_owned()),
            login_secret: file.login_secret.into_bytes(),
            providers: file.providers,
            chat: file.chat,
            receipts: file.receipts,
        })
    }
}

fn check_provider(name: &str, provider: &ProviderConfig) -> Result<(), String> {
    let valid_name = !name.is_empty()
        && name.len() <= 32
        && name
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit());
    if !valid_name {
        return Err(format!(
            "provider name `{name}` must be 1 to 32 lower-case letters and digits"
        ));
    }
    match provider {
        ProviderConfig::Oidc { issuer, .. } => {
            check_url(issuer, &format!("providers.{name}.issuer"))
        }
        ProviderConfig::Oauth2 {
            authorization_url,
            token_url,
            user_info_url,
            ..
        } => {
            check_url(
                authorization_url,
                &format!("providers.{name}.authorization_url"),
            )?;
            check_url(token_url, &format!("providers.{name}.token_url"))?;
            check_url(user_info_url, &format!("providers.{name}.user_info_url"))
        }
    }
}

fn check_url(url: &str, key: &str) -> Result<(), String> {
    match reqwest::Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => Ok(()),
        _ => Err(format!("`{key}` must be an http(s) address, not `{url}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
public_url = "https://api.example.com/"
web_origins = ["https://play.example.com"]
login_secret = "0123456789abcdef0123456789abcdef"

[providers.idpone]
kind = "oidc"
issuer = "https://accounts.example.com"
client_id = "id"
client_secret = "secret"
"#;

    #[test]
    fn parses_and_trims_addresses() {
        let config = AuthConfig::parse(MINIMAL, "test").unwrap();
        assert_eq!(config.public_url, "https://api.example.com");
        assert!(matches!(
            config.providers.get("idpone"),
            Some(ProviderConfig::Oidc { .. })
        ));
    }

    #[test]
    fn short_secrets_bad_addresses_and_unknown_keys_are_refused() {
        let short = MINIMAL.replace("0123456789abcdef0123456789abcdef", "short");
        assert!(
            AuthConfig::parse(&short, "t")
                .unwrap_err()
                .to_string()
                .contains("login_secret")
        );
        let bad = MINIMAL.replace("https://accounts.example.com", "ftp://x");
        assert!(
            AuthConfig::parse(&bad, "t")
                .unwrap_err()
                .to_string()
                .contains("issuer")
        );
        let unknown = MINIMAL.replace(
            "client_id = \"id\"",
            "client_id = \"id\"\nclient_sekret = 1",
        );
        assert!(
            AuthConfig::parse(&unknown, "t")
                .unwrap_err()
                .to_string()
                .contains("client_sekret")
        );
    }
}
