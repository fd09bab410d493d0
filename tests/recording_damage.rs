//! Property tests of the recording reader on real recordings: every shipped
//! scenario run by the engine, its file damaged at random the ways files get
//! damaged, then read. No panic; every damaged line reported by its number;
//! no undamaged line reported; every undamaged event kept, the run's finish
//! with it whenever its line is intact.

use crate::common;

use common::damage::{self, Damaged};
use conclave::bus::Event;
use conclave::record::{Recording, RecordingError, parse_recording};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

type Lines = Vec<Vec<u8>>;

fn recordings() -> &'static [(String, Lines)] {
    static RECORDINGS: OnceLock<Vec<(String, Lines)>> = OnceLock::new();
    RECORDINGS.get_or_init(damage::real_recordings)
}

fn read(bytes: &[u8]) -> Result<Recording, TestCaseError> {
    parse_recording(bytes, "damaged.jsonl")
        .map_err(|e| TestCaseError::fail(format!("a damaged recording is refused: {e}")))
}

/// What reading `damaged` must give.
fn check(original: &Lines, damaged: &Damaged) -> Result<(), TestCaseError> {
    let recording = match parse_recording(&damaged.bytes[..], "damaged.jsonl") {
        Ok(recording) => recording,
        // Only a file left without one intact event may be refused.
        Err(e) if damaged.intact.is_empty() => {
            prop_assert!(!matches!(e, RecordingError::Io { .. }), "{}", e);
            return Ok(());
        }
        Err(e) => return Err(TestCaseError::fail(format!("refused: {e}"))),
    };
    let kept: BTreeMap<u64, &Arc<Event>> = recording.events.iter().map(|e| (e.seq, e)).collect();
    prop_assert!(
        recording.events.windows(2).all(|w| w[0].seq < w[1].seq),
        "events in seq order"
    );
    let reported: BTreeSet<usize> = recording.problems.iter().map(|p| p.line).collect();
    let problems: Vec<String> = recording.problems.iter().map(ToString::to_string).collect();
    prop_assert!(
        damaged.must_report.is_subset(&reported),
        "damaged lines {:?} must be reported; reported: {:#?}",
        damaged.must_report,
        problems
    );
    prop_assert!(
        reported.is_subset(&damaged.may_report),
        "only damaged lines {:?} may be reported; reported: {:#?}",
        damaged.may_report,
        problems
    );
    for event in &damaged.intact {
        prop_assert_eq!(
            kept.get(&event.seq).map(|e| &***e),
            Some(event),
            "the intact event of seq {} is kept; problems: {:#?}",
            event.seq,
            problems
        );
    }
    for (line, bytes) in &damaged.changed {
        let blank = bytes.iter().all(u8::is_ascii_whitespace);
        let read_as_written = serde_json::from_slice::<Event>(bytes)
            .is_ok_and(|e| kept.get(&e.seq).is_some_and(|k| ***k == e));
        prop_assert!(
            blank || reported.contains(line) || read_as_written,
            "line {} is reported or read as written; problems: {:#?}",
            line,
            problems
        );
    }
    if damaged.finish_intact {
        let finish: Event = serde_json::from_slice(original.last().unwrap()).unwrap();
        prop_assert!(recording.finished(), "the finish is kept: {:#?}", problems);
        prop_assert_eq!(&**recording.events.last().unwrap(), &finish);
    }
    Ok(())
}

fn damaged_recordings(most: usize) -> impl Strategy<Value = (usize, Vec<(usize, damage::Damage)>)> {
    (0..recordings().len(), damage::damages(most))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn damaged_recordings_keep_every_undamaged_event((which, damages) in damaged_recordings(4)) {
        let original = &recordings()[which].1;
        check(original, &damage::apply(original, &damages))?;
    }

    /// Garbage lines of arbitrary bytes between the lines of a real
    /// recording: each reported, every event kept.
    #[test]
    fn arbitrary_bytes_between_lines_cost_only_themselves(
        which in 0..14usize,
        garbage in prop::collection::vec((any::<usize>(), prop::collection::vec(any::<u8>(), 1..300)), 1..6),
    ) {
        let original = &recordings()[which % recordings().len()].1;
        let mut lines: Vec<(Vec<u8>, bool)> = original.iter().map(|l| (l.clone(), false)).collect();
        for (at, bytes) in &garbage {
            for piece in bytes.split(|&b| b == b'\n') {
                lines.insert(at % (lines.len() + 1), (piece.to_vec(), true));
            }
        }
        let mut bytes = Vec::new();
        let mut junk = BTreeSet::new();
        for (i, (line, is_junk)) in lines.iter().enumerate() {
            bytes.extend(line);
            bytes.push(b'\n');
            if *is_junk && !line.iter().all(u8::is_ascii_whitespace) {
                junk.insert(i + 1);
            }
        }
        let recording = read(&bytes)?;
        let reported: BTreeSet<usize> = recording.problems.iter().map(|p| p.line).collect();
        prop_assert_eq!(reported, junk);
        prop_assert_eq!(recording.events.len(), original.len());
        prop_assert!(recording.finished());
    }
}

/// Every damage kind on every line of one recording, one at a time.
#[test]
fn each_damage_on_each_line_costs_that_line_only() {
    let (_, original) = recordings()
        .iter()
        .find(|(name, _)| name == "checkout_v2_launch")
        .unwrap();
    let kinds = [
        damage::Damage::FlipByte { at: 3, byte: b'7' },
        damage::Damage::InvalidUtf8 { at: 9, byte: 0xff },
        damage::Damage::CorruptSeq { seq: 3 },
        damage::Damage::CorruptSeq { seq: u64::MAX },
        damage::Damage::SwapWithNext,
        damage::Damage::Delete,
        damage::Damage::TruncateMidLine { at: 40 },
        damage::Damage::Duplicate,
    ];
    for line in 0..original.len() {
        for kind in &kinds {
            let damaged = damage::apply(original, &[(line, kind.clone())]);
            if let Err(e) = check(original, &damaged) {
                panic!("{kind:?} at line {}: {e}", line + 1);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    /// The same, deeper: `cargo test --test all recording_damage:: -- --ignored`.
    #[test]
    #[ignore]
    fn damaged_recordings_keep_every_undamaged_event_deep((which, damages) in damaged_recordings(10)) {
        let original = &recordings()[which].1;
        check(original, &damage::apply(original, &damages))?;
    }
}
