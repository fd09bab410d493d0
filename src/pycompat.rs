//! The few Python behaviours the reference implementations rely on, so that a
//! Conclave result equals the reference's for the same inputs: `str.strip()`,
//! `round(x, n)`, `str(x)`, `int(x)`, truthiness and `==` of parsed JSON,
//! `json.loads` of model text, `json.dumps` of a value and `urlparse`.
//! Nothing here knows about patterns or events.

mod int;
mod url;

pub(crate) use int::py_int;
pub(crate) use url::{url_refusal, urlparse};

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// Python's `str.isspace()` for one character: Rust's `char::is_whitespace`
/// plus the four information separators U+001C..U+001F, which Python counts as
/// whitespace and Rust does not.
pub(crate) fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()` without arguments.
pub(crate) fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// Python's `round(x, digits)` for a float: the exact binary value rounded to
/// `digits` decimals, ties to even. Rust's fixed-precision formatting rounds
/// the exact value the same way, and parsing the digits back is what CPython
/// does too.
pub(crate) fn py_round(x: f64, digits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.digits$}").parse().unwrap_or(x)
}

/// Python's `str(x)` (what an f-string prints) of a parsed JSON value.
pub(crate) fn py_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => py_repr(other),
    }
}

/// Python's `repr(x)` of a parsed JSON value.
pub(crate) fn py_repr(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Number(n) => match n.as_f64().filter(|_| n.is_f64()) {
            Some(f) => match py_float_repr(f).as_str() {
                "NaN" => "nan".into(),
                "Infinity" => "inf".into(),
                "-Infinity" => "-inf".into(),
                other => other.into(),
            },
            None => n.to_string(),
        },
        Value::String(s) => py_str_repr(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(py_repr).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", py_str_repr(k), py_repr(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// Python's `repr(str)`: single quotes unless the text holds a single quote
/// and no double one.
fn py_str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's truthiness of a parsed JSON value: empty, zero, false and
/// null are false.
pub(crate) fn py_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

/// A number as Python compares it: booleans are 0 and 1.
pub(crate) fn py_number(value: &Value) -> Option<f64> {
    match value {
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Number(n) => n.as_f64(),
        _ => None,
    }
}

/// Python's `==` of two parsed JSON values: numbers and booleans compare by
/// value (`1 == 1.0 == True`), containers element by element.
pub(crate) fn py_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| py_eq(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => match (py_number(a), py_number(b)) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        },
    }
}

/// `json.loads` of a model's text, as the references call it. `None` when the
/// text is not JSON. Python also accepts `NaN` and `Infinity`, which no JSON
/// value in Conclave can hold; such text counts as not JSON.
pub(crate) fn parse_model_text(text: &str) -> Option<Value> {
    serde_json::from_str(text).ok()
}

/// Python's `json.dumps(value)` with its default separators (`", "` and
/// `": "`) and `ensure_ascii=True`.
pub(crate) fn py_json_dumps(value: &Value) -> String {
    let mut out = String::new();
    write_py_json(&mut out, value, ", ", ": ", false);
    out
}

/// The canonical JSON the references hash:
/// `json.dumps(args, ensure_ascii=True, sort_keys=True, separators=(",", ":"))`.
pub(crate) fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_py_json(&mut out, value, ",", ":", true);
    out
}

/// The first 12 hex digits of SHA-256 over [`canonical_json`], as the
/// orchestrator reference's `args_hash`.
pub(crate) fn args_hash(value: &Value) -> String {
    let digest = Sha256::digest(canonical_json(value).as_bytes());
    let mut hex = String::with_capacity(12);
    for byte in &digest[..6] {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

fn write_py_json(out: &mut String, value: &Value, item_sep: &str, key_sep: &str, sort: bool) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_py_number(out, n),
        Value::String(s) => write_ascii_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                write_py_json(out, item, item_sep, key_sep, sort);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if sort {
                // Python sorts str keys by code point; UTF-16 order differs
                // only above the BMP, and code point order is what `str` uses.
                entries.sort_by(|a, b| a.0.chars().cmp(b.0.chars()));
            }
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                write_ascii_string(out, key);
                out.push_str(key_sep);
                write_py_json(out, item, item_sep, key_sep, sort);
            }
            out.push('}');
        }
    }
}

/// Python prints floats with `repr`: the shortest round-trip digits, with
/// `.0` for integral values and an exponent from 1e16 up or below 1e-4.
fn write_py_number(out: &mut String, n: &serde_json::Number) {
    if let Some(f) = n.as_f64().filter(|_| n.is_f64()) {
        out.push_str(&py_float_repr(f));
    } else {
        let _ = write!(out, "{n}");
    }
}

/// Python's `repr(float)`.
pub(crate) fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // `{:e}` gives the shortest round-trip digits as d.ddddde±x.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        let point = exp + 1;
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(&digits);
        } else if point as usize >= digits.len() {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..point as usize]);
            out.push('.');
            out.push_str(&digits[point as usize..]);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
    out
}

fn write_ascii_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (' '..='~').contains(&c) => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strip_matches_python_whitespace() {
        assert_eq!(py_strip("\u{1c}\u{1f} a b \u{a0}\u{3000}\n"), "a b");
        assert_eq!(
            py_strip("\u{200b}x"),
            "\u{200b}x",
            "zero-width space is not whitespace"
        );
        assert_eq!(py_strip("   "), "");
    }

    #[test]
    fn round_is_ties_to_even_on_the_exact_value() {
        // Values CPython 3.11 gives for round(x, 3).
        let table = [
            (0.0625, 0.062),
            (0.1875, 0.188),
            (0.3125, 0.312),
            (0.9375, 0.938),
            (2.675, 2.675),
            (0.0005, 0.001),
            (0.9995, 1.0),
            (0.4445, 0.445),
            (0.12345, 0.123),
            (1.0, 1.0),
            (0.0, 0.0),
        ];
        for (x, want) in table {
            assert_eq!(py_round(x, 3), want, "round({x}, 3)");
        }
    }

    #[test]
    fn args_hash_equals_the_reference_for_the_orchestrator_args() {
        // hashlib.sha256(canonical).hexdigest()[:12] in CPython 3.11
        let args = json!({"report_date": "2026-02-26", "region": "US"});
        assert_eq!(
            canonical_json(&args),
            r#"{"region":"US","report_date":"2026-02-26"}"#
        );
        assert_eq!(args_hash(&args), "2c66d7cf0e03");
    }

    #[test]
    fn canonical_json_escapes_non_ascii_like_python() {
        let v = json!({"b": [1, 2.5, true, null], "a": "é😀\u{1}"});
        assert_eq!(
            canonical_json(&v),
            r#"{"a":"\u00e9\ud83d\ude00\u0001","b":[1,2.5,true,null]}"#
        );
        assert_eq!(py_json_dumps(&json!({"x": [1, 2]})), r#"{"x": [1, 2]}"#);
    }

    #[test]
    fn str_truthiness_and_equality_match_python() {
        assert_eq!(py_str(&json!("2026-02-26")), "2026-02-26");
        assert_eq!(py_str(&json!(2026)), "2026");
        assert_eq!(py_str(&json!(1.5)), "1.5");
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(true)), "True");
        assert_eq!(
            py_str(&json!({"a": [1, "it's"], "b": "x"})),
            r#"{'a': [1, "it's"], 'b': 'x'}"#
        );
        for (value, truthy) in [
            (json!(null), false),
            (json!(0), false),
            (json!(0.0), false),
            (json!(""), false),
            (json!([]), false),
            (json!({}), false),
            (json!(false), false),
            (json!("none"), true),
            (json!(["SKU-1"]), true),
            (json!(-1), true),
        ] {
            assert_eq!(py_truthy(&value), truthy, "{value}");
        }
        assert!(py_eq(&json!(1), &json!(1.0)));
        assert!(py_eq(&json!(true), &json!(1)));
        assert!(py_eq(&json!([0, {"a": 1}]), &json!([false, {"a": 1.0}])));
        assert!(!py_eq(&json!(null), &json!(0)));
        assert!(!py_eq(&json!("none"), &json!(null)));
    }

    #[test]
    fn float_repr_matches_python() {
        let table = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (182450.0, "182450.0"),
            (1e16, "1e+16"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (123456789012345.6, "123456789012345.6"),
            (-2.5, "-2.5"),
        ];
        for (f, want) in table {
            assert_eq!(py_float_repr(f), want);
        }
    }
}
