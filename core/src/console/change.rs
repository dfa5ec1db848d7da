//! What every form's action does once its body is built: one `POST` to the operator API for
//! the signed-in token, then a redirect to the page to see next, carrying the API's answer as
//! the one-time message.

use serde_json::Value;

use super::api_call::{self, Failure};
use super::flash::Flash;
use super::session::{self, Session};
use super::{ConsoleState, response};
use crate::http::{Incoming, Reply};

/// One change to ask of the API.
pub(super) struct Change<'a> {
    /// The API path, under `/operator/api`.
    pub path: String,
    /// The JSON body.
    pub body: Value,
    /// The change's name for a person (`Refund`).
    pub label: &'a str,
    /// The console page to go to after it (when done, and when refused).
    pub next: String,
}

impl Change<'_> {
    /// Asks it of the API: the answer, as the API gave it.
    pub async fn ask(&self, state: &ConsoleState, session: &Session) -> Result<Value, Failure> {
        api_call::post(&state.api, session.secret(), &self.path, &self.body).await
    }

    /// Asks it of the API and sends the browser to the next page with the answer.
    pub async fn make(self, state: &ConsoleState, session: &Session, incoming: &Incoming) -> Reply {
        let outcome = self.ask(state, session).await;
        self.answer(&outcome, &self.next, state, incoming)
    }

    /// The redirect to `next` that tells `outcome`.
    pub fn answer(
        &self,
        outcome: &Result<Value, Failure>,
        next: &str,
        state: &ConsoleState,
        incoming: &Incoming,
    ) -> Reply {
        response::see_other_with(
            next,
            &Flash::outcome(self.label, outcome),
            session::secure(state, incoming),
        )
    }
}
