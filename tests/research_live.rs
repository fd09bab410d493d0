//! The research pattern live: the events of its workflow, every call
//! through the gateway, run-clock times, determinism, domain flags at
//! launch and at a gate, stepping and cancel.

use crate::common;
use conclave::patterns::events::PatternEvent;

use common::research::{payments, result_of, run, timed};
use conclave::bus::{ClockMode, Event, EventKind, GatePoint, Hub};
use conclave::engine::{self, LaunchOptions};
use conclave::patterns::events::ResearchEvent;
use conclave::patterns::events::{ResearchPhase, SourceDenial, SourceDenied};
use serde_json::{Value, json};
use std::time::Duration;

#[tokio::test(start_paused = true)]
async fn the_events_tell_the_workflow_and_every_call_goes_through_the_gateway() {
    let (_, events) = run(&timed()).await;
    let research: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::ResearchStepStarted(s))) => {
                Some(format!("start {}", s.phase))
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::ResearchStepFinished(s))) => {
                Some(format!("done {} {}", s.phase, s.count))
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourceFound(_))) => {
                Some("found".into())
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourcesDeduped(d))) => {
                Some(format!("deduped {}", d.urls.len()))
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourceAllowed(a))) => {
                Some(format!("allowed {}", a.domain))
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourceDenied(d))) => {
                Some(format!("denied {}", d.domain))
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::PageRead(p))) => {
                Some(format!("read {}", p.title))
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::NoteExtracted(n))) => {
                Some(format!("note {}", n.id))
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::NotesVerified(v))) => {
                Some(format!("verified {} {}", v.checked, v.ok))
            }
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::Cited(c))) => {
                Some(format!("cited {}", c.id))
            }
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
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourceDenied(d))) => Some(d),
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
        EventKind::FlagChanged { name, on: true, .. } if name == "vendor_reads"
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
            EventKind::Pattern(PatternEvent::Research(ResearchEvent::ResearchStepStarted(s))) => {
                Some(format!("started {}", s.phase))
            }
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
