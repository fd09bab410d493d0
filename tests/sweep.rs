//! `conclave sweep --headless`: every seed under every combination of flag
//! values, counted per combination. The counts equal those of the same
//! runs made one by one in this process through the engine (not through
//! the sweep's executor or its tally); bad arguments exit 2 naming what
//! was expected; a real model costs money and is refused without
//! --allow-real; a scenario's programs run only with --allow-exec.

use crate::common;

use common::cli::{conclave, result};
use common::real::{Sandbox, stderr, toolbox};
use conclave::bus::{ClockMode, Hub, RunStatus};
use conclave::engine::{self, LaunchOptions};
use conclave::scenario::Scenario;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One run on its own paused runtime: its outcome keyed as the sweep
/// document keys outcomes, from the run's own result (status, stop
/// reason, decision), and the input and output tokens its result reports.
fn one_by_one(scenario: &Arc<Scenario>, seed: u64, flags: &[(&str, bool)]) -> (String, u64, u64) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    runtime.block_on(async {
        let options = LaunchOptions {
            seed: Some(seed),
            flags: flags.iter().map(|(n, on)| (n.to_string(), *on)).collect(),
            clock: Some(ClockMode::Virtual),
            ..LaunchOptions::default()
        };
        let outcome = engine::launch(Arc::clone(scenario), &Hub::new(16), options)
            .unwrap()
            .finish()
            .await
            .unwrap();
        let status = match outcome.status {
            RunStatus::Ok => "ok",
            RunStatus::Stopped => "stopped",
        };
        let decision = outcome.result["final_decision"].as_str().unwrap_or("-");
        let usage = &outcome.result["usage"];
        (
            format!("{status}/{}/{decision}", outcome.stop_reason),
            usage["input_tokens"].as_u64().unwrap(),
            usage["output_tokens"].as_u64().unwrap(),
        )
    })
}

#[test]
fn the_sweeps_counts_are_those_of_its_runs_one_by_one() {
    let out = conclave(&[
        "sweep",
        "scenarios/checkout_v2_launch.json",
        "--seeds",
        "1..200",
        "--flag",
        "legal_analyst=on,off",
        "--headless",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let document = result(&out);
    assert_eq!(document["runs"], 400);
    assert_eq!(document["seeds"], json!({"from": 1, "to": 200}));
    let combinations = document["combinations"].as_array().unwrap();
    assert_eq!(combinations.len(), 2);
    let scenario = common::shipped("checkout_v2_launch.json");
    let mut input_totals = Vec::new();
    for (combination, on) in combinations.iter().zip([true, false]) {
        assert_eq!(combination["flags"], json!({"legal_analyst": on}));
        assert_eq!(combination["runs"], 200);
        let mut counted: BTreeMap<String, u64> = BTreeMap::new();
        let (mut input, mut output) = (0, 0);
        for seed in 1..=200 {
            let (outcome, i, o) = one_by_one(&scenario, seed, &[("legal_analyst", on)]);
            *counted.entry(outcome).or_default() += 1;
            input += i;
            output += o;
        }
        let swept: BTreeMap<String, u64> =
            serde_json::from_value(combination["outcomes"].clone()).unwrap();
        assert_eq!(swept, counted, "legal_analyst={on}");
        assert_eq!(
            combination["tokens"]["input"]["total"], input,
            "legal_analyst={on}"
        );
        assert_eq!(
            combination["tokens"]["output"]["total"], output,
            "legal_analyst={on}"
        );
        input_totals.push(input);
    }
    assert_ne!(
        input_totals[0], input_totals[1],
        "the legal analyst's turns show in the tokens of its combination"
    );
}

#[test]
fn the_document_gives_each_combination_its_distributions() {
    let out = conclave(&[
        "sweep",
        "scenarios/checkout_v2_launch.json",
        "--seeds",
        "1..8",
        "--headless",
        "--parallel",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let document = result(&out);
    let only = &document["combinations"][0];
    assert_eq!(only["flags"], json!({}));
    assert_eq!(only["runs"], 8);
    let sum = |counts: &Value| -> u64 {
        counts
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum()
    };
    assert_eq!(sum(&only["outcomes"]), 8);
    assert_eq!(sum(&only["stop_reasons"]), 8);
    assert_eq!(sum(&only["verdicts"]), 8);
    assert_eq!(sum(&only["used"]["rounds"]["counts"]), 8);
    for measure in [
        &only["model_calls"],
        &only["tokens"]["input"],
        &only["tokens"]["output"],
    ] {
        for field in ["total", "min", "max", "mean", "p50", "p90"] {
            assert!(measure[field].is_number(), "{field} in {measure}");
        }
        assert!(measure["min"].as_u64() <= measure["max"].as_u64());
    }
    assert!(only["model_calls"]["min"].as_u64().unwrap() >= 1);
}

#[test]
fn each_pattern_reports_what_it_uses() {
    for (file, used) in [
        ("morning_ops_report.json", "waves"),
        ("support_swarm.json", "handoffs"),
        ("launch_coordinator.json", "member_calls"),
        ("payments_incident_research.json", "steps"),
    ] {
        let out = conclave(&[
            "sweep",
            &format!("scenarios/{file}"),
            "--seeds",
            "1..3",
            "--headless",
        ]);
        assert_eq!(out.status.code(), Some(0), "{file}: {}", stderr(&out));
        let document = result(&out);
        let only = &document["combinations"][0];
        assert_eq!(only["runs"], 3, "{file}");
        assert!(
            only["used"][used]["counts"].is_object(),
            "{file}: {}",
            only["used"]
        );
    }
}

fn refused(args: &[&str]) -> String {
    let out = conclave(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
    stderr(&out)
}

#[test]
fn bad_arguments_exit_2_naming_what_was_expected() {
    let file = "scenarios/checkout_v2_launch.json";
    let err = refused(&["sweep", file, "--seeds", "9..2", "--headless"]);
    assert!(
        err.contains("expected A..B") && err.contains("A <= B"),
        "{err}"
    );
    let err = refused(&["sweep", file, "--seeds", "one..two", "--headless"]);
    assert!(err.contains("expected A..B"), "{err}");
    let err = refused(&[
        "sweep",
        file,
        "--seeds",
        "1..3",
        "--flag",
        "nope=on,off",
        "--headless",
    ]);
    assert!(
        err.contains(file)
            && err.contains("unknown flag \"nope\"")
            && err.contains("legal_analyst"),
        "names the file, the flag and the declared ones: {err}"
    );
    // Each set of options after `sweep FILE --seeds 1..3`, and what the
    // refusal must say.
    let mistakes: [(&[&str], &str); 4] = [
        (
            &["--flag", "legal_analyst=on,maybe"],
            "expected NAME=VALUES",
        ),
        (&["--flag", "legal_analyst=on,on"], "expected NAME=VALUES"),
        (
            &["--flag", "legal_analyst=on", "--flag", "legal_analyst=off"],
            "given twice",
        ),
        (&["--parallel", "0"], "1 or more"),
    ];
    for (options, says) in mistakes {
        let mut args = vec!["sweep", file, "--seeds", "1..3", "--headless"];
        args.extend_from_slice(options);
        let err = refused(&args);
        assert!(err.contains(says), "{options:?}: {err}");
    }
    let err = refused(&[
        "sweep",
        "scenarios/none.json",
        "--seeds",
        "1..3",
        "--headless",
    ]);
    assert!(err.contains("scenarios/none.json"), "{err}");
    let err = refused(&["sweep", file, "--headless"]);
    assert!(err.contains("--seeds"), "{err}");
}

#[test]
fn a_real_model_is_swept_only_with_allow_real() {
    let err = refused(&[
        "sweep",
        "scenarios/checkout_v2_launch.json",
        "--seeds",
        "1..50",
        "--provider",
        "openai",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--headless",
    ]);
    assert!(
        err.contains("--allow-real") && err.contains("50 runs"),
        "{err}"
    );

    // Allowed, the runs call the endpoint (here nothing listens on it).
    let out = conclave(&[
        "sweep",
        "scenarios/checkout_v2_launch.json",
        "--seeds",
        "1..2",
        "--provider",
        "openai",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--allow-real",
        "--headless",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let document = result(&out);
    assert_eq!(
        document["combinations"][0]["outcomes"],
        json!({"stopped/llm_unavailable/-": 2})
    );
}

#[test]
fn a_scenarios_programs_run_in_a_sweep_only_with_allow_exec() {
    let sandbox = Sandbox::new();
    let marker = sandbox.path("ran");
    let scenario = json!({
        "name": "marks", "pattern": "orchestrator", "goal": "Run the marker.",
        "context": {"report_date": "2026-03-20", "region": "US"},
        "workers": {"marker_worker": {"command": {"argv": toolbox(&[
            "echo", "--touch", marker.to_str().unwrap()])}}},
        "provider": {"kind": "sim", "final_answer": "Done."}
    });
    let path = sandbox.write("marks.json", &scenario);
    let path = path.to_str().unwrap();
    let out = sandbox.run(&["sweep", path, "--seeds", "1..3", "--headless"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("marks.json") && err.contains("--allow-exec"),
        "{err}"
    );
    assert!(!marker.exists(), "the program never started");

    let out = sandbox.run(&[
        "sweep",
        path,
        "--seeds",
        "1..3",
        "--headless",
        "--allow-exec",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let document = result(&out);
    assert_eq!(document["combinations"][0]["runs"], 3);
    assert!(marker.exists(), "the program ran");
    let tool_calls = &document["combinations"][0]["tool_calls"];
    assert!(tool_calls["min"].as_u64().unwrap() >= 1, "{tool_calls}");
}
