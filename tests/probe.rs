//! `conclave probe` (issue 58): the real binary probes the loopback model
//! as it behaves like OpenAI, like an endpoint refusing `json_schema` with
//! a 400, like llama-cpp-python's 500 quoting pydantic and like a model
//! refusing a temperature, and like llama-cpp-python refusing
//! `stream_options`, and like `llama-server --no-jinja`'s 500 for tools.
//! Each refusal is named with the endpoint's
//! words, with the mode `auto` settles on; the key is nowhere. A run
//! started from the profile it writes makes no fallback request and ends
//! as on the sim. A dead and a hanging endpoint are reported per request
//! and exit 3, with no profile written.

use crate::common;
use crate::real_models::{Run, headless, headless_in};

use common::loopback::{Body, Loopback, Reply};
use common::messy::{Behaviour, Messy};
use common::script::quick;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const KEY: &str = "sk-probe-test-key-0123456789abcdef";

/// `conclave probe --base-url URL --model mock-model` with `args`.
fn probe(base_url: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(["probe", "--provider", "openai", "--model", "mock-model"])
        .args(["--base-url", base_url])
        .args(args)
        .env("OPENAI_API_KEY", KEY)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn about(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        text(&output.stdout),
        text(&output.stderr)
    )
}

/// The line of stdout about the request labelled `label`.
fn line<'a>(stdout: &'a str, label: &str) -> &'a str {
    stdout
        .lines()
        .find(|line| line.starts_with(label))
        .unwrap_or_else(|| panic!("no line for {label}:\n{stdout}"))
}

/// Probe `endpoint`, writing the profile into `work`: stdout, after
/// checking that the probe succeeded and the key is nowhere.
fn probed(endpoint: &Messy, work: &Path) -> (String, Value) {
    let profile = work.join("profile.json");
    let output = probe(&endpoint.base_url, &["--write", profile.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", about(&output));
    let written = std::fs::read_to_string(&profile).unwrap();
    for (what, text) in [
        ("stdout", text(&output.stdout)),
        ("stderr", text(&output.stderr)),
        ("the profile", written.clone()),
    ] {
        assert!(!text.contains(KEY), "the key in {what}: {text}");
        assert!(
            !text.to_ascii_lowercase().contains("bearer"),
            "{what}: {text}"
        );
    }
    // Every request carried the key; the probe sent eight.
    let sent = endpoint.requests();
    assert_eq!(sent.len(), 8, "{}", about(&output));
    (
        text(&output.stdout),
        serde_json::from_str(&written).unwrap(),
    )
}

#[test]
fn an_openai_like_endpoint_accepts_everything_and_auto_settles_on_native() {
    let work = tempfile::tempdir().unwrap();
    let endpoint = Messy::serve(&quick("checkout_v2_launch.json"), Behaviour::Plain, true);
    let (stdout, profile) = probed(&endpoint, work.path());
    for label in [
        "max_completion_tokens:",
        "temperature 0:",
        "native (response_format json_schema):",
        "tool (one forced function call):",
        "tool (two functions, tool_choice required):",
        "json (response_format json_object):",
        "prompted (the schema in the prompt):",
    ] {
        let line = line(&stdout, label);
        assert!(
            line.contains(": accepted, ") && line.ends_with(" ms"),
            "{line}"
        );
    }
    let stream = line(&stdout, "stream with usage (stream_options):");
    assert!(stream.contains("accepted, usage counted"), "{stream}");
    assert!(stdout.contains("\nauto settles on: native\n"), "{stdout}");
    assert!(stdout.contains("\nrefused: nothing\n"), "{stdout}");
    assert_eq!(profile["output"], "native");
    assert_eq!(profile["refused"], serde_json::json!({}));
    assert_eq!(profile["model"], "mock-model");
    assert_eq!(profile["base_url"], endpoint.base_url.as_str());
    // One request per mode, as the run would send it.
    let requests = endpoint.requests();
    assert_eq!(requests[2]["response_format"]["type"], "json_schema");
    assert!(requests[3]["tools"].is_array());
    assert_eq!(requests[3]["tools"].as_array().unwrap().len(), 1);
    assert_eq!(requests[4]["tools"].as_array().unwrap().len(), 2);
    assert_eq!(requests[4]["tool_choice"], "required");
    assert_eq!(requests[5]["response_format"]["type"], "json_object");
    assert_eq!(requests[1]["temperature"], 0);
    // The token limit asked for fewer tokens than the answer takes; the
    // rest ask for 64, under the name the endpoint honours.
    assert_eq!(requests[0]["max_completion_tokens"], 2);
    for request in &requests[1..] {
        assert_eq!(request["max_completion_tokens"], 64, "{request}");
    }
    assert_eq!(requests[7]["stream_options"]["include_usage"], true);
}

/// Servers that take `tools` and answer without a call: found by reading
/// the answers, counted as refused, and walked past by `auto`.
#[test]
fn tools_an_endpoint_ignores_are_found_in_its_answers_and_auto_walks_past_them() {
    let doc = quick("support_swarm.json");
    let sim = headless(&doc, &[]);
    let cases = [
        // llama-server with a chat template without tools; its streams
        // bring usage.
        (Behaviour::IgnoresTools, 2, "native", true),
        // llama-cpp-python: one function by name honoured, `required` not,
        // and no usage in a stream.
        (Behaviour::IgnoresRequired, 1, "json", false),
    ];
    for (behaviour, ignored, settled, usage) in cases {
        let work = tempfile::tempdir().unwrap();
        let endpoint = Messy::serve(&doc, behaviour, true);
        let (stdout, profile) = probed(&endpoint, work.path());
        let lines: Vec<&str> = stdout
            .lines()
            .filter(|l| l.contains(": ignored tools, "))
            .collect();
        assert_eq!(lines.len(), ignored, "{behaviour:?}:\n{stdout}");
        assert!(
            line(&stdout, "tool (two functions, tool_choice required):").contains(
                "the answer made none; it answered in text, which began: Sure, I can help"
            ),
            "{behaviour:?}:\n{stdout}"
        );
        assert!(
            stdout.contains(&format!("\nauto settles on: {settled}\n")),
            "{behaviour:?}:\n{stdout}"
        );
        let stream = line(&stdout, "stream with usage (stream_options):");
        assert!(stream.contains("accepted"), "{behaviour:?}:\n{stdout}");
        assert_eq!(
            stream.contains("no usage came with the stream"),
            !usage,
            "{behaviour:?}:\n{stdout}"
        );
        assert_eq!(profile["output"], settled, "{profile}");
        assert!(
            profile["refused"]["tools"]
                .as_str()
                .unwrap()
                .starts_with("ignored: "),
            "{profile}"
        );
        // A run from the profile asks the settled way from its first
        // request: no fallback, and it ends as on the sim.
        let endpoint = Messy::serve(&doc, behaviour, true);
        let profile = work.path().join("profile.json");
        let run = headless_in(
            work.path(),
            &doc,
            &[
                "--provider",
                "openai",
                "--model",
                "mock-model",
                "--base-url",
                &endpoint.base_url,
                "--endpoint-profile",
                profile.to_str().unwrap(),
            ],
        );
        let about = format!("{behaviour:?}: {}\n{}", run.stderr, run.result);
        assert!(
            !run.events
                .iter()
                .any(|e| e["type"] == "output_mode_changed"),
            "{about}"
        );
        assert!(
            endpoint.requests().iter().all(|r| r.get("tools").is_none()),
            "{about}"
        );
        assert_eq!(run.exit, sim.exit, "{about}");
        // Where the streams bring no usage, the run's tokens are estimated.
        assert_eq!(run.result["usage"]["estimated"] == true, !usage, "{about}");
        assert!(
            run.result["usage"]["input_tokens"].as_u64() > Some(0),
            "{about}"
        );
        for key in ["status", "stop_reason", "final_agent", "answer"] {
            assert_eq!(run.result[key], sim.result[key], "{key}: {about}");
        }
    }
}

/// What each refusing endpoint refuses, the words it says it in and the
/// mode `auto` settles on.
const REFUSING: [(Behaviour, &str, &str, &str, &str); 5] = [
    (
        Behaviour::NoJsonSchema,
        "native (response_format json_schema):",
        "refused json_schema, HTTP 400",
        "'response_format' of type 'json_schema' is not supported with this model",
        "tool",
    ),
    (
        Behaviour::LlamaCppPython,
        "native (response_format json_schema):",
        "refused json_schema, HTTP 500",
        "Input should be 'text' or 'json_object'",
        "tool",
    ),
    (
        Behaviour::Reasoner,
        "temperature 0:",
        "refused temperature, HTTP 400",
        "'temperature' does not support 0 with this model",
        "native",
    ),
    (
        Behaviour::NoJinja,
        "tool (one forced function call):",
        "refused tools, HTTP 500",
        "tools param requires --jinja flag",
        "native",
    ),
    (
        Behaviour::NoStreamOptions,
        "stream with usage (stream_options):",
        "refused stream_options, HTTP 500",
        "Extra inputs are not permitted",
        "native",
    ),
];

/// The model calls a run made, as its recording has them.
fn model_calls(run: &Run) -> usize {
    run.events
        .iter()
        .filter(|e| e["type"] == "call_finished" && e["tool"] == "model")
        .count()
}

#[test]
fn each_refusal_is_named_in_the_endpoints_words_and_a_run_from_the_profile_pays_no_fallback() {
    let doc = quick("checkout_v2_launch.json");
    let sim = headless(&doc, &[]);
    for (behaviour, label, verdict, words, settled) in REFUSING {
        let work = tempfile::tempdir().unwrap();
        let endpoint = Messy::serve(&doc, behaviour, true);
        let (stdout, profile) = probed(&endpoint, work.path());
        let refused = line(&stdout, label);
        assert!(
            refused.contains(verdict) && refused.contains(words),
            "{behaviour:?}: {refused}"
        );
        // Tools are refused for both tool requests, one function or two.
        let times = if behaviour == Behaviour::NoJinja {
            2
        } else {
            1
        };
        let others = stdout.lines().filter(|l| l.contains(": refused ")).count();
        assert_eq!(others, times, "{behaviour:?} refuses one thing:\n{stdout}");
        assert!(
            stdout.contains(&format!("\nauto settles on: {settled}\n")),
            "{behaviour:?}:\n{stdout}"
        );
        let name = verdict.split(' ').nth(1).unwrap().trim_end_matches(',');
        assert_eq!(profile["output"], settled, "{profile}");
        assert!(
            profile["refused"][name].as_str().unwrap().contains(words),
            "{profile}"
        );
        // llama-cpp-python takes max_completion_tokens and ignores it.
        let limit = line(&stdout, "max_completion_tokens:");
        let ignored = behaviour == Behaviour::LlamaCppPython;
        assert_eq!(
            limit.contains("accepted but ignored: the answer took"),
            ignored,
            "{behaviour:?}: {limit}"
        );
        assert_eq!(
            limit.contains(": accepted, "),
            !ignored,
            "{behaviour:?}: {limit}"
        );
        let kept = profile["refused"]["max_completion_tokens"].as_str();
        assert_eq!(
            kept.is_some_and(|words| words.starts_with("ignored: the answer took")),
            ignored,
            "{profile}"
        );
        if ignored {
            for request in &endpoint.requests()[1..] {
                assert_eq!(request["max_tokens"], 64, "{request}");
                assert_eq!(request.get("max_completion_tokens"), None, "{request}");
            }
        }
        // A run from the profile: every request answered, none refused,
        // the limit under the name the endpoint honours.
        let endpoint = Messy::serve(&doc, behaviour, true);
        let profile = work.path().join("profile.json");
        let run = headless_in(
            work.path(),
            &doc,
            &[
                "--provider",
                "openai",
                "--model",
                "mock-model",
                "--base-url",
                &endpoint.base_url,
                "--endpoint-profile",
                profile.to_str().unwrap(),
                "--max-output-tokens",
                "400",
            ],
        );
        let about = format!("{behaviour:?}: {}\n{}", run.stderr, run.result);
        let requests = endpoint.requests();
        assert_eq!(requests.len(), endpoint.answered(), "{about}");
        assert_eq!(requests.len(), model_calls(&sim), "{about}");
        for request in &requests {
            let name = if ignored {
                "max_tokens"
            } else {
                "max_completion_tokens"
            };
            assert_eq!(request[name], 400, "{request}: {about}");
            match behaviour {
                Behaviour::Reasoner => assert_eq!(request.get("temperature"), None, "{about}"),
                Behaviour::NoStreamOptions => {
                    assert_eq!(request.get("stream_options"), None, "{about}");
                }
                Behaviour::NoJinja => assert_eq!(request.get("tools"), None, "{about}"),
                _ => assert_ne!(request["response_format"]["type"], "json_schema", "{about}"),
            }
        }
        assert!(
            !run.events.iter().any(|e| e["type"] == "output_mode_changed"
                || e["type"] == "request_adapted"
                || e["fallback"] == true),
            "{about}"
        );
        assert_eq!(run.exit, sim.exit, "{about}");
        for key in ["status", "stop_reason", "decision"] {
            assert_eq!(run.result[key], sim.result[key], "{key}: {about}");
        }
    }
}

/// A small model rambling inside `json_object`'s grammar, cut at the
/// probe's limit before its JSON closes, as SmolLM2-135M behind
/// llama-cpp-python was: the cut answer is no sign that the format was
/// ignored. A stream that brings no usage says so, though its tokens are
/// estimated now.
#[test]
fn an_answer_cut_at_its_limit_is_not_a_format_ignored() {
    let endpoint = Loopback::serve(|captured, _| {
        let body: Value = serde_json::from_slice(&captured.body).unwrap_or_default();
        if body["stream"] == true {
            let chunk = |delta: Value, finish: Value| {
                let chunk = serde_json::json!({"id": "c", "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
                format!("data: {chunk}\n\n")
            };
            let events = chunk(
                serde_json::json!({"role": "assistant", "content": "{\"ok\": true}"}),
                Value::Null,
            ) + &chunk(serde_json::json!({}), "stop".into())
                + "data: [DONE]\n\n";
            return Reply::text(200, &events).header("content-type", "text/event-stream");
        }
        Reply::json(
            200,
            &serde_json::json!({"id": "c", "object": "chat.completion",
                "choices": [{"index": 0, "finish_reason": "length",
                             "message": {"role": "assistant", "content": "{\"name\": \"answer ok\", \"conte"}}],
                "usage": {"prompt_tokens": 40, "completion_tokens": 2, "total_tokens": 42}}),
        )
    });
    let output = probe(&endpoint.base_url, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", about(&output));
    let stdout = text(&output.stdout);
    for label in [
        "native (response_format json_schema):",
        "json (response_format json_object):",
    ] {
        let said = line(&stdout, label);
        assert!(
            said.contains("accepted")
                && said.contains("cut at its limit of 64 tokens before it was complete")
                && said.contains("answer ok"),
            "{said}"
        );
        assert!(!said.contains("ignored"), "{said}");
    }
    assert!(
        line(&stdout, "max_completion_tokens:").contains("accepted, "),
        "{stdout}"
    );
    assert!(
        line(&stdout, "stream with usage (stream_options):")
            .contains("accepted, but no usage came with the stream"),
        "{stdout}"
    );
    assert!(stdout.contains("\nauto settles on: native\n"), "{stdout}");
}

#[test]
fn a_dead_and_a_hanging_endpoint_are_reported_per_request_and_exit_3() {
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", listener.local_addr().unwrap())
    };
    let hanging = Loopback::serve(|_, _| Reply::new(200, Body::Stall));
    for (base_url, says) in [
        (dead.as_str(), "cannot reach"),
        (hanging.base_url.as_str(), "did not answer within"),
    ] {
        let work = tempfile::tempdir().unwrap();
        let profile = work.path().join("profile.json");
        let output = probe(
            base_url,
            &[
                "--call-timeout",
                "0.3",
                "--write",
                profile.to_str().unwrap(),
            ],
        );
        assert_eq!(output.status.code(), Some(3), "{}", about(&output));
        let stdout = text(&output.stdout);
        let unanswered = stdout
            .lines()
            .filter(|l| l.contains(": no answer, "))
            .count();
        assert_eq!(unanswered, 8, "{}", about(&output));
        assert!(stdout.contains(says), "{}", about(&output));
        assert!(
            stdout.contains("auto settles on: none"),
            "{}",
            about(&output)
        );
        let stderr = text(&output.stderr);
        assert!(
            stderr.contains("the probe is incomplete") && stderr.contains("no profile written"),
            "{stderr}"
        );
        assert!(!profile.exists());
    }
}

#[test]
fn a_bad_profile_exits_2_naming_the_file_the_place_and_what_was_expected() {
    let work = tempfile::tempdir().unwrap();
    let profile = work.path().join("endpoint.json");
    std::fs::write(
        &profile,
        r#"{"endpoint_profile": 1, "base_url": "http://h/v1", "model": "m", "output": "tools"}"#,
    )
    .unwrap();
    let missing = work.path().join("missing.json");
    let cases = [
        (
            &profile,
            ["line 1 column", "unknown variant `tools`, expected one of"],
        ),
        (
            &missing,
            ["cannot read the endpoint profile", "missing.json"],
        ),
    ];
    for (file, says) in cases {
        let file = file.to_str().unwrap();
        let scenario = "scenarios/checkout_v2_launch.json";
        // The dashboard refuses it before it opens, as run --headless does.
        for command in [&["run", scenario, "--headless"][..], &["tui", scenario]] {
            let mut args = command.to_vec();
            args.extend(["--endpoint-profile", file]);
            let output = common::cli::conclave(&args);
            assert_eq!(
                output.status.code(),
                Some(2),
                "{args:?}: {}",
                about(&output)
            );
            let stderr = text(&output.stderr);
            for says in ["--endpoint-profile", file].iter().chain(&says) {
                assert!(stderr.contains(says), "{says}: {stderr}");
            }
            assert!(output.stdout.is_empty());
        }
    }
}
