//! The form body a POST operation also takes: the fields of an
//! `application/x-www-form-urlencoded` body are read as its query parameters (a field the
//! query string gives another value is a 400 naming it).

use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::ObjectBuilder;
use utoipa::openapi::{ContentBuilder, RefOr, Required};

/// The form body's media type.
const FORM: &str = "application/x-www-form-urlencoded";

/// Documents the optional form body of a POST `operation` that takes query parameters and no
/// other body: one field per query parameter, with the parameter's schema and description.
pub(super) fn add_form_body(operation: &mut Operation) {
    if operation.request_body.is_some() {
        return;
    }
    let mut fields = ObjectBuilder::new();
    let mut any = false;
    for parameter in operation.parameters.iter().flatten() {
        let RefOr::T(parameter) = parameter else {
            continue;
        };
        if parameter.parameter_in != ParameterIn::Query {
            continue;
        }
        if let Some(schema) = &parameter.schema {
            fields = fields.property(&parameter.name, schema.clone());
            any = true;
        }
    }
    if !any {
        return;
    }
    let body = RequestBodyBuilder::new()
        .description(Some(
            "The query parameters may be sent as form fields instead (or as well: a field \
             with another value than the query string's is a 400 naming it)",
        ))
        .required(Some(Required::False))
        .content(FORM, ContentBuilder::new().schema(Some(fields)).build())
        .build();
    operation.request_body = Some(RefOr::T(body));
}
