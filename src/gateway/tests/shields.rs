//! The resilience section through the gateway, on the paused clock: every
//! breaker transition and rejection reason with its events, bulkhead wait
//! and rejection, the retry budget, model retries, one retry rule per call
//! (never multiplied), safe mode's verdicts and a switch flipped live.

use super::*;
use crate::bus::{BreakerReason, BreakerState};
use crate::provider::prompts::Prompt;
use crate::provider::sim::{Script, SimScript};
use crate::provider::{ModelOutput, ModelRequest, ProviderError, Purpose};
use crate::scenario::ProviderSpec;
use tokio::time::Instant;

fn shielded(resilience: Value, workers: Value) -> Arc<Scenario> {
    Arc::new(
        serde_json::from_value(json!({
            "name": "t", "pattern": "orchestrator", "goal": "g", "context": {},
            "provider": {"kind": "sim", "latency_ms": 50,
                         "plan": [{"$fault": "timeout"}, {"$fault": "timeout"}, {"$fault": "timeout"}, "ok"]},
            "workers": workers,
            "flags": {"breakers": {"default": true, "gateway": "circuit_breaker"}},
            "resilience": resilience
        }))
        .unwrap(),
    )
}

fn args() -> Value {
    serde_json::from_str(ARGS).unwrap()
}

fn call<'a>(tool: &'a str, args: &'a Value, critical: bool) -> ToolCall<'a> {
    ToolCall {
        task: "t1",
        tool,
        args,
        critical,
    }
}

const ONE: ToolPolicy = ToolPolicy {
    max_attempts: 1,
    attempt_timeout: Duration::from_secs(2),
    timeout_from: TimeoutFrom::Scenario,
};

fn limits() -> DispatchLimits {
    DispatchLimits::without_budget(Duration::from_secs(600))
}

fn transitions(events: &[EventKind]) -> Vec<(BreakerState, BreakerState, BreakerReason)> {
    events
        .iter()
        .filter_map(|k| match k {
            EventKind::BreakerTransition {
                from, to, reason, ..
            } => Some((*from, *to, *reason)),
            _ => None,
        })
        .collect()
}

fn count(events: &[EventKind], test: impl Fn(&EventKind) -> bool) -> usize {
    events.iter().filter(|k| test(k)).count()
}

fn started(events: &[EventKind], tool: &str) -> usize {
    count(
        events,
        |k| matches!(k, EventKind::CallStarted { tool: t, .. } if t == tool),
    )
}

#[tokio::test(start_paused = true)]
async fn an_open_breaker_fails_fast_then_probes_reopens_and_closes() {
    use BreakerState::{Closed, HalfOpen, Open};
    let mut rig = rig_for(shielded(
        json!({"circuit_breaker": {"fail_threshold": 2, "open_for_ms": 1000, "half_open_probes": 1}}),
        json!({"vendor_worker": {"latency_ms": 100, "outage_ms": [[0, 1500]]}}),
    ));
    let gate = SharedGate::new(&mut rig.gate);
    let args = args();
    let vendor = call("vendor_worker", &args, false);
    let limits = limits();
    let outcome = |report: ToolReport| report.outcome.map(|_| ());
    let down = Err(StopReason::WorkerError {
        worker: "vendor_worker".into(),
    });
    let open = Err(StopReason::CircuitOpen {
        tool: "vendor_worker".into(),
    });
    let start = Instant::now();
    for _ in 0..2 {
        assert_eq!(
            outcome(rig.gateway.call_tool(vendor, &ONE, &limits, &gate).await),
            down
        );
    }
    assert_eq!(
        outcome(rig.gateway.call_tool(vendor, &ONE, &limits, &gate).await),
        open
    );
    assert_eq!(
        start.elapsed(),
        Duration::ZERO,
        "failing fast takes no time"
    );
    let opened = drain(&mut rig.events);
    assert_eq!(
        started(&opened, "vendor_worker"),
        2,
        "the rejected call never started"
    );
    assert!(opened.iter().any(|k| matches!(
        k,
        EventKind::CallRejected { reason, attempt: 1, .. } if Err(reason.clone()) == open
    )));
    assert!(opened.iter().any(|k| matches!(
        k,
        EventKind::AttemptFinished { outcome: CallOutcome::Refused, reason: Some(r), .. } if Err(r.clone()) == open
    )));

    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(
        outcome(rig.gateway.call_tool(vendor, &ONE, &limits, &gate).await),
        down,
        "the probe at 1 s meets the outage"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        outcome(rig.gateway.call_tool(vendor, &ONE, &limits, &gate).await),
        open,
        "open for a new second from the failed probe"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        outcome(rig.gateway.call_tool(vendor, &ONE, &limits, &gate).await),
        Ok(())
    );
    assert_eq!(
        outcome(rig.gateway.call_tool(vendor, &ONE, &limits, &gate).await),
        Ok(())
    );
    let all = [opened, drain(&mut rig.events)].concat();
    assert_eq!(
        transitions(&all),
        vec![
            (Closed, Open, BreakerReason::FailureThreshold),
            (Open, HalfOpen, BreakerReason::CooledDown),
            (HalfOpen, Open, BreakerReason::ProbeFailed),
            (Open, HalfOpen, BreakerReason::CooledDown),
            (HalfOpen, Closed, BreakerReason::ProbesSucceeded),
        ]
    );
    assert_eq!(started(&all, "vendor_worker"), 5);
}

#[tokio::test(start_paused = true)]
async fn half_open_lets_its_probes_through_at_once_and_rejects_the_rest() {
    let mut rig = rig_for(shielded(
        json!({"circuit_breaker": {"fail_threshold": 1, "open_for_ms": 1000, "half_open_probes": 2}}),
        json!({"vendor_worker": {"latency_ms": 100, "outage_ms": [[0, 500]]}}),
    ));
    let gate = SharedGate::new(&mut rig.gate);
    let args = args();
    let vendor = call("vendor_worker", &args, false);
    let limits = limits();
    rig.gateway.call_tool(vendor, &ONE, &limits, &gate).await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let g = &rig.gateway;
    let (a, b, c) = tokio::join!(
        g.call_tool(vendor, &ONE, &limits, &gate),
        g.call_tool(vendor, &ONE, &limits, &gate),
        g.call_tool(vendor, &ONE, &limits, &gate),
    );
    assert!(a.outcome.is_ok() && b.outcome.is_ok(), "two probes");
    assert_eq!(
        c.outcome,
        Err(StopReason::CircuitOpen {
            tool: "vendor_worker".into()
        })
    );
    let events = drain(&mut rig.events);
    assert_eq!(
        transitions(&events).last().map(|t| (t.1, t.2)),
        Some((BreakerState::Closed, BreakerReason::ProbesSucceeded))
    );
}

#[tokio::test(start_paused = true)]
async fn a_full_bulkhead_makes_a_call_wait_then_refuses_it() {
    let resilience = |wait: u64| json!({"bulkhead": {"max_in_flight": 1, "max_wait_ms": wait}});
    let workers = json!({"search_worker": {"latency_ms": 1000}});
    let mut rig = rig_for(shielded(resilience(300), workers.clone()));
    let gate = SharedGate::new(&mut rig.gate);
    let args = args();
    let search = call("search_worker", &args, false);
    let limits = limits();
    let g = &rig.gateway;
    let start = Instant::now();
    let late = async {
        let report = g.call_tool(search, &ONE, &limits, &gate).await;
        (report, start.elapsed())
    };
    let (first, (second, refused_at)) =
        tokio::join!(g.call_tool(search, &ONE, &limits, &gate), late);
    assert!(first.outcome.is_ok());
    assert_eq!(
        second.outcome,
        Err(StopReason::BulkheadFull {
            tool: "search_worker".into()
        })
    );
    assert_eq!(refused_at, Duration::from_millis(300), "after max_wait_ms");
    let events = drain(&mut rig.events);
    let occupancy: Vec<(u32, u32)> = events
        .iter()
        .filter_map(|k| match k {
            EventKind::Bulkhead {
                in_flight, queued, ..
            } => Some((*in_flight, *queued)),
            _ => None,
        })
        .collect();
    assert_eq!(occupancy, vec![(1, 0), (1, 1), (1, 0), (0, 0)]);
    assert_eq!(started(&events, "search_worker"), 1);

    // Waiting long enough, the second call takes the freed slot.
    let mut rig = rig_for(shielded(resilience(1500), workers));
    let gate = SharedGate::new(&mut rig.gate);
    let g = &rig.gateway;
    let start = Instant::now();
    let (a, b) = tokio::join!(
        g.call_tool(search, &ONE, &limits, &gate),
        g.call_tool(search, &ONE, &limits, &gate),
    );
    assert!(a.outcome.is_ok() && b.outcome.is_ok());
    assert_eq!(
        start.elapsed(),
        Duration::from_millis(2000),
        "one after the other"
    );
}

#[tokio::test(start_paused = true)]
async fn a_retry_over_the_budget_fails_at_once() {
    let mut rig = rig_for(shielded(
        json!({"retries": {"max_attempts": 3, "jitter": "none"}, "retry_budget": {"ratio": 0.5}}),
        json!({"vendor_worker": {"latency_ms": 100, "outage_ms": [[0, 60000]]}}),
    ));
    let gate = SharedGate::new(&mut rig.gate);
    let args = args();
    let vendor = call("vendor_worker", &args, false);
    let limits = limits();
    // First call: 0.5 retries allowed, so none.
    let report = rig.gateway.call_tool(vendor, &ONE, &limits, &gate).await;
    assert_eq!(report.outcome, Err(StopReason::RetryBudgetExhausted));
    assert_eq!(report.attempts_used, 1);
    // Second call: 1 retry allowed in all.
    let report = rig.gateway.call_tool(vendor, &ONE, &limits, &gate).await;
    assert_eq!(report.attempts_used, 2);
    assert_eq!(report.outcome, Err(StopReason::RetryBudgetExhausted));
    let events = drain(&mut rig.events);
    assert_eq!(
        count(&events, |k| matches!(
            k,
            EventKind::CallRejected {
                reason: StopReason::RetryBudgetExhausted,
                ..
            }
        )),
        2
    );
    assert_eq!(started(&events, "vendor_worker"), 3);
}

#[tokio::test(start_paused = true)]
async fn one_rule_per_call_the_pattern_s_retries_are_not_multiplied() {
    let mut rig = rig_for(shielded(
        json!({"retries": {"max_attempts": 3, "backoff_ms": [100, 300], "jitter": "none"}}),
        json!({"slow_worker": {"latency_ms": 60000}, "flaky_worker": {"latency_ms": 50, "fail": [1]}}),
    ));
    let gate = SharedGate::new(&mut rig.gate);
    let args = args();
    let limits = limits();
    let own = ToolPolicy {
        max_attempts: 4,
        attempt_timeout: Duration::from_secs(2),
        timeout_from: TimeoutFrom::Scenario,
    };
    let start = Instant::now();
    let report = rig
        .gateway
        .call_tool(call("slow_worker", &args, false), &own, &limits, &gate)
        .await;
    assert_eq!(report.attempts_used, 3, "the section's 3, not 4, not 4 × 3");
    assert_eq!(report.outcome, Err(StopReason::TaskTimeout));
    assert_eq!(start.elapsed(), Duration::from_millis(3 * 2000 + 100 + 300));
    let events = drain(&mut rig.events);
    assert_eq!(started(&events, "slow_worker"), 3);
    let delays: Vec<u64> = events
        .iter()
        .filter_map(|k| match k {
            EventKind::RetryScheduled { delay_ms, task, .. } => {
                assert_eq!(task.as_deref(), Some("t1"));
                Some(*delay_ms)
            }
            _ => None,
        })
        .collect();
    assert_eq!(delays, vec![100, 300]);
    assert_eq!(rig.gateway.max_attempts("slow_worker", 4), 3);

    // A worker error is transient: the section retries it, 001 would not.
    let report = rig
        .gateway
        .call_tool(call("flaky_worker", &args, false), &own, &limits, &gate)
        .await;
    assert_eq!((report.attempts_used, report.outcome.is_ok()), (2, true));
}

#[tokio::test(start_paused = true)]
async fn without_a_section_a_worker_error_is_not_retried() {
    let mut scenario = (*shielded(json!({}), json!({"flaky_worker": {"fail": [1]}}))).clone();
    scenario.resilience = None;
    scenario.flags.clear();
    let mut rig = rig_for(Arc::new(scenario));
    let gate = SharedGate::new(&mut rig.gate);
    let args = args();
    let own = ToolPolicy {
        max_attempts: 3,
        attempt_timeout: Duration::from_secs(2),
        timeout_from: TimeoutFrom::Scenario,
    };
    let report = rig
        .gateway
        .call_tool(call("flaky_worker", &args, false), &own, &limits(), &gate)
        .await;
    assert_eq!(report.attempts_used, 1, "001 retries timeouts only");
    let events = drain(&mut rig.events);
    assert!(!events.iter().any(|k| matches!(
        k,
        EventKind::BreakerTransition { .. }
            | EventKind::Bulkhead { .. }
            | EventKind::CallRejected { .. }
    )));
}

/// A planner's call whose outputs the sim plays from `provider.plan`.
#[derive(Debug)]
struct ScriptedPlan;

impl SimScript for ScriptedPlan {
    fn script<'a>(&self, spec: &'a ProviderSpec, _: &Purpose) -> Script<'a> {
        spec.plan.as_ref().map_or(Script::None, Script::Text)
    }

    fn unscripted(&self, _: &Purpose, _: &Value) -> Result<ModelOutput, ProviderError> {
        Err(ProviderError::Failed("no plan".into()))
    }
}

fn plan() -> Purpose {
    Purpose::new("plan", "plan", "planner", &ScriptedPlan)
}

#[tokio::test(start_paused = true)]
async fn model_calls_are_retried_with_backoff_in_the_gateway() {
    let mut rig = rig_for(shielded(
        json!({"retries": {"max_attempts": 3, "backoff_ms": [100, 200], "jitter": "none"}}),
        json!({"w_worker": {}}),
    ));
    let request = || ModelRequest::new(plan(), &Prompt::UNUSED, json!({}));
    let start = Instant::now();
    let result = rig.gateway.model("plan".into(), request()).await;
    assert_eq!(result, Err(CallError::Timeout), "three scripted timeouts");
    assert_eq!(start.elapsed(), Duration::from_millis(3 * 50 + 100 + 200));
    let events = drain(&mut rig.events);
    assert_eq!(started(&events, MODEL_TOOL), 3, "max_attempts, not more");
    let retries: Vec<(Option<String>, u32, u64, StopReason)> = events
        .iter()
        .filter_map(|k| match k {
            EventKind::RetryScheduled {
                task,
                attempt,
                delay_ms,
                after,
                ..
            } => Some((task.clone(), *attempt, *delay_ms, after.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        retries,
        vec![
            (None, 2, 100, StopReason::LlmTimeout),
            (None, 3, 200, StopReason::LlmTimeout)
        ]
    );
    assert!(rig.gateway.model("plan".into(), request()).await.is_ok());
}

#[tokio::test(start_paused = true)]
async fn safe_mode_skips_a_non_critical_fast_failure_and_never_a_critical_one() {
    let resilience = |allow_partial: bool| {
        json!({"circuit_breaker": {"fail_threshold": 1, "open_for_ms": 60000},
               "safe_mode": {"enabled": true, "allow_partial": allow_partial}})
    };
    let workers = json!({"vendor_worker": {"outage_ms": [[0, 60000]]}});
    let mut rig = rig_for(shielded(resilience(true), workers.clone()));
    let gate = SharedGate::new(&mut rig.gate);
    let args = args();
    let limits = limits();
    let g = &rig.gateway;
    let first = g
        .call_tool(call("vendor_worker", &args, false), &ONE, &limits, &gate)
        .await;
    assert_eq!(first.safe_mode, None, "a real failure is not skipped");
    let critical = g
        .call_tool(call("vendor_worker", &args, true), &ONE, &limits, &gate)
        .await;
    assert_eq!(critical.safe_mode, None);
    assert!(g.degraded().is_empty());
    let skipped = g
        .call_tool(call("vendor_worker", &args, false), &ONE, &limits, &gate)
        .await;
    assert_eq!(skipped.safe_mode, Some(SafeModeVerdict::Skipped));
    assert_eq!(g.degraded(), vec!["vendor_worker"]);

    let mut rig = rig_for(shielded(resilience(false), workers));
    let gate = SharedGate::new(&mut rig.gate);
    let g = &rig.gateway;
    g.call_tool(call("vendor_worker", &args, false), &ONE, &limits, &gate)
        .await;
    let strict = g
        .call_tool(call("vendor_worker", &args, false), &ONE, &limits, &gate)
        .await;
    assert_eq!(strict.safe_mode, Some(SafeModeVerdict::StopRun));
    assert!(g.degraded().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_breaker_switched_off_at_a_gate_lets_calls_through_and_forgets() {
    let mut rig = rig_for(shielded(
        json!({"circuit_breaker": {"fail_threshold": 1, "open_for_ms": 60000}}),
        json!({"vendor_worker": {"outage_ms": [[0, 60000]]}}),
    ));
    let controller = rig.controller.clone();
    let gate = SharedGate::new(&mut rig.gate);
    let args = args();
    let vendor = call("vendor_worker", &args, false);
    let limits = limits();
    let g = &rig.gateway;
    let open = Err(StopReason::CircuitOpen {
        tool: "vendor_worker".into(),
    });
    g.call_tool(vendor, &ONE, &limits, &gate).await;
    assert_eq!(
        g.call_tool(vendor, &ONE, &limits, &gate)
            .await
            .outcome
            .map(|_| ()),
        open
    );
    controller.set_flag("breakers", false).unwrap();
    assert_eq!(
        g.call_tool(vendor, &ONE, &limits, &gate)
            .await
            .outcome
            .map(|_| ()),
        open,
        "not before the next gate"
    );
    gate.pass(crate::bus::GatePoint::Wave { wave: 2 })
        .await
        .unwrap();
    for _ in 0..3 {
        let report = g.call_tool(vendor, &ONE, &limits, &gate).await;
        assert!(matches!(
            report.outcome,
            Err(StopReason::WorkerError { .. })
        ));
    }
    controller.set_flag("breakers", true).unwrap();
    gate.pass(crate::bus::GatePoint::Wave { wave: 3 })
        .await
        .unwrap();
    let report = g.call_tool(vendor, &ONE, &limits, &gate).await;
    assert!(
        matches!(report.outcome, Err(StopReason::WorkerError { .. })),
        "back on, it starts closed"
    );
    assert_eq!(
        g.call_tool(vendor, &ONE, &limits, &gate)
            .await
            .outcome
            .map(|_| ()),
        open
    );
    let events = drain(&mut rig.events);
    assert_eq!(
        transitions(&events)
            .iter()
            .map(|t| (t.1, t.2))
            .collect::<Vec<_>>(),
        vec![
            (BreakerState::Open, BreakerReason::FailureThreshold),
            (BreakerState::Closed, BreakerReason::SwitchedOff),
            (BreakerState::Open, BreakerReason::FailureThreshold),
        ]
    );
}
