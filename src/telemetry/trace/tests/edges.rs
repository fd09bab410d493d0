//! What a trace holds at its edges: content only when asked, a run cut
//! short, events before the start, error names.

use super::*;

#[tokio::test(start_paused = true)]
async fn content_goes_in_only_when_asked_for() {
    let events = events_of("checkout_v2_launch.json", &[]).await;
    let with = spans_of(&events, true);
    let root = with.iter().find(|s| s.no == ROOT).unwrap();
    let inputs: Vec<_> = root
        .events
        .iter()
        .filter(|e| e.name == n::EVENT_CONTENT && e.attrs.get(n::INPUT_MESSAGES).is_some())
        .collect();
    assert_eq!(inputs.len(), 1, "the goal");
    assert!(
        with.iter()
            .filter(|s| s.name.starts_with("invoke_agent "))
            .all(|s| s
                .events
                .iter()
                .any(|e| e.attrs.get(n::OUTPUT_MESSAGES).is_some()))
    );
    let without = spans_of(&events, false);
    let strip = |spans: Vec<FinishedSpan>| -> Vec<FinishedSpan> {
        spans
            .into_iter()
            .map(|mut s| {
                s.events.retain(|e| e.name != n::EVENT_CONTENT);
                s
            })
            .collect()
    };
    assert_eq!(strip(with), without, "content adds events and nothing else");
}

#[tokio::test(start_paused = true)]
async fn a_recording_cut_short_still_ends_every_span() {
    let events = events_of("vendor_outage.json", &[]).await;
    let cut = &events[..events.len() / 2];
    let mut builder = TraceBuilder::new(false, crate::patterns::trace_shapes());
    let mut spans: Vec<FinishedSpan> = cut.iter().flat_map(|e| builder.apply(e)).collect();
    assert!(!builder.is_done());
    spans.extend(builder.finish());
    assert_well_formed(&spans);
    let root = by_no(&spans, ROOT);
    assert!(matches!(root.status, SpanStatus::Error(_)));
    assert_eq!(
        root.end_ns / 1_000_000 - root.start_ns / 1_000_000,
        cut.last().unwrap().t_ms
    );
    assert!(builder.finish().is_empty(), "once");
}

#[test]
fn events_before_the_runs_start_are_ignored() {
    let mut builder = TraceBuilder::new(false, crate::patterns::trace_shapes());
    let stray = Event {
        run: 1,
        seq: 5,
        t_ms: 10,
        kind: EventKind::FlagChanged {
            name: "x".into(),
            on: true,
            gate: None,
        },
    };
    assert!(builder.apply(&stray).is_empty());
    assert!(builder.finish().is_empty());
}

#[test]
fn error_types_stay_low_in_cardinality() {
    use crate::stop::StopReason;
    let circuit = StopReason::CircuitOpen {
        tool: "vendor_api".into(),
    };
    assert_eq!(error_type(&circuit), "circuit_open");
    assert_eq!(
        error_type(&StopReason::BulkheadFull { tool: "x".into() }),
        "bulkhead_full"
    );
    assert_eq!(
        error_type(&StopReason::WorkerError { worker: "w".into() }),
        "worker_error"
    );
    assert_eq!(error_type(&StopReason::TaskTimeout), "timeout");
    assert_eq!(error_type(&StopReason::LlmTimeout), "timeout");
}

/// A coordinator's lead calls its three members in one millisecond: their
/// spans start in that millisecond, in the order the bus told of the
/// calls, so a viewer that sorts by start time lists them as the run did.
#[tokio::test(start_paused = true)]
async fn spans_begun_in_one_millisecond_keep_the_order_of_their_events() {
    let events = events_of("launch_coordinator.json", &[]).await;
    let called: Vec<String> = events
        .iter()
        .filter_map(|e| {
            let value = serde_json::to_value(&**e).ok()?;
            (value["type"] == "member_call_started")
                .then(|| value["member"].as_str().map(str::to_string))?
        })
        .collect();
    assert_eq!(called.len(), 3, "the lead calls three members at once");
    let spans = spans_of(&events, false);
    assert_well_formed(&spans);
    let mut calls: Vec<&FinishedSpan> = spans
        .iter()
        .filter(|s| called.iter().any(|m| s.name == format!("execute_tool {m}")))
        .collect();
    calls.sort_by_key(|s| s.start_ns);
    let order: Vec<String> = calls
        .iter()
        .map(|s| s.name.trim_start_matches("execute_tool ").to_string())
        .collect();
    assert_eq!(order, called);
    let millisecond = calls[0].start_ns / 1_000_000;
    assert!(calls.iter().all(|s| s.start_ns / 1_000_000 == millisecond));
    assert!(calls.windows(2).all(|w| w[0].start_ns < w[1].start_ns));
}
