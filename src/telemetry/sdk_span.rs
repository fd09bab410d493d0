//! A run's spans as the OpenTelemetry SDK exports them: ids kept per
//! trace, every text scrubbed of secrets on its way out.

use super::ids;
use super::span::{AttrValue, FinishedSpan, SpanNo, SpanStatus};
use super::trace::{ROOT, TraceBuilder};
use crate::bus::{Event, EventKind};
use opentelemetry::trace::{
    Link, SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState,
};
use opentelemetry::{InstrumentationScope, KeyValue, Value};
use opentelemetry_sdk::trace::{IdGenerator, RandomIdGenerator, SpanData, SpanEvents, SpanLinks};
use std::borrow::Cow;
use std::time::{Duration, UNIX_EPOCH};

/// One run's trace: its builder, the id its spans go out with (see
/// [`super::ids`]) and, for a fork, its parent's root span.
pub(super) struct Trace {
    pub(super) builder: TraceBuilder,
    pub(super) trace_id: TraceId,
    pub(super) parent: Option<SpanContext>,
    /// Why a fork's trace has no link to its parent's, until said.
    pub(super) unlinked: Option<String>,
}

impl Trace {
    /// The trace of the run whose first event is `first`: named by the
    /// run's start, linked to its parent's when it is a fork.
    pub(super) fn of(builder: TraceBuilder, first: &Event) -> Trace {
        let (trace_id, parent) = match &first.kind {
            EventKind::RunStarted(started) => (
                ids::trace_id(first.run, started),
                started.forked_from.as_ref().map(ids::parent_root),
            ),
            // No start, no spans (see `TraceBuilder::apply`).
            _ => (RandomIdGenerator::default().new_trace_id(), None),
        };
        let (parent, unlinked) = match parent {
            Some(Ok(parent)) => (Some(parent), None),
            Some(Err(why)) => (None, Some(why)),
            None => (None, None),
        };
        Trace {
            builder,
            trace_id,
            parent,
            unlinked,
        }
    }
}

/// A finished span as the SDK exports it, every text scrubbed.
pub(super) fn span_data(
    trace: &mut Trace,
    span: &FinishedSpan,
    scope: &InstrumentationScope,
) -> SpanData {
    let id_of = |no: SpanNo| ids::span_id(trace.trace_id, no);
    let span_id = id_of(span.no);
    let parent_span_id = span.parent.map_or(SpanId::INVALID, id_of);
    let mut links = SpanLinks::default();
    if span.no == ROOT
        && let Some(parent) = &trace.parent
    {
        links.links.push(Link::with_context(parent.clone()));
    }
    let mut events = SpanEvents::default();
    for event in &span.events {
        events.events.push(opentelemetry::trace::Event::new(
            event.name,
            at(event.at_ns),
            attributes(&event.attrs.0),
            0,
        ));
    }
    SpanData {
        span_context: SpanContext::new(
            trace.trace_id,
            span_id,
            TraceFlags::SAMPLED,
            false,
            TraceState::default(),
        ),
        parent_span_id,
        parent_span_is_remote: false,
        span_kind: if span.name.starts_with(super::names::OP_CHAT) {
            SpanKind::Client
        } else {
            SpanKind::Internal
        },
        name: Cow::Owned(crate::secrets::scrub(&span.name).into_owned()),
        start_time: at(span.start_ns),
        end_time: at(span.end_ns),
        attributes: attributes(&span.attrs.0),
        dropped_attributes_count: 0,
        events,
        links,
        status: match &span.status {
            SpanStatus::Unset => Status::Unset,
            SpanStatus::Error(words) => Status::error(crate::secrets::scrub(words).into_owned()),
        },
        instrumentation_scope: scope.clone(),
    }
}

fn at(ns: u64) -> std::time::SystemTime {
    UNIX_EPOCH + Duration::from_nanos(ns)
}

fn attributes(attrs: &[(&'static str, AttrValue)]) -> Vec<KeyValue> {
    attrs
        .iter()
        .map(|(key, value)| {
            let text = |s: &str| crate::secrets::scrub(s).into_owned();
            let value = match value {
                AttrValue::Str(s) => Value::from(text(s)),
                AttrValue::Int(i) => Value::I64(*i),
                AttrValue::Float(x) => Value::F64(*x),
                AttrValue::Bool(b) => Value::Bool(*b),
                AttrValue::List(items) => Value::Array(opentelemetry::Array::String(
                    items.iter().map(|s| text(s).into()).collect(),
                )),
            };
            KeyValue::new(*key, value)
        })
        .collect()
}
