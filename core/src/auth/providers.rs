//! The authorization-code flow with an identity provider: the address the browser is sent to,
//! and, when it comes back, the code exchanged for the provider's user. OpenID Connect providers
//! go through `openidconnect` (discovery, ID token checked against the provider's keys and the
//! nonce); plain OAuth2 providers through `oauth2` and their current-user address.

use oauth2::basic::BasicClient;
use oauth2::{AuthUrl, TokenUrl};
use openidconnect::core::{CoreAuthenticationFlow, CoreClient};
use openidconnect::{
    AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointMaybeSet, EndpointNotSet,
    EndpointSet, Nonce, OAuth2TokenResponse, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl,
    Scope,
};

use super::Auth;
use super::config::{ProviderConfig, UserFields};
use super::user_info::{ProviderUser, read_user};

/// Where to send the browser, and what to remember for its return.
#[derive(Debug, Clone)]
pub struct Authorization {
    /// The provider's authorization page with every parameter.
    pub url: String,
    /// The `state` sent.
    pub state: String,
    /// The nonce sent (OpenID Connect; unused by plain OAuth2).
    pub nonce: String,
    /// The PKCE verifier of the challenge sent.
    pub pkce_verifier: String,
}

/// Why a flow with a provider failed.
#[derive(Debug)]
pub enum ProviderError {
    /// The provider could not be reached or answered garbage (discovery, keys, user info).
    Unreachable(String),
    /// The provider refused the code (invalid, expired, used) or the ID token did not check.
    Refused(String),
}

impl std::fmt::Display for ProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unreachable(why) => write!(f, "the provider is unreachable: {why}"),
            Self::Refused(why) => write!(f, "the provider refused the sign-in: {why}"),
        }
    }
}

/// Builds the provider's authorization address for a browser that returns to `redirect_uri`.
pub async fn authorize(
    auth: &Auth,
    provider: &ProviderConfig,
    redirect_uri: &str,
) -> Result<Authorization, ProviderError> {
    let redirect = RedirectUrl::new(redirect_uri.to_owned()).map_err(unreachable)?;
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    match provider {
        ProviderConfig::Oidc {
            issuer,
            client_id,
            client_secret,
            scopes,
        } => {
            let client = oidc_client(auth, issuer, client_id, client_secret, redirect).await?;
            let (url, state, nonce) = client
                .authorize_url(
                    CoreAuthenticationFlow::AuthorizationCode,
                    CsrfToken::new_random,
                    Nonce::new_random,
                )
                .add_scopes(extra_scopes(scopes))
                .set_pkce_challenge(challenge)
                .url();
            Ok(Authorization {
                url: url.to_string(),
                state: state.secret().clone(),
                nonce: nonce.secret().clone(),
                pkce_verifier: verifier.secret().clone(),
            })
        }
        ProviderConfig::Oauth2 {
            authorization_url,
            token_url,
            client_id,
            client_secret,
            scopes,
            ..
        } => {
            let client = oauth2_client(
                authorization_url,
                token_url,
                client_id,
                client_secret,
                redirect,
            )?;
            let (url, state) = client
                .authorize_url(CsrfToken::new_random)
                .add_scopes(scopes.iter().cloned().map(Scope::new))
                .set_pkce_challenge(challenge)
                .url();
            Ok(Authorization {
                url: url.to_string(),
                state: state.secret().clone(),
                nonce: String::new(),
                pkce_verifier: verifier.secret().clone(),
            })
        }
    }
}

/// Exchanges the code the browser brought back for the provider's user.
pub async fn exchange(
    auth: &Auth,
    provider: &ProviderConfig,
    redirect_uri: &str,
    code: &str,
    nonce: &str,
    pkce_verifier: &str,
) -> Result<ProviderUser, ProviderError> {
    let redirect = RedirectUrl::new(redirect_uri.to_owned()).map_err(unreachable)?;
    let code = AuthorizationCode::new(code.to_owned());
    let verifier = PkceCodeVerifier::new(pkce_verifier.to_owned());
    match provider {
        ProviderConfig::Oidc {
            issuer,
            client_id,
            client_secret,
            ..
        } => {
            let client = oidc_client(auth, issuer, client_id, client_secret, redirect).await?;
            let tokens = client
                .exchange_code(code)
                .map_err(unreachable)?
                .set_pkce_verifier(verifier)
                .request_async(&auth.http)
                .await
                .map_err(token_error)?;
            let id_token = tokens
                .extra_fields()
                .id_token()
                .ok_or_else(|| ProviderError::Refused("no ID token in the answer".to_owned()))?;
            let claims = id_token
                .claims(&client.id_token_verifier(), &Nonce::new(nonce.to_owned()))
                .map_err(|error| ProviderError::Refused(format!("ID token: {error}")))?;
            Ok(ProviderUser {
                id: claims.subject().as_str().to_owned(),
                name: claims
                    .name()
                    .and_then(|name| name.get(None))
                    .map(|name| name.as_str().to_owned())
                    .or_else(|| {
                        claims
                            .preferred_username()
                            .map(|name| name.as_str().to_owned())
                    }),
                email: claims.email().map(|email| email.as_str().to_owned()),
                avatar: claims
                    .picture()
                    .and_then(|picture| picture.get(None))
                    .map(|picture| picture.as_str().to_owned()),
            })
        }
        ProviderConfig::Oauth2 {
            authorization_url,
            token_url,
            user_info_url,
            client_id,
            client_secret,
            fields,
            ..
        } => {
            let client = oauth2_client(
                authorization_url,
                token_url,
                client_id,
                client_secret,
                redirect,
            )?;
            let tokens = client
                .exchange_code(code)
                .set_pkce_verifier(verifier)
                .request_async(&auth.http)
                .await
                .map_err(token_error)?;
            current_user(
                &auth.http,
                user_info_url,
                tokens.access_token().secret(),
                fields,
            )
            .await
        }
    }
}

/// The user behind an access token, read from a current-user address.
pub async fn current_user(
    http: &reqwest::Client,
    user_info_url: &str,
    access_token: &str,
    fields: &UserFields,
) -> Result<ProviderUser, ProviderError> {
    let body = current_user_json(http, user_info_url, access_token).await?;
    read_user(&body, fields)
        .ok_or_else(|| ProviderError::Unreachable(format!("the user has no `{}` field", fields.id)))
}

/// The JSON object a current-user address answers for an access token: refused when it answers
/// 401 or 403, unreachable when it cannot be reached or answers anything else but success.
pub async fn current_user_json(
    http: &reqwest::Client,
    user_info_url: &str,
    access_token: &str,
) -> Result<serde_json::Value, ProviderError> {
    let answer = http
        .get(user_info_url)
        .bearer_auth(access_token)
        .send()
        .await
        .map_err(unreachable)?;
    let status = answer.status();
    if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN {
        return Err(ProviderError::Refused(format!(
            "the current-user address answered {status}"
        )));
    }
    if !status.is_success() {
        return Err(ProviderError::Unreachable(format!(
            "the current-user address answered {status}"
        )));
    }
    answer.json().await.map_err(unreachable)
}

/// An OpenID Connect provider's client, its endpoints and keys found by discovery.
type OidcClient = CoreClient<
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

/// A plain OAuth2 provider's client with its authorization and token endpoints.
type OAuth2Client =
    BasicClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>;

/// The client of the OpenID Connect provider `issuer`, with its discovered metadata.
async fn oidc_client(
    auth: &Auth,
    issuer: &str,
    client_id: &str,
    client_secret: &str,
    redirect: RedirectUrl,
) -> Result<OidcClient, ProviderError> {
    let metadata = auth.discovery.metadata(&auth.http, issuer).await?;
    Ok(CoreClient::from_provider_metadata(
        metadata,
        ClientId::new(client_id.to_owned()),
        Some(ClientSecret::new(client_secret.to_owned())),
    )
    .set_redirect_uri(redirect))
}

/// The client of a plain OAuth2 provider.
fn oauth2_client(
    authorization_url: &str,
    token_url: &str,
    client_id: &str,
    client_secret: &str,
    redirect: RedirectUrl,
) -> Result<OAuth2Client, ProviderError> {
    Ok(BasicClient::new(ClientId::new(client_id.to_owned()))
        .set_client_secret(ClientSecret::new(client_secret.to_owned()))
        .set_auth_uri(AuthUrl::new(authorization_url.to_owned()).map_err(unreachable)?)
        .set_token_uri(TokenUrl::new(token_url.to_owned()).map_err(unreachable)?)
        .set_redirect_uri(redirect))
}

/// The configured scopes besides `openid`, which the OpenID Connect flow always asks.
fn extra_scopes(scopes: &[String]) -> impl Iterator<Item = Scope> + '_ {
    scopes
        .iter()
        .filter(|scope| *scope != "openid")
        .cloned()
        .map(Scope::new)
}

fn unreachable(error: impl std::fmt::Display) -> ProviderError {
    ProviderError::Unreachable(error.to_string())
}

/// A failed token request: the provider answering an error is a refusal; no answer at all is
/// unreachability.
fn token_error<E: std::error::Error + 'static>(
    error: oauth2::RequestTokenError<E, oauth2::basic::BasicErrorResponse>,
) -> ProviderError {
    match error {
        oauth2::RequestTokenError::ServerResponse(response) => {
            ProviderError::Refused(response.to_string())
        }
        oauth2::RequestTokenError::Request(error) => ProviderError::Unreachable(error.to_string()),
        other => ProviderError::Refused(other.to_string()),
    }
}
