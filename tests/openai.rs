//! Every pattern against an OpenAI-compatible endpoint: a chat-completions
//! server on loopback (wiremock) that answers from a sim script. The same
//! scenario run on the sim and on the server must give the same result;
//! the endpoint's failures (429 with Retry-After, 500s until the breaker
//! opens, a slow answer, a refused key, a body that is no completion) must
//! stop or retry as the gateway says. Nothing here reaches the internet.
//!
//! These runs talk to a real socket, so they run on tokio's real clock; no
//! test waits on it except for what the endpoint asks (Retry-After) and the
//! scenario's own timeouts, all well under a second or two.

use crate::common;
use conclave::patterns::events::PatternEvent;

use common::script::{Script, quick, system_of};

use conclave::bus::{BreakerState, CallOutcome, Event, EventKind};
use conclave::engine::LaunchOptions;
use conclave::patterns::RunOutcome;
use conclave::patterns::events::TaskEvent;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// Tokens every scripted answer reports using.
const PROMPT_TOKENS: u64 = 120;
const COMPLETION_TOKENS: u64 = 40;

/// A chat-completions endpoint that answers from a scenario's sim script
/// (see `common::script`), each answer whole and as it is written there.
struct Scripted(Script);

impl Scripted {
    fn of(doc: &Value) -> Self {
        Scripted(Script::of(doc))
    }
}

impl Scripted {
    /// The request's body and the script's next entry for its prompt, or
    /// the 400 an endpoint would give a prompt it has no script for.
    fn next(&self, request: &Request) -> Result<(Value, Value), Box<ResponseTemplate>> {
        let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
            return Err(Box::new(
                ResponseTemplate::new(400).set_body_string("the request is not JSON"),
            ));
        };
        let system = system_of(&body);
        let Some(rule) = self.0.rule_of(system) else {
            return Err(Box::new(
                ResponseTemplate::new(400)
                    .set_body_string(format!("no script for the prompt {system:?}")),
            ));
        };
        let entry = self.0.next(rule).0;
        Ok((body, entry))
    }
}

fn text_of(entry: &Value) -> String {
    match entry {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

impl Respond for Scripted {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        match self.next(request) {
            Ok((_, entry)) => {
                ResponseTemplate::new(200).set_body_json(completion(&text_of(&entry)))
            }
            Err(refused) => *refused,
        }
    }
}

/// The same script answered as a model answers in `tool` mode: each
/// entry as the calls of the functions the request offers (a handoff as
/// `transfer_to_agent`, a reply as `reply`, a tool or member call as the
/// function of its name, any other answer as the one `submit_` function),
/// with arguments written as JSON text.
struct AsToolCalls(Scripted);

impl AsToolCalls {
    fn calls(body: &Value, entry: &Value) -> Vec<(String, Value)> {
        if let Some(agent) = entry.get("transfer_to") {
            return vec![(
                "transfer_to_agent".into(),
                json!({"agent": agent, "message": entry["message"]}),
            )];
        }
        if let Some(text) = entry.get("reply") {
            return vec![("reply".into(), json!({"text": text}))];
        }
        if let Some(tool) = entry.get("call").and_then(Value::as_str) {
            return vec![(tool.to_string(), entry["args"].clone())];
        }
        if let Some(members) = entry.get("call_members").and_then(Value::as_array) {
            return members
                .iter()
                .map(|call| {
                    let member = call["member"].as_str().unwrap().to_string();
                    (member, json!({"task": call["task"]}))
                })
                .collect();
        }
        let only = body["tool_choice"]["function"]["name"].as_str().unwrap();
        vec![(only.to_string(), entry.clone())]
    }
}

impl Respond for AsToolCalls {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let (body, entry) = match self.0.next(request) {
            Ok(next) => next,
            Err(refused) => return *refused,
        };
        if body.get("tools").is_none() || entry.is_string() {
            return ResponseTemplate::new(200).set_body_json(completion(&text_of(&entry)));
        }
        let calls: Vec<Value> = Self::calls(&body, &entry)
            .into_iter()
            .enumerate()
            .map(|(i, (name, arguments))| {
                json!({"id": format!("call_{i}"), "type": "function",
                       "function": {"name": name, "arguments": arguments.to_string()}})
            })
            .collect();
        let mut answer = completion("");
        answer["choices"][0]["message"] =
            json!({"role": "assistant", "content": null, "tool_calls": calls});
        answer["choices"][0]["finish_reason"] = json!("tool_calls");
        ResponseTemplate::new(200).set_body_json(answer)
    }
}

fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "mock-model",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS,
                  "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS}
    })
}

async fn serve(doc: &Value) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(Scripted::of(doc))
        .mount(&server)
        .await;
    server
}

fn on(server: &MockServer) -> LaunchOptions {
    common::on_endpoint_at(&server.uri())
}

async fn on_sim(doc: &Value) -> RunOutcome {
    common::run(common::scenario(doc), LaunchOptions::default())
        .await
        .0
}

async fn on_endpoint(doc: &Value, server: &MockServer) -> (RunOutcome, Vec<Event>) {
    common::run(common::scenario(doc), on(server)).await
}

/// The model calls' outcomes, in order.
fn model_calls(events: &[Event]) -> Vec<CallOutcome> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallFinished { tool, outcome, .. } if tool == "model" => Some(*outcome),
            _ => None,
        })
        .collect()
}

/// The fields the sim and the endpoint must agree on: every field of the
/// pattern's result but `usage`, whose tokens the sim estimates and the
/// endpoint counts.
fn reference_fields(result: &Value) -> Value {
    let mut result = result.clone();
    if let Some(map) = result.as_object_mut() {
        map.remove("usage");
    }
    result
}

/// Latencies are the only other thing a real endpoint cannot script: zero
/// them in results that report them.
fn without_latencies(result: &Value) -> Value {
    let mut result = reference_fields(result);
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (key, value) in map.iter_mut() {
                    if key == "latency_ms" || key == "elapsed_ms" {
                        *value = json!(0);
                    } else {
                        walk(value);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut result);
    result
}

#[tokio::test]
async fn a_round_table_on_the_endpoint_equals_the_same_outputs_on_the_sim() {
    let doc = quick("checkout_v2_launch.json");
    let server = serve(&doc).await;
    let (endpoint, events) = on_endpoint(&doc, &server).await;
    let sim = on_sim(&doc).await;
    assert_eq!(
        reference_fields(&endpoint.result),
        reference_fields(&sim.result)
    );
    assert_eq!(endpoint.result["final_decision"], "go_with_caution");
    assert_eq!(endpoint.error, None);

    let requests = server.received_requests().await.unwrap();
    let calls = model_calls(&events);
    assert_eq!(calls.len(), requests.len());
    assert!(calls.iter().all(|c| *c == CallOutcome::Ok));
    let first: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(first["model"], "mock-model");
    assert_eq!(first["temperature"], 0.0);
    // `auto` asks first for the contract's strict schema.
    assert_eq!(first["response_format"]["type"], "json_schema");
    assert_eq!(
        first["response_format"]["json_schema"]["name"],
        "contribution"
    );
    assert_eq!(first["response_format"]["json_schema"]["strict"], true);
    assert_eq!(first["messages"][1]["role"], "user");
    let brief: Value = serde_json::from_slice(&requests.last().unwrap().body).unwrap();
    assert!(brief.get("response_format").is_none(), "the brief is prose");
}

#[tokio::test]
async fn token_usage_is_published_with_each_call_and_summed_in_the_header() {
    let doc = quick("checkout_v2_launch.json");
    let server = serve(&doc).await;
    let (_, events) = on_endpoint(&doc, &server).await;
    let calls = model_calls(&events).len() as u64;
    assert!(calls >= 7, "two rounds of three and a brief, got {calls}");
    let (input, output) = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallFinished {
                usage: Some(usage), ..
            } => Some((usage.input, usage.output)),
            _ => None,
        })
        .fold((0, 0), |(i, o), (a, b)| (i + a, o + b));
    assert_eq!(
        (input, output),
        (calls * PROMPT_TOKENS, calls * COMPLETION_TOKENS)
    );

    let mut app = App::new(AppOptions::default());
    let events: Vec<Arc<Event>> = events.into_iter().map(Arc::new).collect();
    app.add_from_events(&events, Some("scenarios/checkout_v2_launch.json".into()))
        .unwrap();
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    terminal.draw(|frame| view::draw(frame, &app)).unwrap();
    let screen = format!("{:?}", terminal.backend().buffer());
    // 7 calls of 160 tokens; mock-model has no price.
    assert_eq!(input + output, 1120);
    assert!(screen.contains("1.1k tok · price unknown"), "{screen}");
}

#[tokio::test]
async fn an_orchestrator_plan_on_the_endpoint_equals_the_sim() {
    let doc = quick("morning_ops_report.json");
    let server = serve(&doc).await;
    let (endpoint, events) = on_endpoint(&doc, &server).await;
    assert_eq!(
        reference_fields(&endpoint.result),
        reference_fields(&on_sim(&doc).await.result)
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Pattern(PatternEvent::Tasks(TaskEvent::PlanAccepted { tasks })) if !tasks.is_empty()))
    );
    let requests = server.received_requests().await.unwrap();
    let plan: Value = serde_json::from_slice(&requests[0].body).unwrap();
    let asked: Value =
        serde_json::from_str(plan["messages"][1]["content"].as_str().unwrap()).unwrap();
    assert!(asked["available_workers"].is_array(), "{asked}");
    assert!(asked.get("max_tasks").is_some(), "{asked}");
}

#[tokio::test]
async fn a_swarm_chain_on_the_endpoint_equals_the_sim() {
    let doc = quick("support_swarm.json");
    let server = serve(&doc).await;
    let (endpoint, _) = on_endpoint(&doc, &server).await;
    let sim = on_sim(&doc).await;
    assert_eq!(
        without_latencies(&endpoint.result),
        without_latencies(&sim.result)
    );
    assert_eq!(endpoint.result["status"], "ok");
    let requests = server.received_requests().await.unwrap();
    let turn: Value = serde_json::from_slice(&requests[0].body).unwrap();
    let asked: Value =
        serde_json::from_str(turn["messages"][1]["content"].as_str().unwrap()).unwrap();
    assert!(
        asked["context"]["can_transfer_to"].is_array(),
        "the turn names the agents it can hand over to: {asked}"
    );
    assert_eq!(turn["response_format"]["json_schema"]["name"], "turn");
}

#[tokio::test]
async fn a_coordinated_team_and_a_research_run_on_the_endpoint_equal_the_sim() {
    let coordinator = one_member_a_turn();
    let server = serve(&coordinator).await;
    let (endpoint, _) = on_endpoint(&coordinator, &server).await;
    assert_eq!(
        without_latencies(&endpoint.result),
        without_latencies(&on_sim(&coordinator).await.result)
    );
    assert_eq!(endpoint.result["status"], "ok");

    let research = research_planned();
    let server = serve(&research).await;
    let (endpoint, _) = on_endpoint(&research, &server).await;
    assert_eq!(
        without_latencies(&endpoint.result),
        without_latencies(&on_sim(&research).await.result)
    );
    assert_eq!(endpoint.result["status"], "ok", "{}", endpoint.result);
}

/// `launch_coordinator.json` with its lead asking one member a turn:
/// members asked in one turn answer in whatever order the endpoint does,
/// and their turns are numbered in that order, so that the sim and an
/// endpoint number them alike.
fn one_member_a_turn() -> Value {
    let mut coordinator = quick("launch_coordinator.json");
    let lead = &mut coordinator["provider"]["turns"]["launch_lead"];
    let reply = lead[1].clone();
    let mut turns: Vec<Value> = lead[0]["call_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| json!({"call_members": [call]}))
        .collect();
    turns.push(reply);
    *lead = Value::Array(turns);
    coordinator
}

/// `payments_incident_research.json` with its plan scripted, as the sim
/// would propose it.
fn research_planned() -> Value {
    let mut research = quick("payments_incident_research.json");
    let question = research["context"]["request"]["question"].clone();
    research["provider"]["plan"] = json!({"steps": [
        {"id": "r1", "action": "search_sources", "args": {"query": question}},
        {"id": "r2", "action": "dedupe_urls", "args": {}},
        {"id": "r3", "action": "read_extract_notes", "args": {}},
        {"id": "r4", "action": "verify_notes", "args": {}},
        {"id": "r5", "action": "synthesize_answer", "args": {}},
    ]});
    research
}

/// `provider.output: "tool"`: every contract is asked for as functions
/// the model must call, and the calls an endpoint makes read back as the
/// answers the sim gives, in every pattern.
#[tokio::test]
async fn every_pattern_asked_by_tool_reads_the_calls_back_as_the_sim_answers() {
    let docs = [
        quick("checkout_v2_launch.json"),
        quick("morning_ops_report.json"),
        quick("support_swarm.json"),
        one_member_a_turn(),
        research_planned(),
    ];
    for mut doc in docs {
        doc["provider"]["output"] = json!("tool");
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(AsToolCalls(Scripted::of(&doc)))
            .mount(&server)
            .await;
        let name = &doc["name"];
        let bodies = ends_as_on_the_sim(&doc, &server, &name.to_string()).await;
        let by_tool = bodies.iter().filter(|body| body.get("tools").is_some());
        assert!(by_tool.clone().count() > 0, "{name}");
        assert!(
            by_tool
                .clone()
                .all(|body| body.get("response_format").is_none()
                    && (body["tool_choice"].is_object() || body["tool_choice"] == "required")),
            "{name}"
        );
    }
}

/// `provider.output: "json"` and `"prompted"`: every pattern asked for
/// any JSON object, or with the contract's schema in its system prompt
/// and nothing else, ends as on the sim.
#[tokio::test]
async fn every_pattern_asked_for_json_or_by_prompt_ends_as_on_the_sim() {
    for mode in ["json", "prompted"] {
        let docs = [
            quick("checkout_v2_launch.json"),
            quick("morning_ops_report.json"),
            quick("support_swarm.json"),
            one_member_a_turn(),
            research_planned(),
        ];
        for mut doc in docs {
            doc["provider"]["output"] = json!(mode);
            let server = serve(&doc).await;
            let name = &doc["name"];
            let bodies = ends_as_on_the_sim(&doc, &server, &format!("{mode} {name}")).await;
            let mut schemas_asked = 0;
            for body in bodies {
                let system = body["messages"][0]["content"].as_str().unwrap();
                schemas_asked += usize::from(system.contains("matches this JSON Schema"));
                let format = body.get("response_format");
                match mode {
                    "json" => assert!(format.is_none_or(|f| f["type"] == "json_object")),
                    _ => assert_eq!(format, None, "{mode} {name}"),
                }
                assert!(body.get("tools").is_none());
            }
            assert_eq!(schemas_asked > 0, mode == "prompted", "{mode} {name}");
        }
    }
}

/// A round table of one analyst for one round, on the sim script given.
fn one_analyst(output: Value) -> Value {
    json!({
        "name": "one_analyst", "pattern": "collaboration",
        "goal": "Decide whether to launch", "context": {"region": "US"},
        "budget": {"max_rounds": 1},
        "team": {"roles": {"risk_analyst": {"focus": "payments"}}, "sequence": ["risk_analyst"]},
        "provider": {"kind": "sim", "responses": {"risk_analyst": output},
                     "final_answer": "Go."}
    })
}

fn go() -> Value {
    json!({"agent": "risk_analyst", "stance": "go", "summary": "Ready.",
           "confidence": 0.8, "actions": ["Ship it"]})
}

#[tokio::test]
async fn a_model_answer_that_is_not_json_goes_to_the_patterns_own_validation() {
    let doc = one_analyst(json!("I think we should launch, honestly."));
    let server = serve(&doc).await;
    let (endpoint, _) = on_endpoint(&doc, &server).await;
    let sim = on_sim(&doc).await;
    assert_eq!(
        reference_fields(&endpoint.result),
        reference_fields(&sim.result)
    );
    assert_eq!(endpoint.stop_reason, sim.stop_reason);
    // The endpoint answered and the text was wrong: asked again once, it
    // was still prose, and the run's error says whose answer it was.
    let error = endpoint.error.expect("a stop by an answer says which");
    assert!(
        error.starts_with("risk_analyst, call 2: the answer is not JSON")
            && error.contains("the answer began: \"I think we should launch, honestly.\""),
        "{error}"
    );
    assert!(!error.contains('\n'), "one line: {error}");
}

#[tokio::test]
async fn a_429_is_retried_after_the_time_the_endpoint_asks() {
    let doc = one_analyst(go());
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("Retry-After", "1")
                .set_body_string("slow down"),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(Scripted::of(&doc))
        .mount(&server)
        .await;
    let (outcome, events) = on_endpoint(&doc, &server).await;
    assert_eq!(
        reference_fields(&outcome.result),
        reference_fields(&on_sim(&doc).await.result)
    );
    assert_eq!(outcome.error, None);
    let calls = model_calls(&events);
    assert_eq!(calls[..2], [CallOutcome::Error, CallOutcome::Ok]);
    let starts: Vec<(u32, u64)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallStarted { tool, attempt, .. } if tool == "model" => {
                Some((*attempt, e.t_ms))
            }
            _ => None,
        })
        .collect();
    assert_eq!(starts[0].0, 1);
    assert_eq!(starts[1].0, 2, "the second attempt of the same call");
    assert!(
        starts[1].1 - starts[0].1 >= 1000,
        "Retry-After: 1 is a floor: {starts:?}"
    );
}

#[tokio::test]
async fn repeated_500s_open_the_models_breaker() {
    let mut doc = one_analyst(go());
    doc["resilience"] = json!({
        "retries": {"max_attempts": 5, "backoff_ms": {"base_ms": 10, "max_ms": 20}, "jitter": "none"},
        "tools": {"model": {"circuit_breaker": {"fail_threshold": 2, "open_for_ms": 60000, "half_open_probes": 1}}}
    });
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_string("upstream exploded"))
        .mount(&server)
        .await;
    let (outcome, events) = on_endpoint(&doc, &server).await;
    assert_eq!(outcome.stop_reason.to_string(), "circuit_open:model");
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        2,
        "the breaker holds the third attempt back"
    );
    assert!(events.iter().any(|e| matches!(
        &e.kind,
        EventKind::BreakerTransition { tool, to, .. }
            if tool == "model" && *to == BreakerState::Open
    )));
    assert_eq!(
        model_calls(&events),
        [CallOutcome::Error, CallOutcome::Error],
        "the refused attempt never reaches the endpoint"
    );
}

#[tokio::test]
async fn an_answer_slower_than_the_timeout_stops_with_llm_timeout() {
    let mut doc = one_analyst(go());
    doc["provider"] = json!({"kind": "openai", "timeout_seconds": 0.2});
    doc["resilience"] = json!({"retries": {"max_attempts": 2, "backoff_ms": {"base_ms": 10, "max_ms": 10}, "jitter": "none"}});
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(completion(&go().to_string()))
                .set_delay(Duration::from_secs(5)),
        )
        .mount(&server)
        .await;
    let (outcome, events) = on_endpoint(&doc, &server).await;
    assert_eq!(outcome.stop_reason.to_string(), "llm_timeout");
    assert_eq!(
        model_calls(&events),
        [CallOutcome::Timeout, CallOutcome::Timeout]
    );
}

#[tokio::test]
async fn a_refused_key_stops_at_once_naming_the_variable() {
    let doc = one_analyst(go());
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_json(
            json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}),
        ))
        .mount(&server)
        .await;
    let (outcome, events) = on_endpoint(&doc, &server).await;
    assert_eq!(outcome.stop_reason.to_string(), "llm_auth");
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        1,
        "no retry"
    );
    let error = outcome.error.expect("the run says what to fix");
    assert!(error.contains("OPENAI_API_KEY"), "{error}");
    let finished = events.last().unwrap();
    assert!(matches!(
        &finished.kind,
        EventKind::RunFinished { error: Some(e), .. } if e.contains("OPENAI_API_KEY")
    ));
}

#[tokio::test]
async fn a_body_that_is_not_a_completion_stops_with_llm_bad_response() {
    let doc = one_analyst(go());
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string("<html>gateway</html>"))
        .mount(&server)
        .await;
    let (outcome, _) = on_endpoint(&doc, &server).await;
    assert_eq!(outcome.stop_reason.to_string(), "llm_bad_response");
    assert!(outcome.error.unwrap().contains("not a chat completion"));

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"choices": []})))
        .mount(&server)
        .await;
    let (outcome, _) = on_endpoint(&doc, &server).await;
    assert_eq!(outcome.stop_reason.to_string(), "llm_bad_response");
}

/// The model calls refused by the gateway, with their reasons.
fn rejections(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallRejected { tool, reason, .. } if tool == "model" => {
                Some(reason.to_string())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_retry_after_longer_than_the_run_has_left_stops_with_max_seconds_at_once() {
    let mut doc = one_analyst(go());
    doc["budget"]["max_seconds"] = json!(40);
    let in_an_hour = jiff::Timestamp::now() + jiff::SignedDuration::from_hours(1);
    let http_date = jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&in_an_hour)
        .unwrap();
    for (status, wait) in [(429, "100"), (503, http_date.as_str()), (429, "1e308")] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(status).insert_header("Retry-After", wait))
            .mount(&server)
            .await;
        let (outcome, events) = on_endpoint(&doc, &server).await;
        assert_eq!(outcome.stop_reason.to_string(), "max_seconds", "{wait}");
        assert_eq!(server.received_requests().await.unwrap().len(), 1);
        assert_eq!(rejections(&events), ["max_seconds"]);
        let finished = events.last().unwrap();
        assert!(
            finished.t_ms < 20_000,
            "the run did not wait for the endpoint: it ended at {} ms",
            finished.t_ms
        );
        let error = outcome.error.expect("the run says why it stopped");
        assert!(error.contains("Retry-After"), "{error}");
        assert!(error.contains("max_seconds"), "{error}");
    }
}

#[tokio::test]
async fn a_refused_request_stops_with_llm_bad_request_and_is_never_retried() {
    let mut doc = one_analyst(go());
    doc["resilience"] =
        json!({"retries": {"max_attempts": 4, "backoff_ms": [1], "jitter": "none"}});
    for status in [400, 404, 405, 409, 413, 422] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(status).set_body_json(
                json!({"error": {"message": "The model `mock-model` does not exist"}}),
            ))
            .mount(&server)
            .await;
        let (outcome, events) = on_endpoint(&doc, &server).await;
        assert_eq!(
            outcome.stop_reason.to_string(),
            "llm_bad_request",
            "{status}"
        );
        assert_eq!(
            server.received_requests().await.unwrap().len(),
            1,
            "{status}: no retry"
        );
        assert_eq!(model_calls(&events), [CallOutcome::Error]);
        let error = outcome.error.expect("the run says what was refused");
        assert!(error.contains(&format!("HTTP {status}")), "{error}");
        assert!(error.contains("does not exist"), "{error}");
    }
}

#[tokio::test]
async fn a_redirect_is_reported_not_followed() {
    let doc = one_analyst(go());
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(301).insert_header("Location", "https://moved.example/v1"),
        )
        .mount(&server)
        .await;
    let (outcome, _) = on_endpoint(&doc, &server).await;
    assert_eq!(outcome.stop_reason.to_string(), "llm_unexpected_status");
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
    let error = outcome.error.unwrap();
    assert!(
        error.contains("301") && error.contains("https://moved.example/v1"),
        "{error}"
    );
}

/// A turn's prompt stays the same size however long the chain grows: the
/// model is shown the chain's last 32 agents and how many came before.
#[tokio::test]
async fn a_long_swarm_chain_is_shown_to_the_model_as_its_tail_and_a_count() {
    let mut doc = quick("pingpong_swarm.json");
    let bounce = |to: &str, n: usize| -> Vec<Value> {
        (0..n)
            .map(|i| json!({"transfer_to": to, "message": format!("round {i}")}))
            .collect()
    };
    let mut critic = bounce("planner", 24);
    critic.push(json!({"reply": "Agreed."}));
    doc["provider"]["turns"] = json!({"planner": bounce("critic", 25), "critic": critic});
    doc["limits"] = json!({"max_handoffs": 0, "node_timeout_ms": 0,
                           "repetitive_handoff_window": 0, "repetitive_handoff_min_unique": 0});
    doc["budget"]["max_llm_calls"] = json!(100);
    let server = serve(&doc).await;
    let (outcome, _) = on_endpoint(&doc, &server).await;
    assert_eq!(outcome.result["status"], "ok", "{}", outcome.result);
    assert_eq!(outcome.result["chain"].as_array().unwrap().len(), 50);
    let contexts: Vec<Value> = payloads(&server)
        .await
        .into_iter()
        .map(|asked| asked["context"].clone())
        .collect();
    assert_eq!(contexts.len(), 50);
    // The 32nd turn sees the whole chain of 32; the 33rd its last 32 and 1 before.
    assert_eq!(contexts[31]["chain"].as_array().unwrap().len(), 32);
    assert_eq!(contexts[31].get("chain_earlier"), None);
    assert_eq!(contexts[32]["chain"].as_array().unwrap().len(), 32);
    assert_eq!(contexts[32]["chain_earlier"], 1);
    let last = &contexts[49];
    assert_eq!(last["chain_earlier"], 18);
    let shown: Vec<&str> = last["chain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|agent| agent.as_str().unwrap())
        .collect();
    let whole: Vec<&str> = outcome.result["chain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|agent| agent.as_str().unwrap())
        .collect();
    assert_eq!(shown, whole[18..]);
}

/// A member with shared history is shown the coordinator's conversation so
/// far; an isolated one only its task.
#[tokio::test]
async fn a_member_with_shared_history_sees_the_coordinators_conversation() {
    let mut doc = quick("launch_coordinator.json");
    let lead = &mut doc["provider"]["turns"]["launch_lead"];
    let reply = lead[1].clone();
    let calls = lead[0]["call_members"].clone();
    *lead = json!([
        {"call_members": [calls[0]]},
        {"call_members": [calls[2]]},
        reply
    ]);
    doc["agents"]["legal_reviewer"]["history"] = "shared".into();
    let server = serve(&doc).await;
    let (outcome, _) = on_endpoint(&doc, &server).await;
    assert_eq!(outcome.result["status"], "ok", "{}", outcome.result);
    let asked = payloads(&server).await;
    let of = |agent: &str| asked.iter().find(|a| a["agent"] == agent).unwrap();
    assert_eq!(
        of("market_analyst")["context"].get("coordinator_history"),
        None
    );
    let shared = &of("legal_reviewer")["context"]["coordinator_history"];
    let text = shared.to_string();
    assert!(
        text.contains("Expected conversion lift") && text.contains("lift conversion by about 3.1%"),
        "the lead's first call and the market analyst's answer: {shared}"
    );
}

/// The coordinator's turns go with the coordinator's prompt, its members'
/// with the members' (which offers no member calls); all answer in JSON.
#[tokio::test]
async fn the_coordinator_and_its_members_are_asked_with_prompts_of_their_own() {
    let doc = quick("launch_coordinator.json");
    let server = serve(&doc).await;
    let (outcome, _) = on_endpoint(&doc, &server).await;
    assert_eq!(outcome.result["status"], "ok", "{}", outcome.result);
    let requests = server.received_requests().await.unwrap();
    let mut asked = Vec::new();
    for request in &requests {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let system = body["messages"][0]["content"].as_str().unwrap().to_string();
        let user: Value =
            serde_json::from_str(body["messages"][1]["content"].as_str().unwrap()).unwrap();
        assert_eq!(body["response_format"]["type"], "json_schema");
        assert_eq!(body["response_format"]["json_schema"]["strict"], true);
        asked.push((user["agent"].as_str().unwrap().to_string(), system));
    }
    assert!(asked.len() > 2, "the lead and its members: {asked:?}");
    for (agent, system) in &asked {
        if agent == "launch_lead" {
            assert!(
                system.starts_with("You are launch_lead, the coordinator")
                    && system.contains("call_members"),
                "{system}"
            );
        } else {
            assert!(
                system.starts_with(&format!("You are {agent}, a specialist member")),
                "{system}"
            );
            assert!(!system.contains("call_members"), "{system}");
        }
    }
}

/// What each request the endpoint received asked: its user message, the
/// pattern's payload, in the order they came.
/// Run `doc` against `server`: it ends `ok`, as on the sim but for its
/// latencies; the bodies of the requests the server received.
async fn ends_as_on_the_sim(doc: &Value, server: &MockServer, what: &str) -> Vec<Value> {
    let (endpoint, _) = on_endpoint(doc, server).await;
    assert_eq!(
        endpoint.result["status"], "ok",
        "{what}: {}",
        endpoint.result
    );
    assert_eq!(
        without_latencies(&endpoint.result),
        without_latencies(&on_sim(doc).await.result),
        "{what}"
    );
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| serde_json::from_slice(&request.body).unwrap())
        .collect()
}

async fn payloads(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| {
            let body: Value = serde_json::from_slice(&request.body).unwrap();
            serde_json::from_str(body["messages"][1]["content"].as_str().unwrap()).unwrap()
        })
        .collect()
}
