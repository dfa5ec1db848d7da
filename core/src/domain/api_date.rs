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
        let mut text = [0u8; API_DATE_WIDTH];
        let mut object = serializer.serialize_struct("ApiDate", 3)?;
        match write_api_date(utc, &mut text) {
            Some(date) => object.serialize_field("date", date)?,
            None => {
                let date = utc
                    .format(API_DATE_FORMAT)
                    .map_err(serde::ser::Error::custom)?;
                object.serialize_field("date", &date)?;
            }
        }
        object.serialize_field("timezone_type", &3)?;
        object.serialize_field("timezone", "UTC")?;
        object.end()
    }
}

/// The length of `YYYY-MM-DD HH:MM:SS.ffffff`.
const API_DATE_WIDTH: usize = 26;

/// `at` as [`API_DATE_FORMAT`] writes it, written digit by digit into `text`: every date of
/// every answer takes this shape, for which `time`'s format description ran about 1,900
/// instructions a date. `None` for a year outside 0 to 9999, left to the format description.
fn write_api_date(at: OffsetDateTime, text: &mut [u8; API_DATE_WIDTH]) -> Option<&str> {
    let year = u32::try_from(at.year())
        .ok()
        .filter(|year| *year <= 9_999)?;
    let fields = [
        (0, 4, year),
        (5, 2, u32::from(u8::from(at.month()))),
        (8, 2, u32::from(at.day())),
        (11, 2, u32::from(at.hour())),
        (14, 2, u32::from(at.minute())),
        (17, 2, u32::from(at.second())),
        (20, 6, at.microsecond()),
    ];
    *text = *b"0000-00-00 00:00:00.000000";
    for (start, width, mut value) in fields {
        for digit in text[start..start + width].iter_mut().rev() {
            *digit = b"0123456789"[(value % 10) as usize];
            value /= 10;
        }
    }
    std::str::from_utf8(text).ok()
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
    fn writes_what_the_format_description_writes() {
        let dates = [
            datetime!(0000-01-01 00:00:00 UTC),
            datetime!(1970-01-01 00:00:00 UTC),
            datetime!(2024-02-29 23:59:59.999999999 UTC),
            datetime!(2026-11-29 04:24:07.224337 UTC),
            datetime!(2099-12-31 12:34:56.000001 UTC),
            datetime!(9999-12-31 23:59:59.999999 UTC),
        ];
        for at in dates {
            let mut text = [0u8; API_DATE_WIDTH];
            assert_eq!(
                write_api_date(at, &mut text),
                Some(at.format(API_DATE_FORMAT).unwrap().as_str())
            );
        }
        let mut text = [0u8; API_DATE_WIDTH];
        assert_eq!(
            write_api_date(datetime!(-0001-01-01 0:00 UTC), &mut text),
            None
        );
    }

    #[test]
    fn serializes_like_the_live_service() {
        let date = ApiDate(datetime!(2022-11-11 08:00:00.5 +01:00));
        assert_eq!(
            serde_json::to_value(date).unwrap(),
            serde_json::json!({"date": "2022-11-11 07:00:00.500000", "timezone_type": 3, "timezone": "UTC"})
        );
    }
}
