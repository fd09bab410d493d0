use super::*;
use crate::record::{Recording, read_recording};
use std::io::Write;

fn line(run: u64, seq: u64, name: &str) -> String {
    format!(
        "{{\"run\":{run},\"seq\":{seq},\"t_ms\":{seq},\"type\":\"flag_changed\",\"name\":\"{name}\",\"on\":true}}"
    )
}

/// A recording with what damage and odd writing a file can have: a byte
/// order mark, CRLF line ends, a blank line, a line that is not JSON, a
/// swapped pair, an event of another run, and lines long enough to be held.
fn damaged_recording() -> Vec<u8> {
    let long = "x".repeat(HELD_LINE as usize);
    let mut text = Vec::new();
    text.extend_from_slice(b"\xef\xbb\xbf");
    let mut lines = vec![line(1, 1, "first")];
    lines.push(line(1, 2, &long));
    lines.push(line(1, 3, "a"));
    lines.push(line(1, 5, "swapped"));
    lines.push(line(1, 4, "pair"));
    lines.push(String::new());
    lines.push("{not json".into());
    lines.push(line(2, 6, "another run"));
    for seq in 6..40 {
        lines.push(line(1, seq, &format!("flag {seq}")));
    }
    lines.push(line(1, 40, &long));
    lines.push(line(1, 41, "last"));
    for (i, l) in lines.iter().enumerate() {
        text.extend_from_slice(l.as_bytes());
        text.extend_from_slice(if i % 3 == 0 { b"\r\n" } else { b"\n" });
    }
    text
}

fn file_with(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(bytes).unwrap();
    file.flush().unwrap();
    file
}

/// The damaged recording's bytes, its file, the file opened, and read whole.
fn opened() -> (Vec<u8>, tempfile::NamedTempFile, Events, Recording) {
    let text = damaged_recording();
    let file = file_with(&text);
    let (events, _) = Events::open(file.path(), |_, _, _| {}).unwrap();
    let whole = read_recording(file.path()).unwrap();
    (text, file, events, whole)
}

#[test]
fn a_recording_read_from_its_file_again_gives_the_events_read_whole() {
    let file = file_with(&damaged_recording());
    let whole = read_recording(file.path()).unwrap();
    let mut seen = Vec::new();
    let (events, problems) =
        Events::open(file.path(), |i, event, _| seen.push((i, event.seq))).unwrap();
    assert_eq!(problems, whole.problems);
    assert_eq!(events.len(), whole.events.len());
    let seqs: Vec<u64> = whole.events.iter().map(|e| e.seq).collect();
    assert_eq!(seen, seqs.iter().copied().enumerate().collect::<Vec<_>>());
    assert_eq!(seqs[..6], [1, 2, 3, 4, 5, 6], "the swapped pair put back");
    assert_eq!(events.first(), whole.events.first());
    assert_eq!(events.last(), whole.events.last());
    assert_eq!(events.slice(0..events.len()).unwrap(), whole.events);
    // Out of order, backwards and across held lines, as a replay moves.
    for index in [40, 3, 0, 39, 1, 2, 17, 16, 4, 5, 3] {
        let event = events.get(index).unwrap();
        assert_eq!(event.as_ref(), whole.events.get(index), "event {index}");
    }
    assert_eq!(events.get(events.len()).unwrap(), None);
    assert_eq!(events.slice(30..1_000).unwrap(), whole.events[30..]);
    let (from, to) = (9, 3);
    assert_eq!(
        events.slice(from..to).unwrap(),
        vec![],
        "a range that runs back"
    );
}

#[test]
fn the_first_the_last_and_long_lines_are_held_the_rest_read_again() {
    let file = file_with(&damaged_recording());
    let whole = read_recording(file.path()).unwrap();
    let (events, _) = Events::open(file.path(), |_, _, _| {}).unwrap();
    // With the file emptied, only what is held can be had.
    file.as_file().set_len(0).unwrap();
    let last = events.len() - 1;
    let long = whole.events.iter().position(|e| e.seq == 40).unwrap();
    for index in [0, 1, long, last] {
        assert_eq!(
            events.get(index).unwrap().as_ref(),
            whole.events.get(index),
            "event {index} is held"
        );
    }
    let error = events.get(2).unwrap_err().to_string();
    assert!(
        error.contains(&file.path().display().to_string()),
        "{error}"
    );
    assert!(error.contains("changed after it was opened"), "{error}");
}

#[test]
fn a_line_that_no_longer_holds_its_event_is_said_not_used() {
    let (text, file, events, whole) = opened();
    // Another event of the same length where seq 20 was: seq 21 again.
    let was = String::from_utf8(text.clone()).unwrap();
    let changed = was.replacen(&line(1, 20, "flag 20"), &line(1, 21, "flag 20"), 1);
    assert_ne!(changed, was);
    std::fs::write(file.path(), changed).unwrap();
    let at = whole.events.iter().position(|e| e.seq == 20).unwrap();
    let mut folded = Vec::new();
    let error = events
        .each(at - 2..at + 2, |i, event| folded.push((i, event.seq)))
        .unwrap_err();
    assert_eq!(
        folded,
        [(at - 2, 18), (at - 1, 19)],
        "up to the changed line"
    );
    let at_byte = was.find(&line(1, 20, "flag 20")).unwrap();
    let said = format!("byte {at_byte} no longer starts its event");
    assert!(error.to_string().contains(&said), "{error}");
    // The lines around it are still read.
    assert_eq!(events.get(at + 1).unwrap().map(|e| e.seq), Some(21));
    assert_eq!(events.get(at - 1).unwrap().map(|e| e.seq), Some(19));
}

#[test]
fn a_file_cut_short_after_opening_gives_what_is_left() {
    let (text, file, events, whole) = opened();
    let was = String::from_utf8(text.clone()).unwrap();
    let cut = was.find(&line(1, 11, "flag 11")).unwrap();
    std::fs::write(file.path(), &text[..cut]).unwrap();
    let at = |seq: u64| whole.events.iter().position(|e| e.seq == seq).unwrap();
    assert!(events.get(at(30)).is_err());
    assert!(events.get(at(11)).is_err());
    assert_eq!(events.get(at(10)).unwrap().map(|e| e.seq), Some(10));
    assert_eq!(events.get(at(41)).unwrap().map(|e| e.seq), Some(41), "held");
}
