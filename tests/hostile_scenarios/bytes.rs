//! Hostile scenario files made of bytes rather than of edits to a
//! scenario's JSON: byte-order marks, NULs, invalid UTF-8, repeated keys,
//! documents of the wrong shape, nesting 100000 deep, huge strings and
//! lists, and files past the size cap.

use super::corpus::{Case, case, pretty, saying, shipped};
use serde_json::json;

/// Bytes that are not a scenario's text: a BOM, NULs, invalid UTF-8, keys
/// given twice.
pub fn encodings(stem: &str, text: &[u8]) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(text);
    cases.push(saying(
        case("bom", format!("{stem}.bom"), bom),
        "starts with a UTF-8 byte-order mark",
    ));
    let at = text.len() / 2;
    for (what, bytes) in [
        ("nul_outside", b"\0".as_slice()),
        ("invalid_utf8", b"\xFF\xFE"),
        ("lone_continuation", b"\x80"),
        ("overlong", b"\xC0\xAF"),
    ] {
        let mut broken = text.to_vec();
        let at = (at..text.len()).find(|&i| text[i] == b'\n').unwrap_or(at);
        broken.splice(at..at, bytes.iter().copied());
        let class = if what.starts_with("nul") {
            "nul"
        } else {
            "utf8"
        };
        cases.push(case(class, format!("{stem}.{what}"), broken));
    }
    let name_at = text
        .windows(8)
        .position(|w| w == b"\"name\": ")
        .expect("every scenario has a name");
    let mut nul_in_string = text.to_vec();
    nul_in_string.splice(name_at + 9..name_at + 9, *b"\0");
    cases.push(case("nul", format!("{stem}.nul_in_name"), nul_in_string));
    let mut duplicate = text.to_vec();
    duplicate.splice(name_at..name_at, *b"\"name\": \"first\",\n  ");
    cases.push(saying(
        case("duplicate key", format!("{stem}.duplicate_name"), duplicate),
        "duplicate key \"name\": already given at line",
    ));
    let text = std::str::from_utf8(text).unwrap();
    if let Some(at) = text.find("\"context\": {") {
        let mut nested = text.to_string();
        nested.insert_str(at + 12, "\"twice\": 1, \"twice\": 2, ");
        cases.push(saying(
            case(
                "duplicate key",
                format!("{stem}.duplicate_in_context"),
                nested.into_bytes(),
            ),
            "context.twice: duplicate key",
        ));
    }
    cases
}

/// Files whose trouble is their shape: not an object, nested too deep,
/// strings and lists too large, and files past the size cap.
pub fn shapes() -> Vec<Case> {
    let (_, base) = shipped().into_iter().next().unwrap();
    let mut cases = vec![
        case("shape", "empty".into(), Vec::new()),
        case("shape", "blank".into(), b" \n\t\n".to_vec()),
        case("shape", "list".into(), b"[1, 2, 3]".to_vec()),
        case("shape", "string".into(), b"\"scenario\"".to_vec()),
        case("shape", "null".into(), b"null".to_vec()),
        case(
            "shape",
            "trailing".into(),
            [pretty(&base), b"{}".to_vec()].concat(),
        ),
        saying(
            case("deep", "open_brackets".into(), b"[".repeat(100_000)),
            "not valid JSON",
        ),
        saying(
            case("deep", "open_braces".into(), b"{\"a\":".repeat(100_000)),
            "not valid JSON",
        ),
        saying(
            case(
                "deep",
                "balanced_list".into(),
                [b"[".repeat(100_000), b"]".repeat(100_000)].concat(),
            ),
            "nest more than 100 levels",
        ),
    ];
    let mut deep_context = base.clone();
    deep_context["context"] = json!("@deep@");
    let text = String::from_utf8(pretty(&deep_context)).unwrap().replace(
        "\"@deep@\"",
        &format!("{}{}", "[".repeat(50_000), "]".repeat(50_000)),
    );
    cases.push(saying(
        case("deep", "balanced_in_context".into(), text.into_bytes()),
        "nest more than 100 levels",
    ));
    let huge = "x".repeat(8 << 20);
    let mut huge_enum = base.clone();
    huge_enum["pattern"] = json!(huge);
    cases.push(saying(
        case("huge string", "huge_pattern".into(), pretty(&huge_enum)),
        "pattern: expected one of",
    ));
    let mut huge_key = base.clone();
    huge_key
        .as_object_mut()
        .unwrap()
        .insert(huge.clone(), json!(1));
    cases.push(saying(
        case("huge string", "huge_unknown_key".into(), pretty(&huge_key)),
        "unknown field",
    ));
    let mut unterminated = pretty(&base);
    unterminated.truncate(unterminated.len() / 2);
    unterminated.extend_from_slice(b"\"");
    unterminated.extend_from_slice(huge.as_bytes());
    cases.push(saying(
        case("huge string", "huge_unterminated".into(), unterminated),
        "not valid JSON",
    ));
    let mut many = base.clone();
    many["flags"] = json!("@many@");
    let values = vec!["0"; 1_000_001].join(",");
    let text = String::from_utf8(pretty(&many))
        .unwrap()
        .replace("\"@many@\"", &format!("[{values}]"));
    cases.push(saying(
        case(
            "huge list",
            "million_values_outside_context".into(),
            text.into_bytes(),
        ),
        "more than 1000000 JSON values outside \"context\"",
    ));
    let mut small_cap = case("size cap", "past_a_small_cap".into(), pretty(&base));
    small_cap.env = vec![("CONCLAVE_MAX_SCENARIO_BYTES", "1000".into())];
    cases.push(saying(
        small_cap,
        "the file is larger than the 1000 bytes cap on scenario files",
    ));
    let mut unreadable_cap = case("size cap", "unreadable_cap".into(), pretty(&base));
    unreadable_cap.env = vec![("CONCLAVE_MAX_SCENARIO_BYTES", "lots".into())];
    unreadable_cap.placed = false;
    cases.push(saying(
        unreadable_cap,
        "CONCLAVE_MAX_SCENARIO_BYTES must be a whole number of bytes",
    ));
    cases
}
