//! Each alias of both sides is documented as its handler's operation under its own id.

use serde_json::Value;

use super::super::{account, community};

fn document() -> Value {
    serde_json::to_value(crate::openapi::document()).expect("the document serializes")
}

fn method(method: &utoipa::openapi::path::HttpMethod) -> &'static str {
    use utoipa::openapi::path::HttpMethod;
    match method {
        HttpMethod::Get => "get",
        HttpMethod::Post => "post",
        _ => panic!("the aliases are GET or POST"),
    }
}

#[test]
fn every_alias_is_its_handlers_operation_under_its_own_id() {
    let document = document();
    for (path, path_method, alias, alias_method, operation_id) in
        community::ALIASES.0.iter().chain(account::ALIASES.0)
    {
        let original = &document["paths"][path][method(path_method)];
        let copy = &document["paths"][alias][method(alias_method)];
        assert!(original.is_object(), "{path} is not documented");
        assert_eq!(copy["operationId"], *operation_id, "{alias}");
        let without_id = |operation: &Value| {
            let mut operation = operation.clone();
            operation["operationId"] = Value::Null;
            operation
        };
        assert_eq!(
            without_id(original),
            without_id(copy),
            "{alias} differs from {path}"
        );
    }
}
