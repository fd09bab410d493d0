//! The captured TypeScript runs (`tests/fixtures/watch/js/` made them:
//! the Vercel AI SDK three ways, LangGraph.js's supervisor and OpenAI
//! Agents JS, each a triage/billing run) read back as the headless line,
//! over HTTP and gRPC, with no Node at test time; and every framework's
//! run, Python's too, gives its final answer.

use super::fixture_tests::{holds, read_json, set_dir};
use serde_json::{Value, json};

/// The AI SDK set-ups: 7 with `@ai-sdk/otel` first, the one the others
/// must read as.
const AI_SDK: [&str; 3] = ["ai_sdk7_otel", "ai_sdk6_telemetry", "ai_sdk7_legacy"];

/// What must be the same in two set-ups of one run: the agents, the
/// handoffs, the tool calls, the model calls, tokens and cost.
fn same_run(line: &Value) -> Value {
    let tools: Vec<Value> = line["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| json!([c["agent"], c["tool"], c["status"]]))
        .collect();
    json!({
        "agents": line["agents"],
        "handoffs": line["handoffs"],
        "tools": tools,
        "model_calls": line["model_calls"],
        "tokens": [line["input_tokens"], line["output_tokens"], line["cached_input_tokens"]],
        "cost_usd": line["cost_usd"],
        "unpriced_calls": line["unpriced_calls"],
    })
}

/// A set's line against what its capture script noted beyond the common
/// facts: the cached tokens, the final answer, the framework; no error,
/// every span understood.
fn holds_the_rest(set: &str, line: &Value, framework: &str) {
    let expected = read_json(&set_dir(set).join("expected.json"));
    assert_eq!(line["framework"], framework, "{set}");
    assert_eq!(
        line["cached_input_tokens"], expected["cached_input_tokens"],
        "{set}"
    );
    assert_eq!(line["final_answer"], expected["final_answer"], "{set}");
    assert_eq!(line["errors"], 0, "{set}");
    assert_eq!(line["spans_not_understood"], 0, "{set}");
}

/// AI SDK 6's `experimental_telemetry` (`ai.*` spans) and AI SDK 7's
/// LegacyOpenTelemetry read as AI SDK 7's `@ai-sdk/otel` run reads:
/// triage and billing, the delegation through `ask_billing`, three tools,
/// five model calls with the tokens the scripted model gave (the loop
/// spans' `ai.usage.*` totals never added), priced alike.
#[tokio::test]
async fn the_ai_sdk_set_ups_read_as_one_run() {
    let mut runs = Vec::new();
    for set in AI_SDK {
        for line in holds(set).await {
            holds_the_rest(set, &line, "vercel-ai-sdk");
            assert_eq!(line["model_calls"], 5, "{set}");
            assert_eq!(line["unpriced_calls"], 0, "{set}");
            assert!(line["cost_usd"].as_f64().unwrap() > 0.0, "{set}");
            runs.push((set, same_run(&line)));
        }
    }
    let (first, want) = &runs[0];
    for (set, run) in &runs {
        assert_eq!(run, want, "{set} reads as {first} does");
    }
}

/// LangGraph.js's supervisor hands off by raising `ParentCommand`, which
/// the instrumentation marks as span errors: control flow, no failure.
#[tokio::test]
async fn the_langgraph_js_supervisor_run_has_no_error() {
    let set = "langgraph_js_supervisor_openinference";
    for line in holds(set).await {
        holds_the_rest(set, &line, "langgraph-js");
    }
}

#[tokio::test]
async fn openai_agents_js_through_openinference_reads_as_its_run() {
    let set = "openai_agents_js_openinference";
    for line in holds(set).await {
        holds_the_rest(set, &line, "openai-agents-js");
    }
}

/// Each Python framework's run gives the answer its last model call
/// made in text; AutoGen's spans carry none (its messages' content is
/// not exported), and its line says none rather than a wrong one.
#[tokio::test]
async fn every_python_frameworks_run_gives_its_final_answer() {
    let answers = [
        (
            "openai_agents_openinference",
            Some("It is sunny and 21 C in Paris."),
        ),
        (
            "openai_agents_traceloop",
            Some("It is sunny and 21 C in Paris."),
        ),
        (
            "openai_agents_contrib",
            Some("It is sunny and 21 C in Paris."),
        ),
        ("pydantic_ai", Some("About 520,000 people live in Lyon.")),
        (
            "crewai_event_listener",
            Some("E-bikes: an 18 billion euro European market, growing 10% a year."),
        ),
        ("autogen", None),
    ];
    for (set, answer) in answers {
        for line in holds(set).await {
            assert_eq!(line["final_answer"], json!(answer), "{set}");
        }
    }
    for line in holds("langgraph_supervisor_openinference").await {
        let answer = line["final_answer"].as_str().unwrap_or_default();
        assert!(
            answer.starts_with("Paris, home to some 2.1 million"),
            "{answer}"
        );
    }
    // This graph's supervisor routes by answering a node's name, and its
    // last word, the graph's last message too, is `FINISH`.
    for line in holds("langgraph_openinference").await {
        assert_eq!(line["final_answer"], "FINISH");
    }
}
