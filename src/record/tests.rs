use super::*;
use crate::bus::{Bus, Event, EventKind, EventSink, Hub};
use crate::clock::RunClock;
use crate::patterns::events::PatternEvent;
use crate::patterns::events::RoundEvent;

#[test]
fn a_writer_far_behind_still_writes_every_event_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let (sink, recorder) = Recorder::create(&path).unwrap();
    // Handed over faster than a lowered thread writes them: many pieces
    // of lines wait, and a long line between them waits as its event.
    let events = 20_000;
    let long = "x".repeat(2 << 20);
    for seq in 1..=events {
        let speaker = if seq == events / 2 { &long } else { "a" };
        sink.accept(Arc::new(Event {
            run: 1,
            seq,
            t_ms: seq,
            kind: EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
                round: 1,
                speakers: vec![speaker.into()],
            })),
        }));
    }
    drop(sink);
    assert_eq!(recorder.finish().unwrap(), events);
    let recording = read_recording(&path).unwrap();
    assert!(recording.problems.is_empty(), "{:?}", recording.problems);
    let seqs: Vec<u64> = recording.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=events).collect::<Vec<_>>());
    let EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted { speakers, .. })) =
        &recording.events[events as usize / 2 - 1].kind
    else {
        panic!("a round's start")
    };
    assert_eq!(speakers, &[long]);
}

#[test]
fn writes_every_event_as_one_line_and_reads_them_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let (sink, recorder) = Recorder::create(&path).unwrap();
    let bus = Bus::new(3, RunClock::start(), Hub::new(1), Some(Box::new(sink)));
    for round in 1..=1000 {
        bus.publish(EventKind::Pattern(PatternEvent::Round(
            RoundEvent::RoundStarted {
                round,
                speakers: vec!["a".into()],
            },
        )));
    }
    drop(bus);
    assert_eq!(recorder.finish().unwrap(), 1000);
    let recording = read_recording(&path).unwrap();
    assert!(recording.problems.is_empty(), "{:?}", recording.problems);
    let seqs: Vec<u64> = recording.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=1000).collect::<Vec<_>>());
    assert!(recording.events.iter().all(|e| e.run == 3));
}

#[test]
fn a_path_that_cannot_be_written_is_named_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let reason = |path: &Path| Recorder::create(path).unwrap_err().to_string();
    let missing = dir.path().join("no/such/run.jsonl");
    assert_eq!(
        reason(&missing),
        format!(
            "cannot record to {}: the folder {} does not exist",
            missing.display(),
            dir.path().join("no/such").display()
        )
    );
    assert!(!dir.path().join("no").exists(), "no folder is created");
    assert_eq!(
        reason(dir.path()),
        format!("cannot record to {}: it is a folder", dir.path().display())
    );
    let file = dir.path().join("plain");
    std::fs::write(&file, "x").unwrap();
    assert!(reason(&file.join("run.jsonl")).ends_with("plain is not a folder"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Permissions do not stop root: checked only for other users.
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            let locked = dir.path().join("locked");
            std::fs::create_dir(&locked).unwrap();
            std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o500)).unwrap();
            assert!(reason(&locked.join("run.jsonl")).ends_with(": permission denied"));
        }
    }
}

#[test]
fn a_recording_is_never_written_over() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    std::fs::write(&path, "kept\n").unwrap();
    let err = Recorder::create(&path).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cannot record to {}: a file is there already, and a recording is never written over (remove it first, or record to another name)",
            path.display()
        )
    );
    // A name Conclave picked is numbered while taken.
    let made = |mode| {
        let (sink, recorder) = Recorder::create_as(&path, mode).unwrap();
        drop(sink);
        let made = recorder.path().to_path_buf();
        recorder.finish().unwrap();
        made
    };
    assert_eq!(made(RecordMode::Numbered), dir.path().join("run-2.jsonl"));
    assert_eq!(made(RecordMode::Numbered), dir.path().join("run-3.jsonl"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "kept\n");
    let bare = dir.path().join("bare");
    std::fs::write(&bare, "").unwrap();
    let (_, recorder) = Recorder::create_as(&bare, RecordMode::Numbered).unwrap();
    assert_eq!(recorder.path(), dir.path().join("bare-2"));
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_reported_at_the_end_and_the_channel_still_drains() {
    let (sink, recorder) = Recorder::create(Path::new("/dev/full")).unwrap();
    let bus = Bus::new(1, RunClock::start(), Hub::new(1), Some(Box::new(sink)));
    for round in 1..=5000 {
        bus.publish(EventKind::Pattern(PatternEvent::Round(
            RoundEvent::RoundStarted {
                round,
                speakers: vec![],
            },
        )));
    }
    drop(bus);
    let err = recorder.finish().unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::StorageFull, "{err}");
}
