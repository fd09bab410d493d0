//! A launched program's run forked at one of its model calls (`conclave
//! fork REC --at "model call N"`): the program its recording keeps started
//! again, the calls before N served from the recording, call N answered
//! from an edited answer (`conclave replay REC --answer N`, edited) or
//! live, every later call live, counted at a loopback upstream
//! (`common::openai_upstream`). The OpenAI Agents SDK on the Responses API,
//! streamed, takes another path when its edited call 2 asks for the tool
//! again; a plain `openai` program's streamed Chat Completions call is
//! served its edited text as a stream. Every refusal (no launch kept, a
//! bad answer file, a call out of range, a program not allowed) exits 2
//! before anything starts. About four program runs of a second or two.

use crate::common::cli::result;
use crate::common::loopback::Loopback;
use crate::common::openai_upstream::{self, Asked};
use crate::common::python::{Framework, python, root};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The upstream's key, in the variable the scenario names.
const UPSTREAM_KEY: &str = "sk-upstream-only-for-the-fork-tests";
/// The program's own key, which its scenario gives it.
const PROGRAMS_KEY: &str = "sk-the-programs-own-fork-key";

/// A program scenario in `dir` running `fixture` on the Agents SDK's
/// venv against `upstream`.
fn scenario(dir: &Path, fixture: &str, upstream: &str) -> String {
    let program = root().join("tests/fixtures/launch").join(fixture);
    let text = json!({"name": "weather", "pattern": "program",
        "command": [python(Framework::OpenAiAgents), program],
        "env": {"OPENAI_API_KEY": PROGRAMS_KEY, "PYTHONDONTWRITEBYTECODE": "1",
                "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
                "NO_PROXY": "127.0.0.1,localhost"},
        "model": {"upstream": upstream, "key_env": "GW_UPSTREAM_KEY"}, "stop_grace_ms": 2000});
    let app = dir.join("app.json");
    std::fs::write(&app, text.to_string()).unwrap();
    app.display().to_string()
}

/// `conclave ARGS` with the upstream's key and the program's own key (a
/// fork's program gets the secrets its recording left out from here).
fn conclave(args: &[&str]) -> Output {
    conclave_with(args, &[])
}

/// [`conclave`] with `env` added, which a launched program inherits.
fn conclave_with(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(args)
        .envs(env.iter().copied())
        .env("GW_UPSTREAM_KEY", UPSTREAM_KEY)
        .env("OPENAI_API_KEY", PROGRAMS_KEY)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The run's stdout lines.
fn said(run: &Value) -> Vec<&str> {
    run["output"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["stream"] == "stdout")
        .map(|l| l["text"].as_str().unwrap())
        .collect()
}

/// The `model_call` lines of the recording at `record`.
fn model_calls(record: &Path) -> Vec<Value> {
    let lines: Vec<Value> = crate::common::recorded(record);
    lines
        .into_iter()
        .filter(|l| l["type"] == "model_call")
        .collect()
}

/// `fixture` run headless against a fresh upstream and recorded to
/// `dir/run.jsonl`: the recording, and the requests the upstream took.
fn recorded(dir: &Path, fixture: &str) -> (PathBuf, usize) {
    let upstream = openai_upstream::serve();
    let app = scenario(dir, fixture, &upstream.base_url);
    let record = dir.join("run.jsonl");
    let out = conclave(&["run", &app, "--headless", "--record", path(&record)]);
    let run = result(&out);
    assert_eq!(out.status.code(), Some(0), "{run:#}\n{}", stderr(&out));
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(
        !text.contains(PROGRAMS_KEY) && !text.contains(UPSTREAM_KEY),
        "no key kept"
    );
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        first["launch"]["env_withheld"],
        json!(["OPENAI_API_KEY"]),
        "{first}"
    );
    assert_eq!(
        first["launch"]["scenario"]["model"]["key_env"],
        "GW_UPSTREAM_KEY"
    );
    (record, upstream.requests().len())
}

/// Call `n`'s answer of `record`, whole, as `replay --answer` prints it.
fn answer_of(record: &Path, n: &str) -> Value {
    let out = conclave(&["replay", path(record), "--answer", n]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `conclave fork REC --at AT ARGS --headless --allow-exec --record OUT`
/// against `upstream`: its output, result and recording.
fn fork(record: &Path, at: &str, args: &[&str], upstream: &Loopback) -> (Output, Value, PathBuf) {
    let out_file = record.with_file_name(format!("fork-{}.jsonl", rand_suffix()));
    let mut all = vec![
        "fork",
        path(record),
        "--at",
        at,
        "--headless",
        "--allow-exec",
    ];
    all.extend_from_slice(args);
    all.extend([
        "--upstream",
        &upstream.base_url,
        "--record",
        path(&out_file),
    ]);
    let out = conclave(&all);
    let run = result(&out);
    (out, run, out_file)
}

fn rand_suffix() -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    N.fetch_add(1, Ordering::Relaxed).to_string()
}

#[test]
fn an_agents_sdk_run_forked_at_call_2_with_an_edited_answer_takes_the_other_path() {
    let dir = tempfile::tempdir().unwrap();
    let (record, asked) = recorded(dir.path(), "gw_openai_agents.py");
    assert_eq!(asked, 2, "a tool call, then the answer");
    // The recorded call 2 was the final text; edited, it asks for the
    // weather in Lyon instead.
    let mut edited = answer_of(&record, "2");
    assert_eq!(
        edited["output"][0]["content"][0]["text"],
        "In Paris it is sunny, 21 C."
    );
    edited["output"] = json!([{"type": "function_call", "id": "fc_2", "call_id": "call_2",
        "name": "weather", "arguments": "{\"city\":\"Lyon\"}", "status": "completed"}]);
    let file = dir.path().join("edited.json");
    std::fs::write(&file, edited.to_string()).unwrap();

    let upstream = openai_upstream::serve();
    let (out, run, forked) = fork(
        &record,
        "model call 2",
        &["--answer", path(&file)],
        &upstream,
    );
    assert_eq!(out.status.code(), Some(0), "{run:#}\n{}", stderr(&out));
    assert_eq!(
        said(&run),
        ["answer: In Paris it is rainy, 12 C."],
        "{run:#}"
    );
    let asked: Vec<Asked> = upstream.requests().iter().map(Asked::of).collect();
    assert_eq!(
        asked.len(),
        1,
        "calls 1 and 2 never reached the upstream: {asked:?}"
    );
    assert!(
        asked[0].responses && asked[0].stream && !asked[0].tool_call,
        "{asked:?}"
    );
    assert_eq!(run["model_calls"], 3, "{run}");
    assert_eq!(
        run["forked_from"],
        json!({"file": path(&record), "run": run_id_of(&record), "at": "model call 2",
               "answer": path(&file)})
    );
    let lines: Vec<Value> = crate::common::recorded(&forked);
    let launch = &lines[0]["launch"];
    assert_eq!(launch["forked_from"], run["forked_from"], "{launch}");
    assert!(
        launch["scenario"]["command"][1]
            .as_str()
            .unwrap()
            .ends_with("gw_openai_agents.py")
    );
    let calls = model_calls(&forked);
    let marks: Vec<(bool, bool)> = calls
        .iter()
        .map(|c| (c["from_cassette"] == true, c["edited"] == true))
        .collect();
    assert_eq!(
        marks,
        [(true, false), (false, true), (false, false)],
        "{calls:?}"
    );
    let told = stderr(&out);
    assert!(
        told.contains("served 1 call from") && told.contains("1 call from the answer file, 1 live"),
        "{told}"
    );

    // The same call sent upstream instead: the run ends as its parent.
    let upstream = openai_upstream::serve();
    let (out, run, forked) = fork(&record, "call:2", &["--live"], &upstream);
    assert_eq!(out.status.code(), Some(0), "{run:#}\n{}", stderr(&out));
    assert_eq!(
        said(&run),
        ["answer: In Paris it is sunny, 21 C."],
        "{run:#}"
    );
    assert_eq!(upstream.requests().len(), 1, "call 2 went live");
    assert_eq!(run["forked_from"]["at"], "model call 2");
    assert!(run["forked_from"].get("answer").is_none(), "{run}");
    let calls = model_calls(&forked);
    assert_eq!(calls[0]["from_cassette"], true);
    assert!(calls[1].get("from_cassette").is_none() && calls[1].get("edited").is_none());
}

/// The parent's run id, as its recording's result names it.
fn run_id_of(record: &Path) -> String {
    let lines: Vec<Value> = crate::common::recorded(record);
    lines.last().unwrap()["summary"]["run_id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_streamed_chat_call_is_served_its_edited_text_as_a_stream_and_bad_forks_start_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (record, _) = recorded(dir.path(), "gateway_program.py");
    let mut edited = answer_of(&record, "2");
    assert_eq!(
        edited["object"], "chat.completion",
        "a stream folded whole: {edited}"
    );
    assert_eq!(
        edited["choices"][0]["message"]["content"],
        "In Paris it is sunny, 21 C."
    );
    edited["choices"][0]["message"]["content"] = json!("In Paris it is raining.");
    let file = dir.path().join("edited.json");
    std::fs::write(&file, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
    let upstream = openai_upstream::serve();
    let (out, run, forked) = fork(&record, "call 2", &["--answer", path(&file)], &upstream);
    assert_eq!(out.status.code(), Some(0), "{run:#}\n{}", stderr(&out));
    assert_eq!(said(&run), ["answer: In Paris it is raining."], "{run:#}");
    assert_eq!(upstream.requests().len(), 0, "nothing live");
    let calls = model_calls(&forked);
    assert_eq!(calls[1]["edited"], true);
    assert_eq!(
        calls[1]["stream"], true,
        "served as the stream it asked for"
    );

    // A program that asks otherwise before call 2 misses by name.
    let upstream = openai_upstream::serve();
    let args = [
        "fork",
        path(&record),
        "--at",
        "call 2",
        "--answer",
        path(&file),
    ];
    let mut args = args.to_vec();
    args.extend([
        "--headless",
        "--allow-exec",
        "--no-record",
        "--upstream",
        &upstream.base_url,
    ]);
    let out = conclave_with(&args, &[("PROMPT", "What is the weather in Lyon?")]);
    let missed = result(&out);
    assert_eq!(out.status.code(), Some(3), "{missed:#}\n{}", stderr(&out));
    assert_eq!(missed["stop_reason"], "cassette_miss", "{missed}");
    assert!(
        stderr(&out).contains("cassette_miss: the recording does not hold model call 1 ("),
        "{}",
        stderr(&out)
    );
    assert_eq!(upstream.requests().len(), 0, "a miss never goes live");

    refused_before_anything_starts(dir.path(), &record, &file);
}

/// Each bad fork of `record` exits 2 naming what is wrong, and neither
/// the program nor the upstream is reached.
fn refused_before_anything_starts(dir: &Path, record: &Path, good: &Path) {
    let upstream = openai_upstream::serve();
    let write = |name: &str, text: &str| {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        file.display().to_string()
    };
    let not_json = write("not.json", "{\"choices\": [");
    let responses = write("responses.json", r#"{"output": []}"#);
    let text = std::fs::read_to_string(record).unwrap();
    let mut first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    first.as_object_mut().unwrap().remove("launch");
    let rest: Vec<&str> = text.lines().skip(1).collect();
    let old = write("old.jsonl", &format!("{first}\n{}\n", rest.join("\n")));
    let missing = dir.join("missing.json").display().to_string();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["--at", "model call 2", "--answer", &missing],
            format!("{missing}: cannot read"),
        ),
        (
            vec!["--at", "model call 2", "--answer", &not_json],
            format!("{not_json}:1:"),
        ),
        (
            vec!["--at", "model call 2", "--answer", &responses],
            format!("{responses}: no `choices` list"),
        ),
        (
            vec!["--at", "model call 3", "--live"],
            "the recording holds 2 model calls (1 to 2)".into(),
        ),
        (
            vec!["--at", "model call 0", "--live"],
            "the calls are numbered from 1".into(),
        ),
        (
            vec!["--at", "round 2", "--live"],
            "expected `model call N`".into(),
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["fork", path(record), "--headless", "--allow-exec"];
        all.extend(args.iter().copied());
        all.extend(["--upstream", &upstream.base_url]);
        let out = conclave(&all);
        let told = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {told}");
        assert!(
            told.contains(&expected),
            "{args:?}: expected {expected:?} in {told}"
        );
        assert!(
            !told.contains("conclave launch: run"),
            "nothing started: {told}"
        );
    }
    let out = conclave(&["replay", path(record), "--answer", "3"]);
    assert_eq!(out.status.code(), Some(2));
    let told = stderr(&out);
    assert!(
        told.contains("--answer 3: the recording holds 2 model calls (1 to 2)"),
        "{told}"
    );
    let out = conclave(&[
        "fork",
        &old,
        "--at",
        "call 1",
        "--live",
        "--headless",
        "--allow-exec",
    ]);
    let told = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{told}");
    assert!(
        told.contains(&format!("{old}: holds no program to start again")),
        "{told}"
    );
    refused_unless_allowed(record, good);
    assert_eq!(upstream.requests().len(), 0);
}

/// Not allowed (no `--allow-exec`), a fork starts nothing and names the
/// command line it would run, with the way to allow it.
fn refused_unless_allowed(record: &Path, good: &Path) {
    let out = conclave(&[
        "fork",
        path(record),
        "--at",
        "call 2",
        "--answer",
        path(good),
        "--headless",
    ]);
    let told = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{told}");
    assert!(
        told.contains("would run the program `")
            && told.contains("gateway_program.py")
            && told.contains("fork it with --allow-exec"),
        "{told}"
    );
    assert!(
        !told.contains("conclave launch: run"),
        "nothing started: {told}"
    );
}
