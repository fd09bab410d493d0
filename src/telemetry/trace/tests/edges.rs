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
    assert_eq!(root.end_ms - root.start_ms, cut.last().unwrap().t_ms);
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
