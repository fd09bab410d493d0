//! The long poll, the leases and the requests' checks, through
//! `Steering` on tokio's paused clock.

use super::protocol::{Answer, Refused};
use super::state::{Limits, Policy};
use super::{HookAnswer, HookRequest, Steering};
use std::time::Duration;
use tokio::time::Instant;

fn request(json: serde_json::Value) -> HookRequest {
    serde_json::from_value(json).unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_held_gate_is_answered_waiting_at_the_heartbeat_and_go_when_stepped() {
    let steering = Steering::new(Limits::default(), Policy::default());
    let trace = "000000000000000000000000000000ab";
    let gate = serde_json::json!({"trace_id": trace, "session": "s", "op": "gate",
        "kind": "node", "name": "agent"});
    let answer = steering.hook(request(gate.clone())).await.unwrap();
    assert!(matches!(answer, HookAnswer::Now(Answer::Go { .. }, _)));
    let pause: super::ControlRequest =
        serde_json::from_value(serde_json::json!({"op": "pause", "trace_id": trace})).unwrap();
    steering.control(pause).unwrap();
    let started = Instant::now();
    let held = steering.hook(request(gate.clone())).await.unwrap();
    let HookAnswer::Waiting(id) = held else {
        panic!("held: {held:?}");
    };
    assert_eq!(started.elapsed(), Limits::default().heartbeat);
    let polling = {
        let steering = std::sync::Arc::clone(&steering);
        tokio::spawn(async move {
            let poll = serde_json::json!({"trace_id": trace, "session": "s", "op": "poll",
                "id": id, "wait_ms": 60_000});
            steering.hook(request(poll)).await
        })
    };
    tokio::time::sleep(Duration::from_secs(2)).await;
    let step: super::ControlRequest =
        serde_json::from_value(serde_json::json!({"op": "step", "trace_id": trace})).unwrap();
    steering.control(step).unwrap();
    let answer = polling.await.unwrap().unwrap();
    assert!(matches!(answer, HookAnswer::Now(Answer::Go { .. }, _)));
    assert_eq!(
        started.elapsed(),
        Limits::default().heartbeat + Duration::from_secs(2)
    );
}

#[tokio::test(start_paused = true)]
async fn a_running_run_leases_its_gates_and_the_hook_counts_what_passed() {
    let steering = Steering::new(Limits::default(), Policy::default());
    let trace = "000000000000000000000000000000cd";
    let gate = |passed: u64| {
        request(
            serde_json::json!({"trace_id": trace, "session": "s", "op": "gate",
            "kind": "node", "name": "agent", "passed": passed}),
        )
    };
    let lease = |answer| match answer {
        HookAnswer::Now(Answer::Go { lease_ms, .. }, _) => lease_ms,
        other => panic!("not a go: {other:?}"),
    };
    assert_eq!(lease(steering.hook(gate(0)).await.unwrap()), 100);
    // 41 gates passed under the lease, then the 42nd asks.
    assert_eq!(lease(steering.hook(gate(41)).await.unwrap()), 100);
    assert_eq!(steering.list()[0].gates, 43);
    let control = |json: serde_json::Value| {
        let mut json = json;
        json["trace_id"] = trace.into();
        steering
            .control(serde_json::from_value(json).unwrap())
            .unwrap();
    };
    control(serde_json::json!({"op": "pause"}));
    control(serde_json::json!({"op": "step", "gates": 1}));
    // A stepped gate has no lease: the next one asks again.
    assert_eq!(lease(steering.hook(gate(0)).await.unwrap()), 0);
    // A lease is renewed while the run runs, held while it is paused, and
    // a renewal counts no gate.
    let renew = || {
        request(
            serde_json::json!({"trace_id": trace, "session": "s", "op": "lease",
            "passed": 5}),
        )
    };
    let held = steering.hook(renew()).await.unwrap();
    assert!(matches!(held, HookAnswer::Now(Answer::Hold, _)), "{held:?}");
    control(serde_json::json!({"op": "run_on"}));
    assert_eq!(lease(steering.hook(renew()).await.unwrap()), 100);
    assert_eq!(steering.list()[0].gates, 44 + 10);
    control(serde_json::json!({"op": "stop"}));
    let stopped = steering.hook(renew()).await.unwrap();
    assert!(matches!(
        stopped,
        HookAnswer::Now(Answer::Stopped { .. }, _)
    ));
    let too_many = request(serde_json::json!({"trace_id": trace, "session": "s",
        "op": "gate", "kind": "node", "name": "a", "passed": 2_000_000}));
    assert!(matches!(
        steering.hook(too_many).await,
        Err(Refused::Bad(_))
    ));
}

#[test]
fn garbage_gets_a_clear_answer() {
    let bad = |json: serde_json::Value| {
        let request: HookRequest = serde_json::from_value(json).unwrap();
        request
            .check()
            .and_then(|()| super::protocol::trace_of(&request.trace_id).map(|_| ()))
            .unwrap_err()
            .to_string()
    };
    let long = "x".repeat(300);
    let said = bad(serde_json::json!({"trace_id": "zz", "session": "s", "op": "poll", "id": 1}));
    assert!(said.contains("32 hex digits"), "{said}");
    let said = bad(
        serde_json::json!({"trace_id": "00000000000000000000000000000001",
        "session": "s", "op": "gate", "kind": "node", "name": long}),
    );
    assert!(said.contains("name") && said.contains("at most"), "{said}");
    let unknown = serde_json::from_value::<HookRequest>(serde_json::json!({
        "trace_id": "00000000000000000000000000000001", "session": "s", "op": "dance"}));
    assert!(unknown.unwrap_err().to_string().contains("dance"));
}

fn control(steering: &Steering, json: serde_json::Value) -> Result<(), Refused> {
    steering.control(serde_json::from_value(json).unwrap())
}

/// A leased gate's epoch, from a `go`.
fn epoch_of(answer: &HookAnswer) -> u64 {
    match answer {
        HookAnswer::Now(Answer::Go { epoch, .. }, _) => *epoch,
        other => panic!("not a go: {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn a_lease_long_poll_is_held_while_nothing_changes_and_answered_at_once_by_a_pause() {
    let steering = Steering::new(Limits::default(), Policy::default());
    let trace = "000000000000000000000000000000e1";
    let gate = serde_json::json!({"trace_id": trace, "session": "s", "op": "gate",
        "kind": "model_call", "name": "agent"});
    let epoch = epoch_of(&steering.hook(request(gate)).await.unwrap());
    let poll = move |epoch: u64| {
        request(
            serde_json::json!({"trace_id": trace, "session": "s", "op": "lease",
            "epoch": epoch, "wait_ms": 1000, "passed": 3}),
        )
    };
    // Nothing changed: held the whole wait, then go again from the same epoch.
    let started = Instant::now();
    let again = steering.hook(poll(epoch)).await.unwrap();
    assert_eq!(started.elapsed(), Duration::from_millis(1000));
    assert_eq!(epoch_of(&again), epoch);
    // A flag set answers at once, with the flag.
    let declare = serde_json::json!({"trace_id": trace, "session": "s", "op": "declare",
        "flags": [{"name": "legal", "default": true}]});
    steering.hook(request(declare)).await.unwrap();
    let polling = tokio::spawn({
        let steering = std::sync::Arc::clone(&steering);
        async move { steering.hook(poll(epoch)).await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let flag =
        serde_json::json!({"op": "set_flag", "trace_id": trace, "name": "legal", "on": false});
    control(&steering, flag).unwrap();
    let at = Instant::now();
    let answer = polling.await.unwrap().unwrap();
    assert_eq!(at.elapsed(), Duration::ZERO, "answered at the change");
    let HookAnswer::Now(Answer::Go { epoch: later, .. }, flags) = answer else {
        panic!("{answer:?}");
    };
    assert_ne!(later, epoch);
    assert_eq!(flags.get("legal"), Some(&false));
    // A pause answers the next long poll at once: hold.
    let polling = tokio::spawn({
        let steering = std::sync::Arc::clone(&steering);
        async move { steering.hook(poll(later)).await }
    });
    tokio::time::sleep(Duration::from_millis(10)).await;
    control(
        &steering,
        serde_json::json!({"op": "pause", "trace_id": trace}),
    )
    .unwrap();
    let at = Instant::now();
    let held = polling.await.unwrap().unwrap();
    assert_eq!(at.elapsed(), Duration::ZERO);
    assert!(matches!(held, HookAnswer::Now(Answer::Hold, _)), "{held:?}");
    // The gates told by each poll are counted: 1 asked, 3 + 3 + 3 passed.
    assert_eq!(steering.list()[0].gates, 10);
    // A stop answers a long poll from a run that runs on: stopped.
    control(
        &steering,
        serde_json::json!({"op": "run_on", "trace_id": trace}),
    )
    .unwrap();
    let polling = tokio::spawn({
        let steering = std::sync::Arc::clone(&steering);
        async move { steering.hook(poll(u64::MAX)).await }
    });
    let now = polling.await.unwrap().unwrap();
    let current = epoch_of(&now);
    let polling = tokio::spawn({
        let steering = std::sync::Arc::clone(&steering);
        async move { steering.hook(poll(current)).await }
    });
    tokio::time::sleep(Duration::from_millis(10)).await;
    control(
        &steering,
        serde_json::json!({"op": "stop", "trace_id": trace}),
    )
    .unwrap();
    let stopped = polling.await.unwrap().unwrap();
    assert!(matches!(
        stopped,
        HookAnswer::Now(Answer::Stopped { .. }, _)
    ));
}

#[tokio::test(start_paused = true)]
async fn a_finished_runs_late_lease_makes_no_run_again() {
    let steering = Steering::new(Limits::default(), Policy::default());
    let trace = "000000000000000000000000000000e2";
    let gate = serde_json::json!({"trace_id": trace, "session": "s", "op": "gate",
        "kind": "node", "name": "a"});
    let epoch = epoch_of(&steering.hook(request(gate)).await.unwrap());
    assert!(
        steering
            .finish(super::protocol::trace_of(trace).unwrap())
            .is_some()
    );
    let late = request(
        serde_json::json!({"trace_id": trace, "session": "s", "op": "lease",
        "epoch": epoch, "wait_ms": 1000, "passed": 12}),
    );
    let answer = steering.hook(late).await.unwrap();
    assert!(matches!(answer, HookAnswer::Now(Answer::Go { .. }, _)));
    assert!(steering.list().is_empty(), "{:?}", steering.list());
}
