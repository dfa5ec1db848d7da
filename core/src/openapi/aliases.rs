//! Paths the routing table serves with the handler of another path, documented as copies of
//! that handler's operation under their own operation ids.

use utoipa::Modify;
use utoipa::openapi::path::HttpMethod;

/// `(path, method)` of the documented operation, then the alias's path, method and operation id.
pub(super) type Alias = (
    &'static str,
    HttpMethod,
    &'static str,
    HttpMethod,
    &'static str,
);

/// The aliases of one side of the API, as a modifier of its document.
pub(super) struct Aliases(pub(super) &'static [Alias]);

impl Modify for Aliases {
    fn modify(&self, document: &mut utoipa::openapi::OpenApi) {
        for (path, method, alias, alias_method, operation_id) in self.0 {
            let Some(operation) = document.paths.get_path_operation(path, method.clone()) else {
                continue;
            };
            let mut operation = operation.clone();
            operation.operation_id = Some((*operation_id).to_owned());
            document
                .paths
                .add_path_operation(alias, vec![alias_method.clone()], operation);
        }
    }
}

#[cfg(test)]
mod tests;
