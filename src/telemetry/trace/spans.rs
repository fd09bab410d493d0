//! What a pattern's shape may do to a run's trace: open spans under a
//! parent, set their attributes, add events, fail and end them. The shapes
//! live with their patterns, above the telemetry; this is all of the
//! trace they see. A span that has ended is the root to every call here,
//! which stays open until the run's end.

use super::{TraceBuilder, error_type};
use crate::scenario::PatternKind;
use crate::stop::StopReason;
use crate::telemetry::names as n;
use crate::telemetry::span::{AttrValue, Attrs, SpanNo, SpanStatus};
use serde_json::Value;

/// One run's trace, as a pattern's shape sees it while it folds in an
/// event.
pub(crate) struct TraceSpans<'a> {
    builder: &'a mut TraceBuilder,
}

impl<'a> TraceSpans<'a> {
    pub(super) fn new(builder: &'a mut TraceBuilder) -> Self {
        TraceSpans { builder }
    }

    /// The run's pattern, as its start said.
    pub(crate) fn pattern(&self) -> Option<PatternKind> {
        self.builder.pattern
    }

    /// Open a span named `name` under `parent` at run time `t`; its number.
    pub(crate) fn open(&mut self, parent: SpanNo, name: String, t: u64) -> SpanNo {
        self.builder.open_span(Some(parent), name, t)
    }

    /// Open an `invoke_agent` span for `agent` under `parent`.
    pub(crate) fn open_agent(&mut self, parent: SpanNo, agent: &str, t: u64) -> SpanNo {
        self.builder.agent_span(parent, agent, t)
    }

    /// Set attribute `key` of span `no`.
    pub(crate) fn set(&mut self, no: SpanNo, key: &'static str, value: impl Into<AttrValue>) {
        self.builder.span(no).attrs.set(key, value);
    }

    /// Add event `name` at run time `t` to span `no`.
    pub(crate) fn event(&mut self, no: SpanNo, name: &'static str, t: u64, attrs: Attrs) {
        self.builder.event(no, name, t, attrs);
    }

    /// Whether model prompts and outputs go into the trace
    /// (`--otlp-content`).
    pub(crate) fn has_content(&self) -> bool {
        self.builder.content
    }

    /// What an agent or a member answered, `text`, as span `no`'s output
    /// at run time `t` (only with `--otlp-content`).
    pub(crate) fn answer(&mut self, no: SpanNo, t: u64, text: &str) {
        if self.builder.content {
            self.builder
                .content_event(no, t, n::OUTPUT_MESSAGES, "assistant", text);
        }
    }

    /// Span `no` failed with `reason`.
    pub(crate) fn fail(&mut self, no: SpanNo, reason: &StopReason) {
        self.builder.fail(no, reason);
    }

    /// Span `no` failed as `error_type`, which its status says too.
    pub(crate) fn fail_as(&mut self, no: SpanNo, error_type: &str) {
        let span = self.builder.span(no);
        span.attrs.set(n::ERROR_TYPE, error_type);
        span.status = SpanStatus::Error(error_type.into());
    }

    /// End span `no` at run time `t`, its open descendants first.
    pub(crate) fn end(&mut self, no: SpanNo, t: u64) {
        self.builder.end(no, t);
    }

    /// End span `no`, whose model answer was refused with `reason`; the
    /// answer as it came (`raw`) is its content.
    pub(crate) fn end_rejected(&mut self, no: SpanNo, reason: &StopReason, raw: &Value, t: u64) {
        self.fail(no, reason);
        if self.builder.content {
            self.answer(no, t, &raw.to_string());
        }
        self.end(no, t);
    }

    /// Span `no`'s own work ended at run time `t`, but it waits for the
    /// work it asked for: it ends with the last of its children, whenever
    /// it is closed.
    pub(crate) fn end_after_children(&mut self, no: SpanNo, t: u64) {
        self.builder.span(no).done_at = Some(t);
    }

    /// Whether `ancestor` is `no` or one of its open parents.
    pub(crate) fn encloses(&self, ancestor: SpanNo, no: SpanNo) -> bool {
        self.builder.encloses(ancestor, no)
    }

    /// Whether a span under `no` is still open.
    pub(crate) fn has_open_children(&self, no: SpanNo) -> bool {
        self.builder.open.values().any(|s| s.parent == Some(no))
    }

    /// Task `task` ended with `status` (its wire name): the latest call of
    /// `worker` for it takes the status and ends at its last attempt's end.
    pub(crate) fn end_task_call(&mut self, task: &str, worker: &str, status: &str, t: u64) {
        self.builder.tool_task_finished(task, worker, status, t);
    }
}

impl TraceBuilder {
    /// An `invoke_agent` span for `agent` under `parent`.
    fn agent_span(&mut self, parent: SpanNo, agent: &str, t: u64) -> SpanNo {
        let no = self.open_span(Some(parent), format!("{} {agent}", n::OP_INVOKE_AGENT), t);
        let attrs = &mut self.span(no).attrs;
        attrs.set(n::OPERATION_NAME, n::OP_INVOKE_AGENT);
        attrs.set(n::AGENT_NAME, agent);
        no
    }

    /// Span `no` failed with `reason`.
    fn fail(&mut self, no: SpanNo, reason: &StopReason) {
        let span = self.span(no);
        span.attrs.set(n::ERROR_TYPE, error_type(reason));
        span.status = SpanStatus::Error(reason.to_string());
    }
}
