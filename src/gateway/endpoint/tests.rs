//! The endpoint's parts: routes, requests as they go upstream, budgets,
//! and streams read for their usage as they pass.

use super::spend::Budget;
use super::*;
use crate::bus::TokenUsage;
use serde_json::{Value, json};

#[test]
fn a_path_names_its_run_and_api_and_anything_else_is_refused_by_name() {
    assert_eq!(
        route("POST", "/gateway/run-7/v1/chat/completions"),
        Ok(Route {
            run: "run-7",
            api: Api::ChatCompletions
        })
    );
    assert_eq!(
        route("POST", "/gateway/a.b:c_d/v1/responses").map(|r| r.api),
        Ok(Api::Responses)
    );
    assert_eq!(
        route("GET", "/gateway/r/v1/models").map(|r| r.api),
        Ok(Api::Models)
    );
    let refused = route("POST", "/gateway/r/v1/embeddings").unwrap_err();
    assert_eq!(refused.status, 404);
    assert!(
        refused
            .message
            .contains("/gateway/<run>/v1/chat/completions")
    );
    let refused = route("POST", "/gateway//v1/responses").unwrap_err();
    assert!(
        refused.message.contains("run's name"),
        "{}",
        refused.message
    );
    let long = format!("/gateway/{}/v1/models", "r".repeat(129));
    assert_eq!(route("GET", &long).unwrap_err().status, 404);
    assert_eq!(
        route("GET", "/gateway/a%2Fb/v1/models").unwrap_err().status,
        404
    );
    let refused = route("GET", "/gateway/r/v1/chat/completions").unwrap_err();
    assert_eq!(refused.status, 405);
    assert!(refused.message.contains("POST"));
    let body: Value = serde_json::from_slice(&refused.body()).unwrap();
    assert_eq!(body["error"]["type"], "invalid_request_error");
}

#[test]
fn a_request_goes_upstream_byte_for_byte_unless_its_stream_lacks_usage() {
    let body = br#"{"model":"gpt-4o","tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","x":1.10}}}],"response_format":{"type":"json_schema"}}"#;
    let whole = prepare(Api::ChatCompletions, body).unwrap();
    assert_eq!(whole.body, body.to_vec());
    assert_eq!(whole.model.as_deref(), Some("gpt-4o"));
    assert!(!whole.stream && !whole.strip_usage);
    let asked = br#"{"model":"m","stream":true,"stream_options":{"include_usage":true}}"#;
    let prepared = prepare(Api::ChatCompletions, asked).unwrap();
    assert_eq!(prepared.body, asked.to_vec());
    assert!(prepared.stream && !prepared.strip_usage);
    // Not asked: spliced in, the rest as written.
    let bare = br#" { "stream": true, "model": "m", "temperature": 0.70 }"#;
    let prepared = prepare(Api::ChatCompletions, bare).unwrap();
    assert!(prepared.strip_usage);
    assert_eq!(
        String::from_utf8(prepared.body).unwrap(),
        r#" {"stream_options":{"include_usage":true}, "stream": true, "model": "m", "temperature": 0.70 }"#
    );
    let other = br#"{"stream":true,"stream_options":{"include_obfuscation":false}}"#;
    let prepared: Value =
        serde_json::from_slice(&prepare(Api::ChatCompletions, other).unwrap().body).unwrap();
    assert_eq!(
        prepared["stream_options"],
        json!({"include_obfuscation": false, "include_usage": true})
    );
    // The Responses API reports usage in its last event unasked.
    let responses = br#"{"model":"m","stream":true,"input":"hi"}"#;
    assert_eq!(
        prepare(Api::Responses, responses).unwrap().body,
        responses.to_vec()
    );
}

#[test]
fn a_body_that_is_not_a_json_object_is_refused_saying_where() {
    let refused = prepare(Api::ChatCompletions, b"{\"model\": ").unwrap_err();
    assert_eq!(refused.status, 400);
    assert!(refused.message.contains("not JSON"), "{}", refused.message);
    assert!(
        refused.message.contains("line 1 column"),
        "{}",
        refused.message
    );
    let refused = prepare(Api::Responses, b"[1, 2]").unwrap_err();
    assert!(refused.message.contains("not an object"));
    assert_eq!(
        prepare(Api::Responses, &[0xff, 0xfe]).unwrap_err().status,
        400
    );
}

#[test]
fn whole_answers_count_cached_and_reasoning_tokens_of_either_api() {
    let chat = json!({"model": "gpt-4o-2024-08-06", "usage": {"prompt_tokens": 120, "completion_tokens": 40,
        "prompt_tokens_details": {"cached_tokens": 100}, "completion_tokens_details": {"reasoning_tokens": 24}}});
    let (usage, model) = usage_of_answer(Api::ChatCompletions, chat.to_string().as_bytes());
    let usage = usage.unwrap();
    assert_eq!(
        (usage.input, usage.output, usage.cached, usage.reasoning),
        (120, 40, 100, 24)
    );
    assert_eq!(model.as_deref(), Some("gpt-4o-2024-08-06"));
    let responses = json!({"model": "o3-mini", "usage": {"input_tokens": 50, "output_tokens": 9,
        "input_tokens_details": {"cached_tokens": 80}, "output_tokens_details": {"reasoning_tokens": 4}}});
    let (usage, _) = usage_of_answer(Api::Responses, responses.to_string().as_bytes());
    let usage = usage.unwrap();
    assert_eq!(
        (usage.input, usage.output, usage.cached, usage.reasoning),
        (50, 9, 50, 4),
        "a part is held at its whole"
    );
    assert_eq!(
        usage_of_answer(Api::ChatCompletions, b"not json"),
        (None, None)
    );
}

fn tokens(input: u64, output: u64) -> TokenUsage {
    TokenUsage {
        input,
        output,
        ..TokenUsage::default()
    }
}

#[test]
fn the_call_past_a_budget_counts_and_the_next_is_refused_naming_it() {
    let budgets = Budgets {
        max_tokens: Some(300),
        ..Budgets::default()
    };
    let mut spend = RunSpend::new(budgets, None);
    spend.admit().unwrap();
    assert_eq!(spend.charge(tokens(100, 50), Some("gpt-4o"), None).1, None);
    spend.admit().unwrap();
    let (priced, over) = spend.charge(tokens(100, 50), Some("gpt-4o"), None);
    assert_eq!(over, None, "equal to a limit is not past it");
    assert_eq!(priced.cost_usd, Some(0.00075));
    spend.admit().unwrap();
    let over = spend.charge(tokens(1, 0), Some("gpt-4o"), None).1.unwrap();
    assert_eq!(over.budget, Budget::Tokens);
    assert_eq!(spend.admit(), Err(over.clone()));
    let body: Value = serde_json::from_slice(&over.body()).unwrap();
    assert_eq!(body["error"]["code"], "max_tokens");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("--max-tokens 300 tokens") && message.contains("301 tokens"));
    let (calls, total) = spend.spent();
    assert_eq!((calls, total.input, total.output), (3, 201, 100));
}

#[test]
fn calls_and_dollars_are_budgets_too_and_an_unpriced_model_costs_nothing() {
    let mut spend = RunSpend::new(
        Budgets {
            max_calls: Some(2),
            ..Budgets::default()
        },
        None,
    );
    spend.admit().unwrap();
    spend.admit().unwrap();
    let over = spend.admit().unwrap_err();
    assert_eq!((over.budget, over.limit.as_str()), (Budget::Calls, "2"));
    assert_eq!(spend.spent().0, 2, "the refused call was not sent");

    let mut spend = RunSpend::new(
        Budgets {
            max_cost_usd: Some(0.001),
            ..Budgets::default()
        },
        None,
    );
    let (usage, over) = spend.charge(tokens(1_000_000, 0), Some("no-such-model"), None);
    assert_eq!((usage.cost_usd, over), (None, None));
    // A dated name is priced as its model; the name asked for when the
    // answer names none.
    let over = spend
        .charge(tokens(1_000, 0), None, Some("gpt-4o-2024-08-06"))
        .1;
    assert_eq!(over.unwrap().budget, Budget::Cost);
    assert_eq!(spend.spent().1.cost_usd, Some(0.0025));
}

/// A chat stream as OpenAI sends it, with its usage chunk.
fn chat_stream() -> String {
    let chunk = |delta: Value| {
        json!({"model": "gpt-4o", "choices": [{"index": 0, "delta": delta}]}).to_string()
    };
    let usage = json!({"model": "gpt-4o", "choices": [],
                       "usage": {"prompt_tokens": 12, "completion_tokens": 3}});
    format!(
        "data: {}\n\ndata: {}\n\ndata: {usage}\n\ndata: [DONE]\n\n",
        chunk(json!({"content": "Hel"})),
        chunk(json!({"content": "lo"}))
    )
}

/// `stream` fed in pieces of `size` bytes: what was passed on, and the
/// meter.
fn fed(stream: &str, size: usize, strip: bool) -> (String, StreamMeter) {
    let mut meter = StreamMeter::new(Api::ChatCompletions, strip);
    let mut out = Vec::new();
    for piece in stream.as_bytes().chunks(size) {
        out.extend(meter.feed(piece));
    }
    out.extend(meter.finish());
    (String::from_utf8(out).unwrap(), meter)
}

#[test]
fn a_stream_passes_as_it_came_and_its_usage_is_read_in_any_pieces() {
    let stream = chat_stream();
    for size in [1, 2, 3, 7, 64, stream.len()] {
        let (out, meter) = fed(&stream, size, false);
        assert_eq!(out, stream, "pieces of {size}");
        let usage = meter.usage().unwrap();
        assert_eq!((usage.input, usage.output), (12, 3));
        assert_eq!(meter.model(), Some("gpt-4o"));
        assert!(meter.done());
    }
    // Passed on at once, not held to an event's end.
    let mut meter = StreamMeter::new(Api::ChatCompletions, false);
    assert_eq!(meter.feed(b"data: {\"cho"), b"data: {\"cho".to_vec());
}

#[test]
fn a_usage_chunk_the_client_did_not_ask_for_is_kept_from_it() {
    let stream = chat_stream();
    let usage_event = stream.split("\n\n").nth(2).unwrap().to_string() + "\n\n";
    let without = stream.replace(&usage_event, "");
    for size in [1, 5, 16, stream.len()] {
        let (out, meter) = fed(&stream, size, true);
        assert_eq!(out, without, "pieces of {size}");
        assert_eq!(meter.usage().unwrap().input, 12);
    }
    // Each event goes on the moment it is whole.
    let mut meter = StreamMeter::new(Api::ChatCompletions, true);
    assert!(meter.feed(b"data: {\"choices\":[]}").is_empty());
    assert_eq!(
        meter.feed(b"\r\n\r\n"),
        b"data: {\"choices\":[]}\r\n\r\n".to_vec()
    );
}

#[test]
fn a_responses_stream_is_metered_from_its_completed_event() {
    let completed = json!({"type": "response.completed", "response": {"model": "gpt-4o",
        "usage": {"input_tokens": 30, "output_tokens": 7, "output_tokens_details": {"reasoning_tokens": 2}}}});
    let stream = format!(
        "event: response.output_text.delta\ndata: {}\n\nevent: response.completed\ndata: {completed}\n\n",
        json!({"type": "response.output_text.delta", "delta": "hi"})
    );
    let mut meter = StreamMeter::new(Api::Responses, false);
    let out = meter.feed(stream.as_bytes());
    assert_eq!(out, stream.as_bytes());
    let usage = meter.usage().unwrap();
    assert_eq!((usage.input, usage.output, usage.reasoning), (30, 7, 2));
    assert!(meter.done());
}

#[test]
fn an_endless_event_is_passed_on_unread_and_memory_stays_bounded() {
    for strip in [false, true] {
        let mut meter = StreamMeter::new(Api::ChatCompletions, strip);
        let piece = vec![b'x'; 64 * 1024];
        let mut passed = 0;
        for _ in 0..64 {
            passed += meter.feed(&piece).len();
        }
        assert!(meter.tail.len() <= super::stream::MAX_EVENT_FOR_TESTS);
        passed += meter.feed(b"\n\ndata: [DONE]\n\n").len();
        passed += meter.finish().len();
        assert_eq!(passed, 64 * 64 * 1024 + 16, "strip {strip}");
        assert!(meter.done(), "read again after the long event");
    }
}

#[test]
fn the_upstreams_key_never_prints() {
    let key = UpstreamKey("sk-secret-key-123".to_string());
    assert_eq!(format!("{key:?}"), "[redacted]");
    assert_eq!(key.bearer(), "Bearer sk-secret-key-123");
}
