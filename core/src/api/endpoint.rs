//! One endpoint, declared once: its methods and path (read from the handler's
//! `#[utoipa::path]`), its handler, the rate-limit group it counts against and its operation
//! in the document. The routing table and the OpenAPI document are both built from the
//! declarations ([`endpoints`](super::endpoints)).

use http::Method;
use utoipa::openapi::RefOr;
use utoipa::openapi::path::{HttpMethod, Operation};
use utoipa::openapi::schema::Schema;

use crate::App;
use crate::http::{EndpointGroup, Handler, Routes};
use crate::openapi::Documented;

/// Declares an endpoint: `endpoint!(Read, config::client_config)` serves the handler at the
/// methods and path of its `#[utoipa::path]`, in the rate-limit group `Read`, and documents
/// it; `endpoint!(Read, Get "/api/leaderboard" as "leaderboard" => leaderboard::live)` serves a
/// handler at a second path too (an alias), documented as a copy of the handler's operation
/// under its own operation id; `..., like receipts::chat` documents an alias served by a handler
/// of its own as a copy of another's operation.
macro_rules! endpoint {
    ($group:ident, $module:ident :: $function:ident) => {
        pastey::paste! {
            $crate::api::endpoint::Endpoint::declared::<$module::[<__path_ $function>]>(
                $crate::http::EndpointGroup::$group,
                $crate::http::handler($module::$function),
            )
        }
    };
    (
        $group:ident,
        $method:ident $path:literal as $id:literal => $module:ident :: $function:ident
    ) => {
        endpoint!($group, $method $path as $id => $module::$function, like $module::$function)
    };
    (
        $group:ident,
        $method:ident $path:literal as $id:literal => $module:ident :: $function:ident,
        like $like_module:ident :: $like:ident
    ) => {
        pastey::paste! {
            $crate::api::endpoint::Endpoint::alias::<$like_module::[<__path_ $like>]>(
                (utoipa::openapi::path::HttpMethod::$method, $path, $id),
                $crate::http::EndpointGroup::$group,
                $crate::http::handler($module::$function),
            )
        }
    };
}

pub(super) use endpoint;

/// The schemas an operation names, by name.
type Schemas = Vec<(String, RefOr<Schema>)>;

/// What `#[utoipa::path]` generates for a handler and the declaration reads: its methods,
/// path, operation with its tags, and the schemas it names.
pub(super) trait Described:
    utoipa::Path + utoipa::__dev::SchemaReferences + for<'t> utoipa::__dev::Tags<'t>
{
}

impl<P> Described for P where
    P: utoipa::Path + utoipa::__dev::SchemaReferences + for<'t> utoipa::__dev::Tags<'t>
{
}

/// One endpoint of the API, as its declaration gives it.
pub(crate) struct Endpoint {
    /// The methods it answers.
    pub(crate) methods: Vec<HttpMethod>,
    /// Its matchit path pattern (`/api/user/{userKey}`).
    pub(crate) path: String,
    /// The rate-limit group its requests count against.
    pub(crate) group: EndpointGroup,
    handler: Handler<App>,
    /// The handler's operation with its tags, and the schemas it names.
    describe: fn() -> (Operation, Schemas),
    /// An alias's own operation id (the handler's otherwise).
    operation_id: Option<&'static str>,
}

impl Endpoint {
    /// The endpoint `P` (a handler's `#[utoipa::path]`) describes, served by `handler`.
    pub(super) fn declared<P: Described>(group: EndpointGroup, handler: Handler<App>) -> Self {
        Self {
            methods: P::methods(),
            path: P::path(),
            group,
            handler,
            describe: describe::<P>,
            operation_id: None,
        }
    }

    /// `handler` served at `(method, path)`, documented as a copy of `P`'s operation under
    /// `operation_id`.
    pub(super) fn alias<P: Described>(
        (method, path, operation_id): (HttpMethod, &'static str, &'static str),
        group: EndpointGroup,
        handler: Handler<App>,
    ) -> Self {
        Self {
            methods: vec![method],
            path: path.to_owned(),
            group,
            handler,
            describe: describe::<P>,
            operation_id: Some(operation_id),
        }
    }

    /// Adds the endpoint's methods to the routing table.
    pub(super) fn route(&self, routes: Routes<App>) -> Routes<App> {
        self.methods.iter().fold(routes, |routes, method| {
            routes.route(
                &self::method(method),
                &self.path,
                self.group,
                self.handler.clone(),
            )
        })
    }

    /// The endpoint's operation in the document.
    pub(super) fn documented(&self) -> Documented {
        let (mut operation, schemas) = (self.describe)();
        if let Some(id) = self.operation_id {
            operation.operation_id = Some(id.to_owned());
        }
        Documented {
            path: self.path.clone(),
            methods: self.methods.clone(),
            operation,
            schemas,
        }
    }
}

/// The operation `P` describes, with its tags (as utoipa's `OpenApi` derive adds them), and the
/// schemas it names.
fn describe<P: Described>() -> (Operation, Schemas) {
    let mut operation = P::operation();
    let tags = <P as utoipa::__dev::Tags<'static>>::tags();
    operation
        .tags
        .get_or_insert_with(Vec::new)
        .extend(tags.iter().map(ToString::to_string));
    let mut schemas = Vec::new();
    <P as utoipa::__dev::SchemaReferences>::schemas(&mut schemas);
    (operation, schemas)
}

/// The HTTP method of a declared method.
pub(super) fn method(method: &HttpMethod) -> Method {
    match method {
        HttpMethod::Get => Method::GET,
        HttpMethod::Post => Method::POST,
        HttpMethod::Put => Method::PUT,
        HttpMethod::Delete => Method::DELETE,
        HttpMethod::Options => Method::OPTIONS,
        HttpMethod::Head => Method::HEAD,
        HttpMethod::Patch => Method::PATCH,
        HttpMethod::Trace => Method::TRACE,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::super::{document, endpoints};

    #[test]
    fn every_alias_is_its_handlers_operation_under_its_own_id() {
        let document = serde_json::to_value(document()).expect("the document serializes");
        let operations: Vec<&Value> = document["paths"]
            .as_object()
            .expect("paths")
            .values()
            .flat_map(|item| item.as_object().expect("a path item").values())
            .collect();
        let without_id = |operation: &Value| {
            let mut operation = operation.clone();
            operation["operationId"] = Value::Null;
            operation
        };
        let aliases = endpoints().into_iter().filter_map(|endpoint| {
            let id = endpoint.operation_id?;
            let original_id = (endpoint.describe)().0.operation_id?;
            Some((endpoint, id, original_id))
        });
        let mut seen = 0;
        for (endpoint, id, original_id) in aliases {
            let by_id = |id: &str| {
                *operations
                    .iter()
                    .find(|operation| operation["operationId"] == id)
                    .unwrap_or_else(|| panic!("no operation {id}"))
            };
            let original = by_id(&original_id);
            let copy = by_id(id);
            assert_eq!(without_id(original), without_id(copy), "{}", endpoint.path);
            seen += 1;
        }
        assert_eq!(seen, 6, "the aliases of the table");
    }
}
