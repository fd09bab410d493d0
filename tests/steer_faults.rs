//! Steering's failure rules (docs/steer.md): a watch that goes away
//! never holds a run (a strict hook rejects what needs approval), a
//! restarted watch is found again, and hostile hooks (garbage, floods,
//! another run's trace id, no token beyond loopback) get clear answers
//! while other runs go on untouched.

use crate::common::python::Framework;
use crate::common::steer::{Run, Watch, hold_all};
use serde_json::{Value, json};

const HELD: &str = "000000000000000000000000000000a1";
const OTHER: &str = "000000000000000000000000000000b2";

fn hook(watch: &Watch, trace: &str, session: &str, op: Value) -> (u16, Value) {
    let mut body = json!({"trace_id": trace, "session": session});
    body.as_object_mut()
        .unwrap()
        .extend(op.as_object().unwrap().clone());
    watch.post("/v1/steer/hook", body.to_string().into_bytes(), None)
}

fn gate(name: &str) -> Value {
    json!({"op": "gate", "kind": "tool_call", "name": name, "wait_ms": 0})
}

#[test]
fn a_watch_killed_while_a_gate_waits_lets_the_run_go_on_and_a_restarted_one_is_found_again() {
    let watch = Watch::start(&[]);
    watch.steer(hold_all());
    let mut run = Run::start(Framework::LangGraph, "fault_run.py", &watch.url);
    let trace = run.expect("run")["trace_id"].as_str().unwrap().to_string();
    let (gate, _) = watch.waiting(&trace, "gate");
    assert_eq!(gate["name"], "held");
    let addr = watch.url.trim_start_matches("http://").to_string();
    drop(watch);
    assert_eq!(run.expect("went_on")["after"], "held");
    let loose = run.expect("approval");
    assert_eq!(loose["approved"], true, "{loose}");
    let strict = run.expect("approval");
    assert_eq!(strict["approved"], false, "{strict}");
    assert!(
        strict["reason"].as_str().unwrap().contains("strict"),
        "{strict}"
    );

    let watch = Watch::start_on(&addr, &[], &[]);
    watch.steer(hold_all());
    run.send("the watch is back");
    let (gate, _) = watch.waiting(&trace, "gate");
    assert_eq!(gate["name"], "again");
    watch.steer(json!({"op": "run_on", "trace_id": trace}));
    assert_eq!(run.expect("went_on")["after"], "again");
    let warned: Vec<String> = run.stderr.try_iter().collect();
    assert!(run.end().success());
    // One warning per hook that found the watch gone, not one per call.
    let warnings = warned
        .iter()
        .filter(|l| l.contains("cannot reach the watch"))
        .count();
    assert_eq!(warnings, 2, "{warned:?}");
}

#[test]
fn hostile_hooks_get_clear_answers_and_change_nothing_else() {
    let watch = Watch::start(&[]);
    let (status, said) = watch.post("/v1/steer/hook", b"{not json".to_vec(), None);
    assert_eq!(status, 400);
    assert!(
        said["error"]
            .as_str()
            .unwrap()
            .contains("not a hook request"),
        "{said}"
    );
    let (status, said) = hook(&watch, "zz", "s", gate("g"));
    assert_eq!(status, 400);
    assert!(
        said["error"].as_str().unwrap().contains("32 hex digits"),
        "{said}"
    );
    let (status, _) = watch.post("/v1/steer/hook", vec![b' '; 100_000], None);
    assert_eq!(status, 413);
    let (status, said) = watch.post("/v1/steer/nowhere", b"{}".to_vec(), None);
    assert_eq!(status, 404, "{said}");

    assert_eq!(hook(&watch, HELD, "flood", gate("first")).1["status"], "go");
    watch.steer(json!({"op": "pause", "trace_id": HELD}));
    // Each flood wait is answered `waiting` at once (wait_ms 0) and stays
    // held; the 65th is refused. A wait its hook never asks about again is
    // let go after 30 s, so on a slow machine a later one may be held
    // again: what holds throughout is the bound of 64.
    let answers: Vec<bool> = (0..10_000)
        .map(|n| {
            let (status, said) = hook(&watch, HELD, "flood", gate(&format!("g{n}")));
            match status {
                200 if said["status"] == "waiting" => true,
                429 if said["error"].as_str().unwrap().contains("too many") => false,
                _ => panic!("{status} {said}"),
            }
        })
        .collect();
    assert!(answers[..64].iter().all(|held| *held));
    assert!(answers[64..1_000].iter().all(|held| !held));
    let (status, said) = hook(&watch, HELD, "intruder", json!({"op": "poll", "id": 2}));
    assert_eq!(status, 409);
    assert!(
        said["error"].as_str().unwrap().contains("another hook"),
        "{said}"
    );
    let (status, _) = hook(&watch, HELD, "intruder", gate("x"));
    assert_eq!(status, 409);
    // Another run goes at once, and the held one holds what it held.
    assert_eq!(hook(&watch, OTHER, "calm", gate("g")).1["status"], "go");
    let runs = watch.wait_for("both runs listed", |runs| {
        (runs.len() == 2).then(|| runs.to_vec())
    });
    let held = runs.iter().find(|r| r["trace_id"] == HELD).unwrap();
    let holding = held["waiting"].as_array().unwrap().len();
    assert!((1..=64).contains(&holding), "{holding} waits held");
    let other = runs.iter().find(|r| r["trace_id"] == OTHER).unwrap();
    assert_eq!(other["paused"], false);
}

#[test]
fn beyond_loopback_every_steering_call_needs_the_token() {
    let env = [("CONCLAVE_TEST_STEER_TOKEN", "s3cret-steer")];
    let watch = Watch::start_on(
        "0.0.0.0:0",
        &["--token-env", "CONCLAVE_TEST_STEER_TOKEN"],
        &env,
    );
    let body = json!({"trace_id": HELD, "session": "s", "op": "gate", "kind": "node", "name": "n"});
    let bytes = || body.to_string().into_bytes();
    let (status, said) = watch.post("/v1/steer/hook", bytes(), None);
    assert_eq!(status, 401);
    assert!(said["error"].as_str().unwrap().contains("Bearer"), "{said}");
    assert_eq!(watch.post("/v1/steer/hook", bytes(), Some("wrong")).0, 401);
    let (status, said) = watch.post("/v1/steer/hook", bytes(), Some("s3cret-steer"));
    assert_eq!((status, said["status"].as_str()), (200, Some("go")));
    let control = json!({"op": "pause"}).to_string().into_bytes();
    assert_eq!(watch.post("/v1/steer/control", control, None).0, 401);
}
