//! The orchestrator while it runs: its events, the wave and retry gates,
//! flags toggled live, a timed-out attempt cancelled rather than waited
//! for, and identical event streams for identical runs.

use crate::common;
use conclave::patterns::events::PatternEvent;

use common::{kinds, ops, run, scenario, three_tasks};
use conclave::bus::{CallOutcome, Event, EventKind, GatePoint};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::TaskEvent;
use conclave::patterns::events::TaskStatus;
use serde_json::{Value, json};
use std::time::Duration;

fn time_of(events: &[Event], test: impl Fn(&EventKind) -> bool) -> u64 {
    events
        .iter()
        .find(|e| test(&e.kind))
        .unwrap_or_else(|| panic!("no such event"))
        .t_ms
}

fn position(events: &[Event], test: impl Fn(&EventKind) -> bool) -> usize {
    events
        .iter()
        .position(|e| test(&e.kind))
        .unwrap_or_else(|| panic!("no such event"))
}

#[tokio::test(start_paused = true)]
async fn the_morning_report_retries_payments_at_the_timeout_not_when_the_slow_call_ends() {
    let (outcome, events) = run(
        common::shipped("morning_ops_report.json"),
        LaunchOptions::default(),
    )
    .await;
    let r = &outcome.result;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(
        r["aggregate"]["health"], "yellow",
        "SKU-9033 is out of stock"
    );
    assert_eq!(r["trace"][1]["attempts_used"], 2);
    assert_eq!(r["trace"][1]["retried"], true);

    let planned = time_of(&events, |k| {
        matches!(
            k,
            EventKind::Pattern(PatternEvent::Tasks(TaskEvent::PlanAccepted { .. }))
        )
    });
    let timed_out = time_of(
        &events,
        |k| matches!(k, EventKind::AttemptFinished { task, attempt: 1, outcome: CallOutcome::Timeout, .. } if task == "t2"),
    );
    let retried = time_of(
        &events,
        |k| matches!(k, EventKind::AttemptStarted { task, attempt: 2, .. } if task == "t2"),
    );
    let done = time_of(
        &events,
        |k| matches!(k, EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskFinished { task, status: TaskStatus::Done, .. })) if task == "t2"),
    );
    assert_eq!(timed_out - planned, 2000, "the 2.6 s call is cut at 2 s");
    assert_eq!(retried, timed_out, "and dropped, not waited for");
    assert_eq!(done - planned, 2300);
}

#[tokio::test(start_paused = true)]
async fn each_task_reports_queued_attempts_and_finish_in_order() {
    let mut document = ops(three_tasks());
    document["budget"] = json!({"max_parallel": 2});
    let (_, events) = run(scenario(&document), LaunchOptions::default()).await;
    let names: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskQueued { task, .. })) => {
                Some(format!("queued {task}"))
            }
            EventKind::AttemptStarted { task, attempt, .. } => {
                Some(format!("start {task}#{attempt}"))
            }
            EventKind::AttemptFinished { task, attempt, .. } => {
                Some(format!("end {task}#{attempt}"))
            }
            EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskFinished { task, .. })) => {
                Some(format!("done {task}"))
            }
            EventKind::Pattern(PatternEvent::Tasks(TaskEvent::Aggregated { .. })) => {
                Some("aggregated".into())
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        names,
        [
            "queued t1",
            "queued t2",
            "queued t3",
            "start t1#1",
            "start t2#1",
            "end t2#1",
            "done t2",
            "start t3#1",
            "end t1#1",
            "done t1",
            "end t3#1",
            "done t3",
            "aggregated"
        ]
    );
    // Two slots: t3 takes the one payments (300 ms) frees.
    let t3 = time_of(
        &events,
        |k| matches!(k, EventKind::AttemptStarted { task, .. } if task == "t3"),
    );
    assert_eq!(t3, 100 + 300);
    let calls = events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::CallFinished { tool, .. } if tool.ends_with("_worker")))
        .count();
    assert_eq!(
        calls, 3,
        "one gateway call per attempt that reaches a worker"
    );
}

#[tokio::test(start_paused = true)]
async fn step_runs_one_wave_and_a_flag_turned_off_denies_the_next_tasks() {
    let mut document = ops(three_tasks());
    document["budget"] = json!({"max_parallel": 1});
    let (handle, mut sub) = common::launch(
        scenario(&document),
        LaunchOptions {
            start_paused: true,
            ..LaunchOptions::default()
        },
    );
    tokio::time::sleep(Duration::from_secs(30)).await;
    let held = common::drain(&mut sub);
    assert!(matches!(
        kinds(&held).last(),
        Some(EventKind::Paused {
            gate: GatePoint::Wave { wave: 1 }
        })
    ));
    assert!(
        !held
            .iter()
            .any(|e| matches!(e.kind, EventKind::AttemptStarted { .. }))
    );

    handle.controller.step().unwrap();
    tokio::time::sleep(Duration::from_secs(30)).await;
    let stepped = common::drain(&mut sub);
    let started: Vec<&str> = stepped
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AttemptStarted { task, .. } => Some(task.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(started, ["t1"], "one step, one wave");
    let last = stepped.last().unwrap();
    assert_eq!(
        last.kind,
        EventKind::Paused {
            gate: GatePoint::Wave { wave: 2 }
        }
    );
    assert_eq!(last.t_ms, 500, "the paused minutes do not count");

    handle
        .controller
        .set_flag("inventory_runtime", false)
        .unwrap();
    handle.controller.resume().unwrap();
    let r = handle.finish().await.unwrap().result;
    assert_eq!(r["stop_reason"], "critical_task_failed");
    assert_eq!(r["trace"][1]["status"], "done", "payments is not gated");
    assert_eq!(
        r["trace"][2]["stop_reason"],
        "worker_denied:inventory_worker"
    );
    let events = common::drain(&mut sub);
    let flag = position(&events, |k| {
        matches!(k, EventKind::FlagChanged { on: false, .. })
    });
    let denied = position(
        &events,
        |k| matches!(k, EventKind::AttemptFinished { task, outcome: CallOutcome::Refused, .. } if task == "t3"),
    );
    assert!(flag < denied);
}

#[tokio::test(start_paused = true)]
async fn a_flag_turned_on_live_lets_its_worker_run_from_the_next_wave() {
    let mut document = ops(three_tasks());
    document["budget"] = json!({"max_parallel": 1});
    let (handle, _sub) = common::launch(
        scenario(&document),
        LaunchOptions {
            flags: vec![("inventory_runtime".into(), false)],
            ..LaunchOptions::default()
        },
    );
    // t1 runs 100..500 ms, t2 500..800 ms; t3's wave comes at 800 ms.
    tokio::time::sleep(Duration::from_millis(600)).await;
    handle
        .controller
        .set_flag("inventory_runtime", true)
        .unwrap();
    let r = handle.finish().await.unwrap().result;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(r["trace"][2]["status"], "done");
}

#[tokio::test(start_paused = true)]
async fn the_run_holds_at_a_retry_gate_while_other_tasks_finish() {
    let mut document = ops(three_tasks());
    document["workers"]["payments_worker"]["latency_ms"] = json!([3000, 100]);
    let (handle, mut sub) = common::launch(scenario(&document), LaunchOptions::default());
    tokio::time::sleep(Duration::from_millis(1000)).await;
    handle.controller.pause().unwrap();
    tokio::time::sleep(Duration::from_secs(60)).await;
    let held = common::drain(&mut sub);
    let retry_gate = GatePoint::Retry {
        task: "t2".into(),
        attempt: 2,
    };
    let last = held.last().unwrap();
    assert_eq!(
        last.kind,
        EventKind::Paused {
            gate: retry_gate.clone()
        }
    );
    assert_eq!(last.t_ms, 2100, "t2's first attempt timed out at 2.1 s");
    let finished: Vec<&str> = held
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskFinished { task, .. })) => {
                Some(task.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(finished, ["t1", "t3"], "tasks in flight ran to their end");

    handle.controller.resume().unwrap();
    let r = handle.finish().await.unwrap().result;
    assert_eq!(r["stop_reason"], "success");
    let events = common::drain(&mut sub);
    assert_eq!(
        events[0].kind,
        EventKind::Resumed {
            gate: retry_gate.clone()
        }
    );
    assert!(
        matches!(&events[1].kind, EventKind::AttemptStarted { task, attempt: 2, .. } if task == "t2")
    );
    assert_eq!(events[1].t_ms, 2100);
}

/// A run's events with the one wall-clock value taken out.
fn comparable(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .map(|e| {
            let mut value = serde_json::to_value(e).unwrap();
            value.as_object_mut().unwrap().remove("started_at_ms");
            value
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn the_same_run_publishes_the_same_events() {
    for file in ["regional_ops_sweep.json", "morning_ops_report.json"] {
        let scenario = common::shipped(file);
        let mut streams = Vec::new();
        for _ in 0..2 {
            let (_, events) = run(scenario.clone(), LaunchOptions::default()).await;
            streams.push(comparable(&events));
        }
        assert!(streams[0].len() > 20);
        assert_eq!(streams[0], streams[1], "{file}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_recording_reads_back_as_the_events_the_run_published() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let (outcome, events) = run(
        common::shipped("morning_ops_report.json"),
        LaunchOptions {
            record: Some(path.clone()),
            ..LaunchOptions::default()
        },
    )
    .await;
    let recording = conclave::record::read_recording(&path).unwrap();
    assert!(recording.problems.is_empty(), "{:?}", recording.problems);
    let read_back: Vec<_> = recording.events.iter().map(|e| (**e).clone()).collect();
    assert_eq!(read_back, events, "every orchestrator event reads back");
    match &recording.events.last().unwrap().kind {
        EventKind::RunFinished { result, .. } => assert_eq!(result, &outcome.result),
        other => panic!("the recording ends with {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn the_regional_sweep_keeps_eight_tasks_in_flight() {
    let (outcome, events) = run(
        common::shipped("regional_ops_sweep.json"),
        LaunchOptions::default(),
    )
    .await;
    let r = &outcome.result;
    assert_eq!(r["plan"].as_array().unwrap().len(), 40);
    let mut running = 0i32;
    let mut most = 0;
    for event in &events {
        match &event.kind {
            EventKind::AttemptStarted { attempt: 1, .. } => running += 1,
            EventKind::Pattern(PatternEvent::Tasks(TaskEvent::TaskFinished { .. })) => running -= 1,
            _ => {}
        }
        most = most.max(running);
    }
    assert_eq!(most, 8);
    assert_eq!(running, 0);
}
