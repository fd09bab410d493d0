//! Cached and reasoning tokens everywhere (issue 58): a loopback endpoint
//! that reports both in its usage (`honest_usage`'s reasoning model: each
//! call 2,000 prompt tokens, 1,500 of them cached; 400 completion tokens,
//! 250 of them reasoning) answers the built binary and the sweep's runs.
//! The OTLP export names the two parts as the GenAI conventions do, the
//! sweep's document and its runs' rows tally them, and `compare` counts,
//! lists and shows them.

use crate::common;
use crate::honest_usage::{CACHED, COMPLETION, PROMPT, REASONING, reasoning_model, two_analysts};
use crate::receiver::Collector;

use common::cli::result;
use common::loopback::{Body, Captured, Loopback, Reply};
use common::real::{Sandbox, stderr};
use conclave::engine::ProviderChoice;
use conclave::sweep::{SweepArgs, SweepPlan, prepare, run_local_with};
use conclave::tui::app::{App, AppOptions};
use conclave::tui::keymap::Action;
use conclave::tui::sweep::{Ended, SweepState};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Model calls the two analysts' run makes: two contributions and the
/// closing prose.
const CALLS: u64 = 3;

#[test]
fn the_otlp_export_names_the_cached_and_reasoning_tokens_of_each_chat() {
    for protocol in ["http/protobuf", "http/json"] {
        for streamed in [true, false] {
            let server = Loopback::serve(reasoning_model);
            let collector = Collector::start();
            let sandbox = Sandbox::new();
            let file = two_analysts(&sandbox);
            let url = collector.url();
            let mut args = vec![
                "run",
                &file,
                "--headless",
                "--base-url",
                &server.base_url,
                "--otlp",
                &url,
            ];
            if !streamed {
                args.push("--no-stream");
            }
            let out = sandbox.run_with(&args, &[("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)]);
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            let spans = collector.spans();
            let chats: Vec<_> = spans
                .iter()
                .filter(|s| s.name.starts_with("chat "))
                .collect();
            assert_eq!(chats.len() as u64, CALLS, "{protocol}: {spans:?}");
            for chat in chats {
                let attr = |key: &str| chat.attr(key).map(str::to_string);
                assert_eq!(attr("gen_ai.usage.input_tokens"), Some(PROMPT.to_string()));
                assert_eq!(
                    attr("gen_ai.usage.output_tokens"),
                    Some(COMPLETION.to_string())
                );
                assert_eq!(
                    attr("gen_ai.usage.cache_read.input_tokens"),
                    Some(CACHED.to_string()),
                    "{protocol}: {chat:?}"
                );
                assert_eq!(
                    attr("gen_ai.usage.reasoning.output_tokens"),
                    Some(REASONING.to_string()),
                    "{protocol}: {chat:?}"
                );
            }
        }
    }
}

#[test]
fn a_sweep_tallies_the_cached_and_reasoning_tokens_in_its_document_and_rows() {
    let server = Loopback::serve(reasoning_model);
    let sandbox = Sandbox::new();
    let file = two_analysts(&sandbox);

    // The headless document: per combination, the spread of each part.
    let out = sandbox.run(&[
        "sweep",
        &file,
        "--seeds",
        "1..2",
        "--headless",
        "--base-url",
        &server.base_url,
        "--allow-real",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = result(&out);
    let tokens = &doc["combinations"][0]["tokens"];
    assert_eq!(tokens["input"]["total"], 2 * CALLS * PROMPT, "{tokens}");
    assert_eq!(tokens["cached"]["total"], 2 * CALLS * CACHED, "{tokens}");
    assert_eq!(tokens["cached"]["max"], CALLS * CACHED, "{tokens}");
    assert_eq!(
        tokens["reasoning"]["total"],
        2 * CALLS * REASONING,
        "{tokens}"
    );
    assert_eq!(tokens["reasoning"]["p50"], CALLS * REASONING, "{tokens}");

    // The dashboard's rows of a bar's runs say them.
    let sweep = prepare(SweepArgs {
        scenario: PathBuf::from(&file),
        at: None,
        plan: SweepPlan::new(1..=2, Vec::new()).unwrap(),
        parallel: Some(1),
        provider: ProviderChoice {
            base_url: Some(server.base_url.clone()),
            ..ProviderChoice::default()
        },
        allow_real: true,
        allow_exec: false,
        answer: None,
        otlp: None,
    })
    .unwrap();
    let mut app = App::new(AppOptions::default());
    app.show_sweep(SweepState::new(&sweep));
    let never = std::sync::atomic::AtomicBool::new(false);
    let mut results = Vec::new();
    run_local_with(
        &sweep.scenario,
        Some(&sweep.source),
        sweep.plan.jobs(),
        1,
        &sweep.setup,
        &never,
        |r| results.push(r),
    )
    .unwrap();
    assert!(
        results.iter().all(|r| r.cached_tokens == CALLS * CACHED),
        "{results:?}"
    );
    for result in results {
        app.sweep_result(result);
    }
    app.sweep_ended(Ended::Done);
    app.update(Action::Confirm);
    let screen = common::screen::of_app(&app, 160, 30);
    let row = format!(
        "{} tokens ({} cached, {} reasoning)",
        CALLS * (PROMPT + COMPLETION),
        CALLS * CACHED,
        CALLS * REASONING
    );
    assert_eq!(screen.matches(&row).count(), 2, "{row}:\n{screen}");
}

/// The reasoning model, but its usage without the cached and reasoning
/// parts (whole answers only): an endpoint that does not say them.
fn saying_no_parts(request: &Captured, n: usize) -> Reply {
    let mut reply = reasoning_model(request, n);
    if let Body::Bytes(bytes) = &reply.body
        && let Ok(mut doc) = serde_json::from_slice::<Value>(bytes)
        && let Some(usage) = doc["usage"].as_object_mut()
    {
        usage.remove("prompt_tokens_details");
        usage.remove("completion_tokens_details");
        reply.body = Body::Bytes(doc.to_string().into_bytes());
        reply
            .headers
            .retain(|(k, _)| !k.eq_ignore_ascii_case("content-length"));
    }
    reply
}

/// The two analysts' run against `server`, recorded as `name`.
fn recorded(sandbox: &Sandbox, server: &Loopback, name: &str) -> PathBuf {
    let file = two_analysts(sandbox);
    let record = sandbox.path(name);
    let out = sandbox.run(&[
        "run",
        &file,
        "--headless",
        "--no-stream",
        "--base-url",
        &server.base_url,
        "--record",
        record.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    record
}

fn events(path: &Path) -> Vec<std::sync::Arc<conclave::bus::Event>> {
    conclave::record::read_recording(path).unwrap().events
}

#[test]
fn compare_counts_lists_and_shows_the_cached_and_reasoning_tokens() {
    let sandbox = Sandbox::new();
    let a = recorded(&sandbox, &Loopback::serve(reasoning_model), "a.jsonl");
    let b = recorded(&sandbox, &Loopback::serve(saying_no_parts), "b.jsonl");

    let out = sandbox.run(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--headless",
    ]);
    let doc = result(&out);
    assert_eq!(doc["a"]["tokens"]["cached"], CALLS * CACHED, "{doc}");
    assert_eq!(doc["a"]["tokens"]["reasoning"], CALLS * REASONING, "{doc}");
    assert!(doc["b"]["tokens"].get("cached").is_none(), "{doc}");
    let differs = |what: &str| {
        doc["differences"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["what"] == what)
            .map(|d| (d["a"].clone(), d["b"].clone()))
    };
    assert_eq!(
        differs("tokens.cached"),
        Some((Value::from(CALLS * CACHED), Value::from(0))),
        "{doc}"
    );
    assert_eq!(
        differs("tokens.reasoning"),
        Some((Value::from(CALLS * REASONING), Value::from(0))),
        "{doc}"
    );
    assert_eq!(differs("tokens.input"), None, "the same input: {doc}");

    // The comparison's table: the tokens row says each run's parts.
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events(&a), None).unwrap();
    app.add_from_events(&events(&b), None).unwrap();
    app.update(Action::PrevRun);
    app.update(Action::Pin);
    app.update(Action::NextRun);
    let compared = app.update(Action::Compare);
    conclave::tui::world::settle(&mut app, compared);
    let screen = common::screen::of_app(&app, 200, 50);
    let row = screen
        .lines()
        .find(|line| {
            line.contains("tokens") && line.contains(" in") && !line.contains("call_finished")
        })
        .unwrap_or_else(|| panic!("a tokens row:\n{screen}"));
    assert!(
        row.contains(&format!(
            "{} in ({} cached) · {} out ({} reasoning)",
            CALLS * PROMPT,
            CALLS * CACHED,
            CALLS * COMPLETION,
            CALLS * REASONING
        )),
        "{row}"
    );
    assert!(
        row.contains(&format!(
            "{} in · {} out",
            CALLS * PROMPT,
            CALLS * COMPLETION
        )),
        "B's side says no parts: {row}"
    );
}
