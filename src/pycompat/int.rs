//! Python's `int(x)` of a parsed JSON value, as the research reference's
//! `_safe_int` calls it: `None` wherever Python raises `TypeError` or
//! `ValueError`, so the caller can fall back to its default.

use serde_json::Value;

/// The zero of every run of Unicode decimal digits (category Nd, Unicode
/// 14 as in CPython 3.11): each run holds the digits 0 to 9 in order, and
/// `int()` reads any of them as its ASCII digit.
const DECIMAL_ZEROS: [u32; 66] = [
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
    0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
];

/// CPython refuses to convert a decimal string of more digits than this
/// (`sys.int_info.default_max_str_digits`).
const MAX_STR_DIGITS: usize = 4300;

/// `int(value)`, saturated to `i64`'s range (the callers clamp it to a few
/// dozen anyway). Booleans are 0 and 1, floats are truncated toward zero,
/// strings are read as CPython reads them; null, lists and objects are not
/// numbers.
pub(crate) fn py_int(value: &Value) -> Option<i64> {
    match value {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Some(i),
            (None, Some(_), _) => Some(i64::MAX),
            // `as` saturates; a JSON number is never NaN or infinite.
            (None, None, Some(f)) if f.is_finite() => Some(f.trunc() as i64),
            _ => None,
        },
        Value::String(s) => int_of_str(s),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// The decimal value of a non-ASCII digit, if `c` is one.
fn unicode_digit(c: char) -> Option<u8> {
    let code = u32::from(c);
    let index = DECIMAL_ZEROS.partition_point(|zero| *zero <= code);
    let zero = DECIMAL_ZEROS[index.checked_sub(1)?];
    u8::try_from(code - zero).ok().filter(|d| *d <= 9)
}

/// `int(text)`: CPython first turns non-ASCII whitespace into spaces and
/// non-ASCII decimal digits into ASCII ones (any other non-ASCII character
/// makes the text invalid), then accepts ASCII whitespace around an
/// optional sign and digits, with single underscores between digits.
fn int_of_str(text: &str) -> Option<i64> {
    let mut ascii = Vec::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() && c != '\u{7f}' {
            ascii.push(c as u8);
        } else if c.is_whitespace() {
            ascii.push(b' ');
        } else {
            ascii.push(b'0' + unicode_digit(c)?);
        }
    }
    let trimmed =
        ascii.trim_ascii_with(|b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'));
    let (negative, digits) = match trimmed.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, trimmed),
    };
    if !digits.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let mut value: i64 = 0;
    let mut count = 0;
    let mut after_underscore = false;
    for b in digits {
        match b {
            b'0'..=b'9' => {
                count += 1;
                after_underscore = false;
                let digit = i64::from(b - b'0');
                value = value.saturating_mul(10).saturating_add(digit);
            }
            b'_' if !after_underscore => after_underscore = true,
            _ => return None,
        }
    }
    if after_underscore || count > MAX_STR_DIGITS {
        return None;
    }
    Some(if negative {
        value.saturating_neg()
    } else {
        value
    })
}

/// Trimming by a byte predicate, which `[u8]` lacks.
trait TrimWith {
    fn trim_ascii_with(&self, space: impl Fn(u8) -> bool) -> &Self;
}

impl TrimWith for [u8] {
    fn trim_ascii_with(&self, space: impl Fn(u8) -> bool) -> &[u8] {
        let start = self.iter().position(|b| !space(*b)).unwrap_or(self.len());
        let end = self
            .iter()
            .rposition(|b| !space(*b))
            .map_or(start, |i| i + 1);
        &self[start..end.max(start)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_are_read_as_cpython_reads_them() {
        // What CPython 3.11's int() gives for each text; None where it raises.
        let table: [(&str, Option<i64>); 22] = [
            (" 7 ", Some(7)),
            ("+5", Some(5)),
            ("-3", Some(-3)),
            ("1_0", Some(10)),
            ("_1", None),
            ("1_", None),
            ("1__0", None),
            ("\u{663}", Some(3)),
            ("\u{ff13}", Some(3)),
            ("\u{a0}7\u{3000}", Some(7)),
            ("007", Some(7)),
            ("3.0", None),
            ("", None),
            ("  ", None),
            ("0x10", None),
            ("1 2", None),
            ("+ 5", None),
            ("--5", None),
            ("\u{b2}", None),
            ("\u{1c}5\u{1f}", None),
            ("\t\n12\r\x0b", Some(12)),
            ("99999999999999999999999", Some(i64::MAX)),
        ];
        for (text, want) in table {
            assert_eq!(py_int(&json!(text)), want, "int({text:?})");
        }
        assert_eq!(py_int(&json!("1".repeat(4300))), Some(i64::MAX));
        assert_eq!(py_int(&json!("0".repeat(4301))), None, "too many digits");
        assert_eq!(py_int(&json!("1_".repeat(2000) + "1")), Some(i64::MAX));
    }

    #[test]
    fn numbers_booleans_and_the_rest() {
        assert_eq!(py_int(&json!(true)), Some(1));
        assert_eq!(py_int(&json!(false)), Some(0));
        assert_eq!(py_int(&json!(2.9)), Some(2));
        assert_eq!(py_int(&json!(-2.9)), Some(-2));
        assert_eq!(py_int(&json!(1e20)), Some(i64::MAX));
        assert_eq!(py_int(&json!(u64::MAX)), Some(i64::MAX));
        assert_eq!(py_int(&json!(-7)), Some(-7));
        for not_a_number in [json!(null), json!([3]), json!({"n": 3})] {
            assert_eq!(py_int(&not_a_number), None, "{not_a_number}");
        }
    }

    #[test]
    fn every_decimal_run_reads_zero_to_nine() {
        for zero in DECIMAL_ZEROS {
            for d in 0..10u32 {
                let c = char::from_u32(zero + d).unwrap();
                assert_eq!(py_int(&json!(c.to_string())), Some(i64::from(d)));
            }
        }
        assert_eq!(unicode_digit('\u{65f}'), None, "just before a run");
    }
}
