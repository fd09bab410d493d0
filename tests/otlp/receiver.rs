//! A loopback OTLP/HTTP collector for tests: a real HTTP server on
//! 127.0.0.1 that takes `POST /v1/traces` in protobuf or JSON, answers as
//! a collector does, and decodes what it got with the OpenTelemetry
//! protocol's own types.

use crate::common::loopback::{Body, Captured, Loopback, Reply};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use prost::Message;
use std::collections::BTreeMap;

pub struct Collector {
    server: Loopback,
}

/// A span as received, its values rendered as text.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Got {
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root.
    pub parent: String,
    pub name: String,
    pub start_ns: u64,
    pub end_ns: u64,
    pub attrs: BTreeMap<String, String>,
    pub events: Vec<(String, u64, BTreeMap<String, String>)>,
    /// 0 unset, 1 ok, 2 error.
    pub status: i32,
    pub service: String,
    /// The spans it links to: their trace and span ids.
    pub links: Vec<(String, String)>,
}

impl Got {
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.get(key).map(String::as_str)
    }
}

impl Collector {
    pub fn start() -> Self {
        let server = Loopback::serve(|request: &Captured, _| {
            if request.header("content-type").as_deref() == Some("application/json") {
                Reply::text(200, "{}").header("content-type", "application/json")
            } else {
                Reply::new(200, Body::Bytes(Vec::new()))
                    .header("content-type", "application/x-protobuf")
            }
        });
        Collector { server }
    }

    /// The collector's base URL, as `--otlp` takes it.
    pub fn url(&self) -> String {
        self.server.base_url.trim_end_matches("/v1").to_string()
    }

    pub fn requests(&self) -> Vec<Captured> {
        self.server.requests()
    }

    /// Every span received so far, in the order received.
    pub fn spans(&self) -> Vec<Got> {
        self.requests().iter().flat_map(decode).collect()
    }
}

/// The spans of one export request, decoded as its content type says.
pub fn decode(request: &Captured) -> Vec<Got> {
    assert!(
        request.head.starts_with("POST /v1/traces "),
        "{}",
        request.head
    );
    let message: ExportTraceServiceRequest = match request.header("content-type").as_deref() {
        Some("application/json") => {
            serde_json::from_slice(&request.body).unwrap_or_else(|e| panic!("OTLP JSON: {e}"))
        }
        Some("application/x-protobuf") => {
            ExportTraceServiceRequest::decode(&request.body[..]).expect("OTLP protobuf")
        }
        other => panic!("unexpected content type {other:?}"),
    };
    let mut spans = Vec::new();
    for resource in message.resource_spans {
        let service = resource
            .resource
            .as_ref()
            .and_then(|r| {
                r.attributes
                    .iter()
                    .find(|kv| kv.key == "service.name")
                    .map(|kv| render(kv.value.as_ref()))
            })
            .unwrap_or_default();
        for scope in resource.scope_spans {
            for span in scope.spans {
                spans.push(Got {
                    trace_id: hex(&span.trace_id),
                    span_id: hex(&span.span_id),
                    parent: hex(&span.parent_span_id),
                    name: span.name,
                    start_ns: span.start_time_unix_nano,
                    end_ns: span.end_time_unix_nano,
                    attrs: attrs(&span.attributes),
                    events: span
                        .events
                        .iter()
                        .map(|e| (e.name.clone(), e.time_unix_nano, attrs(&e.attributes)))
                        .collect(),
                    status: span.status.map_or(0, |s| s.code),
                    service: service.clone(),
                    links: span
                        .links
                        .iter()
                        .map(|l| (hex(&l.trace_id), hex(&l.span_id)))
                        .collect(),
                });
            }
        }
    }
    spans
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attrs(kvs: &[KeyValue]) -> BTreeMap<String, String> {
    kvs.iter()
        .map(|kv| (kv.key.clone(), render(kv.value.as_ref())))
        .collect()
}

fn render(value: Option<&AnyValue>) -> String {
    match value.and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(any_value::Value::IntValue(i)) => i.to_string(),
        Some(any_value::Value::DoubleValue(x)) => x.to_string(),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        Some(any_value::Value::ArrayValue(items)) => format!(
            "[{}]",
            items
                .values
                .iter()
                .map(|v| render(Some(v)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        other => format!("{other:?}"),
    }
}

/// The spans as a shape that ignores ids: each span's name, its parents'
/// names up to the root, times, attributes, events and status, sorted.
pub fn shape(spans: &[Got]) -> Vec<(Vec<String>, Got)> {
    let by_id: BTreeMap<&str, &Got> = spans.iter().map(|s| (s.span_id.as_str(), s)).collect();
    let mut shaped: Vec<(Vec<String>, Got)> = spans
        .iter()
        .map(|span| {
            let mut path = Vec::new();
            let mut at = span;
            while let Some(parent) = by_id.get(at.parent.as_str()) {
                path.push(parent.name.clone());
                at = parent;
            }
            let mut plain = span.clone();
            plain.trace_id.clear();
            plain.span_id.clear();
            plain.parent.clear();
            (path, plain)
        })
        .collect();
    shaped.sort();
    shaped
}
