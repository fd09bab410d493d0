//! The captured traces of real frameworks (`tests/fixtures/watch/`, each
//! set with its capture script and the facts the script made the
//! framework produce) sent to the real receiver over HTTP, as the
//! exporter sent them, and over gRPC, and read back as the headless line.

use super::consume::{WatchFeed, WatchOptions};
use super::receive::ReceiveConfig;
use super::runs::Limits;
use super::start::{WatchSettings, line, start};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_client::TraceServiceClient;
use serde_json::{Value, json};
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One captured request: its body as sent and how it was labelled.
pub(crate) struct Sent {
    body: Vec<u8>,
    content_type: String,
    encoding: Option<String>,
}

pub(crate) fn set_dir(set: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/watch")
        .join(set)
}

pub(crate) fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

pub(crate) fn requests(set: &str) -> Vec<Sent> {
    let dir = set_dir(set);
    let index = read_json(&dir.join("index.json"));
    let mut listed: Vec<&Value> = index["requests"].as_array().unwrap().iter().collect();
    listed.sort_by_key(|r| r["order"].as_u64());
    listed
        .into_iter()
        .map(|r| Sent {
            body: std::fs::read(dir.join(r["file"].as_str().unwrap())).unwrap(),
            content_type: r["content_type"].as_str().unwrap().to_string(),
            encoding: r["content_encoding"].as_str().map(str::to_string),
        })
        .collect()
}

/// The request a body holds, inflated first when it was sent gzipped.
pub(crate) fn decoded(sent: &Sent) -> ExportTraceServiceRequest {
    let body = match sent.encoding.as_deref() {
        Some("gzip") => {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(&sent.body[..])
                .read_to_end(&mut out)
                .unwrap();
            out
        }
        _ => sent.body.clone(),
    };
    prost::Message::decode(&body[..]).unwrap()
}

#[derive(Clone, Copy, PartialEq)]
enum Wire {
    Http,
    Grpc,
}

/// Every finished run's headless line, for the set sent over `wire`.
async fn watched(set: &str, wire: Wire, runs: u64) -> Vec<Value> {
    watched_requests(set, requests(set), wire, runs).await
}

/// Every finished run's headless line, for requests `sent` (of `set`)
/// sent over `wire`.
async fn watched_requests(set: &str, sent: Vec<Sent>, wire: Wire, runs: u64) -> Vec<Value> {
    let mut started = start(WatchSettings {
        gateway: None,
        receive: ReceiveConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            grpc: (wire == Wire::Grpc).then(|| "127.0.0.1:0".parse().unwrap()),
            ..ReceiveConfig::default()
        },
        options: WatchOptions {
            limits: Limits {
                settle: Duration::from_millis(100),
                ..Limits::default()
            },
            runs: Some(runs),
            ..WatchOptions::default()
        },
    })
    .await
    .unwrap();
    crate::provider::http::install_crypto();
    match wire {
        Wire::Http => {
            let url = format!("http://{}/v1/traces", started.receiving.http_addr());
            let client = reqwest::Client::new();
            for request in &sent {
                let mut post = client
                    .post(&url)
                    .header("content-type", &request.content_type)
                    .body(request.body.clone());
                if let Some(encoding) = &request.encoding {
                    post = post.header("content-encoding", encoding);
                }
                assert_eq!(post.send().await.unwrap().status(), 200, "{set}");
            }
        }
        Wire::Grpc => {
            let addr = started.receiving.grpc_addr().unwrap();
            let mut client = TraceServiceClient::connect(format!("http://{addr}"))
                .await
                .unwrap();
            for request in &sent {
                client.export(decoded(request)).await.unwrap();
            }
        }
    }
    let mut lines = Vec::new();
    while (lines.len() as u64) < runs {
        match started.feed.recv().await.expect("the watch runs") {
            WatchFeed::Finished(summary) => {
                lines.push(serde_json::from_str(&line(&summary)).unwrap());
            }
            _ => continue,
        }
    }
    lines
}

/// The facts the capture script wrote, against the headless line.
fn facts(line: &Value) -> Value {
    let tool_calls: Vec<Value> = line["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| json!({"agent": c["agent"], "tool": c["tool"], "status": c["status"]}))
        .collect();
    json!({
        "agents": line["agents"],
        "handoffs": line["handoffs"],
        "tool_calls": tool_calls,
        "model_calls": line["model_calls"],
        "input_tokens": line["input_tokens"],
        "output_tokens": line["output_tokens"],
    })
}

/// The facts of one run the capture script noted.
fn noted(expected: &Value) -> Value {
    json!({
        "agents": expected["agents"],
        "handoffs": expected["handoffs"],
        "tool_calls": expected["tool_calls"],
        "model_calls": expected["model_calls"],
        "input_tokens": expected["input_tokens"],
        "output_tokens": expected["output_tokens"],
    })
}

/// Set `set` reads as the one run its script noted, over HTTP and gRPC;
/// the lines, HTTP's first.
pub(super) async fn holds(set: &str) -> Vec<Value> {
    let expected = noted(&read_json(&set_dir(set).join("expected.json")));
    let mut seen = Vec::new();
    for wire in [Wire::Http, Wire::Grpc] {
        let lines = watched(set, wire, 1).await;
        assert_eq!(facts(&lines[0]), expected, "{set}");
        seen.extend(lines);
    }
    seen
}

#[tokio::test]
async fn the_agents_sdk_through_openinference_reads_as_its_run() {
    holds("openai_agents_openinference").await;
}

#[tokio::test]
async fn the_agents_sdk_with_a_failing_tool_reads_as_its_run() {
    holds("openai_agents_openinference_tool_error").await;
}

#[tokio::test]
async fn the_agents_sdk_through_traceloop_reads_as_its_run() {
    holds("openai_agents_traceloop").await;
}

#[tokio::test]
async fn the_agents_sdk_through_the_contrib_instrumentation_reads_as_its_run() {
    holds("openai_agents_contrib").await;
}

#[tokio::test]
async fn langgraph_through_openinference_reads_as_its_run() {
    holds("langgraph_openinference").await;
}

#[tokio::test]
async fn langgraph_supervisor_through_openinference_reads_as_its_run() {
    holds("langgraph_supervisor_openinference").await;
}

#[tokio::test]
async fn pydantic_ai_delegating_through_a_tool_reads_as_its_run() {
    holds("pydantic_ai").await;
}

#[tokio::test]
async fn an_autogen_group_chat_reads_as_its_run() {
    holds("autogen").await;
}

/// AutoGen without an application span sends each message as a trace of
/// its own, and nothing joins them (no conversation or session id): the
/// watch shows what was sent, one run per trace, as docs/watch.md says.
/// Each speaker is a run of one agent and no handoff; the usage sits in the
/// runs of the messages that carry it, each message in two traces (the
/// manager's and the other speakers'), so runs must not be added up.
#[tokio::test]
async fn autogen_without_a_root_span_is_one_run_per_message() {
    for wire in [Wire::Http, Wire::Grpc] {
        let lines = watched("autogen_noroot", wire, 20).await;
        let runs: Vec<Value> = lines.iter().map(facts).collect();
        let mut speakers: Vec<&Value> = runs
            .iter()
            .filter(|r| r["agents"] != json!([]))
            .map(|r| &r["agents"])
            .collect();
        speakers.sort_by_key(|a| a.to_string());
        assert_eq!(
            speakers,
            [
                &json!(["planner"]),
                &json!(["researcher"]),
                &json!(["writer"])
            ]
        );
        assert!(runs.iter().all(|r| r["handoffs"] == json!([])));
        let tools: Vec<&Value> = runs
            .iter()
            .flat_map(|r| r["tool_calls"].as_array().unwrap())
            .collect();
        let lookup = json!({"agent": "researcher", "tool": "lookup_population", "status": "ok"});
        assert_eq!(tools, [&lookup]);
        let sum = |key: &str| runs.iter().map(|r| r[key].as_u64().unwrap()).sum::<u64>();
        assert_eq!(
            (
                sum("model_calls"),
                sum("input_tokens"),
                sum("output_tokens")
            ),
            (6, 2 * 97, 2 * 33)
        );
    }
}

/// AutoGen's recommended set-up: its own spans, and
/// `opentelemetry-instrumentation-openai-v2` on its OpenAI client. Each
/// model call has a `chat` span and, again, its usage in the messages
/// (`models_usage`): counted once, matched to the span. The spans name
/// the dated snapshot `gpt-4o-2024-08-06`, priced as `gpt-4o`, and say so.
#[tokio::test]
async fn autogen_with_its_openai_client_instrumented_counts_each_call_once() {
    for line in holds("autogen_openai").await {
        assert_eq!(line["cost_from"], "price_table");
        assert_eq!(
            line["priced_as"],
            json!([{"model": "gpt-4o-2024-08-06", "as": "gpt-4o"}])
        );
        // 285 input tokens at 2.50 and 45 output at 10.00 per million.
        assert_eq!(line["cost_usd"], json!(0.0011625));
        assert_eq!(line["unpriced_calls"], 0);
    }
}

/// CrewAI 1.x in OpenInference's event-listener mode: the agents are the
/// roles (`graph.node.id`), not the span names
/// (`Market Researcher.Research the European e-bike market size and growt.execute`).
#[tokio::test]
async fn a_crewai_crew_in_event_listener_mode_reads_as_its_run() {
    for line in holds("crewai_event_listener").await {
        // gpt-4.1-mini, 778 input tokens at 0.40 and 77 output at 1.60.
        assert_eq!(line["cost_usd"], json!(0.0004344));
        assert_eq!(line["priced_as"], json!([]));
    }
}

/// Two runs of one LangGraph app on one thread: two traces, each its own
/// root, sharing `session.id` (the thread). Two runs, each with its own
/// counts, both naming the conversation.
async fn two_runs_of_one_thread(sent: Vec<Sent>, how: &str) {
    let set = "langgraph_thread";
    let expected = read_json(&set_dir(set).join("expected.json"));
    let runs: Vec<Value> = expected["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(noted)
        .collect();
    assert_eq!(runs.len(), 2);
    for wire in [Wire::Http, Wire::Grpc] {
        let sent = sent
            .iter()
            .map(|s| Sent {
                body: s.body.clone(),
                content_type: s.content_type.clone(),
                encoding: s.encoding.clone(),
            })
            .collect();
        let lines = watched_requests(set, sent, wire, 2).await;
        let mut seen: Vec<Value> = lines.iter().map(facts).collect();
        let mut want = runs.clone();
        seen.sort_by_key(Value::to_string);
        want.sort_by_key(Value::to_string);
        assert_eq!(seen, want, "{how}");
        assert_ne!(lines[0]["trace_id"], lines[1]["trace_id"], "{how}");
        for line in &lines {
            assert_eq!(line["conversation"], expected["conversation"], "{how}");
        }
    }
}

#[tokio::test]
async fn two_runs_of_one_langgraph_thread_are_two_runs_of_one_conversation() {
    two_runs_of_one_thread(requests("langgraph_thread"), "as captured").await;
}

/// The same two traces in one request: posted at once, still two runs.
#[tokio::test]
async fn two_traces_of_one_session_posted_at_once_are_two_runs() {
    let mut one = ExportTraceServiceRequest::default();
    for sent in requests("langgraph_thread") {
        one.resource_spans.extend(decoded(&sent).resource_spans);
    }
    let traces: std::collections::HashSet<Vec<u8>> = one
        .resource_spans
        .iter()
        .flat_map(|r| &r.scope_spans)
        .flat_map(|s| &s.spans)
        .map(|s| s.trace_id.clone())
        .collect();
    assert_eq!(traces.len(), 2);
    let sent = Sent {
        body: prost::Message::encode_to_vec(&one),
        content_type: "application/x-protobuf".into(),
        encoding: None,
    };
    two_runs_of_one_thread(vec![sent], "in one request").await;
}
