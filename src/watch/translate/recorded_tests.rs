//! A watch recording told as the events its run made: read back whole,
//! its steering decisions among its spans by their time.

use super::tests::{CODER, CODER_CALL, facts_of, span, told};
use crate::bus::{Event, EventKind};
use crate::span::spans_of;
use crate::watch::fixture_tests::{decoded, requests};
use crate::watch::runs::{Limits, Runs};
use crate::watch::summary::summarise;
use serde_json::json;

#[test]
fn a_watch_recording_reads_back_as_the_events_its_run_made() {
    let mut runs = Runs::new(Limits::default());
    let now = tokio::time::Instant::now();
    for sent in requests("openai_agents_openinference") {
        runs.accept(spans_of(&decoded(&sent)), now);
    }
    let id = runs.ids().next().unwrap();
    let run = runs.get(id).unwrap();
    let summary = summarise(id, &run.forest, None);
    let dir = tempfile::tempdir().unwrap();
    let path = crate::watch::record::write(dir.path(), run, &summary).unwrap();
    let events = super::recorded::events_of(&path).unwrap();
    let events: Vec<Event> = events.iter().map(|e| (**e).clone()).collect();
    let (_, facts) = told("openai_agents_openinference").remove(0);
    assert_eq!(facts_of(&events), facts);
    let EventKind::RunFinished { result, .. } = &events.last().unwrap().kind else {
        panic!("the run ends with its finish");
    };
    let result = result.value();
    assert_eq!(result["recording"], json!(path.display().to_string()));
    assert_eq!(result["model_calls"], facts["model_calls"]);
    // A line that is no watch recording's: named, with its place.
    let other = dir.path().join("other.jsonl");
    std::fs::write(
        &other,
        "{\"type\":\"watch_started\",\"trace_id\":\"01\"}\nnot json\n",
    )
    .unwrap();
    let error = super::recorded::events_of(&other).unwrap_err();
    assert!(error.contains("other.jsonl:2"), "{error}");
}

#[test]
fn a_recordings_steering_decisions_are_told_among_its_spans_by_their_time() {
    use crate::bus::describe::{describe, kind_name};
    use crate::watch::read::read;
    use crate::watch::record::Line;
    use crate::watch::steer::Decision;
    use crate::watch::steer::protocol::By;
    let (agent, model) = (CODER, CODER_CALL);
    let mut lines = vec![Line::WatchStarted {
        trace_id: crate::span::trace_hex(7),
        joined: Vec::new(),
        conversation: None,
        launch: None,
    }];
    for (at_ms, span) in [
        (5, span(10, Some(2), &model)),
        (50, span(11, Some(2), &model)),
        (100, span(2, None, &agent)),
    ] {
        lines.push(Line::SpanArrived {
            at_ms,
            kind: read(&span).kind(),
            under_placeholder: false,
            span,
        });
    }
    let rejected = Decision::Rejected {
        tool: "refund".into(),
        agent: None,
        reason: "too \u{1b}[31mlarge".into(),
        by: By::Person,
    };
    let stopped = Decision::Stopped {
        reason: "enough".into(),
    };
    for (at_ms, decision) in [
        (0, Decision::Paused),
        (20, Decision::Stepped { gates: 1 }),
        (70, rejected),
        (200, stopped),
    ] {
        lines.push(Line::Steered { at_ms, decision });
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("watch-7.jsonl");
    let text: Vec<String> = lines
        .iter()
        .map(|l| serde_json::to_string(l).unwrap())
        .collect();
    std::fs::write(&path, text.join("\n")).unwrap();
    let events = super::recorded::events_of(&path).unwrap();
    // Numbered without gaps, the run's clock never going back.
    for (n, pair) in events.windows(2).enumerate() {
        assert_eq!(pair[1].seq, pair[0].seq + 1, "event {n}");
        assert!(pair[1].t_ms >= pair[0].t_ms, "event {n}: {pair:?}");
    }
    // Each told once, in the words the watch's screen says it, among the
    // spans by its time: the one before any span after the first
    // request's spans.
    let told: Vec<(u64, String, String)> = events
        .iter()
        .map(|e| match &e.kind {
            EventKind::SpanArrived { name, .. } => (e.t_ms, "span".into(), format!("\"{name}\"")),
            kind => (e.t_ms, kind_name(kind).to_string(), describe(kind)),
        })
        .filter(|(_, kind, _)| kind == "span" || kind == "steered")
        .collect();
    let said = |t: u64, s: &str| (t, "steered".to_string(), s.to_string());
    let span_at = |t: u64, name: &str| (t, "span".to_string(), format!("\"{name}\""));
    assert_eq!(
        told,
        [
            span_at(5, "s10"),
            said(5, "paused"),
            said(20, "stepped 1 gate(s)"),
            span_at(50, "s11"),
            said(70, "rejected refund (by a person): too large"),
            span_at(100, "s2"),
            said(200, "stopped: enough"),
        ]
    );
    let last = events.last().unwrap();
    assert_eq!(last.t_ms, 200);
    let EventKind::RunFinished { result, .. } = &last.kind else {
        panic!("the run ends with its finish");
    };
    assert_eq!(
        result.value()["steering"]["decisions"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
}
