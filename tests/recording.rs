//! Recordings: lossless while live viewers lag, and identical for the same
//! scenario, seed and flags on the virtual clock.

use crate::common;

use conclave::bus::{Delivery, Event, EventKind, Hub};
use conclave::engine::{self, LaunchOptions};
use conclave::record::read_recording;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

fn record_options(path: &Path) -> LaunchOptions {
    LaunchOptions {
        record: Some(path.to_path_buf()),
        ..LaunchOptions::default()
    }
}

/// The recording's lines with the one wall-clock value taken out.
fn lines_without_wall_clock(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            let mut event: Value = serde_json::from_str(line).unwrap();
            if event["type"] == "run_started" {
                event.as_object_mut().unwrap().remove("started_at_ms");
            }
            event
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn the_same_seed_gives_identical_recordings() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = common::shipped("checkout_v2_launch.json");
    let mut recordings = Vec::new();
    for (i, seed) in [(0, 11), (1, 11), (2, 12)] {
        let path = dir.path().join(format!("run{i}.jsonl"));
        let options = LaunchOptions {
            seed: Some(seed),
            flags: vec![("legal_analyst".into(), true)],
            ..record_options(&path)
        };
        common::run(scenario.clone(), options).await;
        recordings.push(lines_without_wall_clock(&path));
    }
    assert!(recordings[0].len() > 20);
    assert_eq!(recordings[0], recordings[1], "same seed, same events");
    assert_ne!(
        recordings[0], recordings[2],
        "another seed draws other latencies, so other t_ms"
    );
}

#[tokio::test(start_paused = true)]
async fn the_recorder_keeps_every_event_while_a_slow_viewer_misses_some() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let hub = Hub::new(4);
    let mut slow = hub.subscribe();
    let viewer = tokio::spawn(async move {
        let (mut seen, mut missed) = (0u64, 0u64);
        loop {
            match slow.next().await {
                Delivery::Event(event) => {
                    seen += 1;
                    if matches!(event.kind, EventKind::RunFinished { .. }) {
                        return (seen, missed);
                    }
                    // Far slower than the run publishes.
                    tokio::time::sleep(Duration::from_secs(2)).await;
                }
                Delivery::Missed(n) => missed += n,
                Delivery::Closed => return (seen, missed),
            }
        }
    });
    let handle = engine::launch(
        common::shipped("checkout_v2_launch.json"),
        &hub,
        record_options(&path),
    )
    .unwrap();
    let outcome = handle.finish().await.unwrap();
    let (seen, missed) = viewer.await.unwrap();

    let recording = read_recording(&path).unwrap();
    assert!(recording.problems.is_empty());
    let seqs: Vec<u64> = recording.events.iter().map(|e| e.seq).collect();
    let total = seqs.len() as u64;
    assert_eq!(seqs, (1..=total).collect::<Vec<_>>(), "every seq, in order");
    assert!(missed > 0, "the viewer lagged");
    assert_eq!(
        seen + missed,
        total,
        "and was told exactly how much it missed"
    );
    let Some(last) = recording.events.last() else {
        panic!("empty recording")
    };
    match &last.kind {
        EventKind::RunFinished { result, .. } => assert_eq!(result, &outcome.result),
        other => panic!("the recording ends with {other:?}"),
    }
}

/// The reader takes a kind's fields straight from its line, once the head
/// has named the kind; for every kind a shipped scenario records, what it
/// reads is what serde's tagged reading of the same line gives.
#[test]
fn every_recorded_kind_reads_as_serde_reads_it() {
    let mut kinds = std::collections::BTreeSet::new();
    for (name, lines) in common::damage::real_recordings() {
        let text = lines.join(&b'\n');
        let read = conclave::record::parse_recording(text.as_slice(), &name).unwrap();
        assert!(read.problems.is_empty(), "{name}: {:?}", read.problems);
        let events: Vec<Event> = read.events.iter().map(|e| (**e).clone()).collect();
        let serde: Vec<Event> = lines
            .iter()
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect();
        assert_eq!(events, serde, "{name}");
        for line in &lines {
            let line: Value = serde_json::from_slice(line).unwrap();
            kinds.insert(line["type"].as_str().unwrap().to_owned());
        }
    }
    // Every pattern's kinds, the gateway's and the research pipeline's.
    for kind in [
        "run_started",
        "run_finished",
        "round_started",
        "contribution_accepted",
        "plan_accepted",
        "task_queued",
        "attempt_finished",
        "retry_scheduled",
        "breaker_transition",
        "bulkhead",
        "handoff_accepted",
        "turn_finished",
        "research_step_finished",
        "note_extracted",
        "cited",
    ] {
        assert!(kinds.contains(kind), "no shipped scenario records {kind}");
    }
    assert!(kinds.len() >= 30, "{} kinds: {kinds:?}", kinds.len());
}
