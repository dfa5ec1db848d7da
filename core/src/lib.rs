//! # Safezone core
//!
//! The account, progression and shop backend of an online battle-royale game, as one
//! framework-agnostic [`tower::Service`] over [`http`] types. Mount [`SafezoneService`] under any
//! server (hyper, warp, rocket, axum) or call it in-process; give it a [`store::Store`]
//! (`safezone-storage` has SQLite and PostgreSQL) and a [`content::Content`] file.
//!
//! ```no_run
//! # async fn run(store: std::sync::Arc<dyn safezone_core::store::Store>) {
//! // `safezone_storage::open("sqlite://game.db")` gives such a store.
//! use safezone_core::{Safezone, content::Content};
//! use tower::ServiceExt;
//!
//! let service = Safezone::new(store).content(Content::shipped()).service();
//! let request = http::Request::get("/api/config?platform=web")
//!     .body(http_body_util::Empty::<bytes::Bytes>::new())
//!     .unwrap();
//! let response = service.oneshot(request).await.unwrap();
//! assert_eq!(response.status(), 200);
//! # }
//! ```

pub mod activity;
mod api;
mod app;
#[cfg(test)]
mod architecture_tests;
pub mod auth;
mod background;
pub mod chart;
#[cfg(feature = "cli")]
pub mod cli;
pub mod clock;
pub mod console;
pub mod content;
pub mod content_publication;
pub mod database;
pub mod domain;
pub mod economy;
pub mod events;
pub mod hooks;
pub mod http;
pub mod leaderboard;
pub mod live_content;
pub mod metrics;
pub mod openapi;
pub mod operator;
pub mod operator_api;
pub mod operator_listener;
pub mod presence;
pub mod progression;
pub mod realtime;
mod retention;
pub mod serve;
mod service;
mod settings;
pub mod starter;
pub mod store;

pub use app::{App, AppState};
pub use database::DatabaseSettings;
pub use service::{Safezone, SafezoneService};
pub use settings::{ConnectionLimits, SERVER_TOKEN_MIN_CHARS, ServerToken, Settings};
