//! The harness of the end-to-end behaviour suite.
//!
//! Each behaviour test is written once as `async fn(TestApp)` and run four times by
//! [`each_combination!`]: under the warp and the rocket binary's adapter, on SQLite and on
//! PostgreSQL. Every run gets its own database (a fresh SQLite file, a fresh PostgreSQL
//! database), its own server on a random port, and a hand-set clock. [`Standalone`] starts a
//! server outside that pattern, for checks that start and stop servers themselves.
//! [`run_nodes`] starts several servers (nodes) on one PostgreSQL database sharing one clock.

mod answer;
mod app;
pub mod client_kit;
pub mod client_package;
pub mod community;
pub mod content;
pub mod economy;
pub mod leaderboard;
pub mod login_kit;
pub mod operator;
pub mod progression;
pub mod realtime;

pub use answer::{Answer, expected_tally, tally};
pub use app::{
    CLOCK_START, Database, GAME_SERVER_TOKEN, Nodes, Server, Standalone, TestApp, any_port, run,
    run_hooked, run_nodes, shipped_content, test_settings,
};

/// Generates, for each named `async fn(TestApp)`, a module with one `#[tokio::test]` per
/// combination of server (warp, rocket) and database (SQLite, PostgreSQL). The servers run with
/// [`test_settings`] and serve the shipped content file; with `settings = f;` first, with the
/// [`Settings`](safezone_core::Settings) of `f()`, with `content = f;` first, serving the
/// content of `f()`, and with `hooks = f;` first, running the studio's
/// [`Hooks`](safezone_core::hooks::Hooks) of `f()` (functions of the calling module).
#[macro_export]
macro_rules! each_combination {
    (@hooked $test:ident, $hooks:expr) => {
        mod $test {
            use $crate::{Database, Server, run_hooked, shipped_content, test_settings};

            #[tokio::test]
            async fn warp_sqlite() {
                let (settings, content) = (test_settings(), shipped_content());
                run_hooked(Server::Warp, Database::Sqlite, settings, content, $hooks, super::$test)
                    .await;
            }

            #[tokio::test]
            async fn warp_postgres() {
                let (settings, content) = (test_settings(), shipped_content());
                run_hooked(Server::Warp, Database::Postgres, settings, content, $hooks, super::$test)
                    .await;
            }

            #[tokio::test]
            async fn rocket_sqlite() {
                let (settings, content) = (test_settings(), shipped_content());
                run_hooked(Server::Rocket, Database::Sqlite, settings, content, $hooks, super::$test)
                    .await;
            }

            #[tokio::test]
            async fn rocket_postgres() {
                let (settings, content) = (test_settings(), shipped_content());
                run_hooked(
                    Server::Rocket,
                    Database::Postgres,
                    settings,
                    content,
                    $hooks,
                    super::$test,
                )
                .await;
            }
        }
    };
    (hooks = $hooks:ident; $($test:ident),* $(,)?) => {
        $(
            $crate::each_combination!(@hooked $test, super::$hooks());
        )*
    };
    (@combinations $test:ident, $settings:expr, $content:expr) => {
        mod $test {
            use $crate::{Database, Server, run};

            #[tokio::test]
            async fn warp_sqlite() {
                run(Server::Warp, Database::Sqlite, $settings, $content, super::$test).await;
            }

            #[tokio::test]
            async fn warp_postgres() {
                run(Server::Warp, Database::Postgres, $settings, $content, super::$test).await;
            }

            #[tokio::test]
            async fn rocket_sqlite() {
                run(Server::Rocket, Database::Sqlite, $settings, $content, super::$test).await;
            }

            #[tokio::test]
            async fn rocket_postgres() {
                run(Server::Rocket, Database::Postgres, $settings, $content, super::$test).await;
            }
        }
    };
    (settings = $settings:ident; $($test:ident),* $(,)?) => {
        $(
            $crate::each_combination!(
                @combinations $test, super::$settings(), $crate::shipped_content()
            );
        )*
    };
    (content = $content:ident; $($test:ident),* $(,)?) => {
        $(
            $crate::each_combination!(
                @combinations $test, $crate::test_settings(), super::$content()
            );
        )*
    };
    ($($test:ident),* $(,)?) => {
        $(
            $crate::each_combination!(
                @combinations $test, $crate::test_settings(), $crate::shipped_content()
            );
        )*
    };
}

/// The shipped content's game modes, in its order (solo, duo, squad, limited).
pub fn shipped_modes() -> Vec<safezone_core::domain::GameMode> {
    (safezone_core::content::Content::shipped()
        .modes
        .modes()
        .iter())
    .map(|rule| rule.mode)
    .collect()
}

/// The game mode named `name`.
///
/// # Panics
/// When `name` is not a valid mode's name.
pub fn mode(name: &str) -> safezone_core::domain::GameMode {
    safezone_core::domain::GameMode::parse(name).unwrap_or_else(|| panic!("`{name}` is a mode"))
}
