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
pub mod community;
pub mod economy;
pub mod leaderboard;
pub mod login_kit;
pub mod progression;

pub use answer::{Answer, expected_tally, tally};
pub use app::{
    Database, GAME_SERVER_TOKEN, Nodes, Server, Standalone, TestApp, any_port, run, run_nodes,
    run_with_settings, test_settings,
};

/// Generates, for each named `async fn(TestApp)`, a module with one `#[tokio::test]` per
/// combination of server (warp, rocket) and database (SQLite, PostgreSQL). With
/// `settings = f;` first, every server runs with the [`Settings`](safezone_core::Settings)
/// of `f()`, a function of the calling module (start from [`test_settings`]).
#[macro_export]
macro_rules! each_combination {
    (@combinations $test:ident, $settings:expr) => {
        mod $test {
            use $crate::{Database, Server, run_with_settings};

            #[tokio::test]
            async fn warp_sqlite() {
                run_with_settings(Server::Warp, Database::Sqlite, $settings, super::$test).await;
            }

            #[tokio::test]
            async fn warp_postgres() {
                run_with_settings(Server::Warp, Database::Postgres, $settings, super::$test).await;
            }

            #[tokio::test]
            async fn rocket_sqlite() {
                run_with_settings(Server::Rocket, Database::Sqlite, $settings, super::$test).await;
            }

            #[tokio::test]
            async fn rocket_postgres() {
                run_with_settings(Server::Rocket, Database::Postgres, $settings, super::$test)
                    .await;
            }
        }
    };
    (settings = $settings:ident; $($test:ident),* $(,)?) => {
        $( $crate::each_combination!(@combinations $test, super::$settings()); )*
    };
    ($($test:ident),* $(,)?) => {
        $( $crate::each_combination!(@combinations $test, $crate::test_settings()); )*
    };
}
