//! Each of the four frameworks' programs launched headless with
//! `conclave launch` (docs/launch.md), as their authors write them: the
//! framework's own OpenTelemetry instrumentation set up from the
//! environment alone, the repository's steering hook, a scripted model,
//! nothing off the machine. Each is one run: its result and its
//! recording name the launch's run id, hold every span the program says
//! it ended, every steering decision and every output line. The
//! LangGraph program (OpenInference, which makes no span current) is
//! paused at a breakpoint, stepped, its tool call rejected and its
//! `interrupt()` answered through the run's steering URL, as the
//! dashboard steers it; the resumed graph, a second trace, is the same
//! run. The frameworks are installed by `common::python` (a framework
//! that cannot be installed fails); each launch takes a few seconds.

use crate::common::cli::conclave;
use crate::common::python::{Framework, python, root};
use crate::common::steer::Watch;
use serde_json::{Value, json};
use std::path::Path;

/// `script` of tests/fixtures/launch launched headless by `framework`'s
/// Python with `options` before the `--`: the launch, steerable, and the
/// run's id.
fn launch(framework: Framework, script: &str, options: &[&str]) -> (Watch, String) {
    let fixtures = root().join("tests/fixtures/launch");
    let path = std::env::join_paths([root().join("hooks/python"), fixtures.clone()]).unwrap();
    let path = path.to_str().unwrap().to_string();
    let python = python(framework).display().to_string();
    let program = fixtures.join(script).display().to_string();
    let mut args: Vec<&str> = options.to_vec();
    args.extend(["--", &python, &program]);
    let env = [
        ("PYTHONPATH", path.as_str()),
        ("PYTHONDONTWRITEBYTECODE", "1"),
    ];
    Watch::launch(&args, &env)
}

/// The texts of the run's stdout lines.
fn stdout_lines(result: &Value) -> Vec<String> {
    result["output"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["stream"] == "stdout")
        .map(|l| l["text"].as_str().unwrap().to_string())
        .collect()
}

/// The launched run `run` ended well and is one run: its result names it,
/// its span count is the count the program printed last (`spans N`), and
/// its recording at `record` holds the same spans (each on the run), the
/// same decisions and the same output lines, replayed as the same run.
/// The recorded spans' names.
fn one_run(code: Option<i32>, result: &Value, run: &str, record: &Path) -> Vec<String> {
    assert_eq!(code, Some(0), "{result:#}");
    assert_eq!(
        (&result["status"], &result["stop_reason"]),
        (&json!("ok"), &json!("completed"))
    );
    assert_eq!(result["exit_status"], 0);
    assert_eq!(result["run_id"], run);
    assert_eq!(result["trace_id"], run, "the spans' run is the launch's");
    let said = stdout_lines(result);
    let ended = said.last().and_then(|l| l.strip_prefix("spans "));
    let ended: u64 = ended.unwrap_or_else(|| panic!("{said:?}")).parse().unwrap();
    assert!(ended > 0);
    assert_eq!(result["spans"], ended, "every span on the run: {result:#}");
    assert_eq!(result["dropped_spans"], 0);

    let text = std::fs::read_to_string(record).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |kind: &'static str| lines.iter().filter(move |l| l["type"] == kind);
    let spans: Vec<&Value> = of("span_arrived").map(|l| &l["span"]).collect();
    assert_eq!(spans.len() as u64, ended);
    assert!(spans.iter().all(|s| s["trace_id"] == run), "{spans:?}");
    let decided: Vec<Value> = of("steered")
        .map(|l| {
            let mut decision = l["decision"].clone();
            decision["at_ms"] = l["at_ms"].clone();
            decision
        })
        .collect();
    assert_eq!(&Value::from(decided), &result["steering"]["decisions"]);
    let output: Vec<&Value> = of("program_output").map(|l| &l["text"]).collect();
    let kept = result["output"]["lines"].as_array().unwrap();
    assert_eq!(output, kept.iter().map(|l| &l["text"]).collect::<Vec<_>>());
    let summary = &of("watch_finished").next().expect("the result, last")["summary"];
    assert_eq!(summary["run_id"], run);

    let replay = conclave(&["replay", record.to_str().unwrap(), "--headless"]);
    assert_eq!(replay.status.code(), Some(0));
    let replayed: Value = serde_json::from_slice(&replay.stdout).unwrap();
    assert_eq!(replayed["trace_id"], run);
    assert_eq!(replayed["spans"], ended);
    assert_eq!(
        &replayed["steering"]["decisions"],
        &result["steering"]["decisions"]
    );
    let told = String::from_utf8_lossy(&replay.stderr);
    for line in &said {
        assert!(told.contains(&format!("stdout  {line}")), "{line}: {told}");
    }
    spans
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

/// The decisions' names, the gates held left out.
fn decided(result: &Value) -> Vec<String> {
    result["steering"]["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["decision"].as_str().unwrap().to_string())
        .filter(|d| d != "held")
        .collect()
}

/// A launched program of `framework` steered by nobody, its flag
/// legal_analyst turned off on the command line: one run, whose steering
/// declared the flag off, approved its guarded tool call (nobody steers)
/// and whose model was offered no legal tool.
fn unsteered(framework: Framework, script: &str, agent: Value, first: &str) {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.jsonl");
    let options = [
        "--flag",
        "legal_analyst=off",
        "--record",
        record.to_str().unwrap(),
    ];
    let (mut launched, run) = launch(framework, script, &options);
    let (code, result) = launched.result();
    one_run(code, &result, &run, &record);
    assert_eq!(result["steering"]["flags"], json!({"legal_analyst": false}));
    assert_eq!(decided(&result), ["flags_declared", "approved"]);
    let approved = &result["steering"]["decisions"][1];
    assert_eq!(
        (&approved["tool"], &approved["by"], &approved["agent"]),
        (&json!("lookup_invoice"), &json!("nobody"), &agent)
    );
    assert_eq!(result["model_calls"], 2, "{result:#}");
    assert_eq!(result["tool_calls"][0]["tool"], "lookup_invoice");
    let said = stdout_lines(&result);
    assert_eq!(
        said[..2],
        [first.to_string(), "tool lookup_invoice 7".into()]
    );
}

#[test]
fn an_agents_sdk_program_launched_headless_is_one_run() {
    let first = "model call 1 offered ['lookup_invoice']";
    unsteered(
        Framework::OpenAiAgents,
        "openai_agents_app.py",
        json!("Billing Agent"),
        first,
    );
}

#[test]
fn a_pydantic_ai_program_launched_headless_is_one_run() {
    let first = "model call 1 offered ['lookup_invoice']";
    unsteered(
        Framework::PydanticAi,
        "pydantic_ai_app.py",
        json!("Billing Agent"),
        first,
    );
}

#[test]
fn an_autogen_program_launched_headless_is_one_run() {
    let first = "model call 1 offered ['lookup_invoice']";
    unsteered(Framework::AutoGen, "autogen_app.py", Value::Null, first);
}

/// What waits first in the launched run, once the steering has `gates`
/// gates of it and something waits; every run listed is the launch's.
fn waiting_at(launched: &Watch, run: &str, gates: u64) -> Value {
    launched.wait_for(&format!("gate {gates} of {run}"), |runs| {
        assert!(runs.iter().all(|r| r["trace_id"] == run), "{runs:?}");
        let view = runs.first()?;
        let first = view["waiting"].as_array()?.first()?;
        (view["gates"] == gates).then(|| first.clone())
    })
}

#[test]
fn a_langgraph_program_with_openinference_paused_stepped_rejected_and_answered_is_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.jsonl");
    let options = ["--break", "intake", "--record", record.to_str().unwrap()];
    let (mut launched, run) = launch(Framework::LangGraph, "langgraph_app.py", &options);
    let steer = |op: Value| launched.steer(op);

    // Held at the breakpoint before its first node, then stepped one node.
    let gate = waiting_at(&launched, &run, 1);
    assert_eq!(
        (&gate["ask"], &gate["name"]),
        (&json!("gate"), &json!("intake"))
    );
    steer(json!({"op": "step", "trace_id": run, "gates": 1}));
    let gate = waiting_at(&launched, &run, 2);
    assert_eq!(gate["name"], "model");
    // Run on to the guarded tool; paused while a person rejects it.
    steer(json!({"op": "run_on", "trace_id": run}));
    let (approval, _) = launched.waiting(&run, "approval");
    assert_eq!(approval["tool"], "lookup_invoice");
    assert_eq!(approval["arguments"], json!({"invoice": 7}));
    steer(json!({"op": "pause", "trace_id": run}));
    let reason = "invoices are looked up by billing only";
    steer(json!({"op": "reject", "trace_id": run, "id": approval["id"], "reason": reason}));
    let gate = waiting_at(&launched, &run, 4);
    assert_eq!(
        gate["name"], "model",
        "held at the next node after the pause"
    );
    // The interrupt() answered: the graph resumes, in a trace of its own.
    steer(json!({"op": "run_on", "trace_id": run}));
    let (question, _) = launched.waiting(&run, "question");
    assert_eq!(question["question"], "Refund or credit?");
    steer(json!({"op": "answer", "trace_id": run, "id": question["id"], "text": "credit"}));

    let (code, result) = launched.result();
    let names = one_run(code, &result, &run, &record);
    let roots = names.iter().filter(|n| *n == "LangGraph").count();
    assert_eq!(roots, 2, "the first invoke and the resumed one: {names:?}");
    for node in ["intake", "lookup_invoice", "confirm", "legal"] {
        assert!(names.iter().any(|n| n == node), "{node}: {names:?}");
    }
    assert_eq!(
        decided(&result),
        [
            "flags_declared",
            "broke",
            "stepped",
            "ran_on",
            "paused",
            "rejected",
            "ran_on",
            "answered"
        ]
    );
    let decisions = result["steering"]["decisions"].as_array().unwrap();
    let rejected = decisions
        .iter()
        .find(|d| d["decision"] == "rejected")
        .unwrap();
    assert_eq!(
        (&rejected["reason"], &rejected["by"]),
        (&json!(reason), &json!("person"))
    );
    let answered = decisions
        .iter()
        .find(|d| d["decision"] == "answered")
        .unwrap();
    assert_eq!(answered["answer"], "credit");
    let said = stdout_lines(&result);
    assert_eq!(said[0], "node intake");
    assert!(
        said[2].contains(reason),
        "the model read the rejection: {said:?}"
    );
    assert_eq!(said[3..5], ["answered credit", "node legal"]);
    assert!(said[5].starts_with("finished "), "{said:?}");
}
