//! `grant`: the operator's command that gives coins, gems, items or packs to an account.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;

use crate::content::Content;
use crate::domain::FriendCode;
use crate::hooks::Hooks;
use crate::operator::{self, Grant};
use crate::store::Store;

/// The flags of `grant`.
#[derive(Debug, Clone, Args)]
pub struct GrantArgs {
    /// The account's friend code, e.g. `Sneeza#0001`.
    #[arg(long, value_parser = parse_friend_code)]
    pub to: FriendCode,
    /// Coins to give.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(i64).range(0..))]
    pub coins: i64,
    /// Gems to give.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(i64).range(0..))]
    pub gems: i64,
    /// An item SKU to give; repeat for several.
    #[arg(long = "item")]
    pub items: Vec<String>,
    /// A pack SKU to give, optionally with a count (`basic-chest:3`); repeat for several.
    #[arg(long = "pack", value_parser = operator::parse_pack)]
    pub packs: Vec<(String, i64)>,
}

impl GrantArgs {
    /// Runs the grant and prints what the account holds afterwards: exit 0 when given, 1 when
    /// refused or the database fails.
    pub async fn run(self, store: Arc<dyn Store>, content: &Content) -> ExitCode {
        let grant = Grant {
            coins: self.coins,
            gems: self.gems,
            items: self.items,
            packs: self.packs,
        };
        let now = time::OffsetDateTime::now_utc();
        match operator::grant(
            store.as_ref(),
            content,
            &self.to,
            &grant,
            now,
            &Hooks::new(),
        )
        .await
        {
            Ok((account, granted)) => {
                println!(
                    "granted {} reward(s) to {}: now {} coins, {} gems",
                    granted.len(),
                    account.friend_code,
                    account.coins,
                    account.gems
                );
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("grant failed: {error}");
                ExitCode::FAILURE
            }
        }
    }
}

fn parse_friend_code(text: &str) -> Result<FriendCode, String> {
    FriendCode::parse(text).map_err(|error| error.to_string())
}
