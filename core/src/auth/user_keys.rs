//! Issuing user keys and finding how to look one up: keys are signed ([`KeySigner`]) with the
//! configured secret, or else with a secret the database keeps for every node.

use time::OffsetDateTime;
use tokio::sync::OnceCell;

use crate::domain::{KeyClaims, KeySecret, KeySigner, UserKey};
use crate::store::{AccountId, KeyLookup, Store, StoreError};

/// This node's signer of user keys.
pub struct UserKeys {
    /// The configured signer, or the one made from the database's secret at first use.
    signer: OnceCell<KeySigner>,
}

impl UserKeys {
    /// Signs with `configured` when given; otherwise with the database's stored secret, read
    /// (or stored) at first use.
    pub fn new(configured: Option<KeySigner>) -> Self {
        Self {
            signer: configured
                .map_or_else(OnceCell::new, |signer| OnceCell::new_with(Some(signer))),
        }
    }

    /// The signer, asking the store for its secret the first time when none was configured.
    async fn signer(&self, store: &dyn Store) -> Result<&KeySigner, StoreError> {
        self.signer
            .get_or_try_init(|| async {
                tracing::warn!(
                    "no user-key secret configured (--user-key-secret): signing user keys with \
                     the secret kept in the database, so a copy of the database can sign keys"
                );
                let stored = store
                    .stored_key_secret(&KeySecret::generate().to_hex())
                    .await?;
                let secret = KeySecret::parse(&stored).ok_or_else(|| {
                    StoreError::Internal(
                        "the stored user-key secret is not 64 hex characters".to_owned(),
                    )
                })?;
                Ok(KeySigner::new(secret, None))
            })
            .await
    }

    /// A new key for `account` under its key `generation`, expiring at `expires` (cut to the
    /// second): the key and its expiry as the key tells it.
    pub async fn issue(
        &self,
        store: &dyn Store,
        account: AccountId,
        generation: u32,
        expires: OffsetDateTime,
    ) -> Result<(UserKey, OffsetDateTime), StoreError> {
        let expires = expires.replace_nanosecond(0).unwrap_or(expires);
        let claims = KeyClaims {
            account: account.0,
            generation,
            expires,
        };
        let key = self.signer(store).await?.sign(&claims).ok_or_else(|| {
            StoreError::Internal(format!("account {} does not fit a signed key", account.0))
        })?;
        Ok((key, expires))
    }

    /// How the store finds `key`'s session: by its signature's claims when this node's
    /// secrets signed it, else by its hash (a key recorded before signed keys).
    pub async fn lookup(&self, store: &dyn Store, key: &UserKey) -> Result<KeyLookup, StoreError> {
        Ok(match self.signer(store).await?.verify(key) {
            Some(claims) => KeyLookup::Signed {
                account: AccountId(claims.account),
                generation: claims.generation,
                expires: claims.expires,
                hash: key.hash(),
            },
            None => KeyLookup::Stored(key.hash()),
        })
    }
}
