//! The wire shape of events: what recordings hold and old ones must still
//! read as.

use super::*;
use crate::patterns::events::{
    Conflict, Decision, Health, PatternEvent, ResearchEvent, ResearchPhase, RoundEvent,
    SourceDenial, SourceDenied,
};
use serde_json::json;

#[test]
fn events_are_flat_tagged_json() {
    let event = Event {
        run: 1,
        seq: 7,
        t_ms: 450,
        kind: EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundFinished {
            round: 2,
            conflicts: vec![Conflict::GoVsCaution],
            decision: Some(Decision::GoWithCaution),
        })),
    };
    let value = serde_json::to_value(&event).unwrap();
    assert_eq!(
        value,
        json!({"run": 1, "seq": 7, "t_ms": 450, "type": "round_finished", "round": 2,
               "conflicts": ["go_vs_caution"], "decision": "go_with_caution"})
    );
    let back: Event = serde_json::from_value(value).unwrap();
    assert_eq!(back, event);
}

#[test]
fn gate_points_name_where_the_run_waits() {
    let paused: EventKind = EventKind::Paused {
        gate: GatePoint::Round { round: 2 },
    };
    assert_eq!(
        serde_json::to_value(&paused).unwrap(),
        json!({"type": "paused", "gate": {"before": "round", "round": 2}})
    );
    assert_eq!(GatePoint::Round { round: 2 }.to_string(), "before round 2");
    let retry = GatePoint::Retry {
        task: "t2".into(),
        attempt: 2,
    };
    assert_eq!(
        serde_json::to_value(&retry).unwrap(),
        json!({"before": "retry", "task": "t2", "attempt": 2})
    );
    assert_eq!(retry.to_string(), "before attempt 2 of task t2");
    let step = GatePoint::Step {
        step: 4,
        phase: ResearchPhase::ReadExtract,
    };
    assert_eq!(
        serde_json::to_value(&step).unwrap(),
        json!({"before": "step", "step": 4, "phase": "read_extract"})
    );
    assert_eq!(step.to_string(), "before step 4 (read_extract)");
}

#[test]
fn research_events_are_flat_too() {
    let denied: EventKind = EventKind::Pattern(PatternEvent::Research(
        ResearchEvent::SourceDenied(SourceDenied {
            url: "https://a.example/x".into(),
            domain: "a.example".into(),
            reason: SourceDenial::Execution,
            gated_by: None,
        }),
    ));
    let value = serde_json::to_value(&denied).unwrap();
    assert_eq!(
        value,
        json!({"type": "source_denied", "url": "https://a.example/x", "domain": "a.example",
               "reason": "source_denied_execution"})
    );
    assert_eq!(serde_json::from_value::<EventKind>(value).unwrap(), denied);
}

#[test]
fn orchestrator_events_carry_task_and_attempt() {
    let event: EventKind = EventKind::AttemptFinished {
        task: "t2".into(),
        worker: "payments_worker".into(),
        attempt: 1,
        outcome: CallOutcome::Timeout,
        elapsed_ms: 2000,
        reason: Some(StopReason::TaskTimeout),
    };
    let value = serde_json::to_value(&event).unwrap();
    assert_eq!(
        value,
        json!({"type": "attempt_finished", "task": "t2", "worker": "payments_worker",
               "attempt": 1, "outcome": "timeout", "elapsed_ms": 2000, "reason": "task_timeout"})
    );
    assert_eq!(serde_json::from_value::<EventKind>(value).unwrap(), event);
}

#[test]
fn gateway_events_carry_their_serde_names() {
    let retry: EventKind = EventKind::RetryScheduled {
        tool: "model".into(),
        task: None,
        attempt: 2,
        delay_ms: 180,
        after: StopReason::LlmTimeout,
    };
    assert_eq!(
        serde_json::to_value(&retry).unwrap(),
        json!({"type": "retry_scheduled", "tool": "model", "attempt": 2, "delay_ms": 180,
               "after": "llm_timeout"})
    );
    let older = json!({"type": "retry_scheduled", "task": "t2", "worker": "payments_worker",
                       "attempt": 2, "delay_ms": 0, "after": "task_timeout"});
    assert!(matches!(
        serde_json::from_value::<EventKind>(older).unwrap(),
        EventKind::RetryScheduled { tool, task: Some(task), .. } if tool == "payments_worker" && task == "t2"
    ));
    let transition: EventKind = EventKind::BreakerTransition {
        tool: "enrichment_worker".into(),
        from: BreakerState::Open,
        to: BreakerState::HalfOpen,
        reason: BreakerReason::CooledDown,
    };
    assert_eq!(
        serde_json::to_value(&transition).unwrap(),
        json!({"type": "breaker_transition", "tool": "enrichment_worker", "from": "open",
               "to": "half_open", "reason": "cooled_down"})
    );
    let rejected: EventKind = EventKind::CallRejected {
        tool: "enrichment_worker".into(),
        attempt: 1,
        reason: StopReason::CircuitOpen {
            tool: "enrichment_worker".into(),
        },
    };
    assert_eq!(
        serde_json::to_value(&rejected).unwrap()["reason"],
        json!("circuit_open:enrichment_worker")
    );
    let bulkhead: EventKind = EventKind::Bulkhead {
        tool: "search_worker".into(),
        in_flight: 2,
        max: 2,
        queued: 1,
    };
    let value = serde_json::to_value(&bulkhead).unwrap();
    assert_eq!(value["type"], "bulkhead");
    assert_eq!(
        serde_json::from_value::<EventKind>(value).unwrap(),
        bulkhead
    );
}

#[test]
fn a_run_finish_carries_its_summary_beside_the_result_and_reads_back() {
    let finished = Event {
        run: 1,
        seq: 40,
        t_ms: 9000,
        kind: EventKind::RunFinished {
            status: RunStatus::Ok,
            stop_reason: StopReason::Success,
            phase: None,
            result: std::sync::Arc::new(
                json!({"status": "ok", "final_decision": "go", "answer": "Ship it."}).into(),
            ),
            summary: Box::new({
                let mut summary = RunSummary::default();
                summary.put("decision", Decision::Go);
                summary.set_answer(Some("Ship it.".into()));
                summary.counts.set("rounds", 2);
                summary
            }),
            error: None,
        },
    };
    let value = serde_json::to_value(&finished).unwrap();
    assert_eq!(
        value["summary"],
        json!({"decision": "go", "answer": "Ship it.", "counts": {"rounds": 2}})
    );
    assert_eq!(
        value["result"],
        json!({"status": "ok", "final_decision": "go", "answer": "Ship it."}),
        "the result document is left as the pattern wrote it"
    );
    let back: Event = serde_json::from_value(value).unwrap();
    assert_eq!(back, finished);
}

#[test]
fn a_run_finish_recorded_before_summaries_reads_with_the_summary_its_result_gives() {
    let older = json!({"run": 1, "seq": 12, "t_ms": 800, "type": "run_finished",
        "status": "ok", "stop_reason": "success",
        "result": {"status": "ok", "aggregate": {"health": "red"}, "answer": "Page the team."}});
    let event: Event = serde_json::from_value(older).unwrap();
    let EventKind::RunFinished { summary, .. } = event.kind else {
        panic!("not a finish: {event:?}");
    };
    assert_eq!(summary.read("health"), Some(Health::Red));
    assert_eq!(summary.answer(), Some("Page the team."));
    assert_eq!(summary.read::<Decision>("decision"), None);
}

#[test]
fn reading_an_event_in_two_looks_gives_what_serde_reads() {
    let lines = [
        r#"{"run":1,"seq":7,"t_ms":450,"type":"round_finished","round":2,"conflicts":["go_vs_caution"],"decision":"go_with_caution"}"#,
        r#"{"run":1,"seq":12,"t_ms":800,"type":"run_finished","status":"ok","stop_reason":"success","result":{"status":"ok","aggregate":{"health":"red"},"answer":"Page the team."}}"#,
        r#"{"run":2,"seq":3,"t_ms":10,"type":"retry_scheduled","worker":"w","attempt":2,"delay_ms":5,"after":"task_timeout"}"#,
        r#"{"type":"flag_changed","name":"f","on":true,"t_ms":1,"seq":2,"run":1}"#,
        // As the recorder writes a head, and spelled otherwise.
        r#"{"run":1,"seq":2,"t_ms":1,"type":"flag_changed","name":"f","on":true}"#,
        r#"{"run":1,"seq":2,"t_ms":1,"type":"flag_changed","name":"a \"seq\" in a name","on":true}"#,
        r#"{"run":1, "seq":2,"t_ms":1,"type":"flag_changed","name":"f","on":true}"#,
        r#"{"run":1,"seq":2,"t_ms":1,"type":"flag\u005fchanged","name":"f","on":true}"#,
        // A kind that wraps a struct of its own, and one whose fields come
        // before the head.
        r#"{"run":1,"seq":9,"t_ms":3,"type":"research_step_finished","step":2,"phase":"search","count":4}"#,
        r#"{"name":"f","on":false,"run":1,"seq":2,"t_ms":1,"type":"flag_changed"}"#,
    ];
    for line in lines {
        let serde: Event = serde_json::from_str(line).unwrap();
        assert_eq!(<Event>::from_text(line), Some(serde), "{line}");
    }
    for bad in [
        r#"{"run":1,"seq":7,"type":"round_finished"}"#,
        r#"{"run":1,"seq":7,"t_ms":4,"type":"flag_changed","name":"f","on":true,"seq":8}"#,
        r#"{"run":1,"seq":7,"t_ms":4,"type":"flag_changed","name":"f","on":true,"type":"x"}"#,
        r#"{"run":1,"seq":7,"t_ms":4,"type":"flag_changed","name":"f","on":true"#,
        r#"{"run":01,"seq":2,"t_ms":1,"type":"flag_changed","name":"f","on":true}"#,
        r#"{"run":1,"seq":7,"t_ms":4,"type":"flag_changed","name":"f"}"#,
        r#"{"run":4294967296,"seq":7,"t_ms":4,"type":"flag_changed","name":"f","on":true}"#,
        r#"{"run":1,"seq":99999999999999999999,"t_ms":4,"type":"flag_changed","name":"f","on":true}"#,
        r#"{"run":1,"seq":7,"t_ms":4,"type":"from_the_future"}"#,
        r#"{"run":"one","seq":7,"t_ms":4,"type":"flag_changed","name":"f","on":true}"#,
        // A field of the wrong type, a field repeated, text after the
        // object, a kind's struct with a field missing.
        r#"{"run":1,"seq":7,"t_ms":4,"type":"flag_changed","name":"f","on":"yes"}"#,
        r#"{"run":1,"seq":7,"t_ms":4,"type":"flag_changed","name":"f","on":true,"on":false}"#,
        r#"{"run":1,"seq":7,"t_ms":4,"type":"flag_changed","name":"f","on":true} {}"#,
        r#"{"run":1,"seq":9,"t_ms":3,"type":"research_step_finished","step":2,"count":4}"#,
    ] {
        assert_eq!(<Event>::from_text(bad), None, "{bad}");
        assert!(serde_json::from_str::<Event>(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_run_start_reads_its_scenario_as_the_file_was_read() {
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/morning_ops_report.json");
    let scenario = Arc::new(crate::scenario::load(&file).unwrap());
    assert!(
        scenario.provider.plan.is_some(),
        "a scenario with a scripted plan"
    );
    let event = Event {
        run: 3,
        seq: 1,
        t_ms: 0,
        kind: EventKind::RunStarted(RunStarted {
            pattern: scenario.pattern,
            seed: 7,
            goal: "Report.".into(),
            clock: ClockMode::Real,
            flags: vec![FlagState {
                name: "legal".into(),
                on: true,
            }],
            source: Some("morning_ops_report.json".into()),
            started_at_ms: 1_795_426_665_451,
            model: None,
            scenario,
            forked_from: None,
        }),
    };
    let line = serde_json::to_string(&event).unwrap();
    let serde: Event = serde_json::from_str(&line).unwrap();
    let read = <Event>::from_text(&line).expect("the line reads");
    assert_eq!(read, serde);
    assert_eq!(read, event);
    let EventKind::RunStarted(started) = &read.kind else {
        panic!("a run start");
    };
    let plan = started.scenario.provider.plan.as_ref().unwrap();
    assert!(
        line.contains(plan.text()),
        "the plan is kept as the line's text"
    );
    // A scenario that is not one is refused, as serde refuses it.
    let broken = line.replace(
        "\"pattern\":\"orchestrator\",\"goal\"",
        "\"pattern\":7,\"goal\"",
    );
    assert_ne!(broken, line);
    assert_eq!(<Event>::from_text(&broken), None);
    assert!(serde_json::from_str::<Event>(&broken).is_err());
    // A key of the scenario given twice, at its top or in its provider, is
    // refused too.
    let (head, scenario) = line.split_once("\"scenario\":").unwrap();
    for (once, twice) in [
        ("\"goal\":", "\"goal\":\"Again.\",\"goal\":"),
        ("\"provider\":{", "\"provider\":{\"kind\":\"sim\","),
    ] {
        let scenario = scenario.replacen(once, twice, 1);
        let repeated = format!("{head}\"scenario\":{scenario}");
        assert_ne!(repeated, line, "{twice}");
        assert_eq!(<Event>::from_text(&repeated), None, "{twice}");
        assert!(serde_json::from_str::<Event>(&repeated).is_err(), "{twice}");
    }
}

#[test]
fn a_deltas_arguments_and_a_fallback_are_written_only_when_true_and_read_as_false_when_absent() {
    // As recordings made before them hold these events.
    let delta: EventKind =
        serde_json::from_value(json!({"type": "call_delta", "call": 3, "text": "{\"su"})).unwrap();
    assert!(matches!(
        delta,
        EventKind::CallDelta {
            arguments: false,
            ..
        }
    ));
    assert_eq!(
        serde_json::to_value(&delta).unwrap(),
        json!({"type": "call_delta", "call": 3, "text": "{\"su"})
    );
    let finished: EventKind = serde_json::from_value(json!({"type": "call_finished",
        "call": 3, "tool": "model", "attempt": 1, "latency_ms": 4, "outcome": "error"}))
    .unwrap();
    assert!(matches!(
        finished,
        EventKind::CallFinished {
            fallback: false,
            ..
        }
    ));
    assert!(
        serde_json::to_value(&finished)
            .unwrap()
            .get("fallback")
            .is_none()
    );

    // Said when true.
    let tool_mode: EventKind = EventKind::CallDelta {
        call: 3,
        text: "{\"su".into(),
        reasoning: false,
        arguments: true,
    };
    assert_eq!(serde_json::to_value(&tool_mode).unwrap()["arguments"], true);
    let mut refused = serde_json::to_value(&finished).unwrap();
    refused["fallback"] = json!(true);
    let back: EventKind = serde_json::from_value(refused.clone()).unwrap();
    assert!(matches!(
        back,
        EventKind::CallFinished { fallback: true, .. }
    ));
    assert_eq!(serde_json::to_value(&back).unwrap(), refused);
}
