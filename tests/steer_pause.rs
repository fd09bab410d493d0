//! A pause pressed while a hooked run is in a model call holds it at its
//! very next gate (docs/steer.md, "how soon a pause holds"): the hook's
//! gates pass under a lease, and the watch answers the lease's long poll
//! at the pause, so the lease ends with no gate asking and the next gate
//! waits. The hook is the real client (tests/fixtures/steer/
//! pause_hook.py, standard library only, on the system's python3).

use crate::common::steer::Watch;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

const TRACE: &str = "9a05e000000000000000000000000001";

/// `script` of tests/fixtures/steer run by Python with the repository's
/// hook, steering run `trace` through the watch at `url`: the process,
/// and each JSON line it prints, as it prints it.
pub(crate) fn hook_script(
    script: &str,
    trace: &str,
    url: &str,
) -> (std::process::Child, std::sync::mpsc::Receiver<Value>) {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut hook = Command::new("python3")
        .arg(format!("{root}/tests/fixtures/steer/{script}"))
        .arg(trace)
        .env("PYTHONPATH", format!("{root}/hooks/python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("CONCLAVE_STEER_URL", url)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs the hook");
    let (tx, said) = channel::<Value>();
    let stdout = hook.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(serde_json::from_str(&line).unwrap()).is_err() {
                break;
            }
        }
    });
    (hook, said)
}
#[test]
fn a_pause_during_a_model_call_holds_the_run_at_its_next_gate() {
    let watch = Watch::start(&[]);
    let (mut hook, said) = hook_script("pause_hook.py", TRACE, &watch.url);
    let next = || {
        said.recv_timeout(Duration::from_secs(90))
            .expect("the hook said")
    };
    let gates = next();
    assert_eq!(gates, json!({"gates": 2, "leased": true}));
    assert_eq!(next()["model_call"], "started");
    // Paused while the model is called; the model then answers.
    watch.steer(json!({"op": "pause", "trace_id": TRACE}));
    let stdin = hook.stdin.as_mut().unwrap();
    writeln!(stdin, "the model answered").unwrap();
    stdin.flush().unwrap();
    assert_eq!(next()["lease_ended"], true);
    // The very next gate is held, told as the third gate of the run.
    let (gate, view) = watch.waiting(TRACE, "gate");
    assert_eq!(gate["kind"], "agent_turn");
    assert_eq!(view["gates"], 3, "{view}");
    assert!(said.try_recv().is_err(), "a gate passed after the pause");
    watch.steer(json!({"op": "run_on", "trace_id": TRACE}));
    assert_eq!(next()["gate"], "agent_turn");
    assert!(hook.wait().unwrap().success());
}
