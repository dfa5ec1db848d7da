//! `GET /api/docs`: the API reference page for client developers, the document
//! (`/api/openapi.json`) rendered by Swagger UI; `GET /api/docs/{asset}`: the page's script,
//! stylesheet and initializer. The renderer is compiled into the binary from
//! `core/assets/docs/` (vendored from npm by `scripts/update-docs-renderer.sh`), so that the page
//! loads nothing from another origin, under a content policy of its own
//! ([`REFERENCE_PAGE_POLICY`]). Its addresses are relative, so that it works under any prefix.

use http::StatusCode;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use crate::App;
use crate::http::params::{ParamValue, parameters, text_schema};
use crate::http::{ApiError, Incoming, REFERENCE_PAGE_POLICY, Reply};
use crate::openapi::ErrorBody;

/// The page: the renderer's stylesheet and scripts, from this origin (and an empty icon, so
/// that the browser asks for no `/favicon.ico`).
const PAGE: &str = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
    <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
    <title>Safezone API reference</title><link rel=\"icon\" href=\"data:,\">\
    <link rel=\"stylesheet\" href=\"docs/swagger-ui.css\"></head>\
    <body><div id=\"swagger-ui\"></div>\
    <script src=\"docs/swagger-ui-bundle.js\"></script>\
    <script src=\"docs/init.js\"></script></body></html>\n";

/// Starts the renderer on the document, next to the page (`/api/openapi.json`), with no call to
/// the renderer's online validator.
const INIT: &str = "window.ui = SwaggerUIBundle({\n  url: 'openapi.json',\n  \
    dom_id: '#swagger-ui',\n  deepLinking: true,\n  validatorUrl: null,\n});\n";

/// A file of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asset {
    /// Swagger UI's browser bundle.
    Bundle,
    /// Swagger UI's stylesheet.
    Styles,
    /// [`INIT`].
    Init,
}

impl Asset {
    /// Every file, by name.
    const ALL: [(&'static str, Self); 3] = [
        ("swagger-ui-bundle.js", Self::Bundle),
        ("swagger-ui.css", Self::Styles),
        ("init.js", Self::Init),
    ];

    /// Its content type and bytes.
    fn contents(self) -> (&'static str, &'static [u8]) {
        match self {
            Self::Bundle => (
                "text/javascript; charset=utf-8",
                include_bytes!("../../assets/docs/swagger-ui-bundle.js"),
            ),
            Self::Styles => (
                "text/css; charset=utf-8",
                include_bytes!("../../assets/docs/swagger-ui.css"),
            ),
            Self::Init => ("text/javascript; charset=utf-8", INIT.as_bytes()),
        }
    }
}

impl ParamValue for Asset {
    fn from_param(text: &str) -> Result<Self, String> {
        Self::ALL
            .iter()
            .find(|(name, _)| *name == text)
            .map(|(_, asset)| *asset)
            .ok_or_else(|| "must be swagger-ui-bundle.js, swagger-ui.css or init.js".to_owned())
    }

    fn param_schema() -> RefOr<Schema> {
        let names: Vec<String> = Self::ALL
            .iter()
            .map(|(name, _)| name.replace('.', "\\."))
            .collect();
        text_schema()
            .pattern(Some(format!("^({})$", names.join("|"))))
            .into()
    }
}

parameters! {
    /// The parameters of `GET /api/docs/{asset}`.
    struct AssetParams {
        /// A file of the reference page
        asset: Asset = Path "asset",
    }
}

/// `GET /api/docs`: the reference page.
#[utoipa::path(
    get,
    path = "/api/docs",
    tag = "health",
    operation_id = "referencePage",
    description = "The API reference for client developers: this document, rendered in the browser (Swagger UI, served by this server).",
    responses(
        (status = 200, description = "The page", content_type = "text/html", body = String),
    )
)]
pub(super) async fn page(_app: App, _incoming: Incoming) -> Result<Reply, ApiError> {
    Ok(Reply::html_under(
        StatusCode::OK,
        PAGE,
        REFERENCE_PAGE_POLICY,
    ))
}

/// `GET /api/docs/{asset}`: a file of the reference page.
#[utoipa::path(
    get,
    path = "/api/docs/{asset}",
    tag = "health",
    operation_id = "referencePageAsset",
    description = "A script or stylesheet of the reference page.",
    params(AssetParams),
    responses(
        (status = 200, description = "The file", content(
            (String = "text/javascript"),
            (String = "text/css"),
        )),
        (status = 400, description = "No such file (`invalid_parameter`)", body = ErrorBody),
    )
)]
pub(super) async fn asset(_app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let (content_type, bytes) = AssetParams::read(&incoming)?.asset.contents();
    Ok(Reply::file(content_type, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_names_each_file_and_every_file_is_served() {
        for (name, asset) in Asset::ALL {
            assert!(PAGE.contains(&format!("\"docs/{name}\"")), "{name}");
            assert_eq!(Asset::from_param(name), Ok(asset));
            assert!(!asset.contents().1.is_empty());
        }
        assert!(Asset::from_param("../openapi.json").is_err());
        assert!(
            !PAGE.contains("<script>"),
            "no inline script: the policy allows none"
        );
    }
}
