//! Examples live beside this crate as cargo examples.
