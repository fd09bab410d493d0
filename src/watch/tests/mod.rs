//! The watch's reader, assembly and end-to-end path: table rows per
//! vocabulary, sums that ignore aggregates, settle on a paused clock, and
//! real bodies posted to the real receiver on loopback coming out as the
//! headless line and a recording.

mod arrivals;
mod ending;
mod paying;
mod reading_js;
mod turns;

use super::consume::{Watch, WatchFeed, WatchOptions};
use super::forest::Forest;
use super::read::read;
use super::receive::{Batch, ReceiveConfig};
use super::runs::Limits;
use super::start::{WatchSettings, line, start};
use super::summary::{CostFrom, summarise};
use super::vocab::Kind;
use crate::span::{Span, Value};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans};
use std::time::Duration;

type Proto = opentelemetry_proto::tonic::trace::v1::Span;

/// A span of trace 7 with `attrs` (string values, or numbers when they parse).
pub(super) fn proto(id: u64, parent: Option<u64>, name: &str, attrs: &[(&str, &str)]) -> Proto {
    proto_of(7, id, parent, name, attrs)
}

/// [`proto`], of trace `trace`.
pub(crate) fn proto_of(
    trace: u128,
    id: u64,
    parent: Option<u64>,
    name: &str,
    attrs: &[(&str, &str)],
) -> Proto {
    Proto {
        trace_id: trace.to_be_bytes().to_vec(),
        span_id: id.to_be_bytes().to_vec(),
        parent_span_id: parent.map(|p| p.to_be_bytes().to_vec()).unwrap_or_default(),
        name: name.into(),
        start_time_unix_nano: 1_000_000_000 + id * 10_000_000,
        end_time_unix_nano: 1_000_000_000 + id * 10_000_000 + 5_000_000,
        attributes: attrs
            .iter()
            .map(|(k, v)| {
                let value = match v.parse::<i64>() {
                    Ok(n) => any_value::Value::IntValue(n),
                    Err(_) => any_value::Value::StringValue((*v).into()),
                };
                kv_value(k, value)
            })
            .collect(),
        ..Proto::default()
    }
}

/// `spans` in one request of service `shop`, instrumentation scope `scope`.
pub(crate) fn request(scope: &str, spans: Vec<Proto>) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![kv("service.name", "shop")],
                ..Resource::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: scope.into(),
                    ..InstrumentationScope::default()
                }),
                spans,
                ..ScopeSpans::default()
            }],
            ..ResourceSpans::default()
        }],
    }
}

pub(super) fn own(p: Proto) -> Span {
    crate::span::spans_of(&request("s", vec![p])).remove(0)
}

/// Span name, attributes, the kind read, the agent and the tool named.
type Case = (
    &'static str,
    &'static [(&'static str, &'static str)],
    Kind,
    Option<&'static str>,
    Option<&'static str>,
);

const CASES: &[Case] = &[
    (
        "invoke_agent triage",
        &[
            ("gen_ai.operation.name", "invoke_agent"),
            ("gen_ai.agent.name", "triage"),
        ],
        Kind::Agent,
        Some("triage"),
        None,
    ),
    (
        "invoke_agent billing",
        &[("gen_ai.operation.name", "invoke_agent")],
        Kind::Agent,
        Some("billing"),
        None,
    ),
    (
        "x",
        &[
            ("openinference.span.kind", "AGENT"),
            ("agent.name", "writer"),
        ],
        Kind::Agent,
        Some("writer"),
        None,
    ),
    (
        "lookup",
        &[("openinference.span.kind", "TOOL"), ("tool.name", "lookup")],
        Kind::Tool,
        None,
        Some("lookup"),
    ),
    (
        "execute_tool search",
        &[("gen_ai.operation.name", "execute_tool")],
        Kind::Tool,
        None,
        Some("search"),
    ),
    (
        "handoff to billing",
        &[("openinference.span.kind", "TOOL")],
        Kind::Handoff,
        None,
        None,
    ),
    (
        "agent_handoff",
        &[
            ("gen_ai.handoff.from_agent", "a"),
            ("gen_ai.handoff.to_agent", "b"),
        ],
        Kind::Handoff,
        None,
        None,
    ),
    (
        "route",
        &[
            ("traceloop.span.kind", "tool"),
            ("traceloop.entity.name", "calc"),
        ],
        Kind::Tool,
        None,
        Some("calc"),
    ),
    (
        "crew",
        &[
            ("traceloop.span.kind", "agent"),
            ("traceloop.entity.name", "planner"),
        ],
        Kind::Agent,
        Some("planner"),
        None,
    ),
    (
        "ChatOpenAI",
        &[
            ("openinference.span.kind", "LLM"),
            ("llm.model_name", "gpt-4o"),
        ],
        Kind::Model,
        None,
        None,
    ),
    (
        "supervisor",
        &[("openinference.span.kind", "CHAIN")],
        Kind::Chain,
        None,
        None,
    ),
    (
        "GET /",
        &[("http.method", "GET")],
        Kind::Generic,
        None,
        None,
    ),
];

#[test]
fn each_vocabulary_gives_the_kind_and_names_it_should() {
    for (name, attrs, kind, agent, tool) in CASES {
        let r = read(&own(proto(1, None, name, attrs)));
        assert_eq!(r.kind(), *kind, "{name}");
        assert_eq!(r.agent.as_deref(), *agent, "{name}");
        if tool.is_some() {
            assert_eq!(r.tool.as_deref(), *tool, "{name}");
        }
    }
    let handoff = read(&own(proto(1, None, "handoff to billing", &[])));
    assert_eq!(handoff.handoff_to.as_deref(), Some("billing"));
    let meta = read(&own(proto(
        1,
        None,
        "n",
        &[(
            "metadata",
            r#"{"langgraph_node":"researcher","langgraph_step":3}"#,
        )],
    )));
    assert_eq!(
        (meta.langgraph_node.as_deref(), meta.langgraph_step),
        (Some("researcher"), Some(3))
    );
}

#[test]
fn tokens_are_summed_over_model_calls_and_aggregates_are_never_counted() {
    let mut forest = Forest::new(100);
    let spans = [
        proto(
            1,
            None,
            "invoke_agent boss",
            &[
                ("gen_ai.operation.name", "invoke_agent"),
                ("gen_ai.agent.name", "boss"),
                ("gen_ai.aggregated_usage.input_tokens", "999"),
                ("llm.token_count.total", "5000"),
            ],
        ),
        proto(
            2,
            Some(1),
            "chat gpt-4o",
            &[
                ("gen_ai.operation.name", "chat"),
                ("gen_ai.request.model", "gpt-4o"),
                ("gen_ai.usage.input_tokens", "1000"),
                ("gen_ai.usage.output_tokens", "100"),
            ],
        ),
        proto(
            3,
            Some(1),
            "execute_tool delegate",
            &[
                ("gen_ai.operation.name", "execute_tool"),
                ("gen_ai.tool.name", "delegate"),
            ],
        ),
        proto(
            4,
            Some(3),
            "invoke_agent helper",
            &[
                ("gen_ai.operation.name", "invoke_agent"),
                ("gen_ai.agent.name", "helper"),
            ],
        ),
        proto(
            5,
            Some(4),
            "chat",
            &[
                ("openinference.span.kind", "LLM"),
                ("llm.model_name", "mystery"),
                ("llm.token_count.prompt", "10"),
                ("llm.token_count.completion", "5"),
                ("llm.cost.total", "0.5"),
            ],
        ),
        proto(
            6,
            Some(4),
            "execute_tool lookup",
            &[
                ("gen_ai.operation.name", "execute_tool"),
                ("gen_ai.tool.name", "lookup"),
            ],
        ),
    ];
    // Children first, as real exporters send them.
    for p in spans.into_iter().rev() {
        forest.insert(own(p));
    }
    let s = summarise(7, &forest, None);
    assert_eq!(s.agents, ["boss", "helper"]);
    assert_eq!(
        (s.model_calls, s.input_tokens, s.output_tokens),
        (2, 1010, 105)
    );
    // gpt-4o from the price table (2.50/10.00 per million) plus 0.5 from the span.
    assert_eq!(s.cost_usd, Some(0.5 + 0.0025 + 0.001));
    assert_eq!(s.cost_from, Some(CostFrom::Mixed));
    let tools: Vec<(Option<&str>, &str)> = s
        .tool_calls
        .iter()
        .map(|t| (t.agent.as_deref(), t.tool.as_str()))
        .collect();
    assert_eq!(
        tools,
        [(Some("boss"), "delegate"), (Some("helper"), "lookup")]
    );
}

#[test]
fn handoffs_read_from_spans_events_and_the_next_agent() {
    let mut forest = Forest::new(100);
    let mut team = proto(
        1,
        None,
        "invoke_workflow",
        &[("gen_ai.operation.name", "invoke_workflow")],
    );
    team.events
        .push(opentelemetry_proto::tonic::trace::v1::span::Event {
            time_unix_nano: 1_500_000_000,
            name: "conclave.handoff".into(),
            attributes: vec![kv("conclave.from", "c"), kv("conclave.to", "d")],
            ..Default::default()
        });
    for p in [
        team,
        proto(2, Some(1), "a", &[("openinference.span.kind", "AGENT")]),
        proto(
            3,
            Some(2),
            "handoff to b",
            &[("openinference.span.kind", "TOOL")],
        ),
        proto(4, Some(1), "b", &[("openinference.span.kind", "AGENT")]),
        proto(
            5,
            Some(4),
            "transfer",
            &[
                ("traceloop.span.kind", "tool"),
                ("gen_ai.handoff.from_agent", "b"),
            ],
        ),
        proto(6, Some(1), "c", &[("openinference.span.kind", "AGENT")]),
    ] {
        forest.insert(own(p));
    }
    let s = summarise(7, &forest, None);
    let pairs: Vec<(&str, &str)> = s
        .handoffs
        .iter()
        .map(|h| (h.from.as_str(), h.to.as_str()))
        .collect();
    assert_eq!(pairs, [("a", "b"), ("b", "c"), ("c", "d")]);
    assert!(
        s.tool_calls.is_empty(),
        "a handoff is no tool call: {:?}",
        s.tool_calls
    );
}

fn kv(k: &str, v: &str) -> KeyValue {
    kv_value(k, any_value::Value::StringValue(v.into()))
}

fn kv_value(k: &str, value: any_value::Value) -> KeyValue {
    KeyValue {
        key: k.into(),
        value: Some(AnyValue { value: Some(value) }),
        ..KeyValue::default()
    }
}

fn batch(spans: Vec<Proto>) -> Batch {
    Batch {
        request: request("openinference.instrumentation.openai_agents", spans),
        received: tokio::time::Instant::now(),
        bytes: 0,
    }
}

#[tokio::test(start_paused = true)]
async fn a_run_appears_at_its_first_span_and_finishes_only_after_the_settle_time() {
    let mut watch = Watch::new(WatchOptions {
        limits: Limits {
            settle: Duration::from_millis(2000),
            ..Limits::default()
        },
        ..WatchOptions::default()
    });
    let feed = watch.take(&batch(vec![proto(
        3,
        Some(2),
        "lookup",
        &[("openinference.span.kind", "TOOL")],
    )]));
    assert!(matches!(feed[0], WatchFeed::Opened(7)));
    assert_eq!(feed.len(), 1, "told nothing without a viewer: {feed:?}");
    assert!(
        watch.runs.get(7).unwrap().arrivals.is_empty(),
        "a watch that records nothing keeps no arrivals"
    );
    assert_eq!(watch.runs.get(7).unwrap().readings.len(), 1);
    assert_eq!(watch.runs.placeholders(7), vec![2]);
    tokio::time::advance(Duration::from_secs(10)).await;
    assert!(
        watch.settle(tokio::time::Instant::now()).is_empty(),
        "no root yet"
    );
    watch.take(&batch(vec![
        proto(
            2,
            Some(1),
            "helper",
            &[("openinference.span.kind", "AGENT")],
        ),
        proto(1, None, "Agent workflow", &[]),
    ]));
    tokio::time::advance(Duration::from_millis(1999)).await;
    assert!(
        watch.settle(tokio::time::Instant::now()).is_empty(),
        "still settling"
    );
    tokio::time::advance(Duration::from_millis(1)).await;
    let done = watch.settle(tokio::time::Instant::now());
    let [WatchFeed::Finished(summary)] = done.as_slice() else {
        panic!("{done:?}")
    };
    assert_eq!(summary.agents, ["helper"]);
    assert_eq!(summary.framework.as_deref(), Some("openai-agents"));
    assert_eq!(summary.spans, 3);
    // Each span was read once, as it came; the finished run keeps its
    // spans and lets its readings go.
    let run = watch.runs.get(7).unwrap();
    assert_eq!((run.forest.len(), run.readings.len()), (3, 0));
}

#[tokio::test(start_paused = true)]
async fn hostile_shapes_are_held_within_the_limits() {
    let mut watch = Watch::new(WatchOptions {
        limits: Limits {
            max_runs: 2,
            max_spans: 50,
            settle: Duration::from_millis(10),
            ..Limits::default()
        },
        ..WatchOptions::default()
    });
    let mut chain: Vec<Proto> = (1..=100_000u64)
        .map(|i| proto(i, Some(i + 1), "s", &[]))
        .collect();
    chain.push(proto(200_000, Some(200_000), "self", &[]));
    let mut future = proto(300_000, None, "future", &[]);
    future.start_time_unix_nano = u64::MAX;
    future.end_time_unix_nano = 1;
    chain.push(future);
    watch.take(&batch(chain));
    let run = watch.runs.get(7).unwrap();
    assert_eq!(run.forest.len(), 50);
    assert_eq!(run.forest.dropped, 100_002 - 50);
    // Two more traces, two runs held at most: the third finishes the
    // oldest run whose root came ahead of its settle time, and is held.
    watch.take(&in_trace(8, vec![proto(1, None, "r", &[])]));
    let told = watch.take(&in_trace(9, vec![proto(1, None, "r", &[])]));
    let WatchFeed::Finished(summary) = &told[0] else {
        panic!("the oldest run finishes first: {told:?}");
    };
    assert_eq!(summary.trace_id, format!("{:032x}", 7));
    assert!(watch.runs.get(7).is_none() && watch.runs.get(9).is_some());
    assert_eq!(watch.runs.dropped_spans, 0);
}

/// `spans` in a batch of trace `trace`.
fn in_trace(trace: u128, spans: Vec<Proto>) -> Batch {
    let mut b = batch(spans);
    for span in &mut b.request.resource_spans[0].scope_spans[0].spans {
        span.trace_id = trace.to_be_bytes().to_vec();
    }
    b
}

#[tokio::test]
async fn bodies_posted_to_the_receiver_come_out_as_the_headless_line_and_a_recording() {
    let dir = tempfile::tempdir().unwrap();
    let mut started = start(WatchSettings {
        gateway: None,
        receive: ReceiveConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            grpc: None,
            ..ReceiveConfig::default()
        },
        options: WatchOptions {
            limits: Limits {
                settle: Duration::from_millis(50),
                ..Limits::default()
            },
            record_dir: Some(dir.path().to_path_buf()),
            runs: Some(1),
            ..WatchOptions::default()
        },
    })
    .await
    .unwrap();
    let url = format!("http://{}/v1/traces", started.receiving.http_addr());
    crate::provider::http::install_crypto();
    let client = reqwest::Client::new();
    let bodies = [
        vec![proto(
            3,
            Some(2),
            "execute_tool lookup",
            &[
                ("gen_ai.operation.name", "execute_tool"),
                ("gen_ai.tool.name", "lookup"),
            ],
        )],
        vec![
            proto(
                2,
                Some(1),
                "invoke_agent \u{1b}]52;c;evil\u{7}triage",
                &[("gen_ai.operation.name", "invoke_agent")],
            ),
            proto(1, None, "root", &[]),
        ],
    ];
    for spans in bodies {
        let body = prost::Message::encode_to_vec(&request("x", spans));
        let answer = client
            .post(&url)
            .header("content-type", "application/x-protobuf")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
    }
    let summary = loop {
        match started.feed.recv().await.expect("the watch runs") {
            WatchFeed::Finished(summary) => break summary,
            _ => continue,
        }
    };
    let printed: serde_json::Value = serde_json::from_str(&line(&summary)).unwrap();
    assert_eq!(printed["agents"], serde_json::json!(["triage"]));
    assert_eq!(printed["tool_calls"][0]["tool"], "lookup");
    assert_eq!(printed["tool_calls"][0]["agent"], "triage");
    assert_eq!(printed["cost_usd"], serde_json::Value::Null);
    let path = std::path::PathBuf::from(printed["recording"].as_str().unwrap());
    let back = super::record::read(&path).unwrap();
    assert_eq!(back.spans.len(), 3);
    assert_eq!(back.spans[0].1.name, "execute_tool lookup");
    // Replay rebuilds the same run from the recorded spans alone.
    let rebuilt = super::replay::rebuild(&path).unwrap();
    assert_eq!(
        (&rebuilt.agents, &rebuilt.tool_calls),
        (&summary.agents, &summary.tool_calls)
    );
    assert_eq!(super::replay::first_divergence(&rebuilt, &summary), None);
    let mut other = (*summary).clone();
    other.tool_calls[0].status = "error";
    let first = super::replay::first_divergence(&rebuilt, &other).unwrap();
    assert_eq!(
        (first["in"].as_str(), first["index"].as_u64()),
        (Some("tool_calls"), Some(0))
    );
}

#[test]
fn values_keep_their_type_and_long_text_is_cut() {
    let long = "é".repeat(10_000);
    let s = own(proto(1, None, &long, &[("a", "12"), ("b", "text")]));
    assert_eq!(s.name.chars().count(), crate::span::MAX_VALUE_CHARS + 1);
    assert!(s.name.ends_with('…'));
    assert_eq!(s.attr("a"), Some(&Value::Int(12)));
    let json = serde_json::to_string(&s).unwrap();
    let back: Span = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
}
