//! The date shapes of the wire contract.

use serde::{Serialize, Serializer, ser::SerializeStruct};
use time::{
    OffsetDateTime, UtcOffset, format_description::BorrowedFormatItem, macros::format_description,
};
use utoipa::openapi::{
    RefOr,
    schema::{Object, Schema, Type},
};

const API_DATE_FORMAT: &[BorrowedFormatItem<'static>] =
    format_description!("[year]-[month]-[day] [hour]:[minute]:[second].[subsecond digits:6]");
const PLAIN_FORMAT: &[BorrowedFormatItem<'static>] =
    format_description!("[year]-[month]-[day] [hour]:[minute]:[second]");

/// A point in time serialized as
/// `{"date": "2022-11-11 08:00:00.000000", "timezone_type": 3, "timezone": "UTC"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiDate(pub OffsetDateTime);

impl Serialize for ApiDate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let utc = self.0.to_offset(UtcOffset::UTC);
        let date = utc
            .format(API_DATE_FORMAT)
            .map_err(serde::ser::Error::custom)?;
        let mut object = serializer.serialize_struct("ApiDate", 3)?;
        object.serialize_field("date", &date)?;
        object.serialize_field("timezone_type", &3)?;
        object.serialize_field("timezone", "UTC")?;
        object.end()
    }
}

impl utoipa::PartialSchema for ApiDate {
    fn schema() -> RefOr<Schema> {
        let text = |pattern: &str, example: &str| {
            Object::builder()
                .schema_type(Type::String)
                .pattern(Some(pattern))
                .examples([example])
        };
        Object::builder()
            .description(Some("A point in time, in UTC."))
            .property(
                "date",
                text(
                    "^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}$",
                    "2022-11-11 08:00:00.000000",
                ),
            )
            .property(
                "timezone_type",
                Object::builder()
                    .schema_type(Type::Integer)
                    .enum_values(Some([3])),
            )
            .property("timezone", text("^UTC$", "UTC"))
            .required("date")
            .required("timezone_type")
            .required("timezone")
            .into()
    }
}

impl utoipa::ToSchema for ApiDate {}

/// `YYYY-MM-DD HH:MM:SS` in UTC, the shape of `season_preview.timer_ends`.
pub fn format_plain_datetime(at: OffsetDateTime) -> String {
    at.to_offset(UtcOffset::UTC)
        .format(PLAIN_FORMAT)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn serializes_like_the_live_service() {
        let date = ApiDate(datetime!(2022-11-11 08:00:00.5 +01:00));
        assert_eq!(
            serde_json::to_value(date).unwrap(),
            serde_json::json!({"date": "2022-11-11 07:00:00.500000", "timezone_type": 3, "timezone": "UTC"})
        );
    }
}
