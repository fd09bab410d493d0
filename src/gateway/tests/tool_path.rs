//! The tool call path without a resilience section: 001's timeouts,
//! retries at once, and the refusals that never reach a worker.

use super::*;
#[tokio::test(start_paused = true)]
async fn a_timed_out_attempt_is_dropped_and_retried_at_once() {
    let mut rig = rig();
    let gate = SharedGate::new(&mut rig.gate);
    let args: Value = serde_json::from_str(ARGS).unwrap();
    let call = ToolCall {
        task: "t1",
        tool: "slow_worker",
        args: &args,
        critical: true,
    };
    let policy = ToolPolicy {
        max_attempts: 3,
        attempt_timeout: Duration::from_secs(2),
        timeout_from: TimeoutFrom::Scenario,
    };
    let limits = DispatchLimits::new(10, Duration::from_secs(100));
    let start = tokio::time::Instant::now();
    let workers = Arc::clone(&rig.workers);
    let watch = async {
        let mut seen = Vec::new();
        for _ in 0..3 {
            tokio::time::sleep(Duration::from_secs(1)).await;
            seen.push(workers.in_flight());
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        seen
    };
    let (report, in_flight) =
        tokio::join!(rig.gateway.call_tool(call, &policy, &limits, &gate), watch);
    assert_eq!(
        in_flight,
        vec![1, 1, 1],
        "never more than the current attempt"
    );
    assert_eq!(rig.workers.in_flight(), 0);
    assert_eq!(start.elapsed(), Duration::from_secs(6), "3 attempts of 2 s");
    assert_eq!(
        report,
        ToolReport {
            attempts_used: 3,
            outcome: Err(StopReason::TaskTimeout),
            safe_mode: None,
            stale: false,
        }
    );
    assert_eq!(limits.used(), 3);
    let retries: Vec<u32> = drain(&mut rig.events)
        .into_iter()
        .filter_map(|k| match k {
            EventKind::RetryScheduled { attempt, .. } => Some(attempt),
            _ => None,
        })
        .collect();
    assert_eq!(retries, vec![2, 3]);
}

#[tokio::test(start_paused = true)]
async fn refused_attempts_never_reach_the_worker() {
    let mut rig = rig();
    let gate = SharedGate::new(&mut rig.gate);
    let args: Value = serde_json::from_str(ARGS).unwrap();
    let policy = ToolPolicy {
        max_attempts: 2,
        attempt_timeout: Duration::from_secs(2),
        timeout_from: TimeoutFrom::Scenario,
    };
    let cases = [
        (
            "gated_worker",
            10,
            100,
            StopReason::WorkerDenied {
                worker: "gated_worker".into(),
            },
        ),
        ("slow_worker", 0, 100, StopReason::MaxDispatches),
        ("slow_worker", 10, 0, StopReason::MaxSeconds),
    ];
    for (tool, budget, seconds, want) in cases {
        let limits = DispatchLimits::new(budget, Duration::from_secs(seconds));
        let call = ToolCall {
            task: "t1",
            tool,
            args: &args,
            critical: true,
        };
        let report = rig.gateway.call_tool(call, &policy, &limits, &gate).await;
        assert_eq!(report.outcome, Err(want.clone()));
        assert_eq!(report.attempts_used, 1, "{want} is not retried");
        let events = drain(&mut rig.events);
        assert!(
            !events
                .iter()
                .any(|k| matches!(k, EventKind::CallStarted { .. })),
            "{want}: {events:?}"
        );
        assert!(events.iter().any(|k| matches!(
            k,
            EventKind::AttemptFinished {
                outcome: CallOutcome::Refused,
                ..
            }
        )));
    }
}

/// A real worker the scenario set no timeout for gets 10 s, whatever the
/// pattern's default for its simulated workers; a timeout the scenario
/// chose, or a shorter deadline, still holds. The endpoint accepts the
/// connection and never answers.
#[tokio::test(start_paused = true)]
async fn a_real_call_without_a_chosen_timeout_gets_ten_seconds() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/never", listener.local_addr().unwrap());
    let scenario: Scenario = serde_json::from_value(json!({
        "name": "t", "pattern": "orchestrator", "goal": "g", "context": {},
        "provider": {"kind": "sim"},
        "workers": {"silent_worker": {"http": {"url": url}}}
    }))
    .unwrap();
    let mut rig = rig_for(Arc::new(scenario));
    let gate = SharedGate::new(&mut rig.gate);
    let args = json!({"region": "US"});
    let call = ToolCall {
        task: "t1",
        tool: "silent_worker",
        args: &args,
        critical: true,
    };
    let limits = DispatchLimits::new(10, Duration::from_secs(100));
    let cases = [
        (Duration::from_secs(2), TimeoutFrom::PatternDefault, 10_000),
        (Duration::from_secs(2), TimeoutFrom::Scenario, 2_000),
        (Duration::from_secs(30), TimeoutFrom::Deadline, 10_000),
        (Duration::from_secs(3), TimeoutFrom::Deadline, 3_000),
    ];
    for (attempt_timeout, timeout_from, expected_ms) in cases {
        let policy = ToolPolicy {
            max_attempts: 1,
            attempt_timeout,
            timeout_from,
        };
        let start = tokio::time::Instant::now();
        let report = rig.gateway.call_tool(call, &policy, &limits, &gate).await;
        assert_eq!(
            report.outcome,
            Err(StopReason::TaskTimeout),
            "{timeout_from:?}"
        );
        assert_eq!(
            start.elapsed(),
            Duration::from_millis(expected_ms),
            "{attempt_timeout:?} from {timeout_from:?}"
        );
        let started = drain(&mut rig.events).into_iter().find_map(|k| match k {
            EventKind::AttemptStarted { timeout_ms, .. } => Some(timeout_ms),
            _ => None,
        });
        assert_eq!(started, Some(expected_ms));
    }
    drop(listener);
}
