//! What the endpoints share, in one home: who is calling (`session`), applying a planned
//! change (`change`), the sign-in every identity shares (`sign_in`), parameters several
//! endpoints read (`params`), the community's rules (`community`) and the boards' errors
//! (`boards`).

pub(crate) mod boards;
pub(crate) mod change;
pub(crate) mod community;
pub(crate) mod params;
pub(crate) mod session;
pub(crate) mod sign_in;
