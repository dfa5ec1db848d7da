//! [`ContentStore`](safezone_core::store::ContentStore), written once for both stores: the
//! content files an operator published, appended and read.

/// Implements [`ContentStore`](safezone_core::store::ContentStore) for `$store` over the sqlx
/// database `$db` (see [`impl_store`](crate::impl_store)), in a child module `content` of the
/// calling one.
macro_rules! impl_content {
    ($store:ident) => {
        mod content {
            use async_trait::async_trait;
            use safezone_core::store::{
                ContentStore, ContentVersion, NewAuditEntry, Publication, PublishedContent,
                StoreError,
            };
            use time::OffsetDateTime;

            use super::{operator, $store};
            use crate::error::store_error;
            use crate::micros::{from_micros, to_micros};
            use crate::statements::content as sql;

            /// A published version's row: version, text, time, what it restores, by whom, why.
            type PublishedRow = (
                i64,
                String,
                i64,
                Option<i64>,
                Option<String>,
                Option<String>,
            );

            /// A version's row without its text.
            type VersionRow = (i64, i64, Option<i64>, Option<String>, Option<String>);

            #[async_trait]
            impl ContentStore for $store {
                async fn publish_content(
                    &self,
                    text: &str,
                    about: &Publication,
                    now: OffsetDateTime,
                    audit: Option<&NewAuditEntry>,
                ) -> Result<i64, StoreError> {
                    let published = async {
                        let mut tx = self.begin().await?;
                        let version = sqlx::query_scalar::<_, i64>(sql::PUBLISH_CONTENT)
                            .bind(text)
                            .bind(to_micros(now))
                            .bind(about.restores)
                            .bind(about.by.as_deref())
                            .bind(about.reason.as_deref())
                            .fetch_one(&mut *tx)
                            .await?;
                        if let Some(entry) = audit {
                            operator::append(&mut tx, &entry.on_created(version)).await?;
                        }
                        tx.commit().await?;
                        Ok::<_, sqlx::Error>(version)
                    };
                    published.await.map_err(store_error)
                }

                async fn content_head(&self) -> Result<i64, StoreError> {
                    sqlx::query_scalar::<_, i64>(sql::CONTENT_HEAD)
                        .fetch_one(&self.pool)
                        .await
                        .map_err(store_error)
                }

                async fn published_content(
                    &self,
                    at_most: i64,
                ) -> Result<Option<PublishedContent>, StoreError> {
                    let row = sqlx::query_as::<_, PublishedRow>(sql::PUBLISHED_CONTENT)
                        .bind(at_most)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(store_error)?;
                    row.map(|(version, text, published_at, restores, by, reason)| {
                        Ok(PublishedContent {
                            version,
                            text,
                            published_at: from_micros(published_at)?,
                            about: Publication {
                                by,
                                reason,
                                restores,
                            },
                        })
                    })
                    .transpose()
                }

                async fn content_versions(
                    &self,
                    limit: i64,
                ) -> Result<Vec<ContentVersion>, StoreError> {
                    let rows = sqlx::query_as::<_, VersionRow>(sql::CONTENT_VERSIONS)
                        .bind(limit)
                        .fetch_all(&self.pool)
                        .await
                        .map_err(store_error)?;
                    rows.into_iter()
                        .map(|(version, published_at, restores, by, reason)| {
                            Ok(ContentVersion {
                                version,
                                published_at: from_micros(published_at)?,
                                about: Publication {
                                    by,
                                    reason,
                                    restores,
                                },
                            })
                        })
                        .collect()
                }
            }
        }
    };
}

pub(crate) use impl_content;
