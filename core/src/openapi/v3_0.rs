//! The OpenAPI 3.0 variant of the document, for the client generators that read only 3.0
//! (NSwag and openapi-generator's `csharp` for Unity, `cpp-ue4` for Unreal). The 3.1 document
//! uses a handful of JSON Schema 2020-12 forms that 3.0 says otherwise; each is rewritten:
//!
//! - `type: [T, "null"]` becomes `type: T, nullable: true`;
//! - `oneOf: [S, {type: "null"}]` becomes `allOf: [S], nullable: true` (the form generators
//!   read for a nullable reference), `S`'s description moving up beside it;
//! - a schema's `examples: [E, ...]` becomes `example: E`;
//! - `propertyNames`, which 3.0 lacks, and the licence's SPDX `identifier` are left out.
//!
//! Everything else is the same in both versions.

use serde_json::{Map, Value};

/// Rewrites a 3.1 `document` (as [`document`](super::document) builds it, in JSON) as 3.0.
pub fn to_openapi_3_0(document: &mut Value) {
    document["openapi"] = Value::from("3.0.3");
    if let Some(license) = document
        .pointer_mut("/info/license")
        .and_then(Value::as_object_mut)
    {
        license.remove("identifier");
    }
    convert(document);
}

/// Rewrites every schema in `value`, depth first.
fn convert(value: &mut Value) {
    match value {
        Value::Object(object) => {
            rewrite_schema(object);
            for (key, child) in object.iter_mut() {
                match (key.as_str(), child) {
                    // A property's name is no keyword: only the schemas in the map are.
                    ("properties", Value::Object(properties)) => {
                        properties.values_mut().for_each(convert);
                    }
                    (_, child) => convert(child),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(convert),
        _ => {}
    }
}

/// Rewrites the 3.1 forms of one object, when it is a schema that uses them.
fn rewrite_schema(schema: &mut Map<String, Value>) {
    nullable_type(schema);
    nullable_choice(schema);
    // A schema's examples are a list; a parameter's or a media type's, a map (the same in 3.0).
    if schema.get("examples").is_some_and(Value::is_array) {
        let first = schema
            .remove("examples")
            .and_then(|examples| examples.as_array()?.first().cloned());
        if let Some(first) = first {
            schema.insert("example".to_owned(), first);
        }
    }
    schema.remove("propertyNames");
}

/// `type: [T, "null"]` as `type: T, nullable: true`.
fn nullable_type(schema: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = schema.get_mut("type") else {
        return;
    };
    let before = types.len();
    types.retain(|kind| kind != "null");
    let nullable = types.len() < before;
    if let [only] = types.as_mut_slice() {
        let only = only.take();
        schema.insert("type".to_owned(), only);
    }
    if nullable {
        schema.insert("nullable".to_owned(), Value::Bool(true));
    }
}

/// `oneOf: [S, {type: "null"}]` as `allOf: [S], nullable: true`, with `S`'s description.
fn nullable_choice(schema: &mut Map<String, Value>) {
    let Some(Value::Array(choices)) = schema.get_mut("oneOf") else {
        return;
    };
    let before = choices.len();
    choices.retain(|choice| choice.get("type") != Some(&Value::from("null")));
    if choices.len() == before {
        return;
    }
    if let [only] = choices.as_mut_slice() {
        let mut only = only.take();
        let description = only
            .as_object_mut()
            .filter(|only| only.contains_key("$ref"))
            .and_then(|only| only.remove("description"));
        schema.remove("oneOf");
        schema.insert("allOf".to_owned(), Value::Array(vec![only]));
        if let Some(description) = description {
            schema.entry("description").or_insert(description);
        }
    }
    schema.insert("nullable".to_owned(), Value::Bool(true));
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn converted(schema: Value) -> Value {
        let mut document = json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1", "license": {"name": "MIT", "identifier": "MIT"}},
            "components": {"schemas": {"S": schema}}
        });
        to_openapi_3_0(&mut document);
        assert_eq!(document["openapi"], "3.0.3");
        assert_eq!(document["info"]["license"], json!({"name": "MIT"}));
        document["components"]["schemas"]["S"].take()
    }

    #[test]
    fn a_type_with_null_becomes_nullable() {
        assert_eq!(
            converted(json!({"type": ["string", "null"], "maxLength": 3})),
            json!({"type": "string", "nullable": true, "maxLength": 3})
        );
        assert_eq!(
            converted(json!({"type": "array", "items": {"type": ["integer", "null"]}})),
            json!({"type": "array", "items": {"type": "integer", "nullable": true}})
        );
    }

    #[test]
    fn one_of_a_reference_or_null_becomes_a_nullable_all_of() {
        assert_eq!(
            converted(
                json!({"type": "object", "properties": {"next_at": {"oneOf": [
                    {"$ref": "#/components/schemas/ApiDate", "description": "When."},
                    {"type": "null"}
                ]}}})
            ),
            json!({"type": "object", "properties": {"next_at": {
                "allOf": [{"$ref": "#/components/schemas/ApiDate"}],
                "nullable": true,
                "description": "When."
            }}})
        );
    }

    #[test]
    fn examples_become_one_example_and_property_names_go() {
        assert_eq!(
            converted(json!({"type": "string", "examples": ["Sneeza#0001", "b"]})),
            json!({"type": "string", "example": "Sneeza#0001"})
        );
        assert_eq!(
            converted(
                json!({"type": "object", "propertyNames": {"type": "string"},
                "additionalProperties": {"type": "integer"}})
            ),
            json!({"type": "object", "additionalProperties": {"type": "integer"}})
        );
    }

    #[test]
    fn property_names_that_are_keywords_are_kept() {
        let schema = json!({"type": "object", "properties": {
            "propertyNames": {"type": "string"},
            "examples": {"type": "array", "items": {"type": "string"}}
        }});
        assert_eq!(converted(schema.clone()), schema);
    }
}
