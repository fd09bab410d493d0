//! The graph pattern from the command line: each load-time finding makes
//! `conclave validate` exit 2 naming its place in the file; a recorded run
//! is the same twice and replays to the same result; and an endpoint's
//! messy answers (JSON in a fence, JSON in prose) are read, while a verdict
//! outside the node's values stops the run with `invalid_output`.

use crate::common;

use common::loopback::{Captured, Loopback, Reply};
use common::real::Sandbox;
use serde_json::{Value, json};

/// The review loop of the shipped scenario, with `change` applied to its
/// graph section.
fn review_loop(change: impl FnOnce(&mut Value)) -> Value {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/graph_review_loop.json"),
    )
    .unwrap();
    let mut document: Value = serde_json::from_str(&text).unwrap();
    change(&mut document["graph"]);
    document
}

/// `conclave validate` on `document`: its exit code and what it said.
fn validate(document: &Value) -> (Option<i32>, String) {
    let sandbox = Sandbox::new();
    let file = sandbox.write("graph.json", document);
    let out = sandbox.run(&["validate", file.to_str().unwrap()]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), said)
}

/// Each finding, from one change to the shipped loop: the place it names
/// and words of its message.
#[test]
fn each_load_time_finding_exits_2_naming_its_place() {
    type Change = fn(&mut Value);
    let cases: Vec<(&str, Change, &str, &str)> = vec![
        (
            "a routed value no edge takes",
            |g| {
                g["edges"].as_array_mut().unwrap().remove(8);
            },
            "graph.nodes[3]",
            "its value \"reject\" is taken by no edge and caught by no default",
        ),
        (
            "an unconditional cycle",
            |g| g["edges"][7] = json!({"from": "review", "to": "draft"}),
            "graph.edges[7]",
            "has no condition on any edge",
        ),
        (
            "a cycle with no bound",
            |g| {
                g["nodes"][2].as_object_mut().unwrap().remove("max_visits");
            },
            "graph.edges[7]",
            "has no bound: give one of its nodes `max_visits`",
        ),
        (
            "a join input that cannot be reached",
            |g| {
                g["nodes"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"id": "merge", "wait": "all", "inputs": ["publish", "ask"]}));
                g["edges"][11] = json!({"from": "publish", "to": "merge"});
                let edges = g["edges"].as_array_mut().unwrap();
                edges.push(json!({"from": "merge", "to": "done"}));
            },
            "graph.nodes[9].inputs[1]",
            "join \"merge\" waits on \"ask\", which has no edge into the join",
        ),
        (
            "a node the entry cannot reach",
            |g| {
                let nodes = g["nodes"].as_array_mut().unwrap();
                nodes.push(json!({"id": "orphan", "agent": "writer"}));
                let edges = g["edges"].as_array_mut().unwrap();
                edges.push(json!({"from": "orphan", "to": "done"}));
            },
            "graph.nodes[9]",
            "node \"orphan\" cannot be reached from the entry \"plan\"",
        ),
        (
            "parallel writers without append",
            |g| {
                g["state"]["findings"] = json!({"merge": "replace"});
                let nodes = g["nodes"].as_array_mut().unwrap();
                nodes.push(
                    json!({"id": "side", "agent": "researcher", "write": {"findings": "/text"}}),
                );
                nodes.push(json!({"id": "both", "wait": "all", "inputs": ["research", "side"]}));
                let edges = g["edges"].as_array_mut().unwrap();
                edges[2] = json!({"from": "research", "to": "both"});
                edges.push(json!({"from": "plan", "to": "side"}));
                edges.push(json!({"from": "side", "to": "both"}));
                edges.push(json!({"from": "both", "to": "draft"}));
            },
            "graph.nodes[9]",
            "may run at once and both write the state key \"findings\"",
        ),
        (
            "two edges into a node that is not a join",
            |g| {
                let edges = g["edges"].as_array_mut().unwrap();
                edges.push(json!({"from": "plan", "to": "draft"}));
            },
            "graph.nodes[2]",
            "is not a join",
        ),
        (
            "a team node naming no team",
            |g| g["nodes"][2] = json!({"id": "draft", "team": "drafting", "max_visits": 3}),
            "graph.nodes[2].team",
            "node \"draft\": expected a team declared in teams (none is declared), found \"drafting\"",
        ),
    ];
    for (what, change, place, words) in cases {
        let (code, said) = validate(&review_loop(change));
        assert_eq!(code, Some(2), "{what}: {said}");
        assert!(said.contains("graph.json"), "{what} names the file: {said}");
        let line = said
            .lines()
            .find(|l| l.contains(words))
            .unwrap_or_else(|| panic!("{what}: no {words:?} in {said}"));
        assert!(line.contains(place), "{what}: {place} in {line}");
    }
    let (code, said) = validate(&review_loop(|_| {}));
    assert_eq!(code, Some(0), "the shipped loop is clean: {said}");
}

/// A recorded run is the same twice, and its replay prints its result:
/// the review loop, and the loop whose draft is a team node.
#[test]
fn two_recorded_runs_and_a_replay_are_byte_identical() {
    recorded_twice_and_replayed("graph_review_loop.json");
    recorded_twice_and_replayed("graph_team_draft.json");
}

fn recorded_twice_and_replayed(file: &str) {
    let sandbox = Sandbox::new();
    let scenario = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(file);
    let scenario = scenario.to_str().unwrap();
    let mut recordings = Vec::new();
    let mut results = Vec::new();
    for name in ["one.jsonl", "two.jsonl"] {
        let record = sandbox.path(name);
        let out = sandbox.run(&[
            "run",
            scenario,
            "--headless",
            "--record",
            record.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0));
        results.push(out.stdout);
        let text = std::fs::read_to_string(&record).unwrap();
        // The first line holds the wall clock's start; the rest is the run.
        recordings.push(text.lines().skip(1).map(String::from).collect::<Vec<_>>());
    }
    assert_eq!(recordings[0], recordings[1], "{file}");
    assert_eq!(results[0], results[1], "{file}");
    let first = sandbox.path("one.jsonl");
    let replay = sandbox.run(&["replay", first.to_str().unwrap(), "--headless"]);
    assert_eq!(replay.status.code(), Some(0));
    assert_eq!(
        replay.stdout, results[0],
        "{file}: the replay prints the run's result"
    );
}

/// The graph's agents answer in the ways real models do: the review as
/// `review` says, every other node as `{"text": …}` or its own fields.
fn messy(review: &'static str) -> impl Fn(&Captured, usize) -> Reply {
    critic_says(json!({"role": "assistant", "content": review}), "stop")
}

/// As [`messy`], the critic's whole message and finish reason given (a
/// refusal, an answer cut at its length, reasoning beside the answer).
fn critic_says(critic: Value, finish: &'static str) -> impl Fn(&Captured, usize) -> Reply {
    move |request, _| {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let system = body["messages"][0]["content"]
            .as_str()
            .unwrap_or("")
            .to_string();
        if system.contains("You are critic") {
            return Reply::json(
                200,
                &json!({"object": "chat.completion", "model": "m",
                        "choices": [{"index": 0, "finish_reason": finish, "message": critic}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}),
            );
        }
        let content: String = if system.contains("You are planner") {
            "Here is the plan:\n```json\n{\"steps\": [\"fees\", \"dates\"]}\n```\nGood luck.".into()
        } else if system.contains("You are risk_analyst") {
            "Risks, as asked:\n```json\n{\"risks\": [\"fees\"]}\n```".into()
        } else if system.contains("You are researcher") {
            "Sure! {\"finding\": \"found it\"} Hope that helps.".into()
        } else {
            "```\n{\"text\": \"a draft\"}\n```".into()
        };
        Reply::json(
            200,
            &json!({"object": "chat.completion", "model": "m",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}),
        )
    }
}

fn run_against(server: &Loopback) -> (Option<i32>, Value) {
    let sandbox = Sandbox::new();
    let file = sandbox.write("loop.json", &review_loop(|_| {}));
    let out = sandbox.run(&[
        "run",
        file.to_str().unwrap(),
        "--headless",
        "--provider",
        "openai",
        "--base-url",
        &server.base_url,
        "--no-stream",
    ]);
    let result = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("no result: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), result)
}

#[test]
fn fenced_json_and_prose_around_json_are_read() {
    let server = Loopback::serve(messy("The verdict: {\"verdict\": \"approve\"} — ship it."));
    let (code, result) = run_against(&server);
    assert_eq!(code, Some(0), "{result}");
    assert_eq!(result["stop_reason"], "completed");
    assert_eq!(
        result["outputs"]["plan"],
        json!({"steps": ["fees", "dates"]})
    );
    assert_eq!(
        result["outputs"]["research"],
        json!([{"finding": "found it"}, {"finding": "found it"}])
    );
    assert_eq!(result["outputs"]["draft"], json!({"text": "a draft"}));
    assert_eq!(result["outputs"]["review"], json!({"verdict": "approve"}));
    assert_eq!(
        result["path"].as_array().unwrap().len(),
        8,
        "approved at once"
    );
}

#[test]
fn a_verdict_outside_the_nodes_values_stops_with_invalid_output() {
    let server = Loopback::serve(messy("{\"verdict\": \"maybe\"}"));
    let (code, result) = run_against(&server);
    assert_eq!(code, Some(3), "{result}");
    assert_eq!(result["stop_reason"], "invalid_output:review");
    assert_eq!(result["outputs"]["review"], json!({"verdict": "maybe"}));
    let asked = server
        .requests()
        .iter()
        .filter(|r| String::from_utf8_lossy(&r.body).contains("You are critic"))
        .count();
    assert_eq!(
        asked, 2,
        "asked once more with what was wrong, then stopped"
    );
}

/// What the run makes of the critic's answer given, for a look.
fn critic_run(critic: Value, finish: &'static str) -> (Option<i32>, Value) {
    let server = Loopback::serve(critic_says(critic, finish));
    run_against(&server)
}

/// A refusal and an answer cut at its length stop the run with the shared
/// model stops at the review, which never counts as having answered; a
/// reasoning model's thinking beside its answer is no part of the answer.
#[test]
fn a_refusal_a_cut_answer_and_reasoning_beside_the_answer_at_a_graph_node() {
    let last = |result: &Value| result["path"].as_array().unwrap().last().cloned();
    let refused =
        json!({"role": "assistant", "content": null, "refusal": "I can't help with that."});
    let (code, result) = critic_run(refused, "stop");
    assert_eq!(code, Some(3), "{result}");
    assert_eq!(result["stop_reason"], "model_refused");
    assert_eq!(last(&result), Some(json!("review")));
    assert_eq!(result["outputs"]["review"], Value::Null, "{result}");

    let cut = json!({"role": "assistant", "content": "{\"verdict\": \"appr"});
    let (code, result) = critic_run(cut, "length");
    assert_eq!(code, Some(3), "{result}");
    assert_eq!(result["stop_reason"], "model_output_cut");
    assert_eq!(last(&result), Some(json!("review")));

    let thinking = json!({"role": "assistant", "content": "{\"verdict\": \"approve\"}",
                          "reasoning_content": "The draft names the dates; {\"verdict\": \"reject\"} would be wrong."});
    let (code, result) = critic_run(thinking, "stop");
    assert_eq!(code, Some(0), "{result}");
    assert_eq!(result["outputs"]["review"], json!({"verdict": "approve"}));
    assert_eq!(last(&result), Some(json!("done")));
}

/// `validate` keeps a graph whose state can grow and whose agent nodes
/// declare no `reads`, and says so once; declared everywhere, it is quiet.
#[test]
fn validate_advises_reads_once_the_state_can_grow() {
    let (code, said) = validate(&review_loop(|_| {}));
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(said.matches("warning:").count(), 1, "{said}");
    assert!(said.contains("findings"), "{said}");
    let (code, said) = validate(&review_loop(|g| {
        for node in g["nodes"].as_array_mut().unwrap() {
            if node.get("agent").is_some() && node.get("map").is_none() {
                node["reads"] = json!(["verdict"]);
            }
        }
    }));
    assert_eq!(code, Some(0), "{said}");
    assert!(!said.contains("warning:"), "{said}");
}
