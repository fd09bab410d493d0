//! Numbers at their limits, through the built binary: a price near the
//! largest number still gives a cost, token counts past 2^64 − 1 (as a
//! loopback model reports them) are held there and said to be, in a run's
//! usage and in a sweep's document, and a pricing file that names a model
//! twice is refused as a scenario's key given twice is.

use crate::common;

use common::cli::result;
use common::loopback::{Captured, Loopback, Reply};
use common::real::{Sandbox, stderr};
use serde_json::{Value, json};

const KEY: &str = "sk-huge-7Qm2Vx9Lr4Tz8Wc1Np6Hs3Jd";

/// Past 2^64: the first call reports it; JSON can write it, and a reader
/// that wants a u64 gets none.
const PAST_THE_LARGEST: &str = "100000000000000000000";

/// A chat-completions endpoint for the two analysts: each says go, the
/// closing text is prose, and every call reports close to 2^64 prompt
/// tokens (the first past it).
fn answer(request: &Captured, n: usize) -> Reply {
    let prompt = if n == 0 {
        PAST_THE_LARGEST.to_string()
    } else {
        (u64::MAX - 1).to_string()
    };
    completion(asked_role(request).as_deref(), &prompt)
}

/// The analyst a request asks, or none for the closing call.
fn asked_role(request: &Captured) -> Option<String> {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let asked: Value = body["messages"][1]["content"]
        .as_str()
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or(Value::Null);
    asked["role"].as_str().map(str::to_string)
}

/// The analyst's go, or the closing prose, reporting `prompt` (JSON
/// number text) prompt tokens and 3 completion tokens.
fn completion(role: Option<&str>, prompt: &str) -> Reply {
    let content = match role {
        Some(role) => json!({"agent": role, "stance": "go", "summary": "no blocker",
                             "confidence": 0.8, "actions": ["ship"]})
        .to_string(),
        None => "Launch on Monday.".to_string(),
    };
    let completion = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "mock-model",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": "PROMPT", "completion_tokens": 3}
    })
    .to_string()
    .replace("\"PROMPT\"", prompt);
    Reply::new(200, common::loopback::Body::Bytes(completion.into_bytes()))
        .header("content-type", "application/json")
}

fn two_analysts(sandbox: &Sandbox) -> String {
    two_analysts_under(sandbox, &json!({}))
}

/// The two analysts' scenario, its budget holding `more` as well.
fn two_analysts_under(sandbox: &Sandbox, more: &Value) -> String {
    let mut budget = json!({"max_rounds": 1, "min_go_votes": 2});
    for (key, value) in more.as_object().unwrap() {
        budget[key] = value.clone();
    }
    let doc = json!({
        "name": "two_analysts", "pattern": "collaboration",
        "goal": "Decide whether to launch", "context": {"region": "US"},
        "budget": budget,
        "team": {"roles": {"demand_analyst": {}, "risk_analyst": {}},
                 "sequence": ["demand_analyst", "risk_analyst"]},
        "provider": {"kind": "openai", "model": "mock-model", "stream": false}
    });
    sandbox
        .write("two.json", &doc)
        .to_str()
        .unwrap()
        .to_string()
}

/// `run --headless` of the two analysts against `server`, under a
/// `max_cost_usd` of `budget`, at `prices`.
fn run_priced(server: &Loopback, budget: f64, prices: &str) -> std::process::Output {
    let sandbox = Sandbox::new();
    let file = two_analysts_under(&sandbox, &json!({"max_cost_usd": budget}));
    run_on_endpoint_priced(&sandbox, &file, server, prices)
}

/// `file` run headless on the loopback endpoint, priced with `prices`.
fn run_on_endpoint_priced(
    sandbox: &Sandbox,
    file: &str,
    server: &Loopback,
    prices: &str,
) -> std::process::Output {
    let priced = sandbox.path("prices.json");
    std::fs::write(&priced, prices).unwrap();
    sandbox.run_with(
        &[
            "run",
            file,
            "--headless",
            "--provider",
            "openai",
            "--base-url",
            &server.base_url,
            "--pricing",
            priced.to_str().unwrap(),
        ],
        &[("OPENAI_API_KEY", KEY)],
    )
}

const HUGE_PRICES: &str = r#"{"mock-model": {"input": 1e308, "output": 1e308}}"#;

#[test]
fn a_cost_past_the_largest_number_is_past_even_the_largest_budget() {
    let server = Loopback::serve(|request, _| {
        completion(asked_role(request).as_deref(), &u64::MAX.to_string())
    });
    let out = run_priced(&server, f64::MAX, HUGE_PRICES);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let result = result(&out);
    assert_eq!(result["stop_reason"], "max_cost", "{result}");
    assert_eq!(result["usage"]["saturated"], true, "{result}");
}

#[test]
fn a_cost_that_overflows_on_the_last_call_still_stops_the_run() {
    // The analysts' calls cost 8e302 dollars each, under the budget; the
    // closing call's cost is past the largest number.
    let server = Loopback::serve(|request, _| {
        let role = asked_role(request);
        let prompt = if role.is_some() { 5 } else { u64::MAX };
        completion(role.as_deref(), &prompt.to_string())
    });
    let out = run_priced(&server, 1e308, HUGE_PRICES);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let result = result(&out);
    assert_eq!(result["status"], "stopped", "{result}");
    assert_eq!(result["stop_reason"], "max_cost", "{result}");
    assert_eq!(result["usage"]["cost_usd"], f64::MAX, "{result}");
}

#[test]
fn a_price_past_the_largest_number_is_refused_naming_its_model_and_field() {
    let server = Loopback::serve(|request, _| completion(asked_role(request).as_deref(), "5"));
    let out = run_priced(
        &server,
        1e308,
        r#"{"mock-model": {"input": 1, "output": 1e999}}"#,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("prices.json:1:")
            && err.contains("mock-model.output: expected US dollars per million output tokens, a finite number ≥ 0, found 1e999"),
        "{err}"
    );
    assert!(server.requests().is_empty(), "nothing was asked");
}

#[test]
fn a_runs_tokens_past_the_largest_count_are_held_and_said() {
    let server = Loopback::serve(answer);
    let sandbox = Sandbox::new();
    let file = two_analysts(&sandbox);
    let prices = r#"{"mock-model": {"input": 1e308, "output": 1}}"#;
    let out = run_on_endpoint_priced(&sandbox, &file, &server, prices);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let usage = &result(&out)["usage"];
    assert_eq!(usage["input_tokens"], u64::MAX, "{usage}");
    assert_eq!(usage["saturated"], true, "{usage}");
    assert_eq!(
        usage["cost_usd"],
        f64::MAX,
        "the cost past the largest number is held there: {usage}"
    );
    assert_eq!(
        usage["by_agent"]["demand_analyst"]["input_tokens"],
        u64::MAX,
        "a count past 2^64 reads as held, not as none: {usage}"
    );
}

#[test]
fn a_sweeps_token_counts_are_held_not_wrapped() {
    let server = Loopback::serve(answer);
    let sandbox = Sandbox::new();
    let file = two_analysts(&sandbox);
    let out = sandbox.run_with(
        &[
            "sweep",
            &file,
            "--seeds",
            "1..2",
            "--parallel",
            "1",
            "--headless",
            "--allow-real",
            "--provider",
            "openai",
            "--base-url",
            &server.base_url,
        ],
        &[("OPENAI_API_KEY", KEY)],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let tokens = &result(&out)["combinations"][0]["tokens"];
    assert_eq!(tokens["input"]["min"], u64::MAX, "{tokens}");
    assert_eq!(tokens["input"]["max"], u64::MAX, "{tokens}");
    assert_eq!(tokens["input"]["total"], u64::MAX, "{tokens}");
    assert_eq!(tokens["input"]["saturated"], true, "{tokens}");
    assert_eq!(tokens["output"]["total"], 18, "{tokens}");
    assert!(tokens["output"].get("saturated").is_none(), "{tokens}");
}

#[test]
fn a_sweeps_per_run_figures_agree_with_the_run_alone_at_the_largest_count() {
    let server = Loopback::serve(|request, _| {
        completion(asked_role(request).as_deref(), &u64::MAX.to_string())
    });
    let sandbox = Sandbox::new();
    let file = two_analysts(&sandbox);
    let prices = sandbox.path("prices.json");
    std::fs::write(&prices, HUGE_PRICES).unwrap();
    let common = [
        "--headless",
        "--provider",
        "openai",
        "--base-url",
        &server.base_url,
        "--pricing",
        prices.to_str().unwrap(),
    ];
    let env = [("OPENAI_API_KEY", KEY)];
    let alone = sandbox.run_with(&[&["run", &file][..], &common].concat(), &env);
    let alone = result(&alone);
    let swept = sandbox.run_with(
        &[
            &[
                "sweep",
                &file,
                "--seeds",
                "1..3",
                "--parallel",
                "1",
                "--allow-real",
            ][..],
            &common,
        ]
        .concat(),
        &env,
    );
    assert_eq!(swept.status.code(), Some(0), "{}", stderr(&swept));
    let combination = &result(&swept)["combinations"][0];
    let input = &combination["tokens"]["input"];
    for figure in ["min", "mean", "max", "p50"] {
        assert_eq!(
            input[figure], alone["usage"]["input_tokens"],
            "the input tokens' {figure}, as the run alone says: {input}"
        );
    }
    assert_eq!(input["saturated"], true, "{input}");
    let cost = &combination["cost_usd"];
    for figure in ["min", "mean", "max"] {
        assert_eq!(
            cost[figure], alone["usage"]["cost_usd"],
            "the cost's {figure}, as the run alone says: {cost}"
        );
    }
    assert_eq!(cost["saturated"], true, "{cost}");
}

#[test]
fn a_price_near_the_largest_number_still_gives_a_cost() {
    let (out, _) = checkout_priced(r#"{"sim": {"input": 1e308, "output": 1e308}}"#);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let usage = &result(&out)["usage"];
    let tokens = usage["input_tokens"].as_u64().unwrap() + usage["output_tokens"].as_u64().unwrap();
    let cost = usage["cost_usd"]
        .as_f64()
        .unwrap_or_else(|| panic!("a cost, not {}", usage["cost_usd"]));
    // Every token at 1e302 dollars.
    let expected = tokens as f64 * 1e302;
    assert!(
        (cost / expected - 1.0).abs() < 1e-9,
        "{cost} for {tokens} tokens"
    );
    assert!(usage.get("saturated").is_none(), "{usage}");
}

#[test]
fn a_pricing_file_naming_a_model_twice_is_refused_with_both_places() {
    let (out, prices) = checkout_priced(
        "{\n  \"sim\": {\"input\": 1, \"output\": 2},\n  \"sim\": {\"input\": 0, \"output\": 0}\n}\n",
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "{}:3:3: sim: duplicate key \"sim\": already given at line 2, column 3",
            prices.display()
        )),
        "{err}"
    );
}

/// `run --headless` of the checkout scenario with `prices` as its
/// `--pricing` file; the output and the file's path.
fn checkout_priced(prices: &str) -> (std::process::Output, std::path::PathBuf) {
    let sandbox = Sandbox::new();
    let file = sandbox.path("prices.json");
    std::fs::write(&file, prices).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let checkout = root.join("scenarios/checkout_v2_launch.json");
    let out = sandbox.run(&[
        "run",
        checkout.to_str().unwrap(),
        "--headless",
        "--pricing",
        file.to_str().unwrap(),
    ]);
    (out, file)
}
