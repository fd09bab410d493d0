use super::*;
use proptest::prelude::*;
use serde_json::{Value, json};

/// A stream that takes everything, or fails on write or on flush with the
/// error `error` makes.
#[derive(Default)]
struct Stream {
    taken: Vec<u8>,
    fails_on_write: Option<fn() -> io::Error>,
    fails_on_flush: Option<fn() -> io::Error>,
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.fails_on_write {
            Some(error) => Err(error()),
            None => {
                self.taken.extend_from_slice(buf);
                Ok(buf.len())
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.fails_on_flush.map_or(Ok(()), |error| Err(error()))
    }
}

fn closed() -> io::Error {
    io::Error::from(io::ErrorKind::BrokenPipe)
}

fn full() -> io::Error {
    io::Error::from_raw_os_error(28)
}

fn text(stream: &Stream) -> &str {
    std::str::from_utf8(&stream.taken).unwrap()
}

/// What a hostile model might answer: escape sequences, C1 controls (CSI,
/// OSC, NEL), bidi overrides and isolates, the Arabic letter mark, DEL.
const HOSTILE: &str = "go\u{1b}[2J\u{1b}]52;c;cHduZWQ=\u{7}\u{9b}31m\u{9d}0;t\u{9c}\u{85}\u{202e}kcab\u{202c}\u{2066}\u{61c}x\u{7f}!";

#[test]
fn the_document_shows_no_control_and_reads_back_unchanged() {
    let mut console = Console::new(Stream::default(), Stream::default());
    let document = json!({"summary": HOSTILE, "actions": [HOSTILE], HOSTILE: {"nested": HOSTILE}});
    console.document(&document);
    assert_eq!(console.finish(Exit::Ok), Exit::Ok);
    let out = text(&console.out);
    assert!(
        !out.chars().any(|c| needs_cleaning(c) && c != '\n'),
        "{out:?}"
    );
    assert!(out.contains(r"\u009b31m") && out.contains(r"\u202e") && out.contains(r"\u007f"));
    assert!(out.ends_with("}\n"));
    let back: Value = serde_json::from_slice(&console.out.taken).unwrap();
    assert_eq!(back, document);
    assert!(console.err.taken.is_empty());
}

#[test]
fn messages_are_cleaned_but_keep_their_lines() {
    let mut console = Console::new(Stream::default(), Stream::default());
    console.message(&format!(
        "scenario.json:3:5: bad stance {HOSTILE}\n  expected go"
    ));
    console.line(&format!("{HOSTILE}: ok"));
    assert_eq!(console.finish(Exit::BadInput), Exit::BadInput);
    assert_eq!(
        text(&console.err),
        "scenario.json:3:5: bad stance gokcabx!\n  expected go\n"
    );
    assert_eq!(text(&console.out), "gokcabx!: ok\n");
}

#[test]
fn a_closed_pipe_ends_quietly_with_141() {
    let out = Stream {
        fails_on_write: Some(closed),
        ..Stream::default()
    };
    let mut console = Console::new(out, Stream::default());
    console.document(&json!({"status": "ok"}));
    console.message("conclave: max_rounds_reached: said after the result");
    assert_eq!(console.finish(Exit::Stopped), Exit::ClosedPipe);
    assert_eq!(Exit::ClosedPipe.code(), 141);
    assert!(console.err.taken.is_empty(), "{:?}", text(&console.err));
}

#[test]
fn a_full_disk_is_one_line_on_stderr_and_status_1() {
    let out = Stream {
        fails_on_write: Some(full),
        ..Stream::default()
    };
    let mut console = Console::new(out, Stream::default());
    console.line("a.json: ok");
    console.line("b.json: ok");
    console.message("c.json:1:1: not valid JSON");
    assert_eq!(console.finish(Exit::BadInput), Exit::Internal);
    assert_eq!(
        text(&console.err),
        "conclave: cannot write to stdout: No space left on device (os error 28)\n"
    );
}

#[test]
fn a_failure_at_flush_counts() {
    for (error, exit, said) in [
        (closed as fn() -> io::Error, Exit::ClosedPipe, false),
        (full, Exit::Internal, true),
    ] {
        let out = Stream {
            fails_on_flush: Some(error),
            ..Stream::default()
        };
        let mut console = Console::new(out, Stream::default());
        console.document(&json!([1, 2, 3]));
        assert_eq!(console.finish(Exit::Ok), exit);
        assert_eq!(
            console.err.taken.is_empty(),
            !said,
            "{:?}",
            text(&console.err)
        );
    }
}

#[test]
fn a_broken_stderr_fails_the_command_silently() {
    let err = Stream {
        fails_on_write: Some(full),
        ..Stream::default()
    };
    let mut console = Console::new(Stream::default(), err);
    console.message("no/such/file.json: cannot read the file");
    assert_eq!(console.finish(Exit::BadInput), Exit::Internal);
    let err = Stream {
        fails_on_write: Some(closed),
        ..Stream::default()
    };
    let mut console = Console::new(Stream::default(), err);
    console.message("a step line");
    console.document(&json!({"status": "ok"}));
    assert_eq!(console.finish(Exit::Ok), Exit::ClosedPipe);
    assert!(
        console.out.taken.is_empty(),
        "nothing after the pipe closed"
    );
}

#[test]
fn a_character_to_escape_is_found_at_any_place_in_a_long_text() {
    // The text is looked at in blocks of 64 bytes: around their edges,
    // after a character of several bytes, and at the very end.
    for at in [0, 1, 62, 63, 64, 65, 127, 128, 129, 200] {
        for (hostile, escaped) in [
            ("\u{7f}", "\\u007f"),
            ("\u{202e}", "\\u202e"),
            ("\r", "\\u000d"),
        ] {
            for before in ["", "é"] {
                let text = format!("{before}{}{hostile}{}", "a".repeat(at), "b".repeat(at % 7));
                let want = text.replace(hostile, escaped);
                assert_eq!(escape_controls(&text), want, "{at} {hostile:?} {before:?}");
            }
        }
    }
}

#[test]
fn nothing_to_escape_is_not_copied() {
    let json = "{\n  \"a\": \"plain \\u001b é 日\"\n}";
    assert!(matches!(escape_controls(json), Cow::Borrowed(_)));
}

/// Strings biased to what must be escaped, with any other character too.
fn hostile_string() -> impl Strategy<Value = String> {
    let c = prop_oneof![
        3 => any::<char>(),
        1 => prop::char::range('\u{0}', '\u{20}'),
        2 => prop::char::range('\u{7f}', '\u{a0}'),
        1 => prop::sample::select(&['\u{61c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202e}', '\u{2066}', '\u{2069}', '\u{2028}', '"', '\\'][..]),
    ];
    prop::collection::vec(c, 0..24).prop_map(String::from_iter)
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        hostile_string().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
    ];
    leaf.prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::vec((hostile_string(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn escaped_documents_are_the_same_value_with_nothing_raw(value in json_value()) {
        let mut console = Console::new(Stream::default(), Stream::default());
        console.document(&value);
        prop_assert_eq!(console.finish(Exit::Ok), Exit::Ok);
        let out = text(&console.out);
        prop_assert!(!out.chars().any(|c| needs_cleaning(c) && c != '\n'), "{:?}", out);
        let back: Value = serde_json::from_str(out).unwrap();
        prop_assert_eq!(back, value);
    }
}

#[test]
fn a_signal_s_status_stands_when_the_terminal_is_gone() {
    let out = Stream {
        fails_on_flush: Some(|| io::Error::from_raw_os_error(5)),
        ..Stream::default()
    };
    let mut console = Console::new(out, Stream::default());
    let hangup = Exit::Signalled(crate::exit::Signal::Hangup);
    assert_eq!(console.finish(hangup), hangup);
    assert_eq!(
        console.finish(Exit::Ok),
        Exit::Internal,
        "without a signal the failure counts"
    );
}

/// What serde_json's own pretty printer writes for `text`.
fn serde_pretty(text: &str) -> String {
    let value: Value = serde_json::from_str(text).unwrap();
    serde_json::to_string_pretty(&value).unwrap()
}

#[test]
fn text_deeper_than_serde_json_reads_is_refused_without_running_out_of_stack() {
    let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let at_limit = nested(127);
    assert_eq!(pretty_json(&at_limit).ok(), Some(serde_pretty(&at_limit)));
    let deeper = nested(128);
    assert!(serde_json::from_str::<Value>(&deeper).is_err());
    assert!(pretty_json(&deeper).is_err());
    let hostile = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
    assert!(pretty_json(&hostile).is_err());
    let mut console = Console::new(Stream::default(), Stream::default());
    console.json_text(&hostile);
    assert_eq!(console.finish(Exit::Ok), Exit::Internal);
    assert!(
        text(&console.err)
            .starts_with("conclave: cannot print the result: recursion limit exceeded")
    );
    assert!(console.out.taken.is_empty());
}

#[test]
fn indents_deep_documents_as_serde_json_does() {
    for depth in [31, 32, 33, 40] {
        let text = format!("{}1{}", "[{\"a\":".repeat(depth), "}]".repeat(depth));
        assert_eq!(
            pretty_json(&text).ok(),
            Some(serde_pretty(&text)),
            "{depth} deep"
        );
    }
}

#[test]
fn writes_what_serde_json_writes_for_any_spelling_of_a_value() {
    for text in [
        r#"{"a":[1,2,{"b":null,"c":[]}],"d":{},"e":"x\"y\\z\n"}"#,
        "[]",
        "{}",
        "  [ 1 , true , false , null ]  ",
        r#"["\/", "\u00e9", "\u0041", "\u001F", "\u001f", "\u000a", "\ud83d\ude00"]"#,
        r#"["\b\f\n\r\t", "\u0008", "é ☃ 😀"]"#,
        "[1.50, 1E5, 1e-7, -0, -0.0, 0, 12345678901234567890, -9223372036854775809]",
        "[123456789012345678, -123456789012345678, 1234567890123456789]",
        "3.25",
        "\"alone\"",
        r#"{"k" : {"nested" : [[[]]], "n" : -1}}"#,
    ] {
        assert_eq!(
            pretty_json(text).ok().as_deref(),
            Some(&*serde_pretty(text)),
            "{text}"
        );
    }
}

#[test]
fn text_that_is_not_one_json_value_is_an_error() {
    for text in [
        "",
        "[",
        "[1,]",
        "{\"a\" 1}",
        "{1: 2}",
        "[1] 2",
        "tru",
        "\"open",
        "[\"\u{1}\"]",
        "-",
        "1.2.3",
    ] {
        assert!(pretty_json(text).is_err(), "{text:?}");
    }
}

proptest! {
    #[test]
    fn equals_serde_json_pretty_on_its_compact_text(value in crate::arbitrary_json::any_json()) {
        let compact = serde_json::to_string(&value).unwrap();
        let want = serde_json::to_string_pretty(&value).unwrap();
        prop_assert_eq!(pretty_json(&compact).ok(), Some(want));
    }
}
