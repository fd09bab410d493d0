//! The orchestrator end to end through the engine, on the paused clock:
//! every stop reason of 001 and every `invalid_plan:*` reason, retries, the
//! dispatch budget, the deadline's clip of the attempt timeout, and the
//! workers' scripted failures.

use crate::common;
use conclave::patterns::events::PatternEvent;

use common::{ops, plan_of, run, run_default, scenario, task, three_tasks};
use conclave::bus::{EventKind, GatePoint};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::TaskEvent;
use serde_json::{Value, json};
use std::sync::Arc;

async fn result_of(document: Value) -> Value {
    Arc::unwrap_or_clone(run_default(scenario(&document)).await.result).into_value()
}

fn attempts(r: &Value) -> Vec<u64> {
    r["trace"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["attempts_used"].as_u64().unwrap())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn success_carries_the_plan_aggregate_trace_and_brief() {
    let r = result_of(ops(three_tasks())).await;
    assert_eq!(r["status"], "ok");
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(r["answer"], "Brief.");
    assert!(r.get("phase").is_none() && r.get("raw_plan").is_none());
    assert_eq!(r["plan"], three_tasks()["tasks"]);
    assert_eq!(
        r["aggregate"],
        json!({"report_date": "2026-02-26", "region": "US", "health": "green",
               "sales": {"gross_sales_usd": 182450.0, "orders": 4820},
               "payments": {"failed_payment_rate": 0.023, "gateway_incident": "none"},
               "inventory": {"out_of_stock_skus": []},
               "failed_tasks": []})
    );
    assert_eq!(
        r["trace"][1],
        json!({"task_id": "t2", "worker": "payments_worker", "status": "done", "attempts_used": 1,
               "retried": false, "args_hash": "2c66d7cf0e03", "stop_reason": null, "critical": true})
    );
    assert_eq!(
        r["history"][0]["observation"],
        json!({"status": "done", "worker": "sales_worker",
               "result": {"gross_sales_usd": 182450.0, "orders": 4820}})
    );
}

#[tokio::test(start_paused = true)]
async fn every_invalid_plan_reason_stops_in_the_plan_phase() {
    let with = |key: &str, value: Value| {
        let mut t = task("t1", "sales_worker", true);
        t[key] = value;
        plan_of(vec![t])
    };
    let mut missing = task("t1", "sales_worker", true);
    missing.as_object_mut().unwrap().remove("critical");
    let five: Vec<Value> = (1..=5)
        .map(|i| task(&format!("t{i}"), "sales_worker", true))
        .collect();
    let cases = [
        (json!("[1, 2]"), json!([1, 2]), "non_json"),
        (
            json!("not json"),
            json!({"kind": "invalid", "raw": "not json"}),
            "kind",
        ),
        (json!({"$fault": "empty"}), json!({}), "kind"),
        (
            json!({"kind": "plan", "tasks": "t1"}),
            json!({"kind": "plan", "tasks": "t1"}),
            "tasks",
        ),
        (plan_of(vec![]), plan_of(vec![]), "max_tasks"),
        (plan_of(five.clone()), plan_of(five), "max_tasks"),
        (
            plan_of(vec![json!("t1")]),
            plan_of(vec![json!("t1")]),
            "task_shape",
        ),
        (
            plan_of(vec![missing.clone()]),
            plan_of(vec![missing]),
            "missing_keys",
        ),
        (with("id", json!(" ")), with("id", json!(" ")), "task_id"),
        (
            plan_of(vec![
                task("t1", "sales_worker", true),
                task("t1", "payments_worker", true),
            ]),
            plan_of(vec![
                task("t1", "sales_worker", true),
                task("t1", "payments_worker", true),
            ]),
            "duplicate_task_id",
        ),
        (
            with("worker", json!("")),
            with("worker", json!("")),
            "worker",
        ),
        (
            with("worker", json!("fraud_worker")),
            with("worker", json!("fraud_worker")),
            "worker_not_allowed:fraud_worker",
        ),
        (with("args", json!([])), with("args", json!([])), "args"),
        (
            with("critical", json!("yes")),
            with("critical", json!("yes")),
            "critical",
        ),
    ];
    for (script, raw, reason) in cases {
        let (outcome, events) = run(scenario(&ops(script)), LaunchOptions::default()).await;
        let r = outcome.result;
        assert_eq!(r["status"], "stopped");
        assert_eq!(r["stop_reason"], format!("invalid_plan:{reason}"));
        assert_eq!(r["phase"], "plan");
        assert_eq!(r["raw_plan"], raw, "{reason}");
        assert_eq!((&r["trace"], &r["history"]), (&json!([]), &json!([])));
        assert!(r.get("plan").is_none());
        assert!(events.iter().any(|e| matches!(&e.kind,
            EventKind::Pattern(PatternEvent::Tasks(TaskEvent::PlanRejected { reason: why, .. })) if why.to_string() == format!("invalid_plan:{reason}"))));
    }
}

#[tokio::test(start_paused = true)]
async fn model_faults_stop_with_llm_timeout_or_llm_empty() {
    let r = result_of(ops(json!({"$fault": "timeout"}))).await;
    assert_eq!(
        (&r["stop_reason"], &r["phase"]),
        (&json!("llm_timeout"), &json!("plan"))
    );
    assert!(r.get("raw_plan").is_none());

    for (brief, reason) in [
        (json!({"$fault": "timeout"}), "llm_timeout"),
        (json!({"$fault": "empty"}), "llm_empty"),
        (json!(" \n "), "llm_empty"),
    ] {
        let mut document = ops(three_tasks());
        document["provider"]["final_answer"] = brief;
        let r = result_of(document).await;
        assert_eq!(r["stop_reason"], reason);
        assert_eq!(r["phase"], "finalize");
        assert_eq!(r["aggregate"]["health"], "green");
        assert_eq!(r["trace"].as_array().unwrap().len(), 3);
        assert!(r.get("plan").is_none(), "001 leaves the plan out here");
    }

    let mut document = ops(three_tasks());
    document["provider"]["timeout_seconds"] = json!(0.05);
    let r = result_of(document).await;
    assert_eq!(
        (&r["stop_reason"], &r["phase"]),
        (&json!("llm_timeout"), &json!("plan")),
        "a 100 ms planner against a 50 ms timeout"
    );
}

#[tokio::test(start_paused = true)]
async fn a_timed_out_task_is_retried_max_retries_per_task_times() {
    for retries in [0u64, 1, 3] {
        let mut document = ops(plan_of(vec![
            task("t1", "sales_worker", true),
            task("t2", "payments_worker", false),
        ]));
        document["workers"]["payments_worker"]["latency_ms"] = json!(5000);
        document["budget"] =
            json!({"max_retries_per_task": retries, "max_dispatches": 20, "max_seconds": 60});
        let (outcome, events) = run(scenario(&document), LaunchOptions::default()).await;
        let r = outcome.result;
        assert_eq!(r["stop_reason"], "success", "t2 is not critical");
        assert_eq!(attempts(&r), vec![1, retries + 1]);
        assert_eq!(r["trace"][1]["retried"], retries > 0);
        assert_eq!(r["trace"][1]["stop_reason"], "task_timeout");
        assert_eq!(
            r["aggregate"]["failed_tasks"],
            json!([{"task_id": "t2", "worker": "payments_worker", "critical": false, "stop_reason": "task_timeout"}])
        );
        let retried: Vec<u64> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::RetryScheduled {
                    attempt, delay_ms, ..
                } => {
                    assert_eq!(*delay_ms, 0, "001 retries at once");
                    Some(u64::from(*attempt))
                }
                _ => None,
            })
            .collect();
        assert_eq!(retried, (2..=retries + 1).collect::<Vec<_>>());
    }
}

#[tokio::test(start_paused = true)]
async fn the_dispatch_budget_counts_every_attempt_in_plan_order() {
    let mut document = ops(plan_of(vec![
        task("t1", "sales_worker", false),
        task("t2", "payments_worker", false),
        task("t3", "inventory_worker", false),
    ]));
    document["workers"]["sales_worker"]["latency_ms"] = json!([3000, 100]);
    document["workers"]["payments_worker"]["latency_ms"] = json!([3000, 100]);
    document["budget"] = json!({"max_parallel": 1, "max_dispatches": 4});
    let (outcome, events) = run(scenario(&document), LaunchOptions::default()).await;
    let r = outcome.result;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(attempts(&r), vec![2, 2, 1]);
    assert_eq!(r["trace"][2]["stop_reason"], "max_dispatches");
    let started: Vec<(String, u32, u64)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AttemptStarted { task, attempt, .. } => {
                Some((task.clone(), *attempt, e.t_ms))
            }
            _ => None,
        })
        .collect();
    let expect = |t: &str, a, ms| (t.to_string(), a, ms);
    assert_eq!(
        started,
        vec![
            expect("t1", 1, 100),
            expect("t1", 2, 2100),
            expect("t2", 1, 2200),
            expect("t2", 2, 4200),
            expect("t3", 1, 4300),
        ],
        "one at a time, in plan order; a retry starts when its attempt times out"
    );
    assert!(events.iter().any(|e| matches!(
        e.kind,
        EventKind::BudgetConsumed {
            used: 5,
            limit: 4,
            ..
        }
    )));
}

#[tokio::test(start_paused = true)]
async fn the_deadline_clips_the_attempt_timeout() {
    // Planned at 100 ms with 1.5 s to run: 1.4 s left, less than 2 s.
    let mut document = ops(plan_of(vec![task("t1", "sales_worker", false)]));
    document["workers"]["sales_worker"]["latency_ms"] = json!(1800);
    document["budget"] = json!({"max_seconds": 1.5});
    let (outcome, events) = run(scenario(&document), LaunchOptions::default()).await;
    let timeouts: Vec<u64> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AttemptStarted { timeout_ms, .. } => Some(*timeout_ms),
            _ => None,
        })
        .collect();
    assert_eq!(
        timeouts,
        vec![1400, 10],
        "the retry gets 001's 0.01 s floor"
    );
    let r = outcome.result;
    assert_eq!(attempts(&r), vec![2]);
    assert_eq!(
        r["trace"][0]["stop_reason"], "max_seconds",
        "the retry starts with no time left"
    );
    assert_eq!(r["stop_reason"], "success", "1.5 s is not over 1.5 s");

    // 5 ms left at dispatch: the attempt still gets 10 ms, finishes at
    // 108 ms, and the run is over time when it comes to finalize.
    let mut document = ops(plan_of(vec![task("t1", "sales_worker", true)]));
    document["workers"]["sales_worker"]["latency_ms"] = json!(8);
    document["budget"] = json!({"max_seconds": 0.105});
    let r = result_of(document).await;
    assert_eq!(
        (&r["stop_reason"], &r["phase"]),
        (&json!("max_seconds"), &json!("finalize"))
    );
    assert_eq!(r["trace"][0]["status"], "done");
    assert_eq!(r["aggregate"]["sales"]["orders"], 4820);
}

#[tokio::test(start_paused = true)]
async fn max_seconds_stops_the_dispatch() {
    // Planned exactly at the deadline: nothing is dispatched.
    let mut document = ops(three_tasks());
    document["budget"] = json!({"max_seconds": 0.1});
    let (outcome, events) = run(scenario(&document), LaunchOptions::default()).await;
    let r = outcome.result;
    assert_eq!(
        (&r["stop_reason"], &r["phase"]),
        (&json!("max_seconds"), &json!("dispatch"))
    );
    assert_eq!(r["plan"], three_tasks()["tasks"]);
    assert_eq!(r["trace"], json!([]));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.kind, EventKind::AttemptStarted { .. }))
    );

    // t2 starts 5 ms before the deadline; its 10 ms attempt would end after
    // it, so the dispatch gives up at the deadline and drops the attempt.
    let mut document = ops(plan_of(vec![
        task("t1", "sales_worker", false),
        task("t2", "payments_worker", false),
    ]));
    document["workers"]["sales_worker"]["latency_ms"] = json!(895);
    document["budget"] = json!({"max_seconds": 1.0, "max_parallel": 1});
    let (outcome, events) = run(scenario(&document), LaunchOptions::default()).await;
    let r = outcome.result;
    assert_eq!(
        (&r["stop_reason"], &r["phase"]),
        (&json!("max_seconds"), &json!("dispatch"))
    );
    assert_eq!((&r["trace"], &r["history"]), (&json!([]), &json!([])));
    let last = &events[events.len() - 1];
    assert_eq!(last.t_ms, 1000, "stopped at the deadline");
    assert!(!events.iter().any(|e| matches!(&e.kind,
        EventKind::AttemptFinished { task, .. } if task == "t2")));
}

#[tokio::test(start_paused = true)]
async fn worker_failures_are_partial_results_unless_critical() {
    let mut bad_args = task("t1", "sales_worker", false);
    bad_args["args"]["limit"] = json!(3);
    let mut document = ops(plan_of(vec![
        bad_args,
        task("t2", "payments_worker", false),
        task("t3", "inventory_worker", false),
    ]));
    document["workers"]["payments_worker"]["fail"] = json!([1]);
    let (outcome, _) = run(
        scenario(&document),
        LaunchOptions {
            flags: vec![("inventory_runtime".into(), false)],
            ..LaunchOptions::default()
        },
    )
    .await;
    let r = outcome.result;
    assert_eq!(r["stop_reason"], "success");
    let reasons: Vec<&str> = r["trace"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["stop_reason"].as_str().unwrap())
        .collect();
    assert_eq!(
        reasons,
        vec![
            "worker_bad_args:sales_worker",
            "worker_error:payments_worker",
            "worker_denied:inventory_worker"
        ]
    );
    assert_eq!(attempts(&r), vec![1, 1, 1], "only timeouts are retried");
    assert_eq!(r["aggregate"]["sales"], json!({}));
    assert_eq!(r["aggregate"]["failed_tasks"].as_array().unwrap().len(), 3);

    let mut document = ops(three_tasks());
    document["workers"]["payments_worker"]["outage_ms"] = json!([[0, 60000]]);
    document["workers"]["payments_worker"]["hang"] = json!(true);
    document["workers"]["inventory_worker"]["outage_ms"] = json!([[0, 60000]]);
    let (outcome, events) = run(scenario(&document), LaunchOptions::default()).await;
    let r = outcome.result;
    assert_eq!(
        (&r["stop_reason"], &r["phase"]),
        (&json!("critical_task_failed"), &json!("dispatch"))
    );
    assert_eq!(r["trace"][1]["stop_reason"], "task_timeout");
    assert_eq!(
        r["trace"][1]["attempts_used"], 2,
        "a hang times out and is retried"
    );
    assert_eq!(
        r["trace"][2]["stop_reason"],
        "worker_error:inventory_worker"
    );
    assert_eq!(
        r["failed_critical"].as_array().unwrap().len(),
        2,
        "both failed tasks are critical"
    );
    assert_eq!(r["failed_critical"][0]["task_id"], "t2");
    assert_eq!(r["plan"], three_tasks()["tasks"]);
    assert!(r.get("aggregate").is_none());
    let inventory_failed_at = events
        .iter()
        .find(|e| matches!(&e.kind, EventKind::AttemptFinished { task, .. } if task == "t3"))
        .unwrap()
        .t_ms;
    assert_eq!(inventory_failed_at, 100, "an outage fails at once");
}

#[tokio::test(start_paused = true)]
async fn scenario_health_rules_replace_the_reference_rules() {
    let mut document = ops(three_tasks());
    document["health_rules"] = json!([
        {"worker": "sales_worker", "field": "orders", "op": "<", "value": 5000, "level": "yellow"},
        {"worker": "payments_worker", "field": "failed_payment_rate", "op": ">", "value": 0.02, "level": "red"}
    ]);
    assert_eq!(
        result_of(document.clone()).await["aggregate"]["health"],
        "red"
    );
    document["health_rules"] = json!([
        {"worker": "sales_worker", "field": "orders", "op": "<", "value": 5000, "level": "yellow"}
    ]);
    assert_eq!(
        result_of(document.clone()).await["aggregate"]["health"],
        "yellow"
    );
    document["health_rules"] = json!([]);
    let mut payments = document["workers"]["payments_worker"]["data"]["2026-02-26:US"].clone();
    payments["gateway_incident"] = json!("outage");
    document["workers"]["payments_worker"]["data"]["2026-02-26:US"] = payments;
    assert_eq!(
        result_of(document).await["aggregate"]["health"],
        "green",
        "no rules, nothing fires"
    );
}

#[tokio::test(start_paused = true)]
async fn without_a_script_the_sim_plans_every_worker_and_writes_the_brief() {
    let mut document = ops(Value::Null);
    let provider = document["provider"].as_object_mut().unwrap();
    provider.remove("plan");
    provider.remove("final_answer");
    let r = result_of(document).await;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(r["plan"], three_tasks()["tasks"]);
    assert_eq!(
        r["answer"],
        "Operations report for US on 2026-02-26: health GREEN. sales: gross_sales_usd 182450.0, \
         orders 4820. payments: failed_payment_rate 0.023, gateway_incident none. inventory: \
         out_of_stock_skus []."
    );
}

#[tokio::test(start_paused = true)]
async fn cancel_drops_the_calls_in_flight() {
    let mut document = ops(three_tasks());
    document["workers"]["sales_worker"]["latency_ms"] = json!(60_000);
    document["budget"] = json!({"task_timeout_seconds": 120, "max_seconds": 600});
    let (handle, _sub) = common::launch(scenario(&document), LaunchOptions::default());
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    handle.controller.cancel();
    let r = handle.finish().await.unwrap().result;
    assert_eq!(
        (&r["stop_reason"], &r["phase"]),
        (&json!("cancelled"), &json!("dispatch"))
    );
    assert_eq!(r["trace"], json!([]));
}

#[test]
fn gate_points_of_the_orchestrator_name_wave_and_retry() {
    assert_eq!(
        GatePoint::Wave { wave: 3 }.to_string(),
        "before dispatch wave 3"
    );
}
