//! A step down of the output mode is not a retry (issue 87, item 5):
//! `slow_dependency`, whose model may take two attempts per call, run in
//! `auto` against an endpoint that refuses `json_schema` as
//! llama-cpp-python does and then interrupts the stream of each request
//! once, ends as it does on the sim: the step down to tool mode took none
//! of the two attempts, and the interrupted stream was tried again.

use crate::common;
use crate::real_models::{
    Case, Pattern, ends_as_on_the_sim, headless, mode_changes, never_a_false_success, orchestrator,
    scripted, streams_as_asked,
};
use common::messy::{Behaviour, Messy};

const FILE: &str = "slow_dependency.json";

#[test]
fn a_step_down_of_auto_takes_no_attempt_and_an_interrupted_stream_is_tried_again() {
    let mut doc = scripted(FILE);
    doc["provider"]["output"] = "auto".into();
    // The hanging search worker is given up on at its task's timeout, on
    // the endpoint's real clock: sooner, as every latency is zero.
    doc["budget"]["task_timeout_seconds"] = 0.5.into();
    assert_eq!(
        doc["resilience"]["retries"]["max_attempts"], 2,
        "the scenario's model gets two attempts a call"
    );
    assert!(doc["resilience"]["tools"].get("model").is_none());
    let sim = headless(&doc, &[]);
    let endpoint = Messy::serve(&doc, Behaviour::RefusesThenInterrupts, true);
    let run = headless(&doc, &endpoint.model_args());
    let pattern = Pattern {
        name: "slow_dependency",
        file: FILE,
        first: "",
        decision: orchestrator,
        team: false,
    };
    let case = Case {
        pattern: &pattern,
        doc,
        streamed: true,
        requests: endpoint.requests(),
        run,
        endpoint,
    };
    ends_as_on_the_sim(&case, &sim);
    streams_as_asked(&case);
    never_a_false_success(&case);
    assert_eq!(
        mode_changes(&case),
        [("native".to_string(), "tool".to_string())],
        "{}",
        case.about()
    );
    // The first call's attempts: refused in native, interrupted in tool
    // mode, answered on the retry: three attempts under `max_attempts: 2`.
    let first: Vec<&serde_json::Value> = case
        .run
        .events
        .iter()
        .filter(|e| e["type"] == "call_finished" && e["tool"] == "model")
        .take(3)
        .collect();
    let outcomes: Vec<&str> = first
        .iter()
        .map(|e| e["outcome"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(outcomes[2], "ok", "{outcomes:?}: {}", case.about());
    let interrupted = case.model_calls_failed().len() - 1;
    assert!(interrupted > 0, "{}", case.about());
    let retries = case
        .run
        .events
        .iter()
        .filter(|e| e["type"] == "retry_scheduled" && e["tool"] == "model")
        .count();
    assert_eq!(retries, interrupted, "only the interruptions were retried");
}
