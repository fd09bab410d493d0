//! Breakpoints (docs/steer.md): `conclave watch --headless --break NAME`
//! pauses a running hooked run before a gate of that name even while its
//! hook lets gates pass under a lease, says so as a decision, and lets
//! it go when run on; a breakpoint set by a steerer (`set_break`, here by
//! an agent's name) holds the next such gate the same way. The hook is
//! the real client (tests/fixtures/steer/break_hook.py, standard library
//! only, on the system's python3).

use crate::common::steer::Watch;
use serde_json::json;
use std::io::Write;
use std::time::Duration;

const TRACE: &str = "b4ea0000000000000000000000000001";

#[test]
fn a_breakpoint_holds_a_leased_run_before_its_named_gate_headless() {
    let watch = Watch::start(&["--break", "lookup_invoice"]);
    let (mut hook, said) = crate::steer_pause::hook_script("break_hook.py", TRACE, &watch.url);
    let next = || {
        said.recv_timeout(Duration::from_secs(60))
            .expect("the hook said")
    };
    for n in 0..3 {
        let gate = next();
        assert_eq!(
            (gate["gate"].as_str(), gate["n"].as_u64()),
            (Some("count"), Some(n))
        );
    }
    // Held before lookup_invoice, the lease notwithstanding.
    let (gate, view) = watch.waiting(TRACE, "gate");
    assert_eq!(gate["name"], "lookup_invoice");
    assert_eq!(view["paused"], true, "{view}");
    assert!(said.try_recv().is_err(), "the breakpoint's gate passed");
    watch.steer(json!({"op": "run_on", "trace_id": TRACE}));
    assert_eq!(next()["gate"], "lookup_invoice");
    // A breakpoint set by a steerer, by an agent's name.
    watch.steer(json!({"op": "set_break", "name": "Legal", "on": true}));
    let stdin = hook.stdin.as_mut().unwrap();
    writeln!(stdin, "go on").unwrap();
    stdin.flush().unwrap();
    assert_eq!(next()["n"], 3);
    let (gate, _) = watch.waiting(TRACE, "gate");
    assert_eq!(gate["name"], "Legal");
    watch.steer(json!({"op": "run_on", "trace_id": TRACE}));
    assert_eq!(next()["gate"], "Legal");
    assert!(hook.wait().unwrap().success());
    // A breakpoint needs a name; every gate was counted.
    let (status, _) = watch.control(json!({"op": "set_break", "name": " ", "on": true}));
    assert_eq!(status, 400);
    let runs = watch.wait_for("the run listed", |runs| {
        runs.iter().find(|r| r["trace_id"] == TRACE).cloned()
    });
    assert_eq!(runs["gates"], 6, "{runs}");
}
