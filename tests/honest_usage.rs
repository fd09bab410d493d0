//! A reasoning model's usage and reasoning, end to end through the built
//! binary: a loopback endpoint that answers as OpenAI's reasoning models
//! and DeepSeek, vLLM or Ollama do (reasoning text beside the answer,
//! whole or streamed; cached prompt tokens and reasoning tokens in the
//! usage). The run's `usage` and every `call_finished` carry the cached and
//! reasoning tokens and the cost at the cached-input price; the reasoning
//! is recorded apart (`call_finished.reasoning`, `call_delta` with
//! `reasoning: true`), never in the answer nor in a later prompt; a
//! cassette serves it again; and a pricing file's `cached_input` is read
//! and checked.

use crate::common;

use common::cli::result;
use common::loopback::{Captured, Loopback, Reply};
use common::real::{Sandbox, recording, stderr};
use conclave::tui::app::{App, AppOptions};
use conclave::tui::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

/// What every call reports: 2,000 prompt tokens, 1,500 of them cached;
/// 400 completion tokens, 250 of them reasoning.
pub(crate) const PROMPT: u64 = 2_000;
pub(crate) const CACHED: u64 = 1_500;
pub(crate) const COMPLETION: u64 = 400;
pub(crate) const REASONING: u64 = 250;

/// gpt-4.1's compiled-in price (2.00 in, 0.50 cached in, 8.00 out per
/// million): 500 × 2 + 1,500 × 0.5 + 400 × 8 = 4,950 per million.
const CALL_COST: f64 = 0.00495;

/// The mark every reasoning text carries, to look for where it must not be.
const THINKING: &str = "Weighing";

fn reasoning_of(who: &str) -> String {
    format!("{THINKING} {who}: fraud is flat since March, margins hold.")
}

/// The analysts' answer or the closing prose, for the request `body`;
/// and whom it is for.
fn content_for(body: &Value) -> (String, String) {
    let asked: Value = body["messages"][1]["content"]
        .as_str()
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or(Value::Null);
    match asked["role"].as_str() {
        Some(role) => (
            role.to_string(),
            json!({"agent": role, "stance": "go", "summary": format!("{role} sees no blocker"),
                   "confidence": 0.8, "actions": ["ship"]})
            .to_string(),
        ),
        None => (
            "final_answer".to_string(),
            "Launch on Monday; watch payments.".to_string(),
        ),
    }
}

fn usage() -> Value {
    json!({"prompt_tokens": PROMPT, "completion_tokens": COMPLETION,
           "total_tokens": PROMPT + COMPLETION,
           "prompt_tokens_details": {"cached_tokens": CACHED},
           "completion_tokens_details": {"reasoning_tokens": REASONING}})
}

/// A reasoning model: whole answers carry `message.reasoning` (as Ollama
/// sends it), streamed ones `delta.reasoning_content` pieces before the
/// content (as DeepSeek and vLLM do).
pub(crate) fn reasoning_model(request: &Captured, _: usize) -> Reply {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let (who, content) = content_for(&body);
    let reasoning = reasoning_of(&who);
    if body["stream"] != true {
        return Reply::json(
            200,
            &json!({"object": "chat.completion", "model": "gpt-4.1",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content,
                                             "reasoning": reasoning}}],
                    "usage": usage()}),
        );
    }
    let event = |delta: Value| {
        let chunk = json!({"object": "chat.completion.chunk",
                           "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
        format!("data: {chunk}\n\n")
    };
    let mut sse = event(json!({"role": "assistant", "content": ""}));
    for words in reasoning.split_inclusive(' ') {
        sse.push_str(&event(json!({"reasoning_content": words, "content": null})));
    }
    let chars: Vec<char> = content.chars().collect();
    for piece in chars.chunks(9) {
        sse.push_str(&event(json!({"content": piece.iter().collect::<String>()})));
    }
    let finish = json!({"object": "chat.completion.chunk",
                        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    let last = json!({"object": "chat.completion.chunk", "choices": [], "usage": usage()});
    sse.push_str(&format!(
        "data: {finish}\n\ndata: {last}\n\ndata: [DONE]\n\n"
    ));
    Reply::text(200, &sse).header("content-type", "text/event-stream")
}

/// Two analysts who both say go in round 1, then the closing prose: three
/// model calls, the last given the first two's contributions.
pub(crate) fn two_analysts(sandbox: &Sandbox) -> String {
    let doc = json!({
        "name": "two_analysts", "pattern": "collaboration",
        "goal": "Decide whether to launch", "context": {"region": "US"},
        "budget": {"max_rounds": 2, "min_go_votes": 2},
        "team": {"roles": {"demand_analyst": {}, "risk_analyst": {}},
                 "sequence": ["demand_analyst", "risk_analyst"]},
        "provider": {"kind": "openai", "model": "gpt-4.1"}
    });
    sandbox
        .write("two.json", &doc)
        .to_string_lossy()
        .into_owned()
}

/// Run the two analysts against `base_url`, recorded to `record`, with
/// `more` arguments.
fn run(sandbox: &Sandbox, base_url: &str, record: &str, more: &[&str]) -> std::process::Output {
    let file = two_analysts(sandbox);
    let mut args = vec![
        "run",
        &file,
        "--headless",
        "--base-url",
        base_url,
        "--record",
        record,
    ];
    args.extend_from_slice(more);
    sandbox.run(&args)
}

fn close(got: &Value, want: f64) {
    let got = got.as_f64().unwrap_or_else(|| panic!("no cost: {got}"));
    assert!((got - want).abs() < 1e-12, "{got} ≠ {want}");
}

/// The model calls' `call_finished` events of a recording.
fn finished(events: &[Value]) -> Vec<&Value> {
    events
        .iter()
        .filter(|e| e["type"] == "call_finished" && e["tool"] == "model")
        .collect()
}

/// The text of call `call`'s deltas that are (or are not) reasoning.
fn deltas_of(events: &[Value], call: &Value, reasoning: bool) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "call_delta" && &e["call"] == call)
        .filter(|e| (e["reasoning"] == true) == reasoning)
        .map(|e| e["text"].as_str().unwrap())
        .collect()
}

#[test]
fn a_reasoning_model_s_usage_is_priced_as_billed_and_its_reasoning_kept_apart() {
    for streamed in [false, true] {
        let server = Loopback::serve(reasoning_model);
        let sandbox = Sandbox::new();
        let record = sandbox.path("run.jsonl").to_string_lossy().into_owned();
        let more: &[&str] = if streamed { &[] } else { &["--no-stream"] };
        let out = run(&sandbox, &server.base_url, &record, more);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let result = result(&out);
        let said = result.to_string();
        assert!(!said.contains(THINKING), "reasoning is no answer: {said}");

        // The run's usage: as billed, the parts said, at the cached price.
        let usage = &result["usage"];
        assert_eq!(usage["input_tokens"], 3 * PROMPT, "{usage}");
        assert_eq!(usage["output_tokens"], 3 * COMPLETION, "{usage}");
        assert_eq!(usage["cached_tokens"], 3 * CACHED, "{usage}");
        assert_eq!(usage["reasoning_tokens"], 3 * REASONING, "{usage}");
        close(&usage["cost_usd"], 3.0 * CALL_COST);
        for who in ["demand_analyst", "risk_analyst", "final_answer"] {
            let spent = &usage["by_agent"][who];
            assert_eq!(
                (&spent["input_tokens"], &spent["cached_tokens"]),
                (&json!(PROMPT), &json!(CACHED)),
                "{who}: {usage}"
            );
            assert_eq!(spent["reasoning_tokens"], REASONING, "{who}: {usage}");
            close(&spent["cost_usd"], CALL_COST);
        }

        let events = recording(std::path::Path::new(&record));
        let calls = finished(&events);
        assert_eq!(calls.len(), 3);
        for call in &calls {
            let used = &call["usage"];
            assert_eq!(
                (
                    &used["input"],
                    &used["cached"],
                    &used["output"],
                    &used["reasoning"]
                ),
                (
                    &json!(PROMPT),
                    &json!(CACHED),
                    &json!(COMPLETION),
                    &json!(REASONING)
                ),
                "{call}"
            );
            close(&used["cost_usd"], CALL_COST);
        }
        let started: Vec<&Value> = events
            .iter()
            .filter(|e| e["type"] == "call_started" && e["tool"] == "model")
            .collect();
        for (start, call) in started.iter().zip(&calls) {
            let who = start["agent"].as_str().unwrap_or("final_answer");
            assert_eq!(call["reasoning"], reasoning_of(who).as_str(), "{call}");
            let answer = deltas_of(&events, &call["call"], false);
            if streamed {
                assert_eq!(
                    deltas_of(&events, &call["call"], true),
                    reasoning_of(who),
                    "the reasoning streamed in marked deltas"
                );
                assert!(!answer.contains(THINKING), "{answer}");
                assert!(answer.contains("Launch") || answer.contains("sees no blocker"));
            } else {
                assert!(answer.is_empty(), "a whole answer streams nothing");
            }
        }

        // A later prompt carries the earlier answers but no reasoning.
        let asked = server.requests();
        assert_eq!(asked.len(), 3);
        let last = String::from_utf8_lossy(&asked[2].body).into_owned();
        assert!(last.contains("risk_analyst sees no blocker"), "{last}");
        for request in &asked {
            let body = String::from_utf8_lossy(&request.body);
            assert!(!body.contains(THINKING), "{body}");
        }
    }
}

#[test]
fn a_cassette_serves_the_reasoning_again_byte_for_byte() {
    let server = Loopback::serve(reasoning_model);
    let sandbox = Sandbox::new();
    let record = sandbox.path("run.jsonl").to_string_lossy().into_owned();
    let recorded = run(&sandbox, &server.base_url, &record, &[]);
    assert_eq!(recorded.status.code(), Some(0), "{}", stderr(&recorded));
    let asked = server.requests().len();

    let replay = sandbox.path("replay.jsonl").to_string_lossy().into_owned();
    let served = run(
        &sandbox,
        &server.base_url,
        &replay,
        &["--cassette", &record],
    );
    assert_eq!(served.status.code(), Some(0), "{}", stderr(&served));
    assert_eq!(served.stdout, recorded.stdout, "the recorded result");
    assert_eq!(server.requests().len(), asked, "nothing reached the model");

    let (first, again) = (
        recording(std::path::Path::new(&record)),
        recording(std::path::Path::new(&replay)),
    );
    let reasoning = |events: &[Value]| -> Vec<Value> {
        finished(events)
            .iter()
            .map(|call| call["reasoning"].clone())
            .collect()
    };
    assert_eq!(reasoning(&again), reasoning(&first));
    assert!(reasoning(&first).iter().all(Value::is_string));
    let deltas = |events: &[Value]| -> Vec<(Value, Value)> {
        events
            .iter()
            .filter(|e| e["type"] == "call_delta")
            .map(|e| (e["text"].clone(), e["reasoning"].clone()))
            .collect()
    };
    assert_eq!(deltas(&again), deltas(&first), "streamed as recorded");
    assert!(deltas(&first).iter().any(|(_, r)| r == true));
}

#[test]
fn the_dashboard_shows_the_cached_and_reasoning_tokens_of_a_run() {
    let server = Loopback::serve(reasoning_model);
    let sandbox = Sandbox::new();
    let record = sandbox.path("run.jsonl");
    let out = run(
        &sandbox,
        &server.base_url,
        &record.to_string_lossy(),
        &["--no-stream"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let events = conclave::record::read_recording(&record).unwrap().events;
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events, Some("two.json".into()))
        .expect("a recording");
    let mut terminal = Terminal::new(TestBackend::new(140, 30)).unwrap();
    terminal.draw(|frame| view::draw(frame, &app)).unwrap();
    let buffer = terminal.backend().buffer();
    let screen: String = (0..buffer.area.height)
        .map(|y| {
            (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
                + "\n"
        })
        .collect();
    assert!(
        screen.contains("7.2k tok (4.5k cached · 750 reasoning) · $0.0149"),
        "the run's total in the header: {screen}"
    );
}

#[test]
fn a_pricing_file_with_a_cached_input_price_is_read_and_a_bad_one_refused() {
    let sandbox = Sandbox::new();
    let checkout =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/checkout_v2_launch.json");
    let priced = |prices: &str| {
        let file = sandbox.path("prices.json");
        std::fs::write(&file, prices).unwrap();
        let out = sandbox.run(&[
            "run",
            checkout.to_str().unwrap(),
            "--headless",
            "--pricing",
            file.to_str().unwrap(),
        ]);
        (out, file)
    };
    let (out, _) = priced(r#"{"sim": {"input": 1, "output": 2, "cached_input": 0.5}}"#);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let usage = &result(&out)["usage"];
    assert!(usage["cost_usd"].as_f64().is_some(), "{usage}");
    assert!(
        usage.get("cached_tokens").is_none(),
        "the sim caches nothing"
    );

    for (bad, found) in [
        ("\"x\"", "found string \"x\""),
        ("-1", "found whole number -1"),
    ] {
        let (out, file) = priced(&format!(
            "{{\n  \"sim\": {{\"input\": 1, \"output\": 2, \"cached_input\": {bad}}}\n}}\n"
        ));
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(out.stdout.is_empty());
        let err = stderr(&out);
        assert!(
            err.contains(&format!(
                "{}:2:52: sim.cached_input: expected US dollars per million cached input tokens, a number ≥ 0, {found}",
                file.display()
            )),
            "{err}"
        );
    }

    // In a scenario's `provider.pricing`, the same.
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&checkout).unwrap()).unwrap();
    doc["provider"]["pricing"] = json!({"sim": {"input": 1, "output": 2, "cached_input": -1}});
    let file = sandbox.write("priced.json", &doc);
    let out = sandbox.run(&["validate", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("provider.pricing.sim.cached_input"),
        "{}",
        stderr(&out)
    );
    doc["provider"]["pricing"]["sim"]["cached_input"] = json!(0.25);
    let file = sandbox.write("priced.json", &doc);
    let out = sandbox.run(&["validate", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
