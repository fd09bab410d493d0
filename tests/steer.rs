//! Steering real frameworks' runs through the real `conclave watch`
//! (docs/steer.md): each framework, installed pinned by the tests
//! (`common::python`), runs offline on its own scripted model with the
//! repository's hook package, and the test steers it through the
//! watch's HTTP API as a person with curl would. Two runs per framework:
//! one paused at its first gate, stepped three gates and stopped; one
//! whose tool call a person rejects (the model reads the reason), whose
//! flag a person turns off (the next turn goes without it), and whose
//! question a person answers (the run reads the answer). LangGraph's are
//! in `steer_langgraph`, AutoGen's in `steer_autogen`.

use crate::common::pty::Session;
use crate::common::python::Framework;
use crate::common::steer::{Run, Watch, hold_all, named};
use serde_json::{Value, json};

/// The run's line from the watch among `lines`.
pub(crate) fn line_of<'a>(lines: &'a [Value], trace: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["trace_id"] == trace)
        .unwrap_or_else(|| panic!("no line for {trace}: {lines:?}"))
}

pub(crate) fn decisions(line: &Value) -> Vec<Value> {
    line["steering"]["decisions"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Paused at its first gate (`first`), nothing more happens than what
/// came before it (`before`, the events told); three steps let exactly
/// three gates pass and the fourth (`fourth`) waits; a stop ends the run
/// the framework's way. The run's trace id.
pub(crate) fn paused_stepped_stopped(
    watch: &Watch,
    run: &Run,
    before: &[&str],
    first: (&str, &str),
    fourth: (&str, &str),
) -> String {
    let trace = run.expect("run")["trace_id"].as_str().unwrap().to_string();
    let (gate, view) = watch.waiting(&trace, "gate");
    let name = |gate: &Value| (gate["kind"].clone(), gate["name"].clone());
    assert_eq!(name(&gate), (json!(first.0), json!(first.1)));
    assert_eq!(view["gates"], 1, "{view}");
    let told: Vec<Value> = run.told();
    assert!(
        told.len() <= before.len(),
        "a paused run did more: {told:?}"
    );
    for (event, expected) in told.iter().zip(before) {
        assert_eq!(event["event"], *expected, "{told:?}");
    }
    watch.steer(json!({"op": "step", "trace_id": trace, "gates": 3}));
    let (gate, view) = watch.wait_for("the fourth gate waiting", |runs| {
        let run = runs.iter().find(|r| r["trace_id"] == trace)?;
        let first = run["waiting"].as_array()?.first()?;
        (run["gates"] == 4).then(|| (first.clone(), run.clone()))
    });
    assert_eq!(
        (
            gate["kind"].as_str().unwrap(),
            gate["name"].as_str().unwrap()
        ),
        fourth
    );
    assert_eq!(view["passes"], 0, "{view}");
    watch.steer(json!({"op": "stop", "trace_id": trace}));
    trace
}

/// The reason a person rejects the billing agent's tool call with.
const REASON: &str = "over the refund limit; ask the customer first";

/// The tool call `approval` of the run `decide` rejected with `reason`:
/// the tool never ran, and the model's next call reads the rejection.
/// That call.
pub(crate) fn rejected_and_read(
    watch: &Watch,
    run: &Run,
    decide: &str,
    approval: &Value,
    reason: &str,
) -> Value {
    watch
        .steer(json!({"op": "reject", "trace_id": decide, "id": approval["id"], "reason": reason}));
    let next = run.expect("model_call");
    let input = next["input"].as_str().unwrap();
    assert!(
        input.contains(reason) && input.contains("rejected by a person"),
        "{input}"
    );
    next
}

/// A decide run held at `approval`: the flag legal_analyst turned off, the
/// call rejected (the model's next call reads the reason, and is offered
/// no legal_check), the question answered (the model reads the answer),
/// the run finished. The reason.
fn flag_off_rejected_answered(
    watch: &Watch,
    run: &Run,
    decide: &str,
    approval: &Value,
) -> &'static str {
    watch
        .steer(json!({"op": "set_flag", "trace_id": decide, "name": "legal_analyst", "on": false}));
    let second = rejected_and_read(watch, run, decide, approval, REASON);
    let offered = second["tools"].as_array().unwrap();
    assert!(!offered.contains(&json!("legal_check")), "{second}");
    let (question, _) = watch.waiting(decide, "question");
    assert_eq!(question["question"], "Refund or credit?");
    watch
        .steer(json!({"op": "answer", "trace_id": decide, "id": question["id"], "text": "credit"}));
    let third = run.expect("model_call");
    assert!(
        third["input"].as_str().unwrap().contains("credit"),
        "{third}"
    );
    assert_eq!(run.expect("finished")["output"], "settled");
    REASON
}

#[test]
fn an_openai_agents_run_is_held_stepped_decided_and_stopped_through_the_watch() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().to_str().unwrap();
    let watch = Watch::start(&["--runs", "3", "--record-dir", record]);
    watch.steer(hold_all());
    let run = Run::start(Framework::OpenAiAgents, "openai_agents_run.py", &watch.url);

    let steps = paused_stepped_stopped(
        &watch,
        &run,
        &[],
        ("agent_turn", "Counter"),
        ("model_call", "Counter"),
    );
    // The three gates passed were the turn, a model call and a tool call.
    assert_eq!(run.expect("model_call")["call"], 1);
    assert_eq!(run.expect("tool")["n"], 1);
    assert_eq!(run.expect("stopped")["reason"], "stopped by a person");

    let decide = run.expect("run")["trace_id"].as_str().unwrap().to_string();
    let (gate, view) = watch.waiting(&decide, "gate");
    assert_eq!(gate["kind"], "agent_turn");
    assert_eq!(view["flags"][0]["name"], "legal_analyst");
    assert_eq!(view["flags"][0]["on"], true);
    watch.steer(json!({"op": "run_on", "trace_id": decide}));
    let (approval, _) = watch.waiting(&decide, "approval");
    assert_eq!(approval["tool"], "lookup_invoice");
    assert_eq!(approval["agent"], "Billing Agent");
    assert_eq!(approval["arguments"], json!({"invoice": 7}));
    let first = run.expect("model_call");
    assert!(
        first["tools"]
            .as_array()
            .unwrap()
            .contains(&json!("legal_check"))
    );
    let reason = flag_off_rejected_answered(&watch, &run, &decide, &approval);
    // Stopped while a guarded tool waits for approval: `Stopped` comes
    // out of Runner.run (not the SDK's UserError), and the model is not
    // called again.
    let in_tool = run.expect("run")["trace_id"].as_str().unwrap().to_string();
    // The run is steered once its hook has spoken: held at its first gate.
    watch.waiting(&in_tool, "gate");
    watch.steer(json!({"op": "run_on", "trace_id": in_tool}));
    watch.waiting(&in_tool, "approval");
    assert_eq!(run.expect("model_call")["call"], 1);
    watch.steer(json!({"op": "stop", "trace_id": in_tool, "reason": "wrong invoice"}));
    let stopped_in_tool = run.expect("stopped");
    assert_eq!(stopped_in_tool["reason"], "wrong invoice");
    assert_eq!(stopped_in_tool["kind"], "StoppedRun");
    assert!(run.end().success());

    let lines = [watch.finished(), watch.finished(), watch.finished()];
    assert_eq!(
        line_of(&lines, &in_tool)["steering"]["stopped"],
        "wrong invoice"
    );
    let stopped = line_of(&lines, &steps);
    assert_eq!(stopped["steering"]["stopped"], "stopped by a person");
    let kinds: Vec<Value> = decisions(stopped)
        .iter()
        .map(|d| d["decision"].clone())
        .collect();
    assert_eq!(
        kinds,
        [
            json!("held"),
            json!("stepped"),
            json!("held"),
            json!("stopped")
        ]
    );
    let decided = decisions(line_of(&lines, &decide));
    assert!(
        decided
            .iter()
            .any(|d| d["decision"] == "rejected" && d["by"] == "person" && d["reason"] == reason)
    );
    assert!(
        decided
            .iter()
            .any(|d| d["decision"] == "flag_set" && d["on"] == false)
    );
    assert!(
        decided
            .iter()
            .any(|d| d["decision"] == "answered" && d["answer"] == "credit")
    );
    // Recorded: the decisions are lines of the run's recording.
    let recording =
        std::fs::read_to_string(line_of(&lines, &decide)["recording"].as_str().unwrap()).unwrap();
    let steered = recording
        .lines()
        .filter(|l| l.contains(r#""type":"steered""#))
        .count();
    assert_eq!(steered, decided.len());
    // Replayed: the run's line again, its decisions in the log.
    let path = line_of(&lines, &decide)["recording"]
        .as_str()
        .unwrap()
        .to_string();
    let replayed = std::process::Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(["replay", "--headless", &path])
        .output()
        .unwrap();
    assert!(replayed.status.success());
    let again: Value = serde_json::from_slice(&replayed.stdout).unwrap();
    assert_eq!(again["steering"]["decisions"], json!(decided));
    let log = String::from_utf8_lossy(&replayed.stderr);
    assert!(
        log.contains("steered rejected") && log.contains(reason),
        "{log}"
    );
    // In the dashboard's replay: each decision a line of the event log,
    // in the words the watch's screen says it.
    let home = tempfile::tempdir().unwrap();
    let mut replay = Session::start_sized(&["replay", &path], home.path(), &[], (160, 48));
    replay.wait_text("REPLAY");
    replay.press(">");
    replay.wait_text("stop: success");
    // The header and the pane say what the run is: another framework's,
    // watched, with no pattern or seed of Conclave's.
    replay.wait_text("Watched agents: ");
    let shown = replay.text();
    let header = shown.lines().next().unwrap_or_default();
    assert!(header.contains("watched · "), "{shown}");
    assert!(
        !header.contains("seed") && !header.contains("swarm"),
        "{shown}"
    );
    assert!(!shown.contains("Swarm chain"), "{shown}");
    replay.press("3");
    replay.press("/");
    replay.press("steered");
    replay.press("\r");
    replay.wait_text("matching \"steered\"");
    let rejected = decided
        .iter()
        .find(|d| d["decision"] == "rejected")
        .unwrap();
    for said in [
        format!(
            "steered rejected {} (by a person): {}",
            rejected["tool"].as_str().unwrap(),
            &reason[..reason.len().min(20)]
        ),
        "steered flag legal_analyst off".to_string(),
        "steered answered \"Refund or credit?\": credit".to_string(),
    ] {
        replay.wait_text(&said);
    }
    replay.press("q");
    assert!(replay.wait_exit().success());
    // A stopped run's replay says it stopped, never success.
    let path = stopped["recording"].as_str().unwrap().to_string();
    let mut replay = Session::start_sized(&["replay", &path], home.path(), &[], (160, 48));
    replay.wait_text("REPLAY");
    replay.press(">");
    replay.wait_text("stop: cancelled");
    assert!(!replay.text().contains("stop: success"));
    replay.press("q");
    assert!(replay.wait_exit().success());
}

#[test]
fn a_pydantic_ai_run_is_held_stepped_decided_and_stopped_through_the_watch() {
    let watch = Watch::start(&["--runs", "2"]);
    watch.steer(hold_all());
    let run = Run::start(Framework::PydanticAi, "pydantic_ai_run.py", &watch.url);

    // Every tool call is a gate: the first comes after the first model call.
    let steps = paused_stepped_stopped(
        &watch,
        &run,
        &["model_call"],
        ("tool_call", "count"),
        ("tool_call", "count"),
    );
    let mut told = Vec::new();
    loop {
        let event = run.next();
        if event["event"] == "stopped" {
            assert_eq!(event["reason"], "stopped by a person");
            break;
        }
        told.push(event);
    }
    let tools: Vec<Value> = named(&told, "tool")
        .iter()
        .map(|e| e["n"].clone())
        .collect();
    assert_eq!(tools, [json!(1), json!(2), json!(3)], "{told:?}");
    // The fourth model call asked for the fourth count, held at its gate.
    assert_eq!(told.last().unwrap()["call"], 4, "{told:?}");

    let decide = run.expect("run")["trace_id"].as_str().unwrap().to_string();
    let (gate, view) = watch.waiting(&decide, "gate");
    assert_eq!(gate["name"], "lookup_invoice");
    assert_eq!(gate["agent"], "Billing Agent");
    assert_eq!(gate["arguments"], json!({"invoice": 7}));
    assert_eq!(view["flags"][0]["name"], "legal_analyst");
    let first = run.expect("model_call");
    assert!(
        first["tools"]
            .as_array()
            .unwrap()
            .contains(&json!("legal_check"))
    );
    watch.steer(json!({"op": "run_on", "trace_id": decide}));
    let (approval, _) = watch.waiting(&decide, "approval");
    assert_eq!(approval["tool"], "lookup_invoice");
    let reason = flag_off_rejected_answered(&watch, &run, &decide, &approval);
    assert!(run.end().success());

    let lines = [watch.finished(), watch.finished()];
    assert_eq!(
        line_of(&lines, &steps)["steering"]["stopped"],
        "stopped by a person"
    );
    let decided = decisions(line_of(&lines, &decide));
    assert!(
        decided
            .iter()
            .any(|d| d["decision"] == "rejected" && d["reason"] == reason)
    );
    assert!(
        decided
            .iter()
            .any(|d| d["decision"] == "answered" && d["answer"] == "credit")
    );
}
