//! Real models as they are (issue 42): each pattern's shipped scenario run
//! by the real binary against the messy model (`common::messy`) under each
//! of its behaviours, streamed and whole. Fenced, prosy, reasoning, cached
//! and once-broken answers and endpoints without JSON schemas or without
//! any `response_format` end as the same scenario does on the sim: the same
//! exit status and the same decision fields. A cut or refused answer exits
//! 3 with its named stop and one line on stderr. What each behaviour is
//! about is checked on the requests the endpoint got, and no swarm or
//! coordinator ends `success` with an answer that is not a scripted reply.
//!
//! The runs talk to a loopback socket, so they run on the real clock; every
//! latency is zero and nothing waits but the binary.

use crate::common;

use common::messy::{
    Behaviour, CACHED_TOKENS, Messy, REASONING, REASONING_TOKENS, REFUSAL, is_repair,
};
use common::script::{quick, system_of};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// A pattern's shipped scenario and what its result decides.
pub(crate) struct Pattern {
    pub(crate) name: &'static str,
    pub(crate) file: &'static str,
    /// The agent (or call) whose answer comes first, which a stop on the
    /// first answer names.
    pub(crate) first: &'static str,
    /// The fields of its headless result a user reads as the outcome.
    pub(crate) decision: fn(&Value) -> Value,
    /// A swarm or coordinator: its `answer` is a member's reply.
    pub(crate) team: bool,
}

const PATTERNS: [Pattern; 6] = [
    Pattern {
        name: "round table",
        file: "checkout_v2_launch.json",
        first: "demand_analyst",
        decision: round_table,
        team: false,
    },
    Pattern {
        name: "orchestrator",
        file: "morning_ops_report.json",
        first: "plan",
        decision: orchestrator,
        team: false,
    },
    Pattern {
        name: "swarm",
        file: "support_swarm.json",
        first: "triage",
        decision: swarm,
        team: true,
    },
    Pattern {
        name: "coordinator",
        file: "launch_coordinator.json",
        first: "launch_lead",
        decision: coordinator,
        team: true,
    },
    Pattern {
        name: "nested team",
        file: "nested_launch_team.json",
        first: "launch",
        decision: coordinator,
        team: true,
    },
    Pattern {
        name: "research",
        file: "payments_incident_research.json",
        first: "plan",
        decision: research,
        team: false,
    },
];

/// The output limit the reasoning model's scenario sets.
const MAX_OUTPUT_TOKENS: u64 = 2048;

/// The limit the llama-cpp-python runs send, as the runs did.
const LOCAL_OUTPUT_TOKENS: u64 = 400;

fn pick(result: &Value, keys: &[&str]) -> Value {
    keys.iter()
        .map(|key| (key.to_string(), result[*key].clone()))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

pub(crate) fn round_table(result: &Value) -> Value {
    pick(
        result,
        &[
            "status",
            "stop_reason",
            "final_decision",
            "rounds_used",
            "team_summary",
            "trace",
        ],
    )
}

pub(crate) fn orchestrator(result: &Value) -> Value {
    let tasks: Vec<Value> = result["trace"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|task| pick(task, &["task_id", "worker", "status"]))
        .collect();
    let mut decision = pick(result, &["status", "stop_reason", "plan"]);
    decision["health"] = result["aggregate"]["health"].clone();
    decision["tasks"] = tasks.into();
    decision
}

pub(crate) fn swarm(result: &Value) -> Value {
    pick(
        result,
        &[
            "status",
            "stop_reason",
            "final_agent",
            "chain",
            "answer",
            "handoffs",
        ],
    )
}

pub(crate) fn coordinator(result: &Value) -> Value {
    let mut decision = pick(result, &["status", "stop_reason", "final_agent", "answer"]);
    decision["members"] = members(&result["member_calls"]);
    decision
}

/// A coordinator's member calls, as who was called and how it ended, a
/// member team's own calls within; in no order, since members asked
/// together answer in whatever order the endpoint does.
fn members(calls: &Value) -> Value {
    let mut members: Vec<Value> = calls
        .as_array()
        .into_iter()
        .flatten()
        .map(|call| {
            let mut member = pick(call, &["member", "task", "status", "reply"]);
            if let Some(team) = call.get("team") {
                member["team"] = pick(team, &["stop_reason", "final_agent"]);
                member["team"]["members"] = members(&team["member_calls"]);
            }
            member
        })
        .collect();
    members.sort_by_key(Value::to_string);
    members.into()
}

pub(crate) fn research(result: &Value) -> Value {
    pick(result, &["status", "stop_reason", "answer", "citations"])
}

/// The pattern's scenario with zero latencies; research plans its five
/// canonical steps from the script, since the endpoint answers only from
/// one.
fn scenario(pattern: &Pattern) -> Value {
    scripted(pattern.file)
}

/// The shipped scenario `file` as [`scenario`] takes it.
pub(crate) fn scripted(file: &str) -> Value {
    let mut doc = quick(file);
    if doc["pattern"] == "research" {
        let question = doc["context"]["request"]["question"].clone();
        doc["provider"]["plan"] = json!({"steps": [
            {"id": "r1", "action": "search_sources", "args": {"query": question}},
            {"id": "r2", "action": "dedupe_urls", "args": {}},
            {"id": "r3", "action": "read_extract_notes", "args": {}},
            {"id": "r4", "action": "verify_notes", "args": {}},
            {"id": "r5", "action": "synthesize_answer", "args": {}},
        ]});
    }
    doc
}

/// One headless run of the binary.
pub(crate) struct Run {
    pub(crate) exit: Option<i32>,
    pub(crate) result: Value,
    pub(crate) stderr: String,
    /// The recording's events.
    pub(crate) events: Vec<Value>,
}

/// `conclave run FILE --headless --record REC` with `args`, in a folder of
/// its own.
pub(crate) fn headless(doc: &Value, args: &[&str]) -> Run {
    headless_in(tempfile::tempdir().unwrap().path(), doc, args)
}

/// [`headless`] in the folder `work`, which keeps the recording
/// (`run.jsonl`).
pub(crate) fn headless_in(work: &Path, doc: &Value, args: &[&str]) -> Run {
    let file = work.join("scenario.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let recording = work.join("run.jsonl");
    let output = Command::new(env!("CARGO_BIN_EXE_conclave"))
        .arg("run")
        .arg(&file)
        .arg("--headless")
        .arg("--record")
        .arg(&recording)
        .args(args)
        .env("OPENAI_API_KEY", "sk-real-models-test-dummy-key")
        .env("XDG_STATE_HOME", work.join("state"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let result = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is one JSON document ({e}):\n{}\n{stderr}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    Run {
        exit: output.status.code(),
        result,
        stderr,
        events: recorded(&recording),
    }
}

pub(crate) fn recorded(recording: &Path) -> Vec<Value> {
    std::fs::read_to_string(recording)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The pattern's run on the sim, once for the whole file.
fn on_sim(index: usize) -> &'static Run {
    static SIM: OnceLock<Vec<Run>> = OnceLock::new();
    &SIM.get_or_init(|| {
        PATTERNS
            .iter()
            .map(|p| headless(&scenario(p), &[]))
            .collect()
    })[index]
}

/// The pattern's run against the messy model, and the endpoint after it.
fn on_endpoint(
    pattern: &Pattern,
    behaviour: Behaviour,
    output: Option<&str>,
    streamed: bool,
) -> (Run, Messy) {
    let mut doc = scenario(pattern);
    if let Some(output) = output {
        doc["provider"]["output"] = output.into();
    }
    // A name our default sends a temperature for, so that the reasoning
    // model's 400 really comes.
    let mut model = "mock-model";
    if behaviour == Behaviour::Reasoner {
        doc["provider"]["max_output_tokens"] = MAX_OUTPUT_TOKENS.into();
        model = "mock-reasoner";
    }
    // As a user tries a local server: with a limit, which it ignores.
    if behaviour == Behaviour::LlamaCppPython {
        doc["provider"]["max_output_tokens"] = LOCAL_OUTPUT_TOKENS.into();
    }
    // As the runs against llama-server were tried: with retries off, so
    // that a call failing for a closed connection stops the run.
    if behaviour == Behaviour::ClosesAfterStream {
        doc["resilience"]["retries"]["max_attempts"] = 1.into();
    }
    // One try more than the interruptions need, after a short back-off.
    if behaviour == Behaviour::Interrupts {
        doc["resilience"]["retries"] = json!({"max_attempts": 2,
                                              "backoff_ms": {"base_ms": 10, "max_ms": 20}});
    }
    let endpoint = Messy::serve(&doc, behaviour, streamed);
    let mut args = vec![
        "--provider",
        "openai",
        "--base-url",
        &endpoint.base_url,
        "--model",
        model,
    ];
    if !streamed {
        args.push("--no-stream");
    }
    let run = headless(&doc, &args);
    (run, endpoint)
}

/// One pattern's run under one behaviour, for the checks of that
/// behaviour.
pub(crate) struct Case<'a> {
    pub(crate) pattern: &'a Pattern,
    pub(crate) doc: Value,
    pub(crate) streamed: bool,
    pub(crate) run: Run,
    pub(crate) endpoint: Messy,
    pub(crate) requests: Vec<Value>,
}

impl Case<'_> {
    /// Says which run an assertion is about, with what it printed.
    pub(crate) fn about(&self) -> String {
        let result = self.run.result.to_string();
        let cut = result
            .char_indices()
            .nth(1500)
            .map_or(result.len(), |(at, _)| at);
        format!(
            "{} ({}), stderr:\n{}\nresult: {}",
            self.pattern.name,
            if self.streamed { "streamed" } else { "whole" },
            self.run.stderr,
            &result[..cut]
        )
    }

    /// The requests that asked for JSON (not a prose brief).
    fn json_requests(&self) -> impl Iterator<Item = &Value> {
        self.requests
            .iter()
            .filter(|r| !self.endpoint.asks_for_prose(r))
    }

    pub(crate) fn usage(&self, key: &str) -> u64 {
        self.run.result["usage"][key].as_u64().unwrap_or(0)
    }

    /// The model calls that did not finish well, as recorded.
    pub(crate) fn model_calls_failed(&self) -> Vec<&Value> {
        self.run
            .events
            .iter()
            .filter(|e| {
                e["type"] == "call_finished" && e["tool"] == "model" && e["outcome"] != "ok"
            })
            .collect()
    }

    /// The model calls that finished well, as recorded.
    pub(crate) fn model_calls_finished(&self) -> Vec<&Value> {
        self.run
            .events
            .iter()
            .filter(|e| {
                e["type"] == "call_finished" && e["tool"] == "model" && e["outcome"] == "ok"
            })
            .collect()
    }
}

/// Run every pattern under `behaviour`, streamed and whole: a run ends as
/// it does on the sim (or, for a cut or a refusal, with its stop), never
/// ends `success` with an answer that is not a reply, streams as asked,
/// and passes `about`, the behaviour's own checks.
fn behaves(behaviour: Behaviour, about: fn(&Case)) {
    behaves_in(behaviour, None, about);
}

/// [`behaves`], with the scenario's `provider.output` set to `output`.
fn behaves_in(behaviour: Behaviour, output: Option<&str>, about: fn(&Case)) {
    for (index, pattern) in PATTERNS.iter().enumerate() {
        for streamed in [false, true] {
            let (run, endpoint) = on_endpoint(pattern, behaviour, output, streamed);
            let case = Case {
                pattern,
                doc: scenario(pattern),
                streamed,
                requests: endpoint.requests(),
                run,
                endpoint,
            };
            match behaviour {
                Behaviour::Cut => stops_on_the_first_answer(&case, "model_output_cut"),
                Behaviour::Refusal => stops_on_the_first_answer(&case, "model_refused"),
                _ => ends_as_on_the_sim(&case, on_sim(index)),
            }
            never_a_false_success(&case);
            streams_as_asked(&case);
            about(&case);
        }
    }
}

pub(crate) fn ends_as_on_the_sim(case: &Case, sim: &Run) {
    assert_eq!(case.run.exit, sim.exit, "{}", case.about());
    let decision = case.pattern.decision;
    assert_eq!(
        decision(&case.run.result),
        decision(&sim.result),
        "{}",
        case.about()
    );
}

/// Exit 3 with `stop`, and one line on stderr naming the agent whose
/// answer stopped the run.
fn stops_on_the_first_answer(case: &Case, stop: &str) {
    assert_eq!(case.run.exit, Some(3), "{}", case.about());
    assert_eq!(case.run.result["stop_reason"], stop, "{}", case.about());
    let lines: Vec<&str> = case
        .run
        .stderr
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    assert_eq!(lines.len(), 1, "one line on stderr: {}", case.about());
    assert!(
        lines[0].contains(case.pattern.first),
        "the line names {}: {}",
        case.pattern.first,
        case.about()
    );
}

/// A swarm or coordinator that ends `success` answers with a reply its
/// final agent's script gives, word for word.
pub(crate) fn never_a_false_success(case: &Case) {
    if !case.pattern.team || case.run.result["stop_reason"] != "success" {
        return;
    }
    let result = &case.run.result;
    let agent = result["final_agent"].as_str().unwrap_or_default();
    let turns = &case.doc["provider"]["turns"][agent];
    let replies: Vec<&str> = turns
        .as_array()
        .into_iter()
        .flatten()
        .chain(turns.as_object().map(|_| turns))
        .filter_map(|turn| turn["reply"].as_str().or(turn.as_str()))
        .collect();
    let answer = result["answer"].as_str().unwrap_or_default();
    assert!(
        replies.contains(&answer),
        "a success answers with {agent}'s scripted reply {replies:?}: {}",
        case.about()
    );
}

/// A streamed run asks for streams, a whole one for whole answers.
pub(crate) fn streams_as_asked(case: &Case) {
    assert!(!case.requests.is_empty(), "{}", case.about());
    for request in &case.requests {
        assert_eq!(request["stream"] == true, case.streamed, "{}", case.about());
    }
}

/// The recording's changes of output mode, as (from, to), each checked to
/// quote the endpoint's words naming `feature`s.
pub(crate) fn mode_changes(case: &Case) -> Vec<(String, String)> {
    const MODES: [&str; 4] = ["native", "tool", "json", "prompted"];
    case.run
        .events
        .iter()
        .filter(|e| e["type"] == "output_mode_changed")
        .filter(|e| MODES.iter().any(|mode| e["from"] == *mode))
        .map(|e| {
            let said = e["said"].as_str().unwrap_or_default();
            let feature = if e["from"] == "tool" {
                "tools"
            } else {
                "response_format"
            };
            assert!(
                said.contains(feature),
                "the change quotes the endpoint: {e}: {}",
                case.about()
            );
            let name = |key: &str| e[key].as_str().unwrap_or_default().to_string();
            (name("from"), name("to"))
        })
        .collect()
}

/// No answer was asked for again: the answer was read as it came.
pub(crate) fn no_repair(case: &Case) {
    assert!(
        !case.requests.iter().any(is_repair),
        "read leniently, not repaired: {}",
        case.about()
    );
    assert_eq!(case.usage("repairs"), 0, "{}", case.about());
}

#[test]
fn a_model_answering_as_asked_gets_strict_schemas_and_ends_as_on_the_sim() {
    behaves(Behaviour::Plain, |case| {
        no_repair(case);
        for request in case.json_requests() {
            let format = &request["response_format"];
            assert_eq!(format["type"], "json_schema", "{}", case.about());
            assert_eq!(format["json_schema"]["strict"], true, "{}", case.about());
            assert_eq!(
                format["json_schema"]["schema"]["additionalProperties"],
                false,
                "{}",
                case.about()
            );
        }
    });
}

#[test]
fn a_model_asked_in_tool_mode_answers_with_calls_and_ends_as_on_the_sim() {
    behaves_in(Behaviour::Plain, Some("tool"), |case| {
        no_repair(case);
        for request in case.json_requests() {
            assert!(request["tools"].is_array(), "{request}: {}", case.about());
            assert!(request.get("tool_choice").is_some(), "{}", case.about());
            assert_eq!(request.get("response_format"), None, "{}", case.about());
        }
    });
}

/// Every JSON answer was read out of its text as `how` says, without a
/// repair.
fn read_out_of(case: &Case, how: &str) {
    no_repair(case);
    let extracted = case
        .model_calls_finished()
        .iter()
        .filter(|call| call["extracted"] == how)
        .count();
    assert_eq!(
        extracted,
        case.json_requests().count(),
        "each JSON answer says it was found in a {how}: {}",
        case.about()
    );
}

#[test]
fn fenced_answers_end_as_on_the_sim() {
    behaves(Behaviour::Fenced, |case| read_out_of(case, "fence"));
}

#[test]
fn answers_with_prose_around_the_json_end_as_on_the_sim() {
    behaves(Behaviour::Prose, |case| read_out_of(case, "prose"));
}

#[test]
fn a_reasoning_model_gets_no_temperature_and_max_completion_tokens_and_ends_as_on_the_sim() {
    behaves(Behaviour::Reasoner, |case| {
        let first = &case.requests[0];
        assert!(
            first.get("temperature").is_some_and(|t| t != 1),
            "the first request sends the default temperature: {}",
            case.about()
        );
        let retry = &case.requests[1];
        assert_eq!(retry.get("temperature"), None, "{}", case.about());
        assert_eq!(
            retry["max_completion_tokens"],
            MAX_OUTPUT_TOKENS,
            "{}",
            case.about()
        );
        for request in &case.requests[1..] {
            assert_eq!(request.get("temperature"), None, "{}", case.about());
            assert_eq!(request.get("max_tokens"), None, "{}", case.about());
        }
        assert_eq!(
            case.usage("reasoning_tokens"),
            REASONING_TOKENS * case.endpoint.answered() as u64,
            "{}",
            case.about()
        );
    });
}

#[test]
fn reasoning_text_is_kept_apart_from_the_answer_and_out_of_later_prompts() {
    behaves(Behaviour::ReasoningStream, |case| {
        let finished = case.model_calls_finished();
        assert!(!finished.is_empty(), "{}", case.about());
        for call in finished {
            assert_eq!(call["reasoning"], REASONING, "{call}: {}", case.about());
            assert!(
                !call["record"]["answer"].to_string().contains(REASONING),
                "the answer holds the reasoning: {call}: {}",
                case.about()
            );
        }
        for request in &case.requests {
            assert!(
                !request["messages"].to_string().contains(REASONING),
                "a prompt carries the reasoning: {request}: {}",
                case.about()
            );
        }
        if case.streamed {
            assert!(
                case.run
                    .events
                    .iter()
                    .any(|e| e["type"] == "call_delta" && e["reasoning"] == true),
                "the reasoning streams as it comes: {}",
                case.about()
            );
        }
    });
}

#[test]
fn an_endpoint_refusing_json_schema_is_asked_with_tools_and_ends_as_on_the_sim() {
    behaves(Behaviour::NoJsonSchema, |case| {
        let refused = case
            .requests
            .iter()
            .position(|r| r["response_format"]["type"] == "json_schema")
            .unwrap_or_else(|| panic!("native first: {}", case.about()));
        for request in case.requests[refused + 1..].iter() {
            if case.endpoint.asks_for_prose(request) {
                continue;
            }
            assert!(request["tools"].is_array(), "{request}: {}", case.about());
            assert_eq!(request.get("response_format"), None, "{}", case.about());
        }
        assert_eq!(
            mode_changes(case),
            [("native".to_string(), "tool".to_string())],
            "{}",
            case.about()
        );
        assert_eq!(case.usage("fallbacks"), 1, "{}", case.about());
    });
}

#[test]
fn llama_cpp_pythons_500_naming_response_format_steps_down_at_once_and_ends_as_on_the_sim() {
    behaves(Behaviour::LlamaCppPython, |case| {
        let refused = case
            .requests
            .iter()
            .filter(|r| r["response_format"]["type"] == "json_schema")
            .count();
        assert_eq!(refused, 1, "asked natively once: {}", case.about());
        assert_eq!(
            mode_changes(case),
            [("native".to_string(), "tool".to_string())],
            "{}",
            case.about()
        );
        // A prose brief asked under `max_completion_tokens` rambles past
        // it; the contract's answers are function calls, which end.
        let limits = limit_changes(case);
        assert!(limits.len() <= 1, "{}", case.about());
        assert_eq!(
            case.usage("fallbacks"),
            1 + limits.len() as u64,
            "{}",
            case.about()
        );
        let waited = case
            .run
            .events
            .iter()
            .any(|e| e["type"] == "retry_scheduled" || e["type"] == "breaker_transition");
        assert!(!waited, "no backoff, no breaker: {}", case.about());
    });
}

/// The run's `request_adapted` events about the token limit.
fn limit_changes<'a>(case: &'a Case) -> Vec<&'a Value> {
    case.run
        .events
        .iter()
        .filter(|e| e["type"] == "request_adapted" && e["parameter"] == "output_limit")
        .collect()
}

#[test]
fn an_ignored_max_completion_tokens_goes_out_as_max_tokens_after_the_first_answer_past_it() {
    behaves_in(Behaviour::LlamaCppPython, Some("json"), |case| {
        let changes = limit_changes(case);
        assert_eq!(changes.len(), 1, "{}", case.about());
        let change = changes[0];
        assert_eq!(change["from"], "max_completion_tokens", "{}", case.about());
        assert_eq!(change["to"], "max_tokens", "{}", case.about());
        let said = change["said"].as_str().unwrap_or_default();
        let over = if case.streamed {
            "pieces before Conclave cut it"
        } else {
            "tokens, more than the 400 tokens"
        };
        assert!(
            said.contains(over) && said.contains("ignores that name"),
            "{said}"
        );
        // The stream Conclave cut is repaired in words that say so, never
        // as a finish reason the endpoint did not send.
        let repairs: Vec<&str> = case
            .run
            .events
            .iter()
            .filter(|e| e["type"] == "call_repair")
            .filter_map(|e| e["error"].as_str())
            .collect();
        if case.streamed {
            assert!(
                repairs
                    .iter()
                    .any(|e| e.starts_with("Conclave cut the stream after ")),
                "{repairs:?}: {}",
                case.about()
            );
        }
        assert!(
            !repairs.iter().any(|e| e.contains("finish_reason")),
            "{repairs:?}: {}",
            case.about()
        );
        assert_eq!(case.usage("fallbacks"), 1, "{}", case.about());
        // Only a call started before the change asks the old way.
        let started_before = case
            .run
            .events
            .iter()
            .take_while(|e| e["seq"] != change["seq"])
            .filter(|e| e["type"] == "call_started" && e["tool"] == "model")
            .count();
        let old_way = case
            .requests
            .iter()
            .filter(|r| r.get("max_completion_tokens").is_some())
            .count();
        assert!(
            (1..=started_before).contains(&old_way),
            "{old_way} asked the old way, {started_before} started before: {}",
            case.about()
        );
        for request in &case.requests {
            let limit = ["max_completion_tokens", "max_tokens"]
                .iter()
                .filter_map(|name| request[*name].as_u64())
                .collect::<Vec<_>>();
            assert_eq!(limit, [LOCAL_OUTPUT_TOKENS], "{request}: {}", case.about());
        }
        assert!(case.requests.len() > old_way, "{}", case.about());
    });
}

#[test]
fn a_cassette_of_a_run_past_an_ignored_limit_adapts_as_the_run_did() {
    let mut doc = scenario(&PATTERNS[0]);
    doc["provider"]["output"] = "json".into();
    doc["provider"]["max_output_tokens"] = LOCAL_OUTPUT_TOKENS.into();
    // Whole, the endpoint's answer runs past the limit; streamed,
    // Conclave cuts it and the repair says so: served back, both say the
    // same.
    for streamed in [false, true] {
        let endpoint = Messy::serve(&doc, Behaviour::LlamaCppPython, streamed);
        let args = ["--provider", "openai", "--model", "mock-model"];
        let work = tempfile::tempdir().unwrap();
        let mut live_args = args.to_vec();
        live_args.extend(["--base-url", &endpoint.base_url]);
        if !streamed {
            live_args.push("--no-stream");
        }
        let live = headless_in(work.path(), &doc, &live_args);
        let recording = work.path().join("run.jsonl");
        let mut served_args = args.to_vec();
        served_args.extend(["--cassette", recording.to_str().unwrap()]);
        let served = headless(&doc, &served_args);
        let changes = |run: &Run| -> Vec<Value> {
            run.events
                .iter()
                .filter(|e| e["type"] == "request_adapted" || e["type"] == "call_repair")
                .map(|e| json!([e["parameter"], e["from"], e["to"], e["said"], e["error"]]))
                .collect()
        };
        let adapted = changes(&live)
            .iter()
            .filter(|change| change[0].is_string())
            .count();
        assert_eq!(adapted, 1, "{}", live.stderr);
        assert_eq!(changes(&served), changes(&live), "{}", served.stderr);
        assert_eq!(served.result["stop_reason"], live.result["stop_reason"]);
        assert_eq!(served.exit, live.exit);
    }
}

#[test]
fn an_agent_its_flag_denies_is_asked_once_and_the_table_stops_as_on_the_sim() {
    let doc = quick("legal_review_required.json");
    let sim = headless(&doc, &[]);
    let model_calls = |run: &Run| {
        run.events
            .iter()
            .filter(|e| e["type"] == "call_started" && e["tool"] == "model")
            .count()
    };
    for streamed in [false, true] {
        let endpoint = Messy::serve(&doc, Behaviour::Plain, streamed);
        let mut args = endpoint.model_args();
        if !streamed {
            args.push("--no-stream");
        }
        let run = headless(&doc, &args);
        let about = format!("streamed {streamed}: {}\n{}", run.stderr, run.result);
        assert_eq!(run.exit, sim.exit, "{about}");
        assert_eq!(
            round_table(&run.result),
            round_table(&sim.result),
            "{about}"
        );
        assert_eq!(
            run.result["stop_reason"], "agent_denied:legal_analyst",
            "{about}"
        );
        assert_eq!(endpoint.requests().len(), model_calls(&sim), "{about}");
        assert!(!endpoint.requests().iter().any(is_repair), "{about}");
        assert_eq!(
            run.result["usage"]["repairs"].as_u64().unwrap_or(0),
            0,
            "{about}"
        );
    }
}

#[test]
fn an_endpoint_refusing_every_response_format_is_prompted_and_ends_as_on_the_sim() {
    behaves(Behaviour::NoResponseFormat, |case| {
        let last = case
            .json_requests()
            .last()
            .unwrap_or_else(|| panic!("{}", case.about()));
        assert_eq!(last.get("response_format"), None, "{}", case.about());
        assert_eq!(last.get("tools"), None, "{}", case.about());
        assert!(
            system_of(last).contains("additionalProperties"),
            "the system prompt holds the schema: {}",
            case.about()
        );
        let walked: Vec<(String, String)> =
            [("native", "tool"), ("tool", "json"), ("json", "prompted")]
                .iter()
                .map(|(from, to)| (from.to_string(), to.to_string()))
                .collect();
        assert_eq!(mode_changes(case), walked, "{}", case.about());
        assert_eq!(case.usage("fallbacks"), 3, "{}", case.about());
    });
}

#[test]
fn cached_prompt_tokens_are_counted_and_the_run_ends_as_on_the_sim() {
    behaves(Behaviour::CachedPrompt, |case| {
        assert_eq!(
            case.usage("cached_tokens"),
            CACHED_TOKENS * case.endpoint.answered() as u64,
            "{}",
            case.about()
        );
    });
}

#[test]
fn a_first_answer_missing_a_key_is_repaired_and_the_run_ends_as_on_the_sim() {
    behaves(Behaviour::MissingKey, |case| {
        let repairs: Vec<&Value> = case.requests.iter().filter(|r| is_repair(r)).collect();
        assert!(case.endpoint.broken() > 0, "{}", case.about());
        assert_eq!(repairs.len(), case.endpoint.broken(), "{}", case.about());
        assert_eq!(
            case.usage("repairs"),
            repairs.len() as u64,
            "{}",
            case.about()
        );
        for repair in repairs {
            let messages = repair["messages"].as_array().unwrap();
            let said = &messages[messages.len() - 2];
            let error = &messages[messages.len() - 1];
            assert_eq!(said["role"], "assistant", "{}", case.about());
            assert_eq!(error["role"], "user", "{}", case.about());
            assert!(
                error["content"].as_str().is_some_and(|e| !e.is_empty()),
                "the repair says what was wrong: {repair}: {}",
                case.about()
            );
        }
    });
}

#[test]
fn a_cut_answer_is_repaired_once_then_stops_with_model_output_cut() {
    behaves(Behaviour::Cut, |case| {
        let repairs = case.requests.iter().filter(|r| is_repair(r)).count();
        assert_eq!(repairs, 1, "repaired once: {}", case.about());
    });
}

#[test]
fn a_refusal_stops_with_model_refused_quoting_the_model() {
    behaves(Behaviour::Refusal, |case| {
        assert_eq!(
            case.endpoint.answered(),
            1,
            "not asked again: {}",
            case.about()
        );
        assert!(
            case.run.stderr.contains("can't help with that"),
            "stderr quotes {REFUSAL:?}: {}",
            case.about()
        );
    });
}

#[test]
fn a_connection_the_server_closed_after_a_stream_is_not_an_unreachable_endpoint() {
    behaves(Behaviour::ClosesAfterStream, |case| {
        let failed: Vec<&Value> = case
            .run
            .events
            .iter()
            .filter(|e| e["type"] == "call_finished" && e["tool"] == "model")
            .filter(|e| e["outcome"] != "ok")
            .collect();
        assert!(
            failed.is_empty(),
            "no model call failed: {failed:?}: {}",
            case.about()
        );
        let recording = serde_json::to_string(&case.run.events).unwrap();
        assert!(!recording.contains("cannot reach"), "{}", case.about());
        assert!(
            !case.run.stderr.contains("cannot reach"),
            "{}",
            case.about()
        );
        // Every call after the first streamed one met the closed
        // connection: the behaviour was really met, not dodged.
        let calls = case.model_calls_finished().len();
        if case.streamed && calls > 1 {
            assert!(case.endpoint.closed_under() > 0, "{}", case.about());
        } else {
            assert_eq!(case.endpoint.closed_under(), 0, "{}", case.about());
        }
    });
}

#[test]
fn an_interrupted_stream_is_tried_again_never_judged_as_the_answer() {
    behaves(Behaviour::Interrupts, |case| {
        no_repair(case);
        let interrupted: Vec<&Value> = case
            .run
            .events
            .iter()
            .filter(|e| e["type"] == "call_finished" && e["tool"] == "model")
            .filter(|e| e["outcome"] != "ok")
            .collect();
        if case.streamed {
            assert!(!interrupted.is_empty(), "{}", case.about());
            let retries = case
                .run
                .events
                .iter()
                .filter(|e| e["type"] == "retry_scheduled" && e["tool"] == "model")
                .count();
            assert_eq!(
                retries,
                interrupted.len(),
                "each tried again: {}",
                case.about()
            );
        } else {
            assert!(interrupted.is_empty(), "{}", case.about());
        }
        // The cut text was never an answer.
        assert!(
            !serde_json::to_string(&case.run.events)
                .unwrap()
                .contains("answer began")
        );
    });
}

#[test]
fn several_functions_ignored_under_required_step_auto_down_to_json_once() {
    behaves(Behaviour::IgnoresRequired, |case| {
        // Native is refused by the 500 first, as llama-cpp-python does; a
        // turn's several functions are then ignored, one function by name
        // is not.
        let mut expected = vec![("native".to_string(), "tool".to_string())];
        if case.pattern.team {
            expected.push(("tool".to_string(), "json".to_string()));
        }
        assert_eq!(mode_changes(case), expected, "{}", case.about());
        let said = case
            .run
            .events
            .iter()
            .find(|e| e["type"] == "output_mode_changed" && e["from"] == "tool")
            .map(|e| e["said"].as_str().unwrap_or_default().to_string());
        if let Some(said) = said {
            assert!(said.contains("made none"), "{said}: {}", case.about());
        }
        // The prose was never read as an answer.
        no_repair(case);
    });
}

#[test]
fn a_prompt_past_the_servers_context_stops_saying_so_and_what_to_change() {
    for streamed in [false, true] {
        let (run, endpoint) = on_endpoint(&PATTERNS[0], Behaviour::SmallContext, None, streamed);
        let about = format!("{}\n{}", run.stderr, run.result);
        assert_eq!(run.result["stop_reason"], "llm_bad_request", "{about}");
        assert_eq!(endpoint.requests().len(), 1, "not asked again: {about}");
        for words in [
            "does not fit the model's context",
            "exceeds the available context size (512 tokens)",
            "llama-server -c",
        ] {
            assert!(run.stderr.contains(words), "{words}: {about}");
        }
        assert!(!run.stderr.contains("check the model name"), "{about}");
    }
}

#[test]
fn an_explicit_tool_mode_on_an_endpoint_ignoring_tools_stops_saying_so() {
    let swarm = &PATTERNS[2];
    for streamed in [false, true] {
        let (run, _endpoint) = on_endpoint(swarm, Behaviour::IgnoresTools, Some("tool"), streamed);
        let about = format!("{}\n{}", run.stderr, run.result);
        assert_eq!(run.exit, Some(3), "{about}");
        assert_eq!(run.result["stop_reason"], "llm_bad_request", "{about}");
        assert!(run.stderr.contains("ignored"), "{about}");
        assert!(run.stderr.contains("tool_choice"), "{about}");
    }
}

#[test]
fn a_stream_without_usage_is_counted_by_estimate_and_marked_so() {
    behaves(Behaviour::NoStreamUsage, |case| {
        let usage = &case.run.result["usage"];
        assert!(case.usage("input_tokens") > 0, "{}", case.about());
        assert!(case.usage("output_tokens") > 0, "{}", case.about());
        // Whole answers count their own tokens; streamed ones are
        // estimated, and the run says so.
        assert_eq!(
            usage["estimated"] == true,
            case.streamed,
            "{}",
            case.about()
        );
        for call in case.model_calls_finished() {
            let estimated = call["usage"]["estimated"] == true;
            assert_eq!(estimated, case.streamed, "{call}: {}", case.about());
        }
    });
}

#[test]
fn a_token_budget_trips_on_estimated_tokens() {
    let swarm = &PATTERNS[2];
    let mut doc = scenario(swarm);
    doc["budget"]["max_tokens"] = 500.into();
    let endpoint = Messy::serve(&doc, Behaviour::NoStreamUsage, true);
    let run = headless(
        &doc,
        &[
            "--provider",
            "openai",
            "--base-url",
            &endpoint.base_url,
            "--model",
            "mock-model",
        ],
    );
    let about = format!("{}\n{}", run.stderr, run.result);
    assert_eq!(run.result["stop_reason"], "max_tokens", "{about}");
    assert_eq!(run.result["usage"]["estimated"], true, "{about}");
    assert!(
        run.result["usage"]["input_tokens"].as_u64().unwrap_or(0) > 500 / 2,
        "{about}"
    );
}

/// The graph pattern's shipped scenarios: a graph's agent nodes, and a
/// team run as a node, ask the endpoint as the other patterns do.
const GRAPHS: [Pattern; 2] = [
    Pattern {
        name: "graph",
        file: "graph_review_loop.json",
        first: "plan",
        decision: graph,
        team: false,
    },
    Pattern {
        name: "graph with a team node",
        file: "graph_team_draft.json",
        first: "plan",
        decision: graph,
        team: false,
    },
];

/// A graph's path and each node's output, its lists in no order: a
/// fan-out's items are asked together and answered in whatever order the
/// endpoint does (the script serves its entries in that order), and a
/// join gathers them so.
pub(crate) fn graph(result: &Value) -> Value {
    fn unordered(value: &mut Value) {
        match value {
            Value::Array(items) => {
                items.iter_mut().for_each(unordered);
                items.sort_by_key(Value::to_string);
            }
            Value::Object(fields) => fields.values_mut().for_each(unordered),
            _ => {}
        }
    }
    let mut decision = pick(result, &["status", "stop_reason", "path", "outputs"]);
    unordered(&mut decision["outputs"]);
    decision
}

/// Each local server's shape met by a graph, streamed, as the patterns
/// above meet it: a connection closed after each stream (retries off), a
/// stream interrupted once, several functions ignored under `required`, a
/// stream without usage. Each run ends as on the sim, unrepaired, and
/// never says it cannot reach the endpoint.
#[test]
fn a_graph_meets_each_local_servers_shape_and_ends_as_on_the_sim() {
    let behaviours = [
        Behaviour::ClosesAfterStream,
        Behaviour::Interrupts,
        Behaviour::IgnoresRequired,
        Behaviour::NoStreamUsage,
    ];
    for pattern in &GRAPHS {
        let sim = headless(&scenario(pattern), &[]);
        assert_eq!(sim.exit, Some(0), "{}\n{}", sim.stderr, sim.result);
        for behaviour in behaviours {
            let (run, endpoint) = on_endpoint(pattern, behaviour, None, true);
            let case = Case {
                pattern,
                doc: scenario(pattern),
                streamed: true,
                requests: endpoint.requests(),
                run,
                endpoint,
            };
            let about = format!("{behaviour:?}: {}", case.about());
            ends_as_on_the_sim(&case, &sim);
            streams_as_asked(&case);
            no_repair(&case);
            let recording = serde_json::to_string(&case.run.events).unwrap();
            assert!(!recording.contains("cannot reach"), "{about}");
            let model_events = |kind: &str| {
                case.run
                    .events
                    .iter()
                    .filter(|e| e["type"] == kind && e["tool"] == "model")
                    .count()
            };
            match behaviour {
                Behaviour::ClosesAfterStream => {
                    assert!(case.endpoint.closed_under() > 0, "{about}");
                    assert_eq!(model_events("retry_scheduled"), 0, "{about}");
                }
                Behaviour::Interrupts => {
                    assert!(model_events("retry_scheduled") > 0, "{about}");
                }
                Behaviour::IgnoresRequired => {
                    let changes = mode_changes(&case);
                    assert_eq!(
                        changes.first(),
                        Some(&("native".to_string(), "tool".to_string())),
                        "{about}"
                    );
                }
                _ => {
                    assert_eq!(case.run.result["usage"]["estimated"], true, "{about}");
                    assert!(case.usage("input_tokens") > 0, "{about}");
                    assert!(case.usage("output_tokens") > 0, "{about}");
                }
            }
        }
    }
}

/// The fallbacks and repairs a run's recording shows, in order.
fn adaptations(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["type"] == "output_mode_changed" || e["type"] == "call_repair")
        .map(|e| json!([e["type"], e["from"], e["to"], e["attempt"], e["error"]]))
        .collect()
}

/// The JSON Pointers at which `a` and `b` differ, with both values.
fn differences(a: &Value, b: &Value, at: &str) -> Vec<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter()
                .flat_map(|k| {
                    let null = Value::Null;
                    differences(
                        x.get(k).unwrap_or(&null),
                        y.get(k).unwrap_or(&null),
                        &format!("{at}/{k}"),
                    )
                })
                .collect()
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .flat_map(|(i, (p, q))| differences(p, q, &format!("{at}/{i}")))
            .collect(),
        _ if a == b => Vec::new(),
        _ => vec![format!("{at}: {a} ≠ {b}")],
    }
}

#[test]
fn a_cassette_of_an_endpoints_run_serves_its_fallbacks_and_repairs_byte_for_byte() {
    for behaviour in [
        Behaviour::Plain,
        Behaviour::NoResponseFormat,
        Behaviour::MissingKey,
    ] {
        for pattern in &PATTERNS {
            let live_dir = tempfile::tempdir().unwrap();
            let doc = scenario(pattern);
            let endpoint = Messy::serve(&doc, behaviour, false);
            let endpoint_args = [
                "--provider",
                "openai",
                "--base-url",
                &endpoint.base_url,
                "--model",
                "mock-model",
                "--no-stream",
            ];
            let live = headless_in(live_dir.path(), &doc, &endpoint_args);
            let about = format!("{} under {behaviour:?}: {}", pattern.name, live.stderr);
            assert_eq!(
                adaptations(&live.events).is_empty(),
                behaviour == Behaviour::Plain,
                "{about}"
            );
            let asked = endpoint.requests().len();

            let recording = live_dir.path().join("run.jsonl");
            let recording = recording.to_str().unwrap();
            let served_dir = tempfile::tempdir().unwrap();
            let mut args = endpoint_args.to_vec();
            args.extend(["--cassette", recording]);
            let served = headless_in(served_dir.path(), &doc, &args);

            assert_eq!(served.exit, live.exit, "{about}\n{}", served.stderr);
            let apart = differences(&served.result, &live.result, "");
            assert!(apart.is_empty(), "served ≠ recorded at {apart:?}: {about}");
            assert_eq!(
                adaptations(&served.events),
                adaptations(&live.events),
                "the refused modes and the repairs come back in order: {about}"
            );
            assert_eq!(
                endpoint.requests().len(),
                asked,
                "served wholly, nothing reached the endpoint: {about}"
            );
        }
    }
}
