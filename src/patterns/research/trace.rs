//! The research run's part of a run's trace: each step of its workflow a
//! span holding the step's calls, each source the policy allowed or
//! denied an event on its step.

use crate::patterns::research::events::ResearchEvent;
use crate::telemetry::names as n;
use crate::telemetry::{Attrs, ROOT, SpanNo, TraceSpans, wire};

/// The research run's own names, beside the shared ones in
/// `telemetry::names`: a step's attribute, and the policy's events on
/// each source.
pub(crate) const STEP: &str = "conclave.step";
pub(crate) const EVENT_SOURCE_ALLOWED: &str = "conclave.source_allowed";
pub(crate) const EVENT_SOURCE_DENIED: &str = "conclave.source_denied";

/// The research run's open step.
#[derive(Debug, Default)]
pub(crate) struct ResearchSpans {
    step: Option<SpanNo>,
}

impl ResearchSpans {
    /// Fold in a research step's event or a source's.
    pub(crate) fn apply(&mut self, trace: &mut TraceSpans<'_>, event: &ResearchEvent, t: u64) {
        match event {
            ResearchEvent::ResearchStepStarted(step) => {
                if let Some(previous) = self.step.take() {
                    trace.end(previous, t);
                }
                let no = trace.open(ROOT, format!("step {}", wire(&step.phase)), t);
                trace.set(no, STEP, step.step);
                trace.set(no, n::PHASE, wire(&step.phase));
                self.step = Some(no);
            }
            ResearchEvent::ResearchStepFinished(step) => {
                if let Some(no) = self.step.take() {
                    trace.set(no, n::COUNT, step.count);
                    trace.end(no, t);
                }
            }
            ResearchEvent::SourceAllowed(source) => {
                let attrs = Attrs::default().with(n::URL, source.url.as_str());
                trace.event(self.in_step(), EVENT_SOURCE_ALLOWED, t, attrs);
            }
            ResearchEvent::SourceDenied(source) => {
                let attrs = Attrs::default()
                    .with(n::URL, source.url.as_str())
                    .with(n::REASON, wire(&source.reason));
                trace.event(self.in_step(), EVENT_SOURCE_DENIED, t, attrs);
            }
            _ => {}
        }
    }

    /// The step a model or tool call belongs to.
    pub(crate) fn step(&self) -> Option<SpanNo> {
        self.step
    }

    /// Where a source's event goes: its step, else the root.
    fn in_step(&self) -> SpanNo {
        self.step.unwrap_or(ROOT)
    }

    /// Span `no` has ended.
    pub(crate) fn forget(&mut self, no: SpanNo) {
        if self.step == Some(no) {
            self.step = None;
        }
    }
}
