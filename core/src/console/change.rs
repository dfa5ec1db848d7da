//! What every form's action does once its body is built: one call of an operator API change
//! for the signed-in token, then a redirect to the page to see next, carrying the API's answer
//! as the one-time message.

use serde_json::Value;

use super::flash::Flash;
use super::session::{self, Session};
use super::{ConsoleState, response};
use crate::http::{Incoming, Reply};
use crate::operator_api::Failure;
use crate::operator_api::endpoint::Changes;

/// One change of the endpoint `E` to ask of the API.
pub(super) struct Change<'a, E: Changes> {
    /// What its path names.
    pub params: E::Params,
    /// The form's fields as its JSON body, as typed (the API judges them).
    pub body: Value,
    /// The change's name for a person (`Refund`).
    pub label: &'a str,
    /// The console page to go to after it (when done, and when refused).
    pub next: String,
}

impl<E: Changes> Change<'_, E> {
    /// Asks it of the API: the answer's fields, as the API gave them.
    pub async fn ask(&self, state: &ConsoleState, session: &Session) -> Result<Value, Failure> {
        let answer = state
            .api
            .submit::<E>(session.secret(), &self.params, &self.body)
            .await?;
        Ok(serde_json::to_value(answer).unwrap_or_default())
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
