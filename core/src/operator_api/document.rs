//! Each declared operator endpoint's operation in the operator document: its method and path,
//! id, tag and description, its parameters, its body (a change's) and its answer in the
//! success envelope, all from the declaration's types.

use utoipa::openapi::path::{HttpMethod, OperationBuilder};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::{ContentBuilder, RefOr, Required, ResponseBuilder};
use utoipa::{IntoParams, PartialSchema, ToSchema};

use super::endpoint::{Changes, Endpoint, ReadBody, Reads};
use crate::openapi::{Documented, OperatorAccess, Success};

/// The read `E`'s operation, with its body if it takes one.
pub(super) fn read<E: Reads>() -> (Documented, OperatorAccess) {
    let documented = match E::Body::documented() {
        None => documented::<E>(|operation| operation),
        Some((body, schemas)) => with_body::<E>(body, schemas),
    };
    (documented, OperatorAccess::Read)
}

/// The change `E`'s operation, with its body.
pub(super) fn change<E: Changes>() -> (Documented, OperatorAccess) {
    let mut schemas = Vec::new();
    E::Body::schemas(&mut schemas);
    (
        with_body::<E>(E::Body::schema(), schemas),
        OperatorAccess::Change,
    )
}

/// The operation of `E` with the JSON body `body`, which names `schemas`.
fn with_body<E: Endpoint>(
    body: RefOr<Schema>,
    schemas: Vec<(String, RefOr<Schema>)>,
) -> Documented {
    let mut documented = documented::<E>(|operation| {
        let content = ContentBuilder::new().schema(Some(body)).build();
        operation.request_body(Some(
            RequestBodyBuilder::new()
                .content("application/json", content)
                .required(Some(Required::True))
                .build(),
        ))
    });
    documented.schemas.extend(schemas);
    documented
}

/// The operation of `E` as the declaration gives it, completed by `complete`.
fn documented<E: Endpoint>(
    complete: impl FnOnce(OperationBuilder) -> OperationBuilder,
) -> Documented {
    let answer = ContentBuilder::new()
        .schema(Some(Success::<E::Answer>::schema()))
        .build();
    let operation = OperationBuilder::new()
        .operation_id(Some(E::ID))
        .tag(E::TAG)
        .description(Some(E::ABOUT))
        .parameters(Some(E::Params::into_params(|| None)))
        .response(
            "200",
            ResponseBuilder::new()
                .description("Done: the answer's fields in the success envelope")
                .content("application/json", answer)
                .build(),
        );
    let mut schemas = vec![(E::Answer::name().into_owned(), E::Answer::schema())];
    E::Answer::schemas(&mut schemas);
    Documented {
        path: format!("{}{}", super::PREFIX, E::PATH),
        methods: vec![if E::METHOD == http::Method::GET {
            HttpMethod::Get
        } else {
            HttpMethod::Post
        }],
        operation: complete(operation).build(),
        schemas,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::endpoints;

    /// The document keeps one schema per name: two answer or body types of the same name would
    /// describe one endpoint's answer with the other's schema.
    #[test]
    fn no_two_schemas_share_a_name() {
        let mut named: BTreeMap<String, (String, String)> = BTreeMap::new();
        for endpoint in endpoints() {
            let (documented, _) = (endpoint.operation)();
            for (name, schema) in documented.schemas {
                let text = serde_json::to_string(&schema).unwrap_or_default();
                match named.get(&name) {
                    Some((path, known)) => assert_eq!(
                        known, &text,
                        "{name} of {} is another schema than {name} of {path}",
                        documented.path
                    ),
                    None => {
                        named.insert(name, (documented.path.clone(), text));
                    }
                }
            }
        }
    }
}
