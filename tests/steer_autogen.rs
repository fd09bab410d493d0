//! Steering a real AutoGen AgentChat team through the real `conclave
//! watch` (docs/steer.md): a gate at every message its runtime carries,
//! a stop raising `Stopped` out of the adapter's `run`, with no model
//! call after it, a guarded
//! tool's call rejected with the person's reason, a user proxy's input
//! answered by a person.

use crate::common::python::Framework;
use crate::common::steer::{Run, Watch, hold_all, named};
use serde_json::{Value, json};

#[test]
fn an_autogen_team_is_held_stepped_decided_and_stopped_through_the_watch() {
    // AutoGen's own spans make traces of their own besides each run's:
    // the watch runs until both runs' lines have come.
    let watch = Watch::start(&[]);
    watch.steer(hold_all());
    let run = Run::start(Framework::AutoGen, "autogen_run.py", &watch.url);

    let (steps, gate) = held_and_stepped(&watch, &run, ("message", "GroupChatStart"), 3);
    assert_eq!(gate["name"], "GroupChatRequestPublish");
    // Three messages passed, none of them a request to speak: no model call.
    assert!(named(&run.told(), "model_call").is_empty());
    watch.steer(json!({"op": "stop", "trace_id": steps}));
    // Stopped out of the run, and no model call started after the stop.
    let mut told = Vec::new();
    let stopped = loop {
        let event = run.next();
        if event["event"] == "stopped" {
            break event;
        }
        told.push(event);
    };
    assert_eq!(stopped["reason"], "stopped by a person");
    assert!(named(&told, "model_call").is_empty(), "{told:?}");

    let decide = run.expect("run")["trace_id"].as_str().unwrap().to_string();
    watch.waiting(&decide, "gate");
    // The flag turned off before the agent's turn: its tool is not offered.
    watch
        .steer(json!({"op": "set_flag", "trace_id": decide, "name": "legal_analyst", "on": false}));
    watch.steer(json!({"op": "run_on", "trace_id": decide}));
    let (approval, _) = watch.waiting(&decide, "approval");
    assert_eq!(approval["tool"], "lookup_invoice");
    assert_eq!(approval["arguments"], json!({"invoice": 7}));
    let first = run.expect("model_call");
    assert_eq!(first["call"], 1);
    assert_eq!(first["tools"], json!(["lookup_invoice"]), "{first}");
    let reason = "invoices are looked up by billing only";
    watch
        .steer(json!({"op": "reject", "trace_id": decide, "id": approval["id"], "reason": reason}));
    // The reflection on the tool's result reads the rejection.
    let second = run.expect("model_call");
    assert!(
        second["input"].as_str().unwrap().contains(reason),
        "{second}"
    );
    let (question, _) = watch.waiting(&decide, "question");
    // The dialog names the agent asked and the question: the chat's last
    // message.
    assert_eq!(question["agent"], "customer", "{question}");
    assert_eq!(
        question["question"], "billing: I could not look it up.",
        "{question}"
    );
    watch.steer(
        json!({"op": "answer", "trace_id": decide, "id": question["id"], "text": "credit, please"}),
    );
    let third = run.expect("model_call");
    assert!(
        third["input"].as_str().unwrap().contains("credit, please"),
        "{third}"
    );
    let finished = run.expect("finished");
    assert!(
        finished["messages"]
            .as_array()
            .unwrap()
            .contains(&json!("credit, please")),
        "{finished}"
    );

    // The models run: a gate before each model call, none at messages.
    let (models, gate) = held_and_stepped(&watch, &run, ("model_call", "counter"), 1);
    assert_eq!(gate["name"], "checker");
    let called = run.expect("model_call");
    assert_eq!(
        (called["agent"].clone(), called["call"].clone()),
        (json!("counter"), json!(1))
    );
    watch.steer(json!({"op": "stop", "trace_id": models}));
    let stopped = run.expect("stopped");
    assert_eq!(stopped["reason"], "stopped by a person");
    assert!(run.end().success());

    let lines = watch.finished_runs(&[&steps, &decide, &models]);
    let line = |trace: &str| {
        lines
            .iter()
            .find(|l| l["trace_id"] == trace)
            .unwrap()
            .clone()
    };
    assert_eq!(line(&steps)["steering"]["stopped"], "stopped by a person");
    assert_eq!(line(&models)["steering"]["stopped"], "stopped by a person");
    let decided: Vec<Value> = line(&decide)["steering"]["decisions"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        decided
            .iter()
            .any(|d| d["decision"] == "rejected" && d["reason"] == reason)
    );
    assert!(
        decided
            .iter()
            .any(|d| d["decision"] == "answered" && d["answer"] == "credit, please")
    );
}

/// The next run `run` tells of, held at its first gate (`first`: its kind
/// and name) with nothing done, then stepped `gates` gates: its trace id
/// and the gate it is held at after them.
fn held_and_stepped(watch: &Watch, run: &Run, first: (&str, &str), gates: u64) -> (String, Value) {
    let trace = run.expect("run")["trace_id"].as_str().unwrap().to_string();
    let (gate, view) = watch.waiting(&trace, "gate");
    assert_eq!(
        (gate["kind"].clone(), gate["name"].clone()),
        (json!(first.0), json!(first.1))
    );
    assert_eq!(view["gates"], 1);
    assert!(run.told().is_empty(), "a paused team did something");
    watch.steer(json!({"op": "step", "trace_id": trace, "gates": gates}));
    let gate = watch.wait_for("the run held after its steps", |runs| {
        let held = runs.iter().find(|r| r["trace_id"] == trace)?;
        let waiting = held["waiting"].as_array()?.first()?;
        (held["gates"] == gates + 1).then(|| waiting.clone())
    });
    (trace, gate)
}

/// A team nobody steers, its handler given to the runtime by
/// `handlers()`: under the run's lease the runtime calls the handler for
/// none of its messages (what AutoGen charges every message for any
/// handler), yet they are counted as the run's gates, and a pause pressed
/// during a model call still holds the next message: no model call
/// starts. The same team run again at once with that handler counts its
/// own, and a breakpoint set while it sleeps holds its next request.
#[test]
fn a_handler_asleep_under_its_lease_costs_no_message_and_a_pause_still_holds_the_next() {
    let watch = Watch::start(&[]);
    let mut run = Run::start(Framework::AutoGen, "autogen_doze.py", &watch.url);
    let trace = run.expect("run")["trace_id"].as_str().unwrap().to_string();
    let mut calls = Vec::new();
    while calls.len() < 6 {
        calls.push(run.expect("model_call"));
    }
    // The first message asked and took the lease, the next passed under
    // it and put the handler to sleep: it was called for no other.
    let slow = &calls[5];
    assert_eq!(slow["asleep"], true, "{slow}");
    assert_eq!(slow["handler_called"], 2, "{slow}");
    watch.steer(json!({"op": "pause", "trace_id": trace}));
    run.send("the model answered");
    let woke = run.expect("woke");
    assert_eq!(woke["asleep"], false, "{woke}");
    // The very next message is held, and every message the runtime
    // carried while the handler slept counts as a gate passed.
    let (gate, view) = watch.waiting(&trace, "gate");
    assert_eq!(gate["kind"], "message", "{gate}");
    assert!(view["gates"].as_u64().unwrap() >= 20, "{view}");
    assert!(
        named(&run.told(), "model_call").is_empty(),
        "a model call started after the pause"
    );
    watch.steer(json!({"op": "run_on", "trace_id": trace}));
    let mut told = Vec::new();
    let finished = loop {
        let event = run.next();
        if event["event"] == "finished" {
            break event;
        }
        told.push(event);
    };
    assert_eq!(finished["messages"], 10, "{finished}");
    assert_eq!(named(&told, "model_call").len(), 3, "{told:?}");
    // The same team again at once, with the same handler, in a run of its
    // own: its messages are its gates, not the first run's.
    let again = run.expect("run")["trace_id"].as_str().unwrap().to_string();
    let mut calls = Vec::new();
    while calls.len() < 6 {
        calls.push(run.expect("model_call"));
    }
    assert_eq!(calls[5]["asleep"], true, "{}", calls[5]);
    // A breakpoint set while the handler sleeps wakes it too: the next
    // request to speak is held, and no model call starts.
    let at = "GroupChatRequestPublish";
    watch.steer(json!({"op": "set_break", "name": at, "on": true}));
    run.send("the model answered");
    let woke = run.expect("woke");
    assert_eq!(woke["asleep"], false, "{woke}");
    let (gate, _) = watch.waiting(&again, "gate");
    assert_eq!(gate["name"], at, "{gate}");
    assert!(
        named(&run.told(), "model_call").is_empty(),
        "a model call started past the breakpoint"
    );
    watch.steer(json!({"op": "set_break", "name": at, "on": false}));
    watch.steer(json!({"op": "run_on", "trace_id": again}));
    for _ in 0..3 {
        run.expect("model_call");
    }
    assert_eq!(run.expect("finished")["messages"], 10);
    assert!(run.end().success());
    let lines = watch.finished_runs(&[&trace, &again]);
    let gates: Vec<u64> = lines
        .iter()
        .map(|line| line["steering"]["gates"].as_u64().unwrap())
        .collect();
    // Each run's messages, whatever more the runtime carried for it (the
    // gates the first run passed after its poll ended are told at the
    // process's end, which may be after its line).
    assert!(gates.iter().all(|&g| g >= 20), "{gates:?}");
}

/// A watch killed while the handler sleeps under its lease never holds
/// the run: the lease's poll fails, the handler wakes, and the run (and
/// the next, whose gates find nobody) goes on as if nobody steered. The
/// spans go to a watch of their own, which stays.
#[test]
fn a_watch_killed_while_the_handler_sleeps_lets_the_run_go_on() {
    let mut watch = Watch::start(&[]);
    let spans = Watch::start(&[]);
    let env = [("CONCLAVE_SPANS_URL", spans.url.as_str())];
    let mut run = Run::start_with(Framework::AutoGen, "autogen_doze.py", &watch.url, &env);
    run.expect("run");
    let mut calls = Vec::new();
    while calls.len() < 6 {
        calls.push(run.expect("model_call"));
    }
    assert_eq!(calls[5]["asleep"], true, "{}", calls[5]);
    // SIGKILL: the watch answers nothing more, and its lease's poll fails.
    watch.child.kill().unwrap();
    watch.child.wait().unwrap();
    run.send("the model answered");
    let woke = run.expect("woke");
    assert_eq!(woke["asleep"], false, "{woke}");
    for _ in 0..3 {
        run.expect("model_call");
    }
    assert_eq!(run.expect("finished")["messages"], 10);
    // The next run's gates find no watch and go on.
    run.expect("run");
    for _ in 0..6 {
        run.expect("model_call");
    }
    run.send("the model answered");
    assert_eq!(run.expect("woke")["asleep"], false);
    for _ in 0..3 {
        run.expect("model_call");
    }
    assert_eq!(run.expect("finished")["messages"], 10);
    drop(run.child.stdin.take());
    let status = run.child.wait().unwrap();
    // Said once, on stderr.
    let said: Vec<String> = run.stderr.iter().collect();
    assert!(status.success(), "{said:?}");
    let down: Vec<&String> = said
        .iter()
        .filter(|l| l.contains("cannot reach the watch"))
        .collect();
    assert_eq!(down.len(), 1, "{said:?}");
    assert!(down[0].contains("the run goes on unsteered"), "{said:?}");
}
