//! The browser login through an identity provider: `/user/login/{provider}` sends the browser to
//! the provider with a signed login-state cookie; `/user/validate/{provider}` takes it back,
//! exchanges the code, signs the account in and answers the page that hands the key to the
//! game client. Every failure is an HTML error page that carries no key.

use http::{StatusCode, header};
use serde::Serialize;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use super::shared::sign_in::{self, Identity};
use super::views::ApiUser;
use crate::App;
use crate::auth::{self, LOGIN_STATE_LIFETIME, LoginState, LoginStateError, ProviderError};
use crate::http::params::{ParamValue, parameters, text_schema};
use crate::http::{ApiError, Incoming, Reply, cookies, pages};

/// The longest csrf value accepted.
const CSRF_MAX: usize = 256;

/// The client's csrf value: 1 to [`CSRF_MAX`] visible ASCII characters.
struct Csrf(String);

impl ParamValue for Csrf {
    fn from_param(text: &str) -> Result<Self, String> {
        if text.len() > CSRF_MAX || !text.bytes().all(|byte| byte.is_ascii_graphic()) {
            return Err(format!("must be 1 to {CSRF_MAX} visible ASCII characters"));
        }
        Ok(Self(text.to_owned()))
    }

    fn param_schema() -> RefOr<Schema> {
        text_schema()
            .min_length(Some(1))
            .max_length(Some(CSRF_MAX))
            .pattern(Some("^[!-~]+$"))
            .into()
    }
}

/// Which client started the login: the web client or the Windows one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LoginClient {
    Web,
    Windows,
}

impl ParamValue for LoginClient {
    fn from_param(text: &str) -> Result<Self, String> {
        match text {
            "web" => Ok(Self::Web),
            "windows" => Ok(Self::Windows),
            _ => Err("must be `web` or `windows`".to_owned()),
        }
    }

    fn param_schema() -> RefOr<Schema> {
        text_schema().pattern(Some("^(|web|windows)$")).into()
    }
}

parameters! {
    /// The parameters of `/user/login/{provider}`.
    struct LoginParams {
        /// A configured identity provider (`idpone`, `idptwo`, ...)
        provider: String = Path "provider",
        /// The client's csrf value, handed back at the end
        csrf: Csrf = Query "csrf",
        /// `windows` sends the key to the desktop client's loopback listener even when the page
        /// has an opener; without it, the key goes there whenever the validate page has no
        /// opener
        client: Option<LoginClient> = Query "client",
    }
}

parameters! {
    /// The parameters of `/user/validate/{provider}`.
    struct ValidateParams {
        /// The provider the login started with
        provider: String = Path "provider",
        /// The provider's authorization code
        code: Option<String> = Query "code",
        /// The provider's state, which must be this login's
        state: Option<String> = Query "state",
        /// The provider's error, if it refused
        error: Option<String> = Query "error",
    }
}

#[utoipa::path(
    method(get, post),
    path = "/user/login/{provider}",
    tag = "sign-in",
    operation_id = "login",
    description = "Starts the browser login: redirects to the provider's authorization page and sets the signed login-state cookie. Failures are HTML pages.",
    params(LoginParams),
    responses(
        (status = 302, description = "To the provider's authorization page", content_type = "text/html", body = String,
            headers(("Location" = String, description = "The provider's authorization page"), ("Set-Cookie" = String, description = "The login-state cookie"))),
        (status = 400, description = "A missing or bad `csrf` or `client`", body = crate::openapi::ErrorBody),
        (status = 404, description = "The provider is not configured", content_type = "text/html", body = String),
        (status = 401, description = "The provider refused", content_type = "text/html", body = String),
        (status = 502, description = "The provider cannot be reached", content_type = "text/html", body = String),
    )
)]
/// `GET`/`POST /user/login/{provider}?csrf=[&client=windows]`: 302 to the provider's
/// authorization page, binding the csrf value, state, nonce and PKCE verifier to this browser in
/// a signed cookie that lasts ten minutes.
pub(super) async fn login(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let LoginParams {
        provider: name,
        csrf: Csrf(csrf),
        client,
    } = LoginParams::read(&incoming)?;
    let name = name.as_str();
    let windows = client == Some(LoginClient::Windows);
    let Some(provider) = app.auth.config.providers.get(name) else {
        return Ok(error_page(
            StatusCode::NOT_FOUND,
            "this sign-in provider is not configured",
        ));
    };
    let redirect_uri = app.auth.redirect_uri(name);
    let authorization = match auth::authorize(&app.auth, provider, &redirect_uri).await {
        Ok(authorization) => authorization,
        Err(error) => return Ok(provider_error_page(name, &error)),
    };
    let state = LoginState {
        provider: name.to_owned(),
        csrf,
        state: authorization.state,
        nonce: authorization.nonce,
        pkce_verifier: authorization.pkce_verifier,
        windows,
        expires: (app.clock.now() + LOGIN_STATE_LIFETIME).unix_timestamp(),
    };
    let cookie = format!(
        "{name}={value}; Path={path}; Max-Age={age}; HttpOnly; SameSite=Lax{secure}",
        name = cookies::LOGIN_STATE_COOKIE,
        path = cookies::LOGIN_STATE_PATH,
        value = state.seal(&app.auth.config.login_secret),
        age = LOGIN_STATE_LIFETIME.whole_seconds(),
        secure = secure_flag(&app),
    );
    Ok(Reply::redirect(&authorization.url).with_header(header::SET_COOKIE, &cookie))
}

/// The message the validate page posts: `{"event":"onLoginSuccess","data":{...}}`.
#[derive(Serialize)]
struct LoginMessage<'a> {
    event: &'static str,
    data: LoginData<'a>,
}

#[derive(Serialize)]
struct LoginData<'a> {
    status: &'static str,
    user: ApiUser<'a>,
    csrf: &'a str,
}

#[utoipa::path(
    method(get, post),
    path = "/user/validate/{provider}",
    tag = "sign-in",
    operation_id = "validateLogin",
    description = "Ends the browser login: exchanges the provider's code and answers the page that hands the new key to the game client; it always expires the login-state cookie. Every failure of the login is an HTML page without a key.",
    params(ValidateParams),
    responses(
        (status = 200, description = "Signed in: the page posts `{event: onLoginSuccess, data: {status, user, csrf}}` to the client", content_type = "text/html", body = String),
        (status = 400, description = "No or a bad login state, the provider's error, or no code (an HTML page); or a form body field whose query-string value differs (`invalid_parameter`, JSON)", content(
            (String = "text/html"),
            (crate::openapi::ErrorBody = "application/json"),
        )),
        (status = 401, description = "The provider did not confirm the sign-in", content_type = "text/html", body = String),
        (status = 404, description = "The provider is not configured", content_type = "text/html", body = String),
        (status = 502, description = "The provider cannot be reached", content_type = "text/html", body = String),
        (status = 503, description = "The account could not be signed in", content_type = "text/html", body = String),
    )
)]
/// `GET`/`POST /user/validate/{provider}?code=&state=` (the first kind of provider also sends
/// `scope`, `authuser`, `prompt`): the page that ends the login. It always expires the
/// login-state cookie: one login, one use.
pub(super) async fn validate(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let reply = match validated(&app, &incoming).await {
        Ok(page) => Reply::html(StatusCode::OK, page),
        Err((status, reason)) => error_page(status, &reason),
    };
    Ok(reply.with_header(
        header::SET_COOKIE,
        &cookies::expire(cookies::LOGIN_STATE_COOKIE, cookies::LOGIN_STATE_PATH),
    ))
}

/// The success page, or the status and reason of the failure.
async fn validated(app: &App, incoming: &Incoming) -> Result<String, (StatusCode, String)> {
    let bad = |reason: &str| (StatusCode::BAD_REQUEST, reason.to_owned());
    let ValidateParams {
        provider: name,
        code,
        state: returned_state,
        error,
    } = ValidateParams::read(incoming).map_err(|_| bad("no provider"))?;
    let name = name.as_str();
    let Some(provider) = app.auth.config.providers.get(name) else {
        return Err((
            StatusCode::NOT_FOUND,
            "this sign-in provider is not configured".to_owned(),
        ));
    };
    if let Some(error) = error {
        return Err(bad(&format!("the provider answered `{error}`")));
    }
    let cookie = incoming
        .cookie(cookies::LOGIN_STATE_COOKIE)
        .ok_or_else(|| bad("no sign-in was started in this browser, or it was already used"))?;
    let state = LoginState::open(&cookie, &app.auth.config.login_secret, app.clock.now()).map_err(
        |error| match error {
            LoginStateError::Forged => bad("the sign-in state is not valid"),
            LoginStateError::Expired => bad("the sign-in took too long; start again"),
        },
    )?;
    if state.provider != name {
        return Err(bad("the sign-in was started with another provider"));
    }
    if returned_state.unwrap_or_default() != state.state {
        return Err(bad("the provider's answer does not belong to this sign-in"));
    }
    let code = code.ok_or_else(|| bad("the provider sent no code"))?;
    let redirect_uri = app.auth.redirect_uri(name);
    let user = auth::exchange(
        &app.auth,
        provider,
        &redirect_uri,
        &code,
        &state.nonce,
        &state.pkce_verifier,
    )
    .await
    .map_err(|error| provider_failure(name, &error))?;
    let signed_in = sign_in::complete(
        app,
        Identity {
            provider: name.to_owned(),
            identifier: user.id,
            name: user.name,
            avatar: user.avatar,
            email: user.email,
        },
    )
    .await
    .map_err(|error| {
        let error = error.into_reply();
        (
            error.status(),
            "the account could not be signed in; try again".to_owned(),
        )
    })?;
    let message = serde_json::to_string(&LoginMessage {
        event: "onLoginSuccess",
        data: LoginData {
            status: "success",
            user: signed_in.user(),
            csrf: &state.csrf,
        },
    })
    .map_err(|error| (StatusCode::INTERNAL_SERVER_ERROR, error.to_string()))?;
    // The desktop client opens the login in the system browser, so the page has no opener:
    // then the key goes to its loopback listener. `client=windows` sends it there in any case.
    let loopback = app.auth.config.client_loopback_url.as_ref().map(|base| {
        let query = form_urlencoded::Serializer::new(String::new())
            .append_pair("userKey", signed_in.key.as_str())
            .append_pair("csrf", &state.csrf)
            .finish();
        format!("{base}/?{query}")
    });
    Ok(pages::login_success_page(
        &message,
        &app.auth.config.web_origins,
        loopback.as_deref().map(|url| pages::Loopback {
            url,
            always: state.windows,
        }),
    ))
}

fn provider_failure(name: &str, error: &ProviderError) -> (StatusCode, String) {
    tracing::warn!(provider = name, %error, "provider sign-in failed");
    match error {
        ProviderError::Unreachable(_) => (
            StatusCode::BAD_GATEWAY,
            "the sign-in provider cannot be reached; try again later".to_owned(),
        ),
        ProviderError::Refused(_) => (
            StatusCode::UNAUTHORIZED,
            "the sign-in provider did not confirm the sign-in".to_owned(),
        ),
    }
}

fn provider_error_page(name: &str, error: &ProviderError) -> Reply {
    let (status, reason) = provider_failure(name, error);
    error_page(status, &reason)
}

fn error_page(status: StatusCode, reason: &str) -> Reply {
    Reply::html(status, pages::login_error_page(reason))
}

/// `; Secure` when this server is served over HTTPS.
fn secure_flag(app: &App) -> &'static str {
    if app.auth.config.public_url.starts_with("https://") {
        "; Secure"
    } else {
        ""
    }
}
