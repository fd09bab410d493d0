use super::*;
use crate::record::long_line::{Taken, line_into};
use crate::record::read_recording;
use proptest::prelude::*;
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::path::Path;

/// `value` written by [`write`] with all the room it needs.
fn written<T: Serialize + ?Sized>(value: &T) -> Result<String, Stop> {
    let mut out = b"before ".to_vec();
    write(&mut out, value, usize::MAX)?;
    assert!(out.starts_with(b"before "), "what was there is kept");
    Ok(String::from_utf8(out.split_off(7)).expect("UTF-8"))
}

fn serde_text<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("serde_json writes it")
}

/// Whether `value` holds a number that is not an integer.
fn holds_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => !n.is_i64() && !n.is_u64(),
        Value::Array(items) => items.iter().any(holds_float),
        Value::Object(members) => members.values().any(holds_float),
        _ => false,
    }
}

#[test]
fn every_event_of_every_recording_kept_is_written_as_serde_json_writes_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files = Vec::new();
    for dir in ["fixtures/recordings", "fixtures"] {
        for entry in std::fs::read_dir(root.join(dir)).expect("the folder") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    assert!(files.len() >= 13, "{files:?}");
    let (mut events, mut fast) = (0, 0);
    for path in &files {
        let recording = read_recording(path).expect("a recording");
        for event in &recording.events {
            events += 1;
            let serde = serde_text(event);
            let mut line = b"before ".to_vec();
            let fast_line = write_event(&mut line, event, usize::MAX)
                .map(|()| String::from_utf8(line.split_off(7)).expect("UTF-8"));
            match fast_line {
                Ok(text) => {
                    fast += 1;
                    assert_eq!(text, serde, "{}", path.display());
                }
                Err(Stop::Other) => {}
                Err(Stop::Long) => panic!("no room was short"),
            }
            // Written as a value of its own, the event reads the same.
            if let Ok(text) = written(event) {
                assert_eq!(text, serde, "{}", path.display());
            }
            // The recorder's line is serde_json's, whichever wrote it.
            let mut line = Vec::new();
            assert_eq!(line_into(&mut line, event).unwrap(), Taken::Joined);
            assert_eq!(line, format!("{serde}\n").into_bytes());
        }
    }
    assert!(events > 500, "{events} events");
    // Floats (a stance's confidence, a cost) are serde_json's to write;
    // nearly everything else is written here.
    assert!(fast * 10 > events * 9, "{fast} of {events} written here");
}

#[test]
fn strings_are_escaped_as_serde_json_escapes_them() {
    let every_ascii: String = (0u8..0x80).map(char::from).collect();
    for text in [
        every_ascii.as_str(),
        "",
        "plain",
        "quote \" backslash \\ slash / tab \t",
        "élan — 東京 🚀 \u{7f} \u{2028}",
        "\u{0}\u{1f}",
    ] {
        assert_eq!(written(text).unwrap(), serde_text(text));
        assert_eq!(written(&[text, text]).unwrap(), serde_text(&[text, text]));
    }
    assert_eq!(written(&'"').unwrap(), serde_text(&'"'));
}

#[test]
fn enums_keys_and_raw_values_are_written_as_serde_json_writes_them() {
    #[derive(Serialize)]
    enum Shape {
        Unit,
        Newtype(u8),
        Tuple(i64, String),
        Struct { a: Option<u32>, b: Vec<bool> },
    }
    #[derive(Serialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum Tagged {
        One { x: u64 },
        Two,
    }
    #[derive(Serialize)]
    struct Empty {}
    #[derive(Serialize)]
    struct Unit;
    #[derive(Serialize)]
    struct Pair(u8, u8);
    let shapes = vec![
        Shape::Unit,
        Shape::Newtype(7),
        Shape::Tuple(-3, "t".into()),
        Shape::Struct {
            a: None,
            b: vec![true, false],
        },
    ];
    assert_eq!(written(&shapes).unwrap(), serde_text(&shapes));
    let tagged = [Tagged::One { x: 1 }, Tagged::Two];
    assert_eq!(written(&tagged).unwrap(), serde_text(&tagged));
    assert_eq!(written(&Empty {}).unwrap(), serde_text(&Empty {}));
    assert_eq!(written(&Unit).unwrap(), serde_text(&Unit));
    assert_eq!(written(&Pair(1, 2)).unwrap(), serde_text(&Pair(1, 2)));
    assert_eq!(
        written(&(1u8, "x", ())).unwrap(),
        serde_text(&(1u8, "x", ()))
    );
    assert_eq!(
        written(&(i64::MIN, u64::MAX)).unwrap(),
        serde_text(&(i64::MIN, u64::MAX))
    );

    let numbered: BTreeMap<i32, &str> = [(-1, "a"), (20, "b")].into();
    assert_eq!(written(&numbered).unwrap(), serde_text(&numbered));
    let flagged: BTreeMap<bool, u8> = [(true, 1)].into();
    assert_eq!(written(&flagged), Err(Stop::Other), "serde_json's to write");
    let floated: BTreeMap<&str, f64> = [("x", 0.5)].into();
    assert_eq!(written(&floated), Err(Stop::Other));
    assert_eq!(
        written(&b"bytes"[..].to_vec()),
        Ok(serde_text(&b"bytes"[..].to_vec()))
    );

    let raw = RawValue::from_string("{\"a\": [1,  2], \"b\":\"\\u0041\"}".into()).unwrap();
    assert_eq!(written(&raw).unwrap(), serde_text(&raw));
    let holding = BTreeMap::from([("result", &raw)]);
    assert_eq!(written(&holding).unwrap(), serde_text(&holding));
}

#[test]
fn a_value_past_the_room_is_told_apart_and_one_that_fits_is_not() {
    let long = "x".repeat(100);
    let raw = RawValue::from_string(format!("\"{long}\"")).unwrap();
    for room in [0, 10, 101] {
        let mut out = Vec::new();
        assert_eq!(write(&mut out, &long, room), Err(Stop::Long), "{room}");
        let mut out = Vec::new();
        assert_eq!(write(&mut out, &raw, room), Err(Stop::Long), "{room}");
    }
    let mut out = b"kept".to_vec();
    assert_eq!(write(&mut out, &long, 102), Ok(()));
    assert_eq!(out.len(), 4 + 102);
    // A list without strings stops at the room too, not at its end.
    let numbers = vec![u64::MAX; 100_000];
    let mut out = Vec::new();
    assert_eq!(write(&mut out, &numbers, 1000), Err(Stop::Long));
    assert!(out.len() < 1100, "{} bytes written", out.len());
    let nested = vec![vec![(); 0]; 100_000];
    let mut out = Vec::new();
    assert_eq!(write(&mut out, &nested, 1000), Err(Stop::Long));
    assert!(out.len() < 1100, "{} bytes written", out.len());
    // Escapes count: 50 quotes take 100 bytes inside the string.
    let quotes = "\"".repeat(50);
    let mut out = Vec::new();
    assert_eq!(write(&mut out, &quotes, 60), Err(Stop::Long));
}

proptest! {
    #[test]
    fn any_json_is_written_as_serde_json_writes_it_or_left_to_it(value in crate::arbitrary_json::any_json()) {
        match written(&value) {
            Ok(text) => prop_assert_eq!(text, serde_text(&value)),
            Err(stop) => {
                prop_assert_eq!(stop, Stop::Other);
                prop_assert!(holds_float(&value), "only a float is left to serde_json");
            }
        }
    }
}

#[test]
fn eight_bytes_at_a_time_find_what_a_byte_at_a_time_finds() {
    let naive = |bytes: &[u8]| bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\');
    for len in 1..=17 {
        for at in 0..len {
            for byte in 0..=255u8 {
                let mut bytes = vec![b'a'; len];
                bytes[at] = byte;
                assert_eq!(
                    needs_escape(&bytes),
                    naive(&bytes),
                    "{byte:#x} at {at} of {len}"
                );
                // Beside bytes past ASCII, which set no flag.
                let mut beside = vec![0xe2; len];
                beside[at] = byte;
                assert_eq!(
                    needs_escape(&beside),
                    naive(&beside),
                    "{byte:#x} at {at} of {len}"
                );
            }
        }
    }
    assert!(!needs_escape(b""));
}

#[test]
fn an_event_past_the_room_is_told_apart() {
    use crate::bus::EventKind;
    use crate::patterns::events::{PatternEvent, RoundEvent};
    let event = |speaker: String| Event {
        run: 1,
        seq: 2,
        t_ms: 3,
        kind: EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
            round: 1,
            speakers: vec![speaker],
        })),
    };
    let short = event("a".into());
    let text = serde_text(&short);
    let mut out = Vec::new();
    assert_eq!(write_event(&mut out, &short, text.len()), Ok(()));
    assert_eq!(out, text.as_bytes());
    let mut out = Vec::new();
    assert_eq!(
        write_event(&mut out, &short, text.len() - 1),
        Err(Stop::Long)
    );
    let long = event("x".repeat(1000));
    let mut out = Vec::new();
    assert_eq!(write_event(&mut out, &long, 999), Err(Stop::Long));
}
