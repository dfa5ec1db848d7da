//! Texts kept deflated (zlib): a recorded match's summary and grants, which are read again only
//! when a game server repeats its report. A 100-player summary is repetitive JSON of about
//! 50 KB that deflates about fifteen times; SQLite keeps text as it is given, and PostgreSQL
//! would compress it only past its TOAST threshold.

use miniz_oxide::deflate::compress_to_vec_zlib;
use miniz_oxide::inflate::decompress_to_vec_zlib_with_limit;

/// The compression level: zlib's fastest. On the 100-player summaries of `bench.sh`'s match
/// reports (54 KB) it packs 18 times (zlib's default, 6, 25 times) in about a third of the
/// time, which at the default was 5% of a report's CPU; the bytes it leaves are a few percent
/// of the rows a report writes.
const LEVEL: u8 = 1;

/// The largest text a packed value inflates to: no stored summary comes near it, so a value
/// that would is corrupt rather than large.
const INFLATED_MAX: usize = 64 * 1024 * 1024;

/// `text`, deflated.
pub(crate) fn pack(text: &str) -> Vec<u8> {
    compress_to_vec_zlib(text.as_bytes(), LEVEL)
}

/// The text `packed` holds; a value that does not inflate to UTF-8 is a decoding error.
pub(crate) fn unpack(packed: &[u8]) -> Result<String, sqlx::Error> {
    let bytes = decompress_to_vec_zlib_with_limit(packed, INFLATED_MAX).map_err(|error| {
        sqlx::Error::Decode(format!("a packed value does not inflate: {error}").into())
    })?;
    String::from_utf8(bytes).map_err(|error| sqlx::Error::Decode(Box::new(error)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_comes_back_as_it_was_and_smaller_when_repetitive() {
        let summary = r#"{"accountId":1,"experience":500,"coins":320}"#.repeat(100);
        let packed = pack(&summary);
        assert!(packed.len() * 10 < summary.len(), "{}", packed.len());
        assert_eq!(unpack(&packed).expect("it inflates"), summary);
        assert_eq!(unpack(&pack("")).expect("it inflates"), "");
        assert!(unpack(b"not deflated").is_err());
    }
}
