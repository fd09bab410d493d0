//! A scenario file as text: read with a cap on its size, refused with the
//! place of the first byte that is not UTF-8 or of a byte-order mark, then
//! walked without building a node per value (`structure`, `places`).
//!
//! The walk is Conclave's own because no crate gives a place for any path
//! without a node per value. serde_path_to_error names only the path where
//! deserializing failed, and `serde_json::Error` only that place's line and
//! column, while an error found after reading (a worker no one declared)
//! needs the place of any path; `serde_spanned` works with the toml crate,
//! not serde_json. The crates that span every value build a tree of it: on
//! a 50 MB scenario (7.9 million values) jsonc-parser's AST alone takes
//! 1.09 s and 1,258 MiB, json-spanned-value's tree 1.86 s and 2,827 MiB,
//! where `conclave validate` of the whole file takes 0.35 s and 70 MiB.
//! For the same reason `json_text` keeps `context` and a scripted plan as
//! the file's text.

mod cursor;
pub(crate) mod places;
pub(crate) mod structure;

use std::io::Read;
use std::path::Path;

/// The largest scenario file read by default: 64 MB.
pub(crate) const DEFAULT_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The environment variable that changes the cap, in bytes.
pub(crate) const MAX_BYTES_VAR: &str = "CONCLAVE_MAX_SCENARIO_BYTES";

/// Why a file's bytes are not scenario text, with the byte offset where.
#[derive(Debug, PartialEq)]
pub(crate) struct BadText {
    pub(crate) at: usize,
    pub(crate) message: String,
}

/// The cap on a scenario file's size: `CONCLAVE_MAX_SCENARIO_BYTES` when it
/// is set to a whole number of bytes, else 64 MB; an unreadable setting is
/// an error that says so rather than a silent default.
pub(crate) fn max_bytes() -> Result<u64, String> {
    match std::env::var(MAX_BYTES_VAR) {
        Err(std::env::VarError::NotPresent) => Ok(DEFAULT_MAX_BYTES),
        Ok(value) => value.trim().parse::<u64>().map_err(|_| {
            format!("{MAX_BYTES_VAR} must be a whole number of bytes, found {value:?}")
        }),
        Err(std::env::VarError::NotUnicode(value)) => Err(format!(
            "{MAX_BYTES_VAR} must be a whole number of bytes, found {value:?}"
        )),
    }
}

/// What reading a file gave: its bytes, or the first `cap` + 1 of a file
/// that is larger than `cap`.
pub(crate) enum Contents {
    Whole(Vec<u8>),
    TooLarge(Vec<u8>),
}

/// Read at most `cap` + 1 bytes of `path`, so that an endless file
/// (`/dev/zero`) costs no more than a file at the cap.
pub(crate) fn read_capped(path: &Path, cap: u64) -> std::io::Result<Contents> {
    let file = std::fs::File::open(path)?;
    let hint = file.metadata().map_or(0, |m| m.len()).min(cap);
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0).saturating_add(1));
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(if bytes.len() as u64 > cap {
        Contents::TooLarge(bytes)
    } else {
        Contents::Whole(bytes)
    })
}

/// A size for people: "64 MB", "1.5 kB", "100 bytes".
pub(crate) fn human_size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "kB")];
    for (size, unit) in UNITS {
        if bytes >= size {
            let whole = bytes / size;
            let tenths = (bytes % size) * 10 / size;
            return if tenths == 0 {
                format!("{whole} {unit}")
            } else {
                format!("{whole}.{tenths} {unit}")
            };
        }
    }
    format!("{bytes} bytes")
}

/// A size for people, with the exact count when it is rounded: "64 MB
/// (67108864 bytes)", "100 bytes".
pub(crate) fn human_size_exact(bytes: u64) -> String {
    let human = human_size(bytes);
    if bytes < 1024 {
        human
    } else {
        format!("{human} ({bytes} bytes)")
    }
}

/// `bytes` as text, or where and why they are not UTF-8 scenario text.
pub(crate) fn decode(bytes: Vec<u8>) -> Result<String, (Vec<u8>, BadText)> {
    let marks: [(&[u8], &str); 4] = [
        (
            b"\xEF\xBB\xBF",
            "starts with a UTF-8 byte-order mark (bytes EF BB BF); save the file as UTF-8 without a BOM",
        ),
        (
            b"\xFF\xFE",
            "starts with a UTF-16 byte-order mark (bytes FF FE); save the file as UTF-8 without a BOM",
        ),
        (
            b"\xFE\xFF",
            "starts with a UTF-16 byte-order mark (bytes FE FF); save the file as UTF-8 without a BOM",
        ),
        (
            b"\0\0\xFE\xFF",
            "starts with a UTF-32 byte-order mark (bytes 00 00 FE FF); save the file as UTF-8 without a BOM",
        ),
    ];
    if let Some((_, message)) = marks.iter().find(|(mark, _)| bytes.starts_with(mark)) {
        return Err((
            bytes,
            BadText {
                at: 0,
                message: (*message).to_string(),
            },
        ));
    }
    String::from_utf8(bytes).map_err(|error| {
        let at = error.utf8_error().valid_up_to();
        let bytes = error.into_bytes();
        let message = format!(
            "not UTF-8 text: byte 0x{:02X} cannot start or continue a character here; scenario files are UTF-8",
            bytes[at]
        );
        (bytes, BadText { at, message })
    })
}

/// The line and column of byte `at` in `bytes`, counting characters in the
/// valid UTF-8 before it (and any byte that is not as one character).
pub(crate) fn position_in_bytes(bytes: &[u8], at: usize) -> super::Position {
    let before = &bytes[..at.min(bytes.len())];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    super::Position { line, column }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_first_byte_that_is_not_utf8() {
        let (_, bad) = decode(b"{\n  \"goal\": \"caf\xC3\xA9 \xFF\"\n}".to_vec()).unwrap_err();
        assert_eq!(bad.at, 19);
        assert!(bad.message.contains("0xFF"), "{}", bad.message);
        let place = position_in_bytes(b"{\n  \"goal\": \"caf\xC3\xA9 \xFF\"\n}", bad.at);
        assert_eq!((place.line, place.column), (2, 17));
    }

    #[test]
    fn names_a_byte_order_mark() {
        let (_, bad) = decode(b"\xEF\xBB\xBF{}".to_vec()).unwrap_err();
        assert_eq!(bad.at, 0);
        assert!(
            bad.message
                .starts_with("starts with a UTF-8 byte-order mark")
        );
        let (_, bad) = decode(b"\xFF\xFE{\0}\0".to_vec()).unwrap_err();
        assert!(bad.message.contains("UTF-16"), "{}", bad.message);
        assert_eq!(decode(b"{}".to_vec()).unwrap(), "{}");
    }

    #[test]
    fn sizes_read_like_people_write_them() {
        assert_eq!(human_size(DEFAULT_MAX_BYTES), "64 MB");
        assert_eq!(human_size(1536), "1.5 kB");
        assert_eq!(human_size(100), "100 bytes");
    }

    #[test]
    fn reads_no_more_than_the_cap_of_an_endless_file() {
        match read_capped(Path::new("/dev/zero"), 1000).unwrap() {
            Contents::TooLarge(bytes) => assert_eq!(bytes.len(), 1001),
            Contents::Whole(_) => panic!("/dev/zero is larger than 1000 bytes"),
        }
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("s.json");
        std::fs::write(&small, "{}").unwrap();
        assert!(matches!(read_capped(&small, 2).unwrap(), Contents::Whole(b) if b == b"{}"));
        assert!(matches!(
            read_capped(&small, 1).unwrap(),
            Contents::TooLarge(_)
        ));
    }
}
