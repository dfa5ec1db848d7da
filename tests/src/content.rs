//! Published content as the tests see it: the shipped file with `maintenance` set, and waiting
//! for a node to serve it.

use safezone_core::content::SHIPPED;

use crate::TestApp;
use crate::leaderboard::{DEADLINE, within};

/// The shipped content file with `maintenance` set to `on`.
pub fn shipped_with_maintenance(on: bool) -> String {
    let text = SHIPPED.replacen("maintenance = false", &format!("maintenance = {on}"), 1);
    assert!(text.contains(&format!("maintenance = {on}")));
    text
}

impl TestApp {
    /// Waits until `GET /api/config` shows `maintenance` as `on` (at most [`DEADLINE`]).
    pub async fn await_maintenance(&self, on: bool) {
        let settled = within(DEADLINE, || async {
            let answer = self.get("/api/config").await;
            let config = answer.success();
            if config["config"]["maintenance"] == on {
                Ok(())
            } else {
                Err(config.to_string())
            }
        })
        .await;
        if let Err(last) = settled {
            panic!(
                "{:?} did not serve maintenance {on} within {DEADLINE:?}; last: {last}",
                self.server
            );
        }
    }
}
