//! Safezone mounted in a studio's own axum application: Safezone's whole API under
//! `/safezone`, beside the studio's routes, one of which (`GET /studio/me`) tells who is calling
//! through Safezone's public session API ([`SafezoneService::caller`]); and, on a second
//! address only the studio's operators reach, Safezone's operator API and console
//! ([`SafezoneService::operator_service`]) with its metrics and probes
//! ([`SafezoneService::metrics_service`]).
//!
//! ```text
//! cargo run -p safezone-examples --example axum_embedding -- sqlite://axum-example.db 127.0.0.1:8091 127.0.0.1:8092
//! curl -X POST http://127.0.0.1:8091/safezone/api/validate/device/ios-example
//! curl -H "Authorization: Bearer <the key>" http://127.0.0.1:8091/studio/me
//! curl http://127.0.0.1:8092/metrics
//! ```

use std::error::Error;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use safezone_core::{Safezone, SafezoneService};
use serde_json::json;

/// The studio's application: its own routes, and Safezone under `/safezone` (axum strips the
/// prefix before Safezone sees the path).
fn studio_app(safezone: SafezoneService) -> Router {
    Router::new()
        .route("/studio/hello", get(|| async { "hello from the studio" }))
        .route("/studio/me", get(me))
        .nest_service("/safezone", safezone.clone())
        .with_state(safezone)
}

/// The studio's private application, on an address only its operators reach: Safezone's
/// metrics and probes at their paths, and its operator API and console (which answer 404 for
/// any other path).
fn operator_app(safezone: &SafezoneService) -> Router {
    let metrics = safezone.metrics_service();
    Router::new()
        .route_service("/metrics", metrics.clone())
        .route_service("/healthz", metrics.clone())
        .route_service("/readyz", metrics)
        .fallback_service(safezone.operator_service())
}

/// `GET /studio/me`: the caller's friend code and level, from the user key Safezone gave it.
async fn me(State(safezone): State<SafezoneService>, request: Request) -> Response {
    let (head, _) = request.into_parts();
    match safezone.caller(&head).await {
        Ok(Some(account)) => Json(json!({
            "friendCode": account.friend_code.to_string(),
            "level": account.level,
        }))
        .into_response(),
        Ok(None) => (
            StatusCode::UNAUTHORIZED,
            Json(json!({"status": "error", "message": "sign in through /safezone first"})),
        )
            .into_response(),
        Err(error) => {
            let status =
                StatusCode::from_u16(error.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
            let body = json!({
                "status": "error",
                "code": error.code().as_str(),
                "message": error.message(),
            });
            (status, Json(body)).into_response()
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let database_url = args
        .next()
        .unwrap_or_else(|| "sqlite://axum-example.db".to_owned());
    let listen = args.next().unwrap_or_else(|| "127.0.0.1:8091".to_owned());
    let operator_listen = args.next().unwrap_or_else(|| "127.0.0.1:8092".to_owned());
    let safezone = Safezone::new(safezone_storage::open(&database_url).await?)
        .record_requests(true)
        .service();
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let operator_listener = tokio::net::TcpListener::bind(operator_listen).await?;
    println!("studio app on http://{}", listener.local_addr()?);
    println!(
        "operators' app on http://{}/operator/console/",
        operator_listener.local_addr()?
    );
    let stop = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let operators = axum::serve(operator_listener, operator_app(&safezone));
    let studio = axum::serve(listener, studio_app(safezone));
    tokio::select! {
        served = studio.with_graceful_shutdown(stop).into_future() => served?,
        served = operators.into_future() => served?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use http_body_util::BodyExt;
    use serde_json::Value;
    use tower::ServiceExt;

    use super::*;

    /// Sends one request to the studio's application; answers the status and the JSON body.
    async fn send(app: &Router, request: axum::http::Request<Body>) -> (u16, Value) {
        let response = app.clone().oneshot(request).await.expect("axum answers");
        let status = response.status().as_u16();
        let body = response
            .into_body()
            .collect()
            .await
            .expect("a body")
            .to_bytes();
        (status, serde_json::from_slice(&body).expect("JSON"))
    }

    fn get(path: &str, key: Option<&str>) -> axum::http::Request<Body> {
        let mut request = axum::http::Request::get(path);
        if let Some(key) = key {
            request = request.header("authorization", format!("Bearer {key}"));
        }
        request.body(Body::empty()).expect("a request")
    }

    #[tokio::test]
    async fn the_studio_route_knows_the_caller_safezone_signed_in() {
        let directory = tempfile::tempdir().expect("a directory");
        let url = format!("sqlite://{}", directory.path().join("axum.db").display());
        let store = safezone_storage::open(&url).await.expect("the store opens");
        let app = studio_app(Safezone::new(store).service());

        let sign_in = axum::http::Request::post("/safezone/api/validate/device/ios-axum-example")
            .body(Body::empty())
            .expect("a request");
        let (status, body) = send(&app, sign_in).await;
        assert_eq!(status, 200, "{body}");
        let key = body["user"]["key"].as_str().expect("a key").to_owned();
        let code = body["user"]["friend_code"].clone();

        let (status, me) = send(&app, get("/studio/me", Some(&key))).await;
        assert_eq!(
            (status, &me["friendCode"], &me["level"]),
            (200, &code, &json!(1))
        );
        let (status, _) = send(&app, get("/studio/me", None)).await;
        assert_eq!(status, 401);
        let (status, error) = send(&app, get("/studio/me", Some(&"0".repeat(48)))).await;
        assert_eq!((status, &error["code"]), (401, &json!("invalid_user_key")));

        let (status, config) = send(&app, get("/safezone/api/config?platform=ios", None)).await;
        assert_eq!((status, &config["status"]), (200, &json!("success")));
    }

    #[tokio::test]
    async fn the_operators_app_serves_the_operator_api_console_and_metrics_apart() {
        let directory = tempfile::tempdir().expect("a directory");
        let url = format!("sqlite://{}", directory.path().join("axum.db").display());
        let store = safezone_storage::open(&url).await.expect("the store opens");
        let safezone = Safezone::new(store).service();
        let operators = operator_app(&safezone);
        let studio = studio_app(safezone);

        let (status, error) = send(&operators, get("/operator/api/status", None)).await;
        assert_eq!((status, &error["status"]), (401, &json!("error")));
        let console = operators
            .clone()
            .oneshot(get("/operator/console/", None))
            .await
            .expect("axum answers");
        assert!(
            console.status().is_success() || console.status().is_redirection(),
            "{}",
            console.status()
        );
        let scrape = operators
            .clone()
            .oneshot(get("/metrics", None))
            .await
            .expect("axum answers");
        assert_eq!(scrape.status(), 200);
        let body = scrape
            .into_body()
            .collect()
            .await
            .expect("a body")
            .to_bytes();
        assert!(String::from_utf8_lossy(&body).contains("safezone_"));
        // The studio's public app serves none of it.
        let (status, _) = send(&studio, get("/safezone/operator/api/status", None)).await;
        assert_eq!(status, 404);
    }
}
