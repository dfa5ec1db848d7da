//! The declarations as the router and the document take them: each read or change, its
//! handler (the call read, authenticated and, for a change, audited) and its operation.

use std::sync::Arc;

use http::Method;

use super::OperatorState;
use super::audited;
use super::auth;
use super::endpoint::{Changes, Read, ReadBody, Reads};
use crate::http::params::RequestParams;
use crate::http::{EndpointGroup, Handler, Incoming, Reply, Routes};
use crate::openapi::{Documented, OperatorAccess};

/// One declared endpoint as the router and the document take it.
pub(super) struct Declared {
    /// Its method.
    pub method: Method,
    /// Its path under [`PREFIX`](super::PREFIX).
    pub path: &'static str,
    /// What answers it.
    pub handler: Handler<OperatorState>,
    /// Its operation in the document.
    pub operation: fn() -> (Documented, OperatorAccess),
}

impl Declared {
    /// Adds the endpoint to the routing table.
    pub fn route(&self, routes: Routes<OperatorState>) -> Routes<OperatorState> {
        let group = if self.method == Method::GET {
            EndpointGroup::Read
        } else {
            EndpointGroup::Write
        };
        routes.route(
            &self.method,
            &format!("{}{}", super::PREFIX, self.path),
            group,
            self.handler.clone(),
        )
    }
}

/// The declaration of the read `E`.
pub(super) fn read<E: Reads>() -> Declared {
    let handler: Handler<OperatorState> = Arc::new(|state: OperatorState, incoming: Incoming| {
        Box::pin(async move {
            let credential = auth::credential(&incoming)?;
            let token = auth::caller(&state, &incoming).await?;
            let params = E::Params::from_request(&incoming)?;
            let body = E::Body::from_bytes(&incoming.body_bytes().await?)?;
            let call = Read {
                token,
                credential,
                params,
                body,
            };
            let answer = E::answer(state, call).await?;
            Ok(Reply::success(&answer))
        })
    });
    Declared {
        method: E::METHOD,
        path: E::PATH,
        handler,
        operation: super::document::read::<E>,
    }
}

/// The declaration of the change `E`.
pub(super) fn change<E: Changes>() -> Declared {
    let handler: Handler<OperatorState> = Arc::new(|state: OperatorState, incoming: Incoming| {
        Box::pin(async move {
            let answer = audited::audited::<E>(state, incoming).await?;
            Ok(Reply::success(&answer))
        })
    });
    Declared {
        method: E::METHOD,
        path: E::PATH,
        handler,
        operation: super::document::change::<E>,
    }
}
