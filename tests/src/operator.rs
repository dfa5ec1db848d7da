//! The operator's side of a test app: tokens made as `operator-token create` makes them, and
//! the operator listener (operator API and web console) serving the app.

use safezone_core::cli::AdminCommand;
use safezone_core::operator_listener::{self, OperatorServer, OperatorService};

use crate::{TestApp, any_port};

impl TestApp {
    /// Creates an operator token named `name` with `role` (`read` or `full`) through
    /// `operator-token create`, and answers its secret (the line's last word).
    pub async fn operator_token(&self, name: &str, role: &str) -> String {
        let args = ["operator-token", "create", "--name", name, "--role", role];
        let line = AdminCommand::from_args(args)
            .expect("the command parses")
            .execute(self.store.as_ref(), self.now())
            .await
            .expect("the token is created");
        let secret = line.rsplit(' ').next().expect("a secret").to_owned();
        assert_eq!(secret.len(), 48, "{line}");
        secret
    }

    /// Revokes the operator token named `name` through `operator-token revoke`.
    pub async fn revoke_operator_token(&self, name: &str) {
        let line = AdminCommand::from_args(["operator-token", "revoke", "--name", name])
            .expect("the command parses")
            .execute(self.store.as_ref(), self.now())
            .await;
        assert_eq!(line, Ok(format!("operator token {name} revoked")));
    }

    /// Serves this app's operator listener (operator API, console) on a free port.
    pub async fn operator_listener(&self) -> OperatorServer {
        operator_listener::serve(any_port(), OperatorService::new(self.operator_api.clone()))
            .await
            .expect("the operator listener binds")
    }
}
