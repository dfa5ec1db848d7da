//! `openapi`: writes the API's OpenAPI document, the one served at `GET /api/openapi.json`,
//! without a database or a server: 3.1 as served, or the 3.0 variant for client generators
//! that read only 3.0 (Unity's and Unreal's); `--operator` writes the operator API's document
//! instead (served at `/operator/api/openapi.json` on the operator listener), `--asyncapi` the
//! realtime channel's AsyncAPI 3.0 document (served at `/api/asyncapi.json`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

/// Where and in which version `openapi` writes the document.
#[derive(Debug, Clone, Args)]
pub struct OpenapiArgs {
    /// Write the document to this file (replaced) instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write the OpenAPI 3.0 variant (`nullable`, `example`, ...) instead of 3.1, for client
    /// generators that read only 3.0.
    #[arg(long = "openapi-3-0")]
    pub openapi_3_0: bool,
    /// Write the operator API's document (the one the operator listener serves at
    /// `/operator/api/openapi.json`) instead of the public API's.
    #[arg(long)]
    pub operator: bool,
    /// Write the realtime channel's AsyncAPI 3.0 document (the one served at
    /// `/api/asyncapi.json`) instead of an OpenAPI document.
    #[arg(long, conflicts_with_all = ["operator", "openapi_3_0"])]
    pub asyncapi: bool,
}

impl OpenapiArgs {
    /// Writes the document as indented JSON with a final newline: exit 0, or 1 when it cannot
    /// be written.
    pub fn run(&self) -> ExitCode {
        let text = match self.text() {
            Ok(text) => text,
            Err(error) => {
                eprintln!("the OpenAPI document did not serialize: {error}");
                return ExitCode::FAILURE;
            }
        };
        let written = match &self.out {
            Some(path) => std::fs::write(path, &text)
                .map_err(|error| format!("cannot write {}: {error}", path.display())),
            None => {
                let mut stdout = std::io::stdout().lock();
                stdout
                    .write_all(text.as_bytes())
                    .and_then(|()| stdout.flush())
                    .map_err(|error| format!("cannot write the OpenAPI document: {error}"))
            }
        };
        match written {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("{error}");
                ExitCode::FAILURE
            }
        }
    }

    /// The document in the version asked for, as indented JSON with a final newline.
    pub fn text(&self) -> serde_json::Result<String> {
        let mut document = if self.asyncapi {
            crate::realtime::asyncapi::document()
        } else if self.operator {
            serde_json::to_value(crate::operator_api::document())?
        } else {
            serde_json::to_value(crate::api::document())?
        };
        if self.openapi_3_0 {
            crate::openapi::to_openapi_3_0(&mut document);
        }
        let mut text = serde_json::to_string_pretty(&document)?;
        text.push('\n');
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    fn document(openapi_3_0: bool) -> Value {
        let args = OpenapiArgs {
            out: None,
            openapi_3_0,
            operator: false,
            asyncapi: false,
        };
        serde_json::from_str(&args.text().expect("the document serializes")).expect("JSON")
    }

    #[test]
    fn writes_the_served_document() {
        let served = serde_json::to_value(crate::api::document()).expect("serializes");
        assert_eq!(document(false), served);
        assert!(
            document(false)["openapi"]
                .as_str()
                .is_some_and(|v| v.starts_with("3.1"))
        );
    }

    #[test]
    fn writes_the_asyncapi_document_when_asked() {
        let args = OpenapiArgs {
            out: None,
            openapi_3_0: false,
            operator: false,
            asyncapi: true,
        };
        let written: Value =
            serde_json::from_str(&args.text().expect("the document serializes")).expect("JSON");
        assert_eq!(written, crate::realtime::asyncapi::document());
        assert_eq!(written["asyncapi"], "3.0.0");
    }

    #[test]
    fn writes_the_operator_document_when_asked() {
        let args = OpenapiArgs {
            out: None,
            openapi_3_0: false,
            operator: true,
            asyncapi: false,
        };
        let written: Value =
            serde_json::from_str(&args.text().expect("the document serializes")).expect("JSON");
        let served = serde_json::to_value(crate::operator_api::document()).expect("serializes");
        assert_eq!(written, served);
        assert!(written["paths"]["/operator/api/players/{accountId}/grant"]["post"].is_object());
    }

    #[test]
    fn the_3_0_variant_has_the_same_operations() {
        let (v31, v30) = (document(false), document(true));
        assert_eq!(v30["openapi"], "3.0.3");
        let operations = |document: &Value| -> Vec<String> {
            document["paths"]
                .as_object()
                .expect("paths")
                .iter()
                .flat_map(|(path, item)| {
                    item.as_object()
                        .expect("a path item")
                        .keys()
                        .map(move |method| format!("{method} {path}"))
                })
                .collect()
        };
        assert_eq!(operations(&v31), operations(&v30));
        assert!(operations(&v30).len() > 40);
    }

    /// The API's own document keeps none of the forms 3.0 says otherwise (the Node client kit
    /// also checks it against the OpenAPI 3.0 schema).
    #[test]
    fn the_api_document_keeps_no_3_1_form() {
        let text = document(true).to_string();
        for form in [
            r#""type":["#,
            r#""type":"null""#,
            r#""examples":["#,
            "propertyNames",
        ] {
            assert!(!text.contains(form), "{form} is left in the 3.0 document");
        }
        assert!(text.contains(r#""nullable":true"#));
    }
}
