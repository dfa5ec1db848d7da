//! Safezone with a studio's own content file (`examples/content/studio.toml`): its client
//! settings, catalog, gift and level curve, instead of the shipped ones. A content file is
//! checked when it is loaded: a bad one is refused with the line of each problem.
//!
//! ```text
//! cargo run -p safezone-examples --example custom_content
//! ```

use http_body_util::{BodyExt, Empty};
use safezone_core::content::Content;
use safezone_core::http::BoxError;
use safezone_core::{Safezone, SafezoneService};
use serde_json::Value;
use tower::ServiceExt;

/// The studio's content file.
const STUDIO_CONTENT: &str = include_str!("content/studio.toml");

/// The service over `store` with the studio's content.
fn studio_service(
    store: std::sync::Arc<dyn safezone_core::store::Store>,
) -> Result<SafezoneService, BoxError> {
    let content = Content::parse(STUDIO_CONTENT, "examples/content/studio.toml")?;
    Ok(Safezone::new(store).content(content).service())
}

/// `GET path` in-process; answers the JSON body.
async fn get(service: &SafezoneService, path: &str) -> Result<Value, BoxError> {
    let request = http::Request::get(path).body(Empty::<bytes::Bytes>::new())?;
    let response = service.clone().oneshot(request).await?;
    let body = response.into_body().collect().await?.to_bytes();
    Ok(serde_json::from_slice(&body)?)
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let directory = tempfile::tempdir()?;
    let url = format!("sqlite://{}", directory.path().join("studio.db").display());
    let service = studio_service(safezone_storage::open(&url).await?)?;
    let config = get(&service, "/api/config?platform=web").await?;
    println!(
        "version {} on {}",
        config["config"]["version"], config["config"]["regions"]
    );
    let shop = get(&service, "/api/shop/available").await?;
    println!("the shop: {shop}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_service_serves_the_studios_content() {
        let directory = tempfile::tempdir().expect("a directory");
        let url = format!("sqlite://{}", directory.path().join("studio.db").display());
        let store = safezone_storage::open(&url).await.expect("the store opens");
        let service = studio_service(store).expect("the studio's content loads");

        let config = get(&service, "/api/config?platform=web")
            .await
            .expect("config");
        assert_eq!(config["config"]["version"], "1.0.0", "{config}");
        assert_eq!(config["config"]["regions"][1], "us-east");
        let shop = get(&service, "/api/shop/available")
            .await
            .expect("the shop");
        let text = shop.to_string();
        assert!(
            text.contains("outfit-diver") && text.contains("crate"),
            "{text}"
        );
        assert!(
            !text.contains("basic-chest"),
            "none of the shipped catalog: {text}"
        );
    }

    #[test]
    fn a_bad_file_is_refused_with_its_line() {
        let broken = STUDIO_CONTENT.replace("cost_coins = 600", "cost_coins = \"six\"");
        let error = Content::parse(&broken, "studio.toml").expect_err("refused");
        assert!(error.to_string().contains("studio.toml:"), "{error}");
    }
}
