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
    Database, GAME_SERVER_TOKEN, Nodes, Server, Standalone, TestApp, any_port, run_nodes,
    run_with_content, run_with_settings, shipped_content, test_settings,
};

/// Generates, for each named `async fn(TestApp)`, a module with one `#[tokio::test]` per
/// combination of server (warp, rocket) and database (SQLite, PostgreSQL). The servers serve
/// the shipped content file, or with `content = f;` first, the content `f()` answers (a
/// `fn() -> Content` of the test file).
#[macro_export]
macro_rules! each_combination {
    (content = $content:ident; $($test:ident),* $(,)?) => {
        $crate::each_combination!(@serving super::$content(); $($test),*);
    };
    (@serving $content:expr; $($test:ident),*) => {
        $(
            mod $test {
                use $crate::{Database, Server, run_with_content};

                #[tokio::test]
                async fn warp_sqlite() {
                    run_with_content(Server::Warp, Database::Sqlite, $content, super::$test).await;
                }

                #[tokio::test]
                async fn warp_postgres() {
                    run_with_content(Server::Warp, Database::Postgres, $content, super::$test).await;
                }

                #[tokio::test]
                async fn rocket_sqlite() {
                    run_with_content(Server::Rocket, Database::Sqlite, $content, super::$test).await;
                }

                #[tokio::test]
                async fn rocket_postgres() {
                    run_with_content(Server::Rocket, Database::Postgres, $content, super::$test).await;
                }
            }
        )*
    };
    ($($test:ident),* $(,)?) => {
        $crate::each_combination!(@serving $crate::shipped_content(); $($test),*);
    };
}
