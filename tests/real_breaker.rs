//! A real endpoint that fails for a while, behind the gateway's breaker:
//! a swarm agent calls a loopback pricing API turn after turn; the API
//! answers 500 to its first calls. With breakers on, the breaker opens,
//! fails calls fast without reaching the API, lets a probe through once
//! its cooling period is over, and closes when the API has recovered;
//! with breakers off, every call reaches the sick API.

use crate::common;

use common::loopback::{Loopback, Reply};
use common::real::{Sandbox, of_type, recording, stderr};
use serde_json::{Value, json};

/// Calls the agent makes before it replies.
const CALLS: usize = 24;
/// The API's first calls that fail.
const FAILING: usize = 3;

fn scenario(url: &str) -> Value {
    let mut turns: Vec<Value> = (0..CALLS)
        .map(|_| json!({"call": "pricing_api", "args": {"region": "US"}}))
        .collect();
    turns.push(json!({"reply": "Prices checked."}));
    json!({
        "name": "flaky_pricing", "pattern": "swarm",
        "goal": "Check the US prices until the pricing API answers.",
        "context": {},
        "entry": "pricer",
        "agents": {"pricer": {"description": "Checks prices"}},
        "tools": {"pricing_api": {"description": "The pricing API", "http": {"url": url}}},
        "budget": {"max_llm_calls": 40, "max_seconds": 60},
        "flags": {"breakers": {"default": true, "gateway": "circuit_breaker",
                               "description": "Circuit breakers in the gateway"}},
        "resilience": {"circuit_breaker": {"fail_threshold": 2, "open_for_ms": 300,
                                           "half_open_probes": 1}},
        "provider": {"kind": "sim", "latency_ms": {"min": 60, "max": 60},
                     "turns": {"pricer": turns}}
    })
}

fn flaky_api() -> Loopback {
    Loopback::serve(|_, n| {
        if n < FAILING {
            Reply::json(500, &json!({"error": "warming up"}))
        } else {
            Reply::json(200, &json!({"price_index": 1.02}))
        }
    })
}

#[test]
fn the_breaker_opens_on_a_failing_api_and_closes_when_it_recovers() {
    let api = flaky_api();
    let sandbox = Sandbox::new();
    let path = sandbox.write(
        "flaky.json",
        &scenario(&format!("{}/pricing", api.base_url)),
    );
    let out = sandbox.run(&[
        "run",
        path.to_str().unwrap(),
        "--headless",
        "--record",
        "on.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let events = recording(&sandbox.path("on.jsonl"));
    let transitions: Vec<&str> = of_type(&events, "breaker_transition")
        .into_iter()
        .filter(|e| e["tool"] == "pricing_api")
        .map(|e| e["to"].as_str().unwrap())
        .collect();
    let position = |state: &str, after: usize| {
        transitions[after..]
            .iter()
            .position(|s| *s == state)
            .map(|p| p + after)
            .unwrap_or_else(|| panic!("no {state} after {after}: {transitions:?}"))
    };
    let opened = position("open", 0);
    let probing = position("half_open", opened);
    let closed = position("closed", probing);
    assert_eq!(
        transitions.last(),
        Some(&"closed"),
        "closed for good once the API answers: {transitions:?}"
    );
    assert!(closed > probing && probing > opened);
    let rejected = of_type(&events, "call_rejected")
        .into_iter()
        .filter(|e| e["tool"] == "pricing_api")
        .count();
    assert!(rejected > 0, "an open breaker fails calls fast");
    let reached = api.requests().len();
    assert_eq!(
        reached + rejected,
        CALLS,
        "every call either reached the API or was refused"
    );
    let statuses: Vec<&Value> = of_type(&events, "call_finished")
        .into_iter()
        .filter(|e| e["tool"] == "pricing_api" && e["outcome"] == "error")
        .map(|e| &e["http_status"])
        .collect();
    assert_eq!(
        statuses,
        vec![&json!(500); FAILING],
        "each failure carries its status"
    );
}

#[test]
fn with_breakers_off_every_call_reaches_the_failing_api() {
    let on = flaky_api();
    let off = flaky_api();
    let sandbox = Sandbox::new();
    for (api, name, flag) in [
        (&on, "on.json", "breakers=on"),
        (&off, "off.json", "breakers=off"),
    ] {
        let path = sandbox.write(name, &scenario(&format!("{}/pricing", api.base_url)));
        let out = sandbox.run(&["run", path.to_str().unwrap(), "--headless", "--flag", flag]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    assert_eq!(off.requests().len(), CALLS, "nothing spares the API");
    assert!(
        on.requests().len() + 4 <= CALLS,
        "the breaker spared the API calls: {} of {CALLS} reached it",
        on.requests().len()
    );
}
