//! What every page shows around its own content: who is signed in (with the sign-out form and
//! the menu), the form token its forms carry, and the one-time message of the last action.

use super::flash::Flash;
use super::session::Session;
use crate::http::Incoming;
use crate::operator_api::status::TokenView;

/// The frame of one page.
pub(super) struct Frame {
    /// The signed-in token; none on the sign-in and error pages.
    pub operator: Option<TokenView>,
    /// The form token of the session (empty without one).
    pub csrf: String,
    /// The message the last action left, shown once.
    pub flash: Option<Flash>,
}

impl Frame {
    /// The frame of a signed-in page.
    pub fn of(session: &Session, incoming: &Incoming) -> Self {
        Self {
            operator: Some(session.operator.clone()),
            csrf: session.csrf(),
            flash: Flash::read(&incoming.headers),
        }
    }

    /// The frame of a page shown before signing in (the sign-in page, with its message).
    pub fn signed_out(incoming: &Incoming) -> Self {
        Self {
            flash: Flash::read(&incoming.headers),
            ..Self::bare()
        }
    }

    /// A frame with nothing in it (error pages).
    pub fn bare() -> Self {
        Self {
            operator: None,
            csrf: String::new(),
            flash: None,
        }
    }

    /// Whether the page may offer forms that change something.
    pub fn can_write(&self) -> bool {
        self.operator.as_ref().is_some_and(TokenView::can_write)
    }
}
