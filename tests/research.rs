//! The research pattern end to end on the virtual clock: every stop reason
//! 004 can reach, the lenient reading of its hints, the sim's own plan and
//! answer, the events of the workflow, flags and gates, and timing.

mod common;

use conclave::bus::{
    ClockMode, Event, EventKind, GatePoint, Hub, ResearchPhase, SourceDenial, SourceDenied,
};
use conclave::engine::{self, LaunchOptions};
use serde_json::{Value, json};
use std::time::Duration;

/// The shipped payments scenario (004's example) as JSON, to vary.
fn payments() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/payments_incident_research.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The payments scenario with fixed latencies: model 500 ms, search
/// 900 ms, reads 1200 ms then 800 ms, extracts 300 ms, verify 500 ms.
fn timed() -> Value {
    let mut doc = payments();
    doc["provider"]["latency_ms"] = json!(500);
    doc["sources"]["tools"] = json!({
        "search_sources": {"latency_ms": 900},
        "read_source": {"latency_ms": [1200, 800]},
        "extract_notes": {"latency_ms": 300},
        "verify_notes": {"latency_ms": 500}
    });
    doc
}

/// The five canonical steps, searching for `query`.
fn plan(query: Value) -> Value {
    json!({"steps": [
        {"id": "r1", "action": "search_sources", "args": {"query": query}},
        {"id": "r2", "action": "dedupe_urls", "args": {}},
        {"id": "r3", "action": "read_extract_notes", "args": {}},
        {"id": "r4", "action": "verify_notes", "args": {}},
        {"id": "r5", "action": "synthesize_answer", "args": {}}
    ]})
}

async fn run(doc: &Value) -> (Value, Vec<Event>) {
    let (outcome, events) = common::run(common::scenario(doc), LaunchOptions::default()).await;
    (outcome.result, events)
}

async fn result_of(doc: &Value) -> Value {
    run(doc).await.0
}

const OFFICIAL: &str = "https://official-status.example.com/incidents/payments-2026-03-07";
const VENDOR: &str = "https://vendor.example.com/policies/enterprise-sla";

#[tokio::test(start_paused = true)]
async fn the_example_gives_the_reference_result() {
    let mut ours = result_of(&payments()).await;
    let reference: Value =
        serde_json::from_str(include_str!("conformance/payments_incident_reference.json")).unwrap();
    let run_id = ours.as_object_mut().unwrap().remove("run_id").unwrap();
    assert_eq!(run_id.as_str().unwrap().len(), 36);
    for entry in ours["trace"].as_array_mut().unwrap() {
        let elapsed = entry.as_object_mut().unwrap().remove("elapsed_ms").unwrap();
        assert!(elapsed.as_u64().unwrap() >= 1);
    }
    assert_eq!(ours, reference);
}

/// Every stop reason 004's workflow can reach, each from one change to the
/// example, with the phase it stops in and what the result adds.
#[tokio::test(start_paused = true)]
async fn every_reachable_stop_reason_of_the_reference() {
    type Change = fn(&mut Value);
    let cases: Vec<(&str, Change, &str)> = vec![
        ("success", |_| {}, ""),
        (
            "max_seconds",
            |d| d["budget"] = json!({"max_seconds": 1}),
            "read_extract",
        ),
        (
            "invalid_plan:steps",
            |d| d["provider"]["plan"] = json!({"steps": []}),
            "plan",
        ),
        (
            "invalid_plan:steps",
            |d| d["provider"]["plan"] = json!("not a plan"),
            "plan",
        ),
        (
            "invalid_plan:too_many_steps",
            |d| d["budget"] = json!({"max_steps": 4}),
            "plan",
        ),
        (
            "invalid_plan:step_sequence",
            |d| {
                let mut p = plan(json!("q"));
                p["steps"].as_array_mut().unwrap().swap(3, 4);
                d["provider"]["plan"] = p;
            },
            "plan",
        ),
        (
            "invalid_step:not_object",
            |d| d["provider"]["plan"] = json!(["search_sources"]),
            "plan",
        ),
        (
            "invalid_step:id",
            |d| {
                let mut p = plan(json!("q"));
                p["steps"][2]["id"] = json!(" ");
                d["provider"]["plan"] = p;
            },
            "plan",
        ),
        (
            "invalid_step:action",
            |d| {
                let mut p = plan(json!("q"));
                p["steps"][1]["action"] = json!(7);
                d["provider"]["plan"] = p;
            },
            "plan",
        ),
        (
            "invalid_step:args",
            |d| {
                let mut p = plan(json!("q"));
                p["steps"][4]["args"] = json!(null);
                d["provider"]["plan"] = p;
            },
            "plan",
        ),
        (
            "invalid_search:query",
            |d| d["provider"]["plan"] = plan(json!("   ")),
            "search",
        ),
        (
            "no_sources_after_dedupe",
            |d| d["sources"]["search_results"] = json!([]),
            "dedupe",
        ),
        (
            "no_reliable_sources",
            |d| d["context"]["policy_hints"]["allowed_domains_execution"] = json!([]),
            "read_extract",
        ),
        (
            "tool_invalid_output:search_sources",
            |d| d["sources"]["tools"]["search_sources"]["fail"] = json!([1]),
            "search",
        ),
        (
            "tool_invalid_output:read_source",
            |d| {
                d["sources"]["pages"]
                    .as_object_mut()
                    .unwrap()
                    .remove(VENDOR);
            },
            "read_extract",
        ),
        (
            "tool_invalid_output:extract_notes",
            |d| d["sources"]["tools"]["extract_notes"]["fail"] = json!([2]),
            "read_extract",
        ),
        (
            "tool_invalid_output:verify_notes",
            |d| d["sources"]["tools"]["verify_notes"]["fail"] = json!([1]),
            "verify",
        ),
        (
            "verification_failed:stale_source",
            |d| d["sources"]["pages"][VENDOR]["notes"][0]["issues"] = json!(["stale_source"]),
            "verify",
        ),
        (
            "invalid_notes:claim",
            |d| d["sources"]["pages"][VENDOR]["notes"][0]["claim"] = json!("\t "),
            "read_extract",
        ),
        (
            "invalid_notes:quote",
            |d| d["sources"]["pages"][OFFICIAL]["notes"][0]["quote"] = json!(" P1 degraded mode. "),
            "read_extract",
        ),
        (
            "invalid_answer:empty",
            |d| d["provider"]["synthesis"] = json!({"$fault": "empty"}),
            "synthesize",
        ),
        (
            "invalid_answer:too_long",
            |d| d["context"]["policy_hints"]["max_answer_chars"] = json!(274),
            "synthesize",
        ),
        (
            "invalid_answer:citations",
            |d| d["provider"]["synthesis"]["citations"] = json!(["", " "]),
            "synthesize",
        ),
        (
            "invalid_answer:citation_unknown",
            |d| d["provider"]["synthesis"]["citations"] = json!(["n1", "n3"]),
            "synthesize",
        ),
        (
            "llm_timeout",
            |d| d["provider"]["plan"] = json!({"$fault": "timeout"}),
            "plan",
        ),
        (
            "llm_timeout",
            |d| d["provider"]["synthesis"] = json!({"$fault": "timeout"}),
            "synthesize",
        ),
    ];
    for (reason, change, phase) in cases {
        let mut doc = timed();
        change(&mut doc);
        let r = result_of(&doc).await;
        assert_eq!(r["stop_reason"], reason, "{r:#}");
        if reason == "success" {
            assert_eq!(r["status"], "ok");
            assert!(r.get("phase").is_none());
            continue;
        }
        assert_eq!(r["status"], "stopped", "{reason}");
        assert_eq!(r["phase"], phase, "{reason}");
        assert!(r.get("answer").is_none() && r.get("aggregate").is_none());
        let steps_done = ResearchPhase::parse(phase).unwrap().step() - 1;
        assert_eq!(
            r["trace"].as_array().unwrap().len() as u32,
            steps_done,
            "{reason}: the trace holds the steps that went well"
        );
        let extras: Vec<&str> = ["denied_sources", "details", "verification"]
            .into_iter()
            .filter(|k| r.get(*k).is_some())
            .collect();
        let want: &[&str] = match reason {
            "no_reliable_sources" => &["denied_sources"],
            "invalid_plan:step_sequence" => &["details"],
            "verification_failed:stale_source" => &["verification"],
            _ => &[],
        };
        assert_eq!(extras, want, "{reason}");
    }
}

#[tokio::test(start_paused = true)]
async fn what_the_stops_carry() {
    let mut doc = timed();
    doc["context"]["policy_hints"]["allowed_domains_execution"] = json!([]);
    let r = result_of(&doc).await;
    assert_eq!(
        r["denied_sources"],
        json!([
            {"url": OFFICIAL, "reason": "source_denied_execution"},
            {"url": VENDOR, "reason": "source_denied_execution"},
            {"url": "https://regulator.example.org/guidance/customer-communications", "reason": "source_denied_execution"},
            {"url": "https://community-rumors.example.net/thread/payment-outage", "reason": "source_denied_policy"}
        ])
    );

    let mut doc = timed();
    doc["sources"]["pages"][VENDOR]["notes"][0]["issues"] = json!(["stale_source", "x"]);
    let r = result_of(&doc).await;
    assert_eq!(
        r["verification"],
        json!({"ok": false, "checked_notes": 2, "issues": ["stale_source", "x"]})
    );

    let mut doc = timed();
    let mut shuffled = plan(json!("q"));
    shuffled["steps"].as_array_mut().unwrap().reverse();
    doc["provider"]["plan"] = shuffled;
    let r = result_of(&doc).await;
    assert_eq!(
        r["details"]["received"],
        json!([
            "synthesize_answer",
            "verify_notes",
            "read_extract_notes",
            "dedupe_urls",
            "search_sources"
        ])
    );
    assert_eq!(r["details"]["expected"][0], "search_sources");
}

#[tokio::test(start_paused = true)]
async fn hints_are_read_as_leniently_as_the_reference() {
    let mut doc = timed();
    doc["provider"].as_object_mut().unwrap().remove("synthesis");
    doc["context"]["policy_hints"] = json!({
        "allowed_domains_policy": [" Official-Status.Example.COM ", "vendor.example.com", 3, ""],
        "allowed_domains_execution": ["official-status.example.com", "VENDOR.example.com"],
        "max_urls": " 2 ",
        "max_read_pages": 1.9,
        "max_notes": "many",
        "max_answer_chars": "3.0",
    });
    let r = result_of(&doc).await;
    assert_eq!(r["stop_reason"], "success", "{r:#}");
    let a = &r["aggregate"];
    assert_eq!(a["urls_found"], 4, "k = 2 × max_urls");
    assert_eq!(a["urls_after_dedupe"], 2);
    assert_eq!(a["pages_read"], 1, "1.9 reads as 1");
    assert_eq!(a["notes_count"], 1);
    assert_eq!(r["citations"], json!(["n1"]));

    // Out of range: clamped; not an object: 004's defaults.
    let mut doc = timed();
    doc["context"]["policy_hints"]["max_urls"] = json!(0);
    doc["context"]["policy_hints"]["max_answer_chars"] = json!(true);
    let r = result_of(&doc).await;
    assert_eq!(r["trace"][2]["urls_after_dedupe"], 1, "max_urls 0 is 1");
    assert_eq!(r["stop_reason"], "invalid_answer:too_long", "at least 120");
    let mut doc = timed();
    doc["context"]["policy_hints"] = json!("none");
    assert_eq!(result_of(&doc).await["stop_reason"], "success");
    let mut doc = timed();
    doc["context"]["policy_hints"]["max_notes"] = json!("+1");
    doc["provider"]["synthesis"]["citations"] = json!(["n1"]);
    let r = result_of(&doc).await;
    assert_eq!(
        (
            r["aggregate"]["pages_read"].clone(),
            r["aggregate"]["notes_count"].clone()
        ),
        (json!(1), json!(1)),
        "the note budget stops the reads at once"
    );
}

#[tokio::test(start_paused = true)]
async fn without_scripts_the_sim_plans_and_answers_from_the_notes() {
    let mut doc = timed();
    doc["provider"].as_object_mut().unwrap().remove("synthesis");
    let r = result_of(&doc).await;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(
        r["answer"],
        "Summary from the notes: US payments incident is P1 with failed payment rate 3.4%, 5 \
         chargeback alerts, and ETA about 45 minutes. Enterprise SLA includes 99.95% monthly uptime \
         and a 15-minute first response target for P1 incidents (24/7). Figures and estimates may \
         change as the sources update."
    );
    assert_eq!(r["citations"], json!(["n1", "n2"]));
    assert_eq!(
        r["aggregate"]["query"], doc["context"]["request"]["question"],
        "the sim's plan searches for the request's question"
    );
}

#[tokio::test(start_paused = true)]
async fn the_events_tell_the_workflow_and_every_call_goes_through_the_gateway() {
    let (_, events) = run(&timed()).await;
    let research: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ResearchStepStarted(s) => Some(format!("start {}", s.phase)),
            EventKind::ResearchStepFinished(s) => Some(format!("done {} {}", s.phase, s.count)),
            EventKind::SourceFound(_) => Some("found".into()),
            EventKind::SourcesDeduped(d) => Some(format!("deduped {}", d.urls.len())),
            EventKind::SourceAllowed(a) => Some(format!("allowed {}", a.domain)),
            EventKind::SourceDenied(d) => Some(format!("denied {}", d.domain)),
            EventKind::PageRead(p) => Some(format!("read {}", p.title)),
            EventKind::NoteExtracted(n) => Some(format!("note {}", n.id)),
            EventKind::NotesVerified(v) => Some(format!("verified {} {}", v.checked, v.ok)),
            EventKind::Cited(c) => Some(format!("cited {}", c.id)),
            _ => None,
        })
        .collect();
    let mut want: Vec<String> = vec![
        "start plan".into(),
        "done plan 5".into(),
        "start search".into(),
    ];
    want.extend(std::iter::repeat_n("found".to_string(), 6));
    want.extend(
        [
            "done search 6",
            "start dedupe",
            "deduped 4",
            "done dedupe 4",
            "start read_extract",
            "allowed official-status.example.com",
            "read Payments Incident Update",
            "note n1",
            "allowed vendor.example.com",
            "read Enterprise SLA",
            "note n2",
            "denied regulator.example.org",
            "denied community-rumors.example.net",
            "done read_extract 2",
            "start verify",
            "verified 2 true",
            "done verify 2",
            "start synthesize",
            "cited n1",
            "cited n2",
            "done synthesize 2",
        ]
        .map(String::from),
    );
    assert_eq!(research, want);
    let calls: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallStarted { tool, .. } => Some(tool.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            "model",
            "search_sources",
            "read_source",
            "extract_notes",
            "read_source",
            "extract_notes",
            "verify_notes",
            "model"
        ]
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.kind, EventKind::BudgetConsumed { .. })),
        "research calls count against no dispatch budget"
    );
}

#[tokio::test(start_paused = true)]
async fn trace_times_are_the_run_clock() {
    let r = result_of(&timed()).await;
    let elapsed: Vec<u64> = r["trace"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["elapsed_ms"].as_u64().unwrap())
        .collect();
    // plan 500; search 900; reads 1200 + 300 and 800 + 300; verify 500;
    // synthesis 500.
    assert_eq!(elapsed, [500, 1400, 1400, 4000, 4500, 5000]);
    let mut doc = timed();
    doc["provider"]["latency_ms"] = json!(0);
    doc["sources"]["tools"] = json!({});
    let r = result_of(&doc).await;
    assert!(
        r["trace"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["elapsed_ms"] == 1),
        "at least 1 ms, as 004 reports it"
    );
}

#[tokio::test(start_paused = true)]
async fn the_same_seed_gives_the_same_events() {
    let mut doc = payments();
    doc["provider"].as_object_mut().unwrap().remove("synthesis");
    let scenario = common::scenario(&doc);
    let strip = |events: Vec<Event>| -> Vec<Value> {
        events
            .into_iter()
            .filter(|e| !matches!(e.kind, EventKind::RunStarted(_)))
            .map(|e| serde_json::to_value(e).unwrap())
            .collect()
    };
    let a = common::run(scenario.clone(), LaunchOptions::default()).await;
    let b = common::run(scenario.clone(), LaunchOptions::default()).await;
    assert_eq!(a.0, b.0);
    assert_eq!(strip(a.1), strip(b.1));
    let other = common::run(
        scenario,
        LaunchOptions {
            seed: Some(99),
            ..LaunchOptions::default()
        },
    )
    .await;
    assert_ne!(
        a.0.result["run_id"], other.0.result["run_id"],
        "the run id follows the seed"
    );
}

#[tokio::test(start_paused = true)]
async fn a_flag_that_is_off_keeps_its_domain_out_of_execution() {
    let locked = common::shipped("payments_research_locked_down.json");
    let (outcome, events) = common::run(locked.clone(), LaunchOptions::default()).await;
    assert_eq!(outcome.result["stop_reason"], "no_reliable_sources");
    let denied: Vec<&SourceDenied> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SourceDenied(d) => Some(d),
            _ => None,
        })
        .collect();
    assert_eq!(denied.len(), 3);
    assert_eq!(denied[1].domain, "vendor.example.com");
    assert_eq!(denied[1].reason, SourceDenial::Execution);
    assert_eq!(denied[1].gated_by.as_deref(), Some("vendor_reads"));
    assert_eq!(denied[0].gated_by, None, "outside the execution hints");

    let (outcome, _) = common::run(
        locked,
        LaunchOptions {
            flags: vec![("vendor_reads".into(), true)],
            ..LaunchOptions::default()
        },
    )
    .await;
    assert_eq!(outcome.result["stop_reason"], "success");
    assert_eq!(outcome.result["citations"], json!(["n1"]));
}

/// A shipped scenario launched to hold at its first gate.
async fn launch_paused(file: &str) -> (engine::RunHandle, conclave::bus::Subscription) {
    let hub = Hub::new(4096);
    let sub = hub.subscribe();
    let handle = engine::launch(
        common::shipped(file),
        &hub,
        LaunchOptions {
            start_paused: true,
            clock: Some(ClockMode::Virtual),
            ..LaunchOptions::default()
        },
    )
    .unwrap();
    (handle, sub)
}

#[tokio::test(start_paused = true)]
async fn a_flag_turned_on_at_the_read_gate_lets_the_domain_in() {
    let (handle, mut sub) = launch_paused("payments_research_locked_down.json").await;
    for _ in 0..3 {
        handle.controller.step().unwrap();
    }
    tokio::time::sleep(Duration::from_secs(60)).await;
    let seen = common::drain(&mut sub);
    assert!(matches!(
        &seen.last().unwrap().kind,
        EventKind::Paused {
            gate: GatePoint::Step {
                step: 4,
                phase: ResearchPhase::ReadExtract
            }
        }
    ));
    handle.controller.set_flag("vendor_reads", true).unwrap();
    handle.controller.resume().unwrap();
    let outcome = handle.finish().await.unwrap();
    assert_eq!(outcome.result["stop_reason"], "success");
    let rest = common::drain(&mut sub);
    assert!(rest.iter().any(|e| matches!(
        &e.kind,
        EventKind::FlagChanged { name, on: true } if name == "vendor_reads"
    )));
}

#[tokio::test(start_paused = true)]
async fn a_step_passes_one_gate_and_cancel_stops_in_that_step() {
    let (handle, mut sub) = launch_paused("payments_incident_research.json").await;
    tokio::time::sleep(Duration::from_secs(60)).await;
    handle.controller.step().unwrap();
    tokio::time::sleep(Duration::from_secs(60)).await;
    let events = common::drain(&mut sub);
    let gates: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Paused { gate } => Some(format!("paused {gate}")),
            EventKind::Stepped { gate } => Some(format!("stepped {gate}")),
            EventKind::ResearchStepStarted(s) => Some(format!("started {}", s.phase)),
            _ => None,
        })
        .collect();
    assert_eq!(
        gates,
        [
            "paused before step 1 (plan)",
            "stepped before step 1 (plan)",
            "started plan",
            "paused before step 2 (search)"
        ]
    );
    handle.controller.cancel();
    let outcome = handle.finish().await.unwrap();
    assert_eq!(outcome.result["stop_reason"], "cancelled");
    assert_eq!(outcome.result["phase"], "search");
    assert_eq!(outcome.result["trace"].as_array().unwrap().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn cancel_interrupts_a_read_in_flight() {
    let hub = Hub::new(4096);
    let mut sub = hub.subscribe();
    let handle =
        engine::launch(common::scenario(&timed()), &hub, LaunchOptions::default()).unwrap();
    // The first read runs from 1400 ms to 2600 ms.
    tokio::time::sleep(Duration::from_millis(2000)).await;
    handle.controller.cancel();
    let outcome = handle.finish().await.unwrap();
    assert_eq!(outcome.result["stop_reason"], "cancelled");
    assert_eq!(outcome.result["phase"], "read_extract");
    let events = common::drain(&mut sub);
    assert!(events.iter().any(|e| matches!(
        &e.kind,
        EventKind::CallFinished { tool, outcome: conclave::bus::CallOutcome::Cancelled, .. }
            if tool == "read_source"
    )));
}
