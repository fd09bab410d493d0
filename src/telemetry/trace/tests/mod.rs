use super::*;
use crate::bus::{EventSink, Hub};
use crate::engine::{self, LaunchOptions};
use std::sync::Arc;

/// Content, runs cut short, stray events, error names.
mod edges;
/// The graph's run as its trace.
mod graph;
/// Each pattern's run as its trace.
mod patterns;

#[derive(Debug, Default)]
struct Collect(parking_lot::Mutex<Vec<Arc<Event>>>);

impl EventSink for Collect {
    fn accept(&self, event: Arc<Event>) {
        self.0.lock().push(event);
    }
}

/// The events of a shipped scenario's run on the virtual clock.
async fn events_of(file: &str, flags: &[(&str, bool)]) -> Vec<Arc<Event>> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(file);
    let scenario = Arc::new(crate::scenario::load(&path).expect("a shipped scenario loads"));
    let sink = Arc::new(Collect::default());
    let options = LaunchOptions {
        flags: flags
            .iter()
            .map(|(n, on)| ((*n).to_string(), *on))
            .collect(),
        observers: vec![sink.clone() as Arc<dyn EventSink>],
        ..LaunchOptions::default()
    };
    let handle = engine::launch(scenario, &Hub::default(), options).expect("launches");
    handle.finish().await.expect("the run ends");
    sink.0.lock().clone()
}

fn spans_of(events: &[Arc<Event>], content: bool) -> Vec<FinishedSpan> {
    let mut builder = TraceBuilder::new(content, crate::patterns::trace_shapes());
    let mut spans: Vec<FinishedSpan> = events.iter().flat_map(|e| builder.apply(e)).collect();
    assert!(builder.is_done(), "the run's finish ends the trace");
    spans.extend(builder.finish());
    spans
}

fn by_no(spans: &[FinishedSpan], no: SpanNo) -> &FinishedSpan {
    spans
        .iter()
        .find(|s| s.no == no)
        .expect("every parent is a span of the trace")
}

fn text(span: &FinishedSpan, key: &str) -> Option<String> {
    match span.attrs.get(key)? {
        AttrValue::Str(s) => Some(s.clone()),
        other => Some(format!("{other:?}")),
    }
}

/// One root; every other span's parent is in the trace and encloses it
/// in time; numbers are unique.
fn assert_well_formed(spans: &[FinishedSpan]) {
    let roots: Vec<_> = spans.iter().filter(|s| s.parent.is_none()).collect();
    assert_eq!(roots.len(), 1, "one root: {roots:?}");
    let mut numbers: Vec<_> = spans.iter().map(|s| s.no).collect();
    numbers.sort_unstable();
    numbers.dedup();
    assert_eq!(numbers.len(), spans.len(), "every span once");
    for span in spans {
        assert!(span.start_ns <= span.end_ns, "{span:?}");
        if let Some(parent) = span.parent {
            let parent = by_no(spans, parent);
            assert!(
                parent.start_ns <= span.start_ns && span.end_ns <= parent.end_ns,
                "{} [{}, {}] lies within {} [{}, {}]",
                span.name,
                span.start_ns,
                span.end_ns,
                parent.name,
                parent.start_ns,
                parent.end_ns
            );
        }
    }
}
