//! The document against the routing table, its inner consistency, and the limits that the
//! annotations repeat as literals checked against the constants the handlers use.

use std::collections::{BTreeSet, HashSet};

use serde_json::Value;

use super::document;
use crate::http::ErrorCode;
use crate::progression::{KILLS_MAX, MATCH_DURATION_MAX_SECS, MATCH_PLAYERS_MAX};
use crate::store::{MATCH_ID_MAX_CHARS, WHITELIST_EDIT_MAX};

fn document_json() -> Value {
    serde_json::to_value(document()).expect("the document serializes")
}

/// Every `(path, method)` the document describes, methods in upper case.
fn documented(document: &Value) -> BTreeSet<(String, String)> {
    let paths = document["paths"].as_object().expect("paths is an object");
    paths
        .iter()
        .flat_map(|(path, item)| {
            let item = item.as_object().expect("a path item is an object");
            item.keys()
                .filter(|key| {
                    [
                        "get", "put", "post", "delete", "options", "head", "patch", "trace",
                    ]
                    .contains(&key.as_str())
                })
                .map(|method| (path.clone(), method.to_uppercase()))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn the_document_describes_every_route_of_the_routing_table_and_no_other() {
    let routed: BTreeSet<(String, String)> = super::endpoints()
        .iter()
        .flat_map(|endpoint| {
            endpoint.methods.iter().map(|method| {
                (
                    endpoint.path.clone(),
                    super::endpoint::method(method).to_string(),
                )
            })
        })
        .collect();
    let documented = documented(&document_json());
    let undocumented: Vec<_> = routed.difference(&documented).collect();
    let unrouted: Vec<_> = documented.difference(&routed).collect();
    assert!(
        undocumented.is_empty() && unrouted.is_empty(),
        "routes without a description: {undocumented:?}; described but not routed: {unrouted:?}"
    );
}

#[test]
fn the_document_is_openapi_3_1_with_unique_operation_ids_and_resolvable_references() {
    let document = document_json();
    assert_eq!(document["openapi"], "3.1.0");
    assert!(document["info"]["title"].is_string());
    let mut ids = HashSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        let declared_in_path: Vec<String> = path
            .split('/')
            .filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
            .map(str::to_owned)
            .collect();
        for (method, operation) in item.as_object().expect("path item") {
            let id = operation["operationId"].as_str().expect("an operation id");
            assert!(ids.insert(id.to_owned()), "operation id {id} is used twice");
            let responses = operation["responses"].as_object().expect("responses");
            for status in ["403", "429", "503"] {
                assert!(
                    responses.contains_key(status),
                    "{method} {path} lacks {status}"
                );
            }
            let parameters = operation["parameters"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for name in &declared_in_path {
                assert!(
                    parameters
                        .iter()
                        .any(|parameter| parameter["name"] == name.as_str()
                            && parameter["in"] == "path"
                            && parameter["required"] == true),
                    "{method} {path} does not declare its path parameter {name}"
                );
            }
        }
    }
    let mut references = Vec::new();
    collect_references(&document, &mut references);
    for reference in references {
        let pointer = reference
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("{reference} is not local"));
        assert!(
            document.pointer(pointer).is_some(),
            "{reference} names nothing in the document"
        );
    }
}

fn collect_references(value: &Value, references: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, inner) in object {
                match (key.as_str(), inner) {
                    ("$ref", Value::String(reference)) => references.push(reference.clone()),
                    _ => collect_references(inner, references),
                }
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|inner| collect_references(inner, references)),
        _ => {}
    }
}

fn schema<'a>(document: &'a Value, name: &str) -> &'a Value {
    let schema = &document["components"]["schemas"][name];
    assert!(schema.is_object(), "no schema {name}");
    schema
}

#[test]
fn the_match_report_schema_has_the_checks_limits() {
    let document = document_json();
    let report = schema(&document, "MatchReportBody");
    let player = &schema(&document, "PlayerBody")["properties"];
    let players_max = i64::try_from(MATCH_PLAYERS_MAX).expect("fits");
    assert_eq!(report["properties"]["players"]["maxItems"], players_max);
    assert_eq!(
        report["properties"]["matchId"]["pattern"],
        format!("^[A-Za-z0-9._:-]{{1,{MATCH_ID_MAX_CHARS}}}$")
    );
    assert_eq!(player["placement"]["maximum"], players_max);
    assert_eq!(player["kills"]["maximum"], KILLS_MAX);
    assert_eq!(player["timeAlive"]["maximum"], MATCH_DURATION_MAX_SECS);
}

#[test]
fn the_whitelist_edit_schema_has_the_stores_limit() {
    let document = document_json();
    let body = &schema(&document, "UpdateBody")["properties"];
    let most = i64::try_from(WHITELIST_EDIT_MAX).expect("fits");
    assert_eq!(body["add"]["maxItems"], most);
    assert_eq!(body["remove"]["maxItems"], most);
    assert_eq!(body["replace"]["maxItems"], most);
}

#[test]
fn the_codes_that_error_descriptions_name_are_on_the_list() {
    let document = document_json();
    let mut properties = HashSet::new();
    collect_property_names(&document, &mut properties);
    let paths = document["paths"].as_object().expect("paths");
    let operation_responses = paths
        .values()
        .flat_map(|item| item.as_object().expect("path item").values())
        .filter_map(|operation| operation["responses"].as_object())
        .flat_map(|responses| {
            responses
                .iter()
                .filter(|(status, _)| status.starts_with(['4', '5']))
                .map(|(_, response)| response)
        });
    let named_responses = document["components"]["responses"]
        .as_object()
        .expect("named responses")
        .values();
    let codes: HashSet<&str> = ErrorCode::ALL.iter().map(|code| code.as_str()).collect();
    for description in operation_responses
        .chain(named_responses)
        .filter_map(|response| response["description"].as_str())
    {
        let unlisted: Vec<&str> = description
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|quoted| {
                quoted.contains('_')
                    && quoted.bytes().all(|byte| {
                        byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_'
                    })
            })
            .filter(|quoted| !codes.contains(quoted) && !properties.contains(*quoted))
            .collect();
        assert!(
            unlisted.is_empty(),
            "{description:?} names codes that ErrorCode does not list: {unlisted:?}"
        );
    }
}

/// The names of every schema property in the document (which descriptions quote too).
fn collect_property_names(value: &Value, names: &mut HashSet<String>) {
    match value {
        Value::Object(object) => {
            if let Some(Value::Object(properties)) = object.get("properties") {
                names.extend(properties.keys().cloned());
            }
            object
                .values()
                .for_each(|inner| collect_property_names(inner, names));
        }
        Value::Array(items) => items
            .iter()
            .for_each(|inner| collect_property_names(inner, names)),
        _ => {}
    }
}
