//! Published content as the tests see it: the shipped file with `maintenance` set or a mode
//! added, and waiting for a node to serve it.

use safezone_core::content::SHIPPED;

use crate::TestApp;
use crate::leaderboard::{DEADLINE, within};

/// The shipped content file with `maintenance` set to `on`.
pub fn shipped_with_maintenance(on: bool) -> String {
    let text = SHIPPED.replacen("maintenance = false", &format!("maintenance = {on}"), 1);
    assert!(text.contains(&format!("maintenance = {on}")));
    text
}

/// The shipped content file with one more game mode, `name`, of teams of `team_size`, after
/// the shipped four.
pub fn shipped_with_mode(name: &str, team_size: u8) -> String {
    let last = "name = \"limited\"\nteam_size = 4\n";
    let text = SHIPPED.replacen(
        last,
        &format!("{last}\n[[modes]]\nname = \"{name}\"\nteam_size = {team_size}\n"),
        1,
    );
    assert!(text.contains(&format!("name = \"{name}\"")));
    text
}

impl TestApp {
    /// Waits until `GET /api/config` lists the game mode `name` among its modes, or no longer
    /// lists it (`listed` false), at most [`DEADLINE`]; answers the mode's entry when listed.
    pub async fn await_mode(&self, name: &str, listed: bool) -> Option<serde_json::Value> {
        let settled = within(DEADLINE, || async {
            let answer = self.get("/api/config").await;
            let config = answer.success();
            let entry = config["config"]["modes"]
                .as_array()
                .and_then(|modes| modes.iter().find(|mode| mode["name"] == name))
                .cloned();
            if entry.is_some() == listed {
                Ok(entry)
            } else {
                Err(config.to_string())
            }
        })
        .await;
        settled.unwrap_or_else(|last| {
            panic!(
                "{:?} did not serve mode {name} listed {listed} within {DEADLINE:?}; last: {last}",
                self.server
            )
        })
    }

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
