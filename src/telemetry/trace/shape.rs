//! The trace's skeleton. What a pattern's events make of the trace
//! (rounds, waves, turns, research steps) lives with the pattern, above
//! the telemetry, behind [`Shapes`]: the builder hands each pattern's
//! events to the shapes the layer above gave it, whole, and asks them
//! where a call's span belongs. The run-wide happenings (breakers, flags,
//! pauses) are events on the root, here.

use super::spans::TraceSpans;
use super::{ROOT, TraceBuilder, wire};
use crate::bus::EventKind;
use crate::telemetry::names as n;
use crate::telemetry::span::{Attrs, SpanNo};
use std::fmt;

/// One run's pattern spans: the containers its pattern's events open and
/// close, and the calls they hold. A pattern's event comes whole; the
/// shapes say what it does to the trace.
pub(crate) trait Shapes: fmt::Debug + Send {
    /// Fold in a pattern's event: `kind` is always an
    /// `EventKind::Pattern`, which the shapes take apart.
    fn apply(&mut self, trace: &mut TraceSpans<'_>, kind: &EventKind, t: u64);
    /// The span a model call for `agent`, labelled `label`, starting at run
    /// time `t` belongs under, if one of the pattern's spans holds it (it
    /// may open that span).
    fn model_parent(
        &mut self,
        trace: &mut TraceSpans<'_>,
        agent: Option<&str>,
        label: &str,
        t: u64,
    ) -> Option<SpanNo>;
    /// The span a tool call for `task` belongs under, if one of the
    /// pattern's spans holds it.
    fn tool_parent(&self, task: &str) -> Option<SpanNo>;
    /// Span `no` has ended: nothing may name it any more.
    fn forget(&mut self, no: SpanNo);
}

/// How the patterns' events shape a run's trace: the exporter is handed
/// it by the layer above the patterns, which the telemetry never imports.
#[derive(Clone, Copy)]
pub struct TraceShapes {
    for_run: fn() -> Box<dyn Shapes>,
}

impl TraceShapes {
    /// Shapes that `for_run` makes afresh for each run.
    pub(crate) const fn new(for_run: fn() -> Box<dyn Shapes>) -> Self {
        TraceShapes { for_run }
    }

    /// Empty shapes for one run.
    pub(super) fn for_run(self) -> Box<dyn Shapes> {
        (self.for_run)()
    }
}

impl fmt::Debug for TraceShapes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TraceShapes")
    }
}

/// What stands in for the run's shapes while they are lent out. Nothing
/// asks it: meanwhile the trace changes only through [`TraceSpans`],
/// which never turns to the shapes.
#[derive(Debug)]
pub(super) struct Lent;

impl Shapes for Lent {
    fn apply(&mut self, _: &mut TraceSpans<'_>, _: &EventKind, _: u64) {}
    fn model_parent(
        &mut self,
        _: &mut TraceSpans<'_>,
        _: Option<&str>,
        _: &str,
        _: u64,
    ) -> Option<SpanNo> {
        None
    }
    fn tool_parent(&self, _: &str) -> Option<SpanNo> {
        None
    }
    fn forget(&mut self, _: SpanNo) {}
}

impl TraceBuilder {
    /// Lend the run's shapes to `f` with the trace they may change. The
    /// spans that ended before or meanwhile are forgotten by the shapes
    /// first and after, so that they never name an ended span when asked.
    fn with_shapes<R>(&mut self, f: impl FnOnce(&mut dyn Shapes, &mut TraceSpans<'_>) -> R) -> R {
        self.forget_ended();
        let mut shapes = std::mem::replace(&mut self.shapes, Box::new(Lent));
        let out = f(shapes.as_mut(), &mut TraceSpans::new(self));
        self.shapes = shapes;
        self.forget_ended();
        out
    }

    /// Tell the shapes of the spans that ended since they were last told.
    pub(super) fn forget_ended(&mut self) {
        for no in self.ended_spans.drain(..) {
            self.shapes.forget(no);
        }
    }

    /// Where a model call for `agent`, labelled `label`, starting at run
    /// time `t` belongs: the pattern's span that holds it, else the root.
    pub(super) fn model_parent(&mut self, agent: Option<&str>, label: &str, t: u64) -> SpanNo {
        self.with_shapes(|shapes, trace| shapes.model_parent(trace, agent, label, t))
            .unwrap_or(ROOT)
    }

    /// Where a call of a tool for `task` belongs: the pattern's span that
    /// holds it, else the root.
    pub(super) fn tool_parent(&mut self, task: &str) -> SpanNo {
        self.with_shapes(|shapes, _| shapes.tool_parent(task))
            .unwrap_or(ROOT)
    }

    /// Fold in an event that is not a call's: a pattern's event goes to
    /// its shapes whole.
    pub(super) fn apply_shape(&mut self, kind: &EventKind, t: u64) {
        match kind {
            EventKind::Pattern(_) => self.with_shapes(|s, trace| s.apply(trace, kind, t)),
            other => self.apply_run_wide(other, t),
        }
    }

    /// Fold in a run-wide happening (a breaker, a flag, a pause, a human's
    /// part) as an event on the root.
    fn apply_run_wide(&mut self, kind: &EventKind, t: u64) {
        match kind {
            EventKind::BreakerTransition {
                tool,
                from,
                to,
                reason,
            } => {
                let attrs = Attrs::default()
                    .with(n::TOOL, tool.as_str())
                    .with(n::FROM, wire(from))
                    .with(n::TO, wire(to))
                    .with(n::REASON, wire(reason));
                self.event(ROOT, n::EVENT_BREAKER, t, attrs);
            }
            EventKind::FlagChanged { name, on, .. } => {
                let attrs = Attrs::default()
                    .with(n::FLAG, name.as_str())
                    .with(n::ON, *on);
                self.event(ROOT, n::EVENT_FLAG_CHANGED, t, attrs);
            }
            EventKind::Paused { gate } => self.gate_event(n::EVENT_PAUSED, gate, t),
            EventKind::Resumed { gate } => self.gate_event(n::EVENT_RESUMED, gate, t),
            EventKind::Stepped { gate } => self.gate_event(n::EVENT_STEPPED, gate, t),
            EventKind::HumanDecided { choice, .. } => {
                let attrs = Attrs::default().with(n::CHOICE, choice.as_str());
                self.event(ROOT, n::EVENT_HUMAN_DECIDED, t, attrs);
            }
            _ => {}
        }
    }

    fn gate_event(&mut self, name: &'static str, gate: &crate::bus::GatePoint, t: u64) {
        let attrs = Attrs::default().with(n::GATE, gate.to_string());
        self.event(ROOT, name, t, attrs);
    }
}
