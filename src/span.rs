//! The compact owned [`Span`] the watch keeps of each received span: ids
//! as numbers, times in nanoseconds since the Unix epoch, attributes as
//! plain values. Made once from the OTLP message types, it is all the
//! reader, the recording and the panes see of a span, and what a
//! `span_arrived` event carries (so it sits below both the watch and the
//! bus, and imports neither). Every string value
//! is cut at [`MAX_VALUE_CHARS`] characters (a cut value ends in `…`), a
//! span keeps at most [`MAX_ATTRS`] attributes and [`MAX_EVENTS`] events;
//! the text is kept raw here, and everything shown of it goes through
//! `crate::sanitize` first.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use serde::{Deserialize, Serialize};

/// The most characters of one string value (an attribute, a name, an
/// event's attribute) kept; the rest is cut and marked with `…`.
pub(crate) const MAX_VALUE_CHARS: usize = 4096;
/// The most attributes kept per span (the first ones sent).
pub(crate) const MAX_ATTRS: usize = 128;
/// The most events kept per span (the first ones sent).
pub(crate) const MAX_EVENTS: usize = 32;

/// A trace's id, as the 16 bytes read big-endian.
pub(crate) type TraceId = u128;
/// A span's id, as the 8 bytes read big-endian.
pub(crate) type SpanId = u64;

/// An attribute's value. Arrays and maps are kept as their JSON text.
/// Written as the plain JSON value it holds, and read back from one by
/// its JSON type (a whole number past `i64` is a float), without trying
/// each kind in turn.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub(crate) enum Value {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl serde::de::Visitor<'_> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a boolean, a number or a string")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Int(n))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(i64::try_from(n).map_or(Value::Float(n as f64), Value::Int))
    }

    fn visit_f64<E>(self, x: f64) -> Result<Value, E> {
        Ok(Value::Float(x))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::Str(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::Str(s))
    }
}

impl Value {
    /// The value as text (a number written as JSON writes it).
    pub(crate) fn text(&self) -> String {
        match self {
            Value::Str(s) => s.clone(),
            Value::Int(n) => n.to_string(),
            Value::Float(x) => x.to_string(),
            Value::Bool(b) => b.to_string(),
        }
    }

    /// The value as a count of tokens: a whole number, or text that is
    /// one; negative counts are none.
    pub(crate) fn count(&self) -> Option<u64> {
        match self {
            Value::Int(n) => u64::try_from(*n).ok(),
            Value::Float(x) if x.is_finite() && *x >= 0.0 => Some(*x as u64),
            Value::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// The value as dollars: a finite number not below zero.
    pub(crate) fn dollars(&self) -> Option<f64> {
        let x = match self {
            Value::Int(n) => *n as f64,
            Value::Float(x) => *x,
            Value::Str(s) => s.trim().parse().ok()?,
            Value::Bool(_) => return None,
        };
        (x.is_finite() && x >= 0.0).then_some(x)
    }
}

/// Something that happened within a span (an exception, a handoff).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SpanEvent {
    pub(crate) name: String,
    pub(crate) at_ns: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) attrs: Vec<(String, Value)>,
}

/// One received span, owned and cut to size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Span {
    #[serde(with = "hex_trace")]
    pub(crate) trace_id: TraceId,
    #[serde(with = "hex_span")]
    pub(crate) span_id: SpanId,
    /// The parent's id as sent; `None` for a root, and for a span whose
    /// parent is remote (the run's top in this process).
    #[serde(default, with = "hex_parent", skip_serializing_if = "Option::is_none")]
    pub(crate) parent: Option<SpanId>,
    /// The parent's id when OTLP's span flags say it is remote (another
    /// process's span, as a service that continues its caller's trace
    /// has): the span is the run's top, not a child waiting for it.
    #[serde(default, with = "hex_parent", skip_serializing_if = "Option::is_none")]
    pub(crate) remote_parent: Option<SpanId>,
    pub(crate) name: String,
    pub(crate) start_ns: u64,
    pub(crate) end_ns: u64,
    /// `Some(message)` when the span's status is ERROR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) attrs: Vec<(String, Value)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) events: Vec<SpanEvent>,
    /// The resource's `service.name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) service: Option<String>,
    /// The instrumentation scope's name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) scope: String,
    /// The resource's `telemetry.sdk.language` (`python`, `nodejs` …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) language: Option<String>,
}

impl Span {
    /// The attribute `key`, if the span carries it.
    pub(crate) fn attr(&self, key: &str) -> Option<&Value> {
        self.attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// How long the span took, in milliseconds (0 when its times are
    /// backwards).
    pub(crate) fn ms(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns) / 1_000_000
    }
}

/// OTLP's `SpanFlags`: bit 8 (`SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK`)
/// says whether the parent's remoteness is known, bit 9
/// (`SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK`) that it is remote; both set, the
/// parent lives in another process.
const PARENT_IS_REMOTE: u32 = 0x100 | 0x200;

/// Every span of `request`, in wire order. Spans with an id of the wrong
/// length (the receiver takes them out already) are skipped.
pub(crate) fn spans_of(request: &ExportTraceServiceRequest) -> Vec<Span> {
    let mut out = Vec::new();
    for resource in &request.resource_spans {
        let resource_attr = |key: &str| {
            resource.resource.as_ref().and_then(|r| {
                r.attributes
                    .iter()
                    .find(|kv| kv.key == key)
                    .and_then(|kv| kv.value.as_ref().map(|v| cut(&value_of(v).text())))
            })
        };
        let service = resource_attr("service.name");
        let language = resource_attr("telemetry.sdk.language");
        // A launched program's spans carry its run's id in their resource:
        // they join that run whatever trace they were made in (a LangGraph
        // run resumed after `interrupt()` is a new trace of the same run).
        let run_id = resource_attr(RUN_ID_ATTRIBUTE).and_then(|text| run_id_of(&text));
        for scope in &resource.scope_spans {
            let scope_name = scope
                .scope
                .as_ref()
                .map(|s| cut(&s.name))
                .unwrap_or_default();
            for span in &scope.spans {
                let (Some(trace_id), Some(span_id)) = (id16(&span.trace_id), id8(&span.span_id))
                else {
                    continue;
                };
                let error = span
                    .status
                    .as_ref()
                    .filter(|s| s.code == 2)
                    .map(|s| cut(&s.message));
                let parent = id8(&span.parent_span_id).filter(|p| *p != 0);
                let remote = span.flags & PARENT_IS_REMOTE == PARENT_IS_REMOTE;
                out.push(Span {
                    trace_id: run_id.unwrap_or(trace_id),
                    span_id,
                    parent: parent.filter(|_| !remote),
                    remote_parent: parent.filter(|_| remote),
                    name: cut(&span.name),
                    start_ns: span.start_time_unix_nano,
                    end_ns: span.end_time_unix_nano,
                    error,
                    attrs: attrs_of(&span.attributes),
                    events: span
                        .events
                        .iter()
                        .take(MAX_EVENTS)
                        .map(|e| SpanEvent {
                            name: cut(&e.name),
                            at_ns: e.time_unix_nano,
                            attrs: attrs_of(&e.attributes),
                        })
                        .collect(),
                    service: service.clone(),
                    scope: scope_name.clone(),
                    language: language.clone(),
                });
            }
        }
    }
    out
}

/// The resource attribute that names the Conclave run a launched
/// program's spans belong to (docs/launch.md).
pub(crate) const RUN_ID_ATTRIBUTE: &str = "conclave.run.id";

/// A run id as a launch names it: 32 hex digits, not all zero (a trace
/// id's form, so that the run is keyed as any watched run is).
pub(crate) fn run_id_of(text: &str) -> Option<TraceId> {
    if text.len() != 32 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u128::from_str_radix(text, 16).ok().filter(|id| *id != 0)
}

fn attrs_of(kvs: &[KeyValue]) -> Vec<(String, Value)> {
    kvs.iter()
        .take(MAX_ATTRS)
        .filter_map(|kv| Some((cut(&kv.key), value_of(kv.value.as_ref()?))))
        .collect()
}

fn value_of(value: &AnyValue) -> Value {
    match &value.value {
        Some(any_value::Value::StringValue(s)) => Value::Str(cut(s)),
        Some(any_value::Value::BoolValue(b)) => Value::Bool(*b),
        Some(any_value::Value::IntValue(n)) => Value::Int(*n),
        Some(any_value::Value::DoubleValue(x)) => Value::Float(*x),
        Some(any_value::Value::BytesValue(b)) => Value::Str(cut(&hex(b))),
        Some(any_value::Value::ArrayValue(list)) => {
            let items: Vec<serde_json::Value> =
                list.values.iter().map(|v| json_of(&value_of(v))).collect();
            Value::Str(cut(&serde_json::Value::Array(items).to_string()))
        }
        Some(any_value::Value::KvlistValue(map)) => {
            let items: serde_json::Map<String, serde_json::Value> = map
                .values
                .iter()
                .filter_map(|kv| Some((kv.key.clone(), json_of(&value_of(kv.value.as_ref()?)))))
                .collect();
            Value::Str(cut(&serde_json::Value::Object(items).to_string()))
        }
        // A string-table index (profiles' dictionary) or nothing: no text.
        Some(any_value::Value::StringValueStrindex(_)) | None => Value::Str(String::new()),
    }
}

fn json_of(value: &Value) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

/// `text` cut at [`MAX_VALUE_CHARS`] characters, marked with `…` when cut.
pub(crate) fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_VALUE_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

fn id16(bytes: &[u8]) -> Option<u128> {
    Some(u128::from_be_bytes(bytes.try_into().ok()?))
}

fn id8(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.try_into().ok()?))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A trace id as the 32 hex digits OTLP's JSON writes.
pub(crate) fn trace_hex(id: TraceId) -> String {
    format!("{id:032x}")
}

/// A span id as the 16 hex digits OTLP's JSON writes.
pub(crate) fn span_hex(id: SpanId) -> String {
    format!("{id:016x}")
}

mod hex_trace {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};
    pub(super) fn serialize<S: Serializer>(id: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::trace_hex(*id))
    }
    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let text = String::deserialize(d)?;
        u128::from_str_radix(&text, 16).map_err(D::Error::custom)
    }
}

mod hex_span {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};
    pub(super) fn serialize<S: Serializer>(id: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::span_hex(*id))
    }
    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let text = String::deserialize(d)?;
        u64::from_str_radix(&text, 16).map_err(D::Error::custom)
    }
}

mod hex_parent {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};
    pub(super) fn serialize<S: Serializer>(id: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        match id {
            Some(id) => s.serialize_str(&super::span_hex(*id)),
            None => s.serialize_none(),
        }
    }
    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        let text = Option::<String>::deserialize(d)?;
        text.map(|t| u64::from_str_radix(&t, 16).map_err(D::Error::custom))
            .transpose()
    }
}

#[cfg(test)]
mod value_tests {
    use super::Value;

    #[test]
    fn a_value_reads_back_as_it_was_written_and_refuses_what_no_value_is() {
        let values = [
            Value::Bool(true),
            Value::Int(-7),
            Value::Int(i64::MAX),
            Value::Float(0.25),
            Value::Str("12".into()),
            Value::Str(String::new()),
        ];
        for value in values {
            let text = serde_json::to_string(&value).unwrap();
            assert_eq!(
                serde_json::from_str::<Value>(&text).unwrap(),
                value,
                "{text}"
            );
        }
        // A whole number past i64 is a float, as JSON reads it.
        assert_eq!(
            serde_json::from_str::<Value>("18446744073709551615").unwrap(),
            Value::Float(18_446_744_073_709_551_615.0)
        );
        for none in ["null", "[1]", "{\"a\": 1}"] {
            assert!(serde_json::from_str::<Value>(none).is_err(), "{none}");
        }
    }
}

#[cfg(test)]
mod run_id_tests {
    use super::*;
    use opentelemetry_proto::tonic::resource::v1::Resource;
    use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span as OtlpSpan};

    fn resource_spans(trace: u8, run: Option<&str>) -> ResourceSpans {
        let attributes = run
            .map(|id| KeyValue {
                key: RUN_ID_ATTRIBUTE.into(),
                value: Some(AnyValue {
                    value: Some(any_value::Value::StringValue(id.into())),
                }),
                ..KeyValue::default()
            })
            .into_iter()
            .collect();
        ResourceSpans {
            resource: Some(Resource {
                attributes,
                ..Resource::default()
            }),
            scope_spans: vec![ScopeSpans {
                spans: vec![OtlpSpan {
                    trace_id: vec![trace; 16],
                    span_id: vec![trace; 8],
                    name: "s".into(),
                    ..OtlpSpan::default()
                }],
                ..ScopeSpans::default()
            }],
            ..ResourceSpans::default()
        }
    }

    #[test]
    fn spans_naming_a_run_join_it_whatever_their_trace_and_others_keep_theirs() {
        let run = "000000000000000000000000000000ab";
        let request = ExportTraceServiceRequest {
            resource_spans: vec![
                resource_spans(1, Some(run)),
                resource_spans(2, Some(run)),
                resource_spans(3, None),
                resource_spans(4, Some("not an id")),
            ],
        };
        let traces: Vec<TraceId> = spans_of(&request).iter().map(|s| s.trace_id).collect();
        let own = |b: u8| u128::from_be_bytes([b; 16]);
        assert_eq!(traces, [0xab, 0xab, own(3), own(4)]);
        assert_eq!(
            run_id_of(&"0".repeat(32)),
            None,
            "an id of zeros names no run"
        );
    }
}
