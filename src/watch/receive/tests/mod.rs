//! The receiver against real clients on loopback: reqwest for OTLP/HTTP,
//! tonic's generated client for OTLP/gRPC, and small hyper collectors as
//! forward targets (dead, slow, hanging).

mod forward;
mod grpc;
mod hostile;
mod http;
mod model_call;
mod model_call_reports;

use super::{Batch, ReceiveConfig, Receiving, serve_with_env};
use bytes::Bytes;
use flate2::Compression;
use flate2::write::GzEncoder;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use std::io::Write;
use std::net::SocketAddr;
use tokio::sync::mpsc;

pub(super) const PROTOBUF: &str = "application/x-protobuf";
pub(super) const JSON: &str = "application/json";
pub(super) const TOKEN_VAR: &str = "CONCLAVE_TEST_WATCH_TOKEN";
pub(super) const TOKEN: &str = "a-long-test-token-9f2c";

/// A configuration on free loopback ports.
pub(super) fn config() -> ReceiveConfig {
    ReceiveConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        grpc: Some("127.0.0.1:0".parse().unwrap()),
        ..ReceiveConfig::default()
    }
}

/// The receiver started on `config`, its queue holding `capacity`; the
/// token variable reads [`TOKEN`].
pub(super) async fn start(
    config: ReceiveConfig,
    capacity: usize,
) -> (Receiving, mpsc::Receiver<Batch>) {
    let (sink, batches) = mpsc::channel(capacity);
    let env = |name: &str| (name == TOKEN_VAR).then(|| TOKEN.to_string());
    let receiving = serve_with_env(config, sink, &env)
        .await
        .expect("the receiver starts");
    (receiving, batches)
}

/// A client that opens a connection per request (no idle connection for
/// a paused clock's jumps to time out).
pub(super) fn client() -> reqwest::Client {
    crate::provider::http::install_crypto();
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap()
}

pub(super) fn traces_url(addr: SocketAddr) -> String {
    format!("http://{addr}/v1/traces")
}

/// A span of trace `trace` (a byte repeated), id `id`, under `parent`.
pub(super) fn span(trace: u8, id: u8, parent: Option<u8>, name: &str) -> Span {
    Span {
        trace_id: vec![trace; 16],
        span_id: vec![id; 8],
        parent_span_id: parent.map(|p| vec![p; 8]).unwrap_or_default(),
        name: name.to_string(),
        start_time_unix_nano: 1_700_000_000_000_000_000,
        end_time_unix_nano: 1_700_000_001_000_000_000,
        attributes: vec![KeyValue {
            key: "gen_ai.operation.name".into(),
            value: Some(AnyValue {
                value: Some(any_value::Value::StringValue("chat".into())),
            }),
            ..KeyValue::default()
        }],
        ..Span::default()
    }
}

pub(super) fn request(spans: Vec<Span>) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            scope_spans: vec![ScopeSpans {
                spans,
                ..ScopeSpans::default()
            }],
            ..ResourceSpans::default()
        }],
    }
}

pub(super) fn protobuf(request: &ExportTraceServiceRequest) -> Vec<u8> {
    prost::Message::encode_to_vec(request)
}

pub(super) fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

/// POST `body` to the receiver with these headers.
pub(super) async fn post(
    addr: SocketAddr,
    content_type: &str,
    encoding: Option<&str>,
    token: Option<&str>,
    body: impl Into<reqwest::Body>,
) -> reqwest::Response {
    let mut request = client()
        .post(traces_url(addr))
        .header("content-type", content_type)
        .body(body);
    if let Some(encoding) = encoding {
        request = request.header("content-encoding", encoding);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.expect("the receiver answers")
}

/// The status and body of an answer.
pub(super) async fn answer(response: reqwest::Response) -> (u16, Bytes) {
    let status = response.status().as_u16();
    (status, response.bytes().await.unwrap())
}

/// The spans a batch holds.
pub(super) fn spans_of(batch: &Batch) -> Vec<&Span> {
    batch
        .request
        .resource_spans
        .iter()
        .flat_map(|r| &r.scope_spans)
        .flat_map(|s| &s.spans)
        .collect()
}
