//! `conclave watch`'s dashboard through the real binary in a
//! pseudo-terminal, fed over loopback HTTP as a framework's exporter
//! feeds it: one run's spans in three requests, children first and the
//! root last. The run's tab appears at its first span, live, with a
//! placeholder for the parent not yet arrived; the root fills it; the
//! tab reads finished once the run settled.

use crate::common;

use common::pty::Session;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;

const TRACE: u128 = 0x5eed_0000_0000_0000_0000_0000_0000_0057;

pub fn text(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.into())),
        }),
        ..Default::default()
    }
}

fn span(id: u64, parent: Option<u64>, name: &str, ms: (u64, u64), attrs: Vec<KeyValue>) -> Span {
    span_of(TRACE, id, parent, name, ms, attrs)
}

/// Span `id` of trace `trace`, from `ms.0` to `ms.1` after a fixed start.
pub fn span_of(
    trace: u128,
    id: u64,
    parent: Option<u64>,
    name: &str,
    ms: (u64, u64),
    attrs: Vec<KeyValue>,
) -> Span {
    let base = 1_700_000_000_000_000_000u64;
    Span {
        trace_id: trace.to_be_bytes().to_vec(),
        span_id: id.to_be_bytes().to_vec(),
        parent_span_id: parent.map(|p| p.to_be_bytes().to_vec()).unwrap_or_default(),
        name: name.into(),
        start_time_unix_nano: base + ms.0 * 1_000_000,
        end_time_unix_nano: base + ms.1 * 1_000_000,
        attributes: attrs,
        ..Default::default()
    }
}

fn body(spans: Vec<Span>) -> Vec<u8> {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![text("service.name", "support-bot")],
                ..Default::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: "opentelemetry.instrumentation.openai_agents".into(),
                    ..Default::default()
                }),
                spans,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
    .encode_to_vec()
}

/// POST `spans` to the watch as one OTLP/HTTP protobuf request, over a
/// plain loopback connection (HTTP/1.1, the connection closed after).
pub fn post(port: u16, spans: Vec<Span>) {
    use std::io::{Read, Write};
    let body = body(spans);
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("the watch listens");
    let head = format!(
        "POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/x-protobuf\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(&body).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn a_watched_run_is_drawn_before_its_root_arrives_and_finished_after_it_settles() {
    let home = tempfile::tempdir().unwrap();
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let mut session = Session::start(
        &[
            "watch",
            "--listen",
            &listen,
            "--no-grpc",
            "--settle-ms",
            "500",
        ],
        home.path(),
    );
    session.wait_text("Waiting for the first span");
    let agent = |name: &str| {
        vec![
            text("gen_ai.operation.name", "invoke_agent"),
            text("gen_ai.agent.name", name),
        ]
    };
    let tool = vec![
        text("gen_ai.operation.name", "execute_tool"),
        text("gen_ai.tool.name", "lookup_invoice"),
    ];
    post(
        port,
        vec![span(
            3,
            Some(2),
            "execute_tool lookup_invoice",
            (5, 30),
            tool,
        )],
    );
    // A run of the dashboard's own, live, named by its service until its
    // top span arrives.
    session.wait_text("1 ▶ watch_support_bot");
    session.wait_text("RUNNING");
    session.wait_text("watched · openai-agents · support-bot");
    session.wait_text("parent 0000000000000002 not arrived yet");
    post(
        port,
        vec![span(
            2,
            Some(1),
            "invoke_agent triage",
            (2, 33),
            agent("triage"),
        )],
    );
    session.wait_text("parent 0000000000000001 not arrived yet");
    // Its agent known, the tool call is told as the agent's.
    session.wait_text("triage called lookup_invoice");
    post(
        port,
        vec![span(1, None, "support workflow", (0, 40), Vec::new())],
    );
    session.wait_text("1 ▶ watch_support_bot · support workflow · live");
    session.wait_text("1 ✓ watch_support_bot · support workflow");
    session.wait_text("FINISHED");
    assert!(
        !session.text().contains("not arrived yet"),
        "{}",
        session.text()
    );
    session.press("q");
    assert!(session.wait_exit().success());
}
