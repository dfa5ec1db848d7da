//! `make-admin`, `ban` and `unban`.

use clap::Args;

use super::{Failure, Outcome, account, parse_friend_code};
use crate::domain::FriendCode;
use crate::store::{Role, Store};

/// The flags of `ban` and `unban`.
#[derive(Debug, Clone, Args)]
pub struct AccountArgs {
    /// The account's friend code, e.g. `Sneeza#0001`.
    #[arg(long, value_parser = parse_friend_code)]
    pub to: FriendCode,
}

/// The flags of `make-admin`.
#[derive(Debug, Clone, Args)]
pub struct MakeAdminArgs {
    /// The account's friend code, e.g. `Sneeza#0001`.
    #[arg(long, value_parser = parse_friend_code)]
    pub to: FriendCode,
    /// Makes the account a player again instead.
    #[arg(long)]
    pub revoke: bool,
}

impl MakeAdminArgs {
    /// Sets the account's role.
    pub async fn run(self, store: &dyn Store) -> Outcome {
        let account = account(store, &self.to).await?;
        let role = if self.revoke {
            Role::Player
        } else {
            Role::Admin
        };
        if !store.set_role(account.id, role).await? {
            return Err(gone(&self.to));
        }
        Ok(format!(
            "{} is {} now",
            account.friend_code,
            role_name(role)
        ))
    }
}

impl AccountArgs {
    /// Bans (`true`) or unbans the account.
    pub async fn ban(self, store: &dyn Store, banned: bool) -> Outcome {
        let account = account(store, &self.to).await?;
        if !store.set_banned(account.id, banned, None).await? {
            return Err(gone(&self.to));
        }
        Ok(if banned {
            format!("{} is banned now", account.friend_code)
        } else {
            format!("{} is not banned now", account.friend_code)
        })
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Admin => "an admin",
        Role::Player => "a player",
    }
}

/// The account was deleted between finding it and changing it.
fn gone(code: &FriendCode) -> Failure {
    Failure::Refused(format!("no account has the friend code {code}"))
}
