//! The summary's tests: each pattern's summary written as it always was.

use super::*;
use crate::patterns::events::{Decision, Health};
use crate::patterns::figures::TASKS;
use serde_json::json;

#[test]
fn an_empty_summary_is_an_empty_object_and_reads_back() {
    assert_eq!(
        serde_json::to_value(RunSummary::default()).unwrap(),
        json!({"counts": {}})
    );
    assert_eq!(
        serde_json::from_value::<RunSummary>(json!({})).unwrap(),
        RunSummary::default()
    );
}

/// Each pattern's summary, filled in any order, as runs wrote it before
/// the values were named: the same text, byte for byte.
#[test]
fn each_pattern_s_summary_is_written_as_it_always_was() {
    let mut table = RunSummary::default();
    table.set_answer(Some("Ship it.".into()));
    table.put("decision", Decision::GoWithCaution);
    table.counts.set("rounds", 2);
    let mut workers = RunSummary::default();
    workers.counts.set(FAILED_TASKS, 1);
    workers.counts.set(TASKS, 3);
    workers.counts.set("dispatches", 4);
    workers.set_answer(Some("Brief.".into()));
    workers.put("health", Health::Yellow);
    workers.partial = true;
    workers.degraded = vec!["enrichment_api".into()];
    let mut swarm = RunSummary::default();
    swarm.put("final_agent", "billing");
    swarm.counts.set("llm_calls", 4);
    swarm.counts.set("handoffs", 1);
    swarm.set_answer(Some("Refunded.".into()));
    let mut research = RunSummary::default();
    research.put("citations", ["n1", "n2"]);
    research.set_answer(Some("Yes.".into()));
    let written = [
        (
            table,
            r#"{"decision":"go_with_caution","answer":"Ship it.","counts":{"rounds":2}}"#,
        ),
        (
            workers,
            r#"{"health":"yellow","answer":"Brief.","partial":true,"degraded":["enrichment_api"],"counts":{"dispatches":4,"tasks":3,"failed_tasks":1}}"#,
        ),
        (
            swarm,
            r#"{"answer":"Refunded.","final_agent":"billing","counts":{"handoffs":1,"llm_calls":4}}"#,
        ),
        (
            research,
            r#"{"answer":"Yes.","citations":["n1","n2"],"counts":{}}"#,
        ),
    ];
    for (summary, text) in written {
        assert_eq!(serde_json::to_string(&summary).unwrap(), text);
        assert_eq!(serde_json::from_str::<RunSummary>(text).unwrap(), summary);
    }
}

#[test]
fn a_value_that_says_nothing_is_left_out() {
    let mut summary = RunSummary::default();
    summary.put("citations", Vec::<String>::new());
    summary.put("decision", None::<Decision>);
    assert_eq!(summary, RunSummary::default());
    assert_eq!(summary.read::<Vec<String>>("citations"), None);
}

#[test]
fn an_old_result_document_gives_the_summary_its_run_would_have_published() {
    let collaboration = json!({"status": "ok", "final_decision": "go_with_caution",
        "answer": "Launch behind a flag.", "rounds_used": 2, "history": []});
    let summary = RunSummary::of_result(&collaboration);
    assert_eq!(summary.read("decision"), Some(Decision::GoWithCaution));
    assert_eq!(summary.answer(), Some("Launch behind a flag."));
    assert_eq!(summary.counts.get("rounds"), Some(2));
    assert_eq!(
        serde_json::to_string(&summary).unwrap(),
        r#"{"decision":"go_with_caution","answer":"Launch behind a flag.","counts":{"rounds":2}}"#
    );

    let orchestrator = json!({"status": "stopped", "aggregate": {"health": "yellow"},
        "partial": true, "degraded": ["enrichment_api"]});
    let summary = RunSummary::of_result(&orchestrator);
    assert_eq!(summary.read("health"), Some(Health::Yellow));
    assert!(summary.partial);
    assert_eq!(summary.degraded, ["enrichment_api"]);

    let swarm = json!({"final_agent": "billing", "llm_calls": 4,
        "handoffs": [{"from": "triage", "to": "billing", "accepted": true}]});
    let summary = RunSummary::of_result(&swarm);
    assert_eq!(summary.text("final_agent"), Some("billing"));
    assert_eq!(summary.counts.get("handoffs"), Some(1));
    assert_eq!(summary.counts.get("llm_calls"), Some(4));
}

#[test]
fn a_document_of_another_shape_gives_an_empty_summary() {
    assert_eq!(RunSummary::of_result(&json!(null)), RunSummary::default());
    for wrong in [
        json!({"rounds_used": "two"}),
        json!({"handoffs": 3}),
        json!({"partial": "yes"}),
        json!({"degraded": [1]}),
    ] {
        assert_eq!(
            RunSummary::of_result(&wrong),
            RunSummary::default(),
            "{wrong}"
        );
    }
}
