//! The command line as a user runs it: results on stdout, messages on
//! stderr, and the documented exit statuses.

use crate::common;

use common::cli::{conclave, result};
use serde_json::Value;
use std::path::Path;

const CHECKOUT: &str = "scenarios/checkout_v2_launch.json";

#[test]
fn the_checkout_launch_goes_with_caution_after_two_rounds() {
    let output = conclave(&["run", CHECKOUT, "--headless"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let r = result(&output);
    assert_eq!(r["final_decision"], "go_with_caution");
    assert_eq!(r["rounds_used"], 2);
    assert_eq!(
        r["history"][0]["decision"],
        Value::Null,
        "risk blocks round 1"
    );
    assert!(
        output.stderr.is_empty(),
        "nothing but the result is printed"
    );
}

#[test]
fn the_legal_flag_seats_the_legal_analyst() {
    let output = conclave(&["run", CHECKOUT, "--headless", "--flag", "legal_analyst=on"]);
    assert_eq!(output.status.code(), Some(0));
    let r = result(&output);
    let agents: Vec<&str> = r["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["agent"].as_str())
        .collect();
    assert!(agents.contains(&"legal_analyst"), "{agents:?}");
    assert_eq!(r["team_summary"]["stances"].as_array().unwrap().len(), 4);
}

#[test]
fn shipped_scenarios_end_as_their_descriptions_say() {
    for (file, code, reason, decision) in [
        (
            "scenarios/eu_pricing_change.json",
            0,
            "success",
            Some("no_go"),
        ),
        (
            "scenarios/loyalty_program_deadlock.json",
            3,
            "max_rounds_reached",
            None,
        ),
        (
            "scenarios/legal_review_required.json",
            3,
            "agent_denied:legal_analyst",
            None,
        ),
        (
            "scenarios/loyalty_program_asks_a_person.json",
            3,
            "escalated_to_human",
            None,
        ),
    ] {
        let output = conclave(&["run", file, "--headless"]);
        assert_eq!(output.status.code(), Some(code), "{file}");
        let r = result(&output);
        assert_eq!(r["stop_reason"], reason, "{file}");
        if let Some(decision) = decision {
            assert_eq!(r["final_decision"], decision, "{file}");
        }
    }
    let output = conclave(&[
        "run",
        "scenarios/legal_review_required.json",
        "--headless",
        "--flag",
        "legal_review=on",
    ]);
    assert_eq!(result(&output)["stop_reason"], "success");
}

#[test]
fn the_orchestrator_scenarios_end_as_their_descriptions_say() {
    let output = conclave(&["run", "scenarios/morning_ops_report.json", "--headless"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let r = result(&output);
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(r["aggregate"]["health"], "yellow");
    assert_eq!(r["aggregate"]["payments"]["failed_payment_rate"], 0.023);
    assert_eq!(r["trace"][1]["attempts_used"], 2, "payments retried once");
    assert_eq!(r["trace"][1]["args_hash"], "2c66d7cf0e03");

    let output = conclave(&[
        "run",
        "scenarios/morning_ops_report.json",
        "--headless",
        "--flag",
        "inventory_runtime=off",
    ]);
    assert_eq!(output.status.code(), Some(3));
    let r = result(&output);
    assert_eq!(r["stop_reason"], "critical_task_failed");
    assert_eq!(r["phase"], "dispatch");
    assert_eq!(
        r["failed_critical"][0]["stop_reason"],
        "worker_denied:inventory_worker"
    );

    let output = conclave(&[
        "run",
        "scenarios/payments_gateway_outage.json",
        "--headless",
    ]);
    assert_eq!(output.status.code(), Some(3));
    let r = result(&output);
    assert_eq!(r["stop_reason"], "critical_task_failed");
    assert_eq!(
        r["failed_critical"],
        serde_json::json!([{"task_id": "t2", "worker": "payments_worker", "critical": true, "status": "failed",
                            "attempts_used": 2, "retried": true, "args_hash": "642f6ea1a680",
                            "stop_reason": "task_timeout"}])
    );

    let output = conclave(&["run", "scenarios/regional_ops_sweep.json", "--headless"]);
    assert_eq!(output.status.code(), Some(0));
    let r = result(&output);
    assert_eq!(r["trace"].as_array().unwrap().len(), 40);
    assert_eq!(r["aggregate"]["health"], "yellow");
    assert_eq!(
        r["aggregate"]["failed_tasks"],
        serde_json::json!([{"task_id": "apac-returns", "worker": "returns_worker", "critical": false,
                            "stop_reason": "worker_error:returns_worker"}])
    );
    assert_eq!(
        r["aggregate"]["marketing"]["roas"], 3.8,
        "the US task is the last"
    );
}

#[test]
fn the_research_scenarios_end_as_their_descriptions_say() {
    let output = conclave(&[
        "run",
        "scenarios/payments_incident_research.json",
        "--headless",
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut r = result(&output);
    // The reference's own example result, less its run id and timings.
    let reference: Value =
        serde_json::from_str(include_str!("conformance/payments_incident_reference.json")).unwrap();
    // Conclave's own `usage` is no field of the reference's.
    r.as_object_mut().unwrap().remove("run_id");
    r.as_object_mut().unwrap().remove("usage");
    for entry in r["trace"].as_array_mut().unwrap() {
        entry.as_object_mut().unwrap().remove("elapsed_ms");
    }
    assert_eq!(r, reference);

    let locked = "scenarios/payments_research_locked_down.json";
    let output = conclave(&["run", locked, "--headless"]);
    assert_eq!(output.status.code(), Some(3));
    let r = result(&output);
    assert_eq!(r["stop_reason"], "no_reliable_sources");
    assert_eq!(r["denied_sources"].as_array().unwrap().len(), 3);
    let output = conclave(&["run", locked, "--headless", "--flag", "vendor_reads=on"]);
    assert_eq!(output.status.code(), Some(0));
    let r = result(&output);
    assert_eq!(r["citation_details"][0]["title"], "Enterprise SLA");
}

#[test]
fn the_outage_scenarios_end_as_their_descriptions_say() {
    for (file, flag, partial, degraded) in [
        (
            "scenarios/vendor_outage.json",
            "breakers",
            true,
            "enrichment_worker",
        ),
        (
            "scenarios/slow_dependency.json",
            "bulkheads",
            true,
            "search_worker",
        ),
    ] {
        let output = conclave(&["run", file, "--headless"]);
        assert_eq!(output.status.code(), Some(0), "{file}");
        let r = result(&output);
        assert_eq!(r["stop_reason"], "success", "{file}");
        assert_eq!(r["partial"], partial, "{file}: safe mode skipped calls");
        assert_eq!(r["degraded"], serde_json::json!([degraded]), "{file}");

        let off = format!("{flag}=off");
        let output = conclave(&["run", file, "--headless", "--flag", &off]);
        assert_eq!(output.status.code(), Some(0), "{file} {off}");
        let r = result(&output);
        assert_eq!(r["stop_reason"], "success");
        assert!(
            r.get("partial").is_none(),
            "{file} {off}: nothing failed fast"
        );
    }
}

#[test]
fn a_recording_holds_every_event_and_the_same_result() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let output = conclave(&[
        "run",
        CHECKOUT,
        "--headless",
        "--record",
        path.to_str().unwrap(),
        "--seed",
        "3",
        "--goal",
        "A goal from the command line",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let text = std::fs::read_to_string(&path).unwrap();
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events[0]["type"], "run_started");
    assert_eq!(events[0]["seed"], 3);
    assert_eq!(events[0]["goal"], "A goal from the command line");
    for (i, event) in events.iter().enumerate() {
        assert_eq!(event["seq"], i as u64 + 1);
    }
    let last = events.last().unwrap();
    assert_eq!(last["type"], "run_finished");
    assert_eq!(last["result"], result(&output));
}

#[test]
fn bad_input_exits_2_with_a_message_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"name\": \"x\", \"pattern\": \"collaboration\"}").unwrap();
    let bad = bad.to_str().unwrap();
    for args in [
        vec!["run", bad, "--headless"],
        vec!["run", "no/such/file.json", "--headless"],
        vec!["run", CHECKOUT, "--headless", "--flag", "legal=on"],
        vec!["run", CHECKOUT, "--headless", "--flag", "legal_analyst"],
        vec!["run", CHECKOUT, "--headless", "--seed", "-1"],
        vec!["validate", bad],
    ] {
        let output = conclave(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            output.stdout.is_empty() || args[0] == "validate",
            "{args:?}"
        );
        assert!(!output.stderr.is_empty(), "{args:?}: says why");
    }
    let output = conclave(&["run", CHECKOUT, "--headless", "--flag", "legal=on"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("unknown flag \"legal\"; this scenario declares: legal_analyst"),
        "{stderr}"
    );
}

#[test]
fn validate_reports_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\n  \"name\": 1,\n  \"pattern\": \"collaboration\"\n}",
    )
    .unwrap();
    let output = conclave(&["validate", CHECKOUT, bad.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stdout.contains("checkout_v2_launch.json: ok"));
    assert!(
        stderr.contains("bad.json:2:11: name: expected a string, found whole number 1"),
        "{stderr}"
    );
    assert!(stderr.contains("missing field \"goal\""), "{stderr}");

    let all: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"))
            .unwrap()
            .map(|e| e.unwrap().path().display().to_string())
            .collect();
    let mut args = vec!["validate"];
    args.extend(all.iter().map(String::as_str));
    assert_eq!(
        conclave(&args).status.code(),
        Some(0),
        "every shipped scenario is valid"
    );
}

#[test]
fn schema_prints_a_json_schema() {
    let output = conclave(&["schema"]);
    assert_eq!(output.status.code(), Some(0));
    let schema = result(&output);
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert!(schema["properties"]["team"].is_object());
}

#[test]
fn help_lists_the_commands_the_readme_shows() {
    let output = conclave(&["--help"]);
    let help = String::from_utf8_lossy(&output.stdout);
    for command in ["run", "validate", "schema", "attach", "probe"] {
        assert!(help.contains(command), "{help}");
    }
    let output = conclave(&["run", "--help"]);
    let help = String::from_utf8_lossy(&output.stdout);
    for option in [
        "--headless",
        "--seed",
        "--clock",
        "--flag",
        "--record",
        "--goal",
        "--pricing",
        "--endpoint-profile",
        "--nats",
        "--nats-max-age",
        "--nats-max-bytes",
    ] {
        assert!(help.contains(option), "{help}");
    }
    let output = conclave(&["attach", "--help"]);
    assert!(String::from_utf8_lossy(&output.stdout).contains("--nats <URL>"));
}

#[test]
fn stream_limits_are_checked_as_they_are_parsed_and_need_a_server() {
    for (args, says) in [
        (
            &["--nats", "nats://127.0.0.1:4222", "--nats-max-age", "5w"][..],
            "expected a duration such as 90s, 30m, 12h or 7d",
        ),
        (
            &[
                "--nats",
                "nats://127.0.0.1:4222",
                "--nats-max-bytes",
                "lots",
            ][..],
            "expected a size such as 1048576, 512MiB, 2GiB or 500MB",
        ),
        (&["--nats-max-age", "2h"][..], "--nats <URL>"),
    ] {
        let mut all = vec!["run", CHECKOUT, "--headless"];
        all.extend_from_slice(args);
        let output = conclave(&all);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    let output = conclave(&["attach"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_remote_model_refuses_the_virtual_clock_and_unknown_providers() {
    let output = conclave(&[
        "run",
        CHECKOUT,
        "--headless",
        "--provider",
        "openai",
        "--clock",
        "virtual",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("real clock"), "{stderr}");
    assert!(output.stdout.is_empty());

    let output = conclave(&["run", CHECKOUT, "--headless", "--provider", "claude"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("sim") && stderr.contains("openai"),
        "{stderr}"
    );
}
