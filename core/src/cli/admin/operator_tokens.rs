//! `operator-token create|revoke|list`: the tokens of the operator API.

use clap::{Args, Subcommand};
use time::OffsetDateTime;

use super::{Failure, Outcome, utc};
use crate::domain::OperatorSecret;
use crate::store::{NewOperatorToken, OperatorRole, Store};

/// The most characters a token's name has.
const NAME_MAX_CHARS: usize = 64;

/// The `operator-token` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum OperatorTokenCommand {
    /// Creates a token and prints its secret, once: only the secret's SHA-256 is stored.
    Create(OperatorTokenCreateArgs),
    /// Revokes a token: the operator API refuses its secret from now on.
    Revoke(OperatorTokenNameArgs),
    /// Lists every token with its role, creation and revocation (never a secret).
    List,
}

/// The flags of `operator-token create`.
#[derive(Debug, Clone, Args)]
pub struct OperatorTokenCreateArgs {
    /// The token's unique name (who holds it): 1 to 64 letters, digits, `.`, `_` or `-`.
    #[arg(long, value_parser = parse_name)]
    pub name: String,
    /// What it may do: `read` (look players and the audit up) or `full` (also change them).
    #[arg(long, value_parser = parse_role)]
    pub role: OperatorRole,
}

/// The flags of `operator-token revoke`.
#[derive(Debug, Clone, Args)]
pub struct OperatorTokenNameArgs {
    /// The token's name.
    #[arg(long)]
    pub name: String,
}

impl OperatorTokenCommand {
    /// Runs the subcommand on `store` at `now`.
    pub async fn run(self, store: &dyn Store, now: OffsetDateTime) -> Outcome {
        match self {
            Self::Create(args) => create(store, args, now).await,
            Self::Revoke(args) => revoke(store, &args.name, now).await,
            Self::List => list(store).await,
        }
    }
}

/// Creates the token with a fresh secret; the line ends with the secret.
async fn create(store: &dyn Store, args: OperatorTokenCreateArgs, now: OffsetDateTime) -> Outcome {
    let secret = OperatorSecret::generate();
    let created = store
        .create_operator_token(NewOperatorToken {
            name: args.name.clone(),
            role: args.role,
            secret_hash: secret.hash(),
            now,
        })
        .await?;
    match created {
        Some(token) => Ok(format!(
            "operator token {} ({}) created; its secret, shown only now: {}",
            token.name,
            token.role,
            secret.as_str()
        )),
        None => Err(Failure::Refused(format!(
            "an operator token is named {} already",
            args.name
        ))),
    }
}

async fn revoke(store: &dyn Store, name: &str, now: OffsetDateTime) -> Outcome {
    if store.revoke_operator_token(name, now).await? {
        Ok(format!("operator token {name} revoked"))
    } else {
        Err(Failure::Refused(format!(
            "no unrevoked operator token is named {name}"
        )))
    }
}

/// One line per token: name, role, created, and revoked when it was.
async fn list(store: &dyn Store) -> Outcome {
    let tokens = store.operator_tokens().await?;
    if tokens.is_empty() {
        return Ok("no operator tokens".to_owned());
    }
    let lines: Vec<String> = tokens
        .iter()
        .map(|token| {
            let revoked = token
                .revoked_at
                .map(|at| format!(", revoked {}", utc(at)))
                .unwrap_or_default();
            format!(
                "{} {} created {}{revoked}",
                token.name,
                token.role,
                utc(token.created_at)
            )
        })
        .collect();
    Ok(lines.join("\n"))
}

/// A token's name: 1 to 64 letters, digits, `.`, `_` or `-`.
fn parse_name(text: &str) -> Result<String, String> {
    let fine = !text.is_empty()
        && text.chars().count() <= NAME_MAX_CHARS
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if fine {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "`{text}` is not a token name: 1 to {NAME_MAX_CHARS} letters, digits, `.`, `_` or `-`"
        ))
    }
}

fn parse_role(text: &str) -> Result<OperatorRole, String> {
    OperatorRole::parse(text).ok_or_else(|| format!("`{text}` is not a role: `read` or `full`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_roles_are_checked() {
        assert_eq!(parse_name("alice.ops-1").as_deref(), Ok("alice.ops-1"));
        assert!(parse_name("").is_err());
        assert!(parse_name("al ice").is_err());
        assert!(parse_name(&"a".repeat(65)).is_err());
        assert_eq!(parse_role("full"), Ok(OperatorRole::Full));
        assert!(parse_role("admin").is_err());
    }
}
