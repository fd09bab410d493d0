use super::*;
use proptest::prelude::*;
use std::io::Read;

fn line(seq: u64, kind: &str) -> String {
    format!(
        "{{\"run\":1,\"seq\":{seq},\"t_ms\":{seq},\"type\":\"flag_changed\",\"name\":\"{kind}\",\"on\":true}}"
    )
}

fn read_bytes(bytes: &[u8]) -> Result<Recording, RecordingError> {
    parse_recording(bytes, "r.jsonl")
}

fn read(text: &str) -> Result<Recording, RecordingError> {
    read_bytes(text.as_bytes())
}

fn seqs(recording: &Recording) -> Vec<u64> {
    recording.events.iter().map(|e| e.seq).collect()
}

/// Each problem's line and the words before its first colon or bracket.
fn noted(recording: &Recording) -> Vec<(usize, &str)> {
    recording
        .problems
        .iter()
        .map(|p| {
            (
                p.line,
                p.message.split([':', '(']).next().unwrap().trim_end(),
            )
        })
        .collect()
}

#[test]
fn every_problem_is_noted_with_its_line_and_reading_goes_on() {
    let text = [
        line(1, "a"),
        "not json".to_string(),
        "{\"run\":1,\"seq\":3,\"t_ms\":3,\"type\":\"time_travelled\"}".to_string(),
        line(4, "b"),
        line(7, "c"),
        line(8, "c"),
        line(8, "again"),
        "{\"run\":2,\"seq\":9,\"t_ms\":9,\"type\":\"resumed\",\"gate\":{\"before\":\"round\",\"round\":1}}"
            .to_string(),
        "{\"run\":1,\"seq\":10,\"t_ms\":6,\"type\":\"flag_cha".to_string(),
    ]
    .join("\n");
    let recording = read(&text).unwrap();
    assert_eq!(seqs(&recording), vec![1, 4, 7, 8]);
    assert_eq!(
        noted(&recording),
        vec![
            (2, "not JSON"),
            (3, "an event kind this version does not know"),
            (5, "seq jumps from 4 to 7"),
            (7, "seq 8 again"),
            (8, "an event of run 2 in a recording of run 1; skipped"),
            (9, "not JSON"),
        ]
    );
    assert_eq!(
        recording.problems[2].message,
        "seq jumps from 4 to 7: 2 events missing"
    );
    assert_eq!(
        recording.problems[1].message,
        "an event kind this version does not know (\"time_travelled\"); skipped"
    );
    assert_eq!(
        crate::record::Events::held(recording.events.clone())
            .cut_short()
            .as_deref(),
        Some("ends at seq 8, no finish event")
    );
}

#[test]
fn one_invalid_byte_costs_its_line_only_and_says_where() {
    let mut bytes = Vec::new();
    for seq in 1..=9 {
        let mut text = line(seq, "a").into_bytes();
        if seq == 7 {
            text[11] = 0xff;
        }
        bytes.extend(text);
        bytes.push(b'\n');
    }
    let recording = read_bytes(&bytes).unwrap();
    assert_eq!(seqs(&recording), vec![1, 2, 3, 4, 5, 6, 8, 9]);
    assert_eq!(
        recording.problems[0].to_string(),
        "r.jsonl:7: not UTF-8 at byte 12 (0xff); skipped"
    );
    assert_eq!(recording.problems.len(), 1);
}

#[test]
fn a_line_over_the_cap_is_skipped_without_being_held() {
    let cap = 4096;
    let mut bytes = Vec::new();
    bytes.extend(format!("{}\n", line(1, "a")).bytes());
    bytes.extend(std::iter::repeat_n(b'x', 10 * cap));
    bytes.push(b'\n');
    bytes.extend(format!("{}\n{}", line(3, "b"), line(4, "c")).bytes());
    let recording = parse_with_cap(&bytes[..], "r.jsonl", cap).unwrap();
    assert_eq!(seqs(&recording), vec![1, 3, 4]);
    assert_eq!(
        recording.problems[0].to_string(),
        format!(
            "r.jsonl:2: a line of {} bytes, longer than the line cap (4096 bytes); skipped",
            10 * cap + 1
        )
    );
    // A line of exactly the cap is read; one byte more is not.
    let padded = |n: usize| {
        let text = line(1, "a");
        format!("{text}{}\n", " ".repeat(n - text.len()))
    };
    assert!(parse_with_cap(padded(cap).as_bytes(), "r", cap).is_ok());
    let refused = parse_with_cap(padded(cap + 1).as_bytes(), "r", cap).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("longer than the line cap (4096 bytes)"),
        "{refused}"
    );
}

#[test]
fn an_endless_line_before_any_event_is_refused_without_reading_it_all() {
    // Like /dev/zero: the reader stops after its junk allowance.
    let endless = std::io::repeat(0).take(u64::MAX);
    let err = parse_with_cap(BufReader::new(endless), "/dev/zero", 1024).unwrap_err();
    assert_eq!(
        err.to_string(),
        "/dev/zero:1: no event and no line break in the first 2048 bytes \
         (this is not a Conclave recording: one JSON event per line)"
    );
    // Like /dev/urandom: short lines of garbage, forever.
    let garbage = std::io::repeat(b'\n').take(u64::MAX);
    let chained = (&b"garbage"[..]).chain(garbage);
    assert!(matches!(
        parse_with_cap(BufReader::new(chained), "g", 1024),
        Err(RecordingError::NotARecording { .. }) | Err(RecordingError::Empty { .. })
    ));
}

#[test]
fn problems_past_the_listed_number_are_counted_in_one() {
    let mut text = line(1, "a");
    for _ in 0..3000 {
        text.push_str("\n{oops");
    }
    let recording = read(&text).unwrap();
    assert_eq!(recording.problems.len(), MAX_LISTED_PROBLEMS + 1);
    assert_eq!(
        recording.problems.last().unwrap().message,
        "and 2000 more damaged lines after this one, not listed"
    );
}

#[test]
fn quoted_text_is_cleaned_and_cut() {
    let text = format!(
        "{}\n{{\"run\":1,\"seq\":2,\"t_ms\":2,\"type\":\"\\u001b[31m{}\"}}",
        line(1, "a"),
        "z".repeat(1000)
    );
    let recording = read(&text).unwrap();
    let message = &recording.problems[0].message;
    assert!(!message.contains('\u{1b}'), "{message}");
    assert!(message.chars().count() < 300, "{message}");
}

#[test]
fn a_byte_order_mark_before_the_first_line_is_not_part_of_it() {
    let text = format!("\u{feff}{}\n{}", line(1, "a"), line(2, "b"));
    let recording = read(&text).unwrap();
    assert_eq!(seqs(&recording), vec![1, 2]);
    assert!(recording.problems.is_empty(), "{:?}", recording.problems);
}

#[test]
fn empty_and_foreign_files_are_refused() {
    assert!(matches!(read(""), Err(RecordingError::Empty { .. })));
    assert!(matches!(read("\n  \n"), Err(RecordingError::Empty { .. })));
    let err = read("[1, 2, 3]\n{\"not\": \"an event\"}").unwrap_err();
    assert!(
        err.to_string().contains("r.jsonl:1: not a Conclave event"),
        "{err}"
    );
    assert!(
        err.to_string().contains("not a Conclave recording"),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any bytes: no panic; a refusal or events in seq order, with every
    /// problem on a line of the file.
    #[test]
    fn any_bytes_read_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let lines = bytes.split(|&b| b == b'\n').count();
        match parse_with_cap(&bytes[..], "r", 256) {
            Ok(recording) => {
                prop_assert!(!recording.events.is_empty());
                prop_assert!(recording.events.windows(2).all(|w| w[0].seq < w[1].seq));
                for problem in &recording.problems {
                    prop_assert!((1..=lines).contains(&problem.line));
                }
            }
            Err(RecordingError::Io { .. }) => prop_assert!(false, "no I/O error from bytes"),
            Err(_) => {}
        }
    }

    /// Lines of events mixed with damaged ones: every event line read,
    /// every damaged line reported by number.
    #[test]
    fn events_among_damaged_lines_are_all_kept(
        damaged in proptest::collection::vec(any::<bool>(), 1..60),
        junk in proptest::collection::vec(any::<u8>(), 1..40),
    ) {
        let mut bytes = Vec::new();
        let mut want_kept = Vec::new();
        let mut want_reported = Vec::new();
        for (i, &bad) in damaged.iter().enumerate() {
            let seq = i as u64 + 1;
            if bad {
                // Junk that cannot be a line of JSON: starts with an invalid byte.
                bytes.push(0xc0);
                bytes.extend(junk.iter().filter(|&&b| b != b'\n'));
                want_reported.push(i + 1);
            } else {
                bytes.extend(line(seq, "x").bytes());
                want_kept.push(seq);
            }
            bytes.push(b'\n');
        }
        match read_bytes(&bytes) {
            Ok(recording) => {
                prop_assert_eq!(seqs(&recording), want_kept);
                let reported: Vec<usize> = recording.problems.iter().map(|p| p.line).collect();
                prop_assert_eq!(reported, want_reported);
            }
            Err(RecordingError::NotARecording { problem }) => {
                prop_assert!(want_kept.is_empty());
                prop_assert_eq!(problem.line, 1);
            }
            Err(e) => prop_assert!(false, "{}", e),
        }
    }
}
