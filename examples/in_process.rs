//! Safezone called in-process through `tower::ServiceExt::oneshot`: no network at all.
//! Handy for a game service that embeds the backend, and for tests.
//!
//! ```text
//! cargo run -p safezone-examples --example in_process
//! ```

use safezone_core::http::BoxError;

use http::{Method, Request};
use http_body_util::{BodyExt, Empty};
use safezone_core::{Safezone, SafezoneService};
use tower::ServiceExt;

/// Sends one body-less request and answers the status and the JSON body.
async fn call(
    service: &SafezoneService,
    method: Method,
    path: &str,
) -> Result<(u16, serde_json::Value), BoxError> {
    let request = Request::builder()
        .method(method)
        .uri(path)
        .body(Empty::<bytes::Bytes>::new())?;
    let response = service.clone().oneshot(request).await?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await?.to_bytes();
    Ok((status, serde_json::from_slice(&body)?))
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let directory =
        std::env::temp_dir().join(format!("safezone-in-process-{}", std::process::id()));
    std::fs::create_dir_all(&directory)?;
    let database_url = format!("sqlite://{}", directory.join("example.db").display());
    let service = Safezone::new(safezone_storage::open(&database_url).await?).service();

    let (status, signed_in) = call(
        &service,
        Method::POST,
        "/api/validate/device/ios-example-device",
    )
    .await?;
    println!(
        "sign-in: {status}, friend code {}",
        signed_in["user"]["friend_code"]
    );

    let key = signed_in["user"]["key"].as_str().unwrap_or_default();
    let (status, account) = call(&service, Method::GET, &format!("/api/user/{key}")).await?;
    println!(
        "account: {status}, {} coins, {} gems",
        account["user"]["coins"], account["user"]["gems"]
    );

    let (status, config) = call(
        &service,
        Method::GET,
        "/api/config?platform=ios&version=2.7.0",
    )
    .await?;
    println!(
        "config: {status}, update required: {}",
        config["config"]["update_required"]
    );

    std::fs::remove_dir_all(&directory)?;
    Ok(())
}
