//! Tool mode ends a member's turn at its `reply` (issue 58): a member of a
//! coordinator, of a nested team and of a graph's team node that answers
//! through the `reply` function is asked once, as one that answers with
//! text is. The real binary runs the shipped scenarios against the
//! loopback model in `--output tool`; the endpoint gets as many model
//! calls as the sim makes, and each run ends as on the sim. A tool-mode
//! run's answers stream as function arguments, recorded as such and
//! served again by its cassette delta for delta.

use crate::common;
use crate::real_models::{Run, headless, headless_in};

use common::messy::{Behaviour, Messy};
use common::script::quick;
use serde_json::Value;

/// The model calls a run made, as its recording has them: who asked.
fn model_calls(run: &Run) -> Vec<String> {
    let started: std::collections::HashMap<&Value, String> = run
        .events
        .iter()
        .filter(|e| e["type"] == "call_started" && e["tool"] == "model")
        .map(|e| (&e["call"], e["agent"].as_str().unwrap_or("-").to_string()))
        .collect();
    run.events
        .iter()
        .filter(|e| e["type"] == "call_finished" && e["tool"] == "model")
        .map(|e| started.get(&e["call"]).cloned().unwrap_or_default())
        .collect()
}

/// `file` on the sim and against the loopback model asked in tool mode,
/// streamed and whole.
fn asks_as_many_as_the_sim(file: &str, decision: &[&str]) {
    let doc = quick(file);
    let sim = headless(&doc, &[]);
    let sim_calls = model_calls(&sim);
    assert!(!sim_calls.is_empty(), "{}", sim.stderr);
    for streamed in [true, false] {
        let endpoint = Messy::serve(&doc, Behaviour::Plain, streamed);
        let mut args = vec![
            "--provider",
            "openai",
            "--model",
            "mock-model",
            "--base-url",
            &endpoint.base_url,
            "--output",
            "tool",
        ];
        if !streamed {
            args.push("--no-stream");
        }
        let run = headless(&doc, &args);
        let about = format!(
            "{file} ({}): sim called {sim_calls:?}, the endpoint run {:?}\nstderr: {}\nresult: {}",
            if streamed { "streamed" } else { "whole" },
            model_calls(&run),
            run.stderr,
            run.result
        );
        assert_eq!(endpoint.requests().len(), sim_calls.len(), "{about}");
        assert_eq!(model_calls(&run).len(), sim_calls.len(), "{about}");
        assert_eq!(run.exit, sim.exit, "{about}");
        for key in decision {
            assert_eq!(run.result[*key], sim.result[*key], "{key}: {about}");
        }
    }
}

#[test]
fn a_nested_teams_members_replying_through_the_reply_function_are_asked_once() {
    asks_as_many_as_the_sim(
        "nested_launch_team.json",
        &[
            "status",
            "stop_reason",
            "final_agent",
            "answer",
            "llm_calls",
        ],
    );
}

#[test]
fn a_graphs_team_node_asks_its_writer_and_fact_checker_once_a_visit() {
    asks_as_many_as_the_sim(
        "graph_team_draft.json",
        &["status", "stop_reason", "path", "visits", "outputs"],
    );
}

/// The `call_delta`s of a run: their text and whether they are a
/// function call's arguments.
fn deltas(run: &Run) -> Vec<(Value, Value)> {
    // Each call's deltas in their order; calls made side by side
    // interleave as the network has them, so they are taken call by call.
    let mut deltas: Vec<(u64, Value, Value)> = run
        .events
        .iter()
        .filter(|e| e["type"] == "call_delta")
        .map(|e| {
            let call = e["call"].as_u64().unwrap_or_default();
            (call, e["text"].clone(), e["arguments"].clone())
        })
        .collect();
    deltas.sort_by_key(|(call, ..)| *call);
    deltas
        .into_iter()
        .map(|(_, text, arguments)| (text, arguments))
        .collect()
}

#[test]
fn a_tool_mode_runs_streamed_arguments_are_recorded_as_such_and_served_again() {
    let doc = quick("launch_coordinator.json");
    let endpoint = Messy::serve(&doc, Behaviour::Plain, true);
    let work = tempfile::tempdir().unwrap();
    let live = [
        "--provider",
        "openai",
        "--model",
        "mock-model",
        "--base-url",
        &endpoint.base_url,
        "--output",
        "tool",
    ];
    let recorded = headless_in(work.path(), &doc, &live);
    assert_eq!(recorded.exit, Some(0), "{}", recorded.stderr);
    let streamed = deltas(&recorded);
    assert!(
        !streamed.is_empty() && streamed.iter().all(|(_, arguments)| arguments == true),
        "every answer came as a function call's arguments: {streamed:?}"
    );
    let asked = endpoint.requests().len();

    // Served from the recording: the same deltas, nothing asked.
    let cassette = work.path().join("recorded.jsonl");
    std::fs::rename(work.path().join("run.jsonl"), &cassette).unwrap();
    let mut served_args = live.to_vec();
    served_args.extend(["--cassette", cassette.to_str().unwrap()]);
    let served = headless_in(work.path(), &doc, &served_args);
    assert_eq!(served.exit, Some(0), "{}", served.stderr);
    assert_eq!(served.result, recorded.result);
    assert_eq!(
        endpoint.requests().len(),
        asked,
        "nothing reached the model"
    );
    assert_eq!(deltas(&served), streamed, "streamed as recorded");
}
