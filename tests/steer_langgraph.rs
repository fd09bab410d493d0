//! Steering real LangGraph runs through the real `conclave watch`
//! (docs/steer.md): a graph steered by `steered` and `invoke`, each node
//! gated in its own function, and one gated node by node with
//! `gate_node`; the framework installed pinned by the tests
//! (`common::python`), offline on its own scripted nodes.

use crate::common::python::Framework;
use crate::common::steer::{Run, Watch, hold_all, named};
use crate::steer::{decisions, line_of, paused_stepped_stopped};
use serde_json::{Value, json};

#[test]
fn a_langgraph_run_gated_by_its_node_functions_is_held_and_stepped_node_by_node() {
    let watch = Watch::start(&["--runs", "2"]);
    watch.steer(hold_all());
    let run = Run::start(Framework::LangGraph, "langgraph_nodes_run.py", &watch.url);
    for (nodes, seen) in [
        (&["a", "b", "c"][..], json!(["a", "b", "c"])),
        // The subgraph's nodes are gated, the subgraph itself is not, and
        // a graph steered twice gates each node once.
        (&["x", "p", "q", "y"][..], json!(["x", "p", "q", "y"])),
    ] {
        let trace = run.expect("run")["trace_id"].as_str().unwrap().to_string();
        for (at, name) in nodes.iter().enumerate() {
            let (gate, view) = watch.waiting(&trace, "gate");
            assert_eq!(gate["name"], *name, "{gate}");
            assert_eq!(view["gates"], at + 1, "{view}");
            if at > 0 {
                assert_eq!(run.expect("node")["name"], nodes[at - 1]);
            }
            assert!(run.told().is_empty(), "a held node ran");
            watch.steer(json!({"op": "step", "trace_id": trace}));
        }
        assert_eq!(run.expect("node")["name"], *nodes.last().unwrap());
        assert_eq!(run.expect("finished")["seen"], seen);
    }
    assert!(run.end().success());
}

#[test]
fn a_langgraph_run_is_held_stepped_decided_and_stopped_through_the_watch() {
    let watch = Watch::start(&["--runs", "2"]);
    watch.steer(hold_all());
    let run = Run::start(Framework::LangGraph, "langgraph_run.py", &watch.url);

    let steps = paused_stepped_stopped(&watch, &run, &[], ("node", "a"), ("node", "d"));
    let ran: Vec<Value> = (0..3).map(|_| run.expect("node")["name"].clone()).collect();
    assert_eq!(ran, [json!("a"), json!("b"), json!("c")]);
    assert_eq!(run.expect("stopped")["reason"], "stopped by a person");

    let decide = run.expect("run")["trace_id"].as_str().unwrap().to_string();
    let (gate, _) = watch.waiting(&decide, "gate");
    assert_eq!(gate["name"], "model");
    watch.steer(json!({"op": "set_flag", "trace_id": decide, "name": "legal_review", "on": false}));
    watch.steer(json!({"op": "run_on", "trace_id": decide}));
    let (approval, _) = watch.waiting(&decide, "approval");
    assert_eq!(approval["tool"], "lookup_invoice");
    assert_eq!(approval["arguments"], json!({"invoice": 7}));
    assert_eq!(run.expect("model_call")["call"], 1);
    let reason = "invoices are looked up by billing only";
    watch
        .steer(json!({"op": "reject", "trace_id": decide, "id": approval["id"], "reason": reason}));
    let second = run.expect("model_call");
    assert!(
        second["input"].as_str().unwrap().contains(reason),
        "{second}"
    );
    interrupt_answered_credit(&watch, &run, &decide);
    assert!(named(&run.told(), "node").is_empty());
    assert!(run.end().success());

    let lines = [watch.finished(), watch.finished()];
    assert_eq!(
        line_of(&lines, &steps)["steering"]["stopped"],
        "stopped by a person"
    );
    let decided = decisions(line_of(&lines, &decide));
    assert!(
        decided
            .iter()
            .any(|d| d["decision"] == "rejected" && d["reason"] == reason)
    );
}

/// A LangGraph decide run's `interrupt()` ("Refund or credit?") answered
/// from the watch: an answer not among the options refused, "credit" read
/// by the graph, which finishes without the legal node (its flag off).
pub(crate) fn interrupt_answered_credit(watch: &Watch, run: &Run, decide: &str) {
    let (question, _) = watch.waiting(decide, "question");
    assert_eq!(question["question"], "Refund or credit?");
    assert_eq!(question["options"], json!(["refund", "credit"]));
    let (status, said) = watch.control(json!({"op": "answer", "trace_id": decide,
        "id": question["id"], "text": "cash"}));
    assert_eq!(status, 400, "{said}");
    watch
        .steer(json!({"op": "answer", "trace_id": decide, "id": question["id"], "text": "credit"}));
    assert_eq!(run.expect("answered")["text"], "credit");
    let finished = run.expect("finished");
    let messages = finished["output"].as_array().unwrap();
    assert!(
        messages.contains(&json!("The person chose credit.")),
        "{finished}"
    );
    // The flag turned off took the edge to the legal node away.
    assert!(
        !messages.contains(&json!("legal review done")),
        "{finished}"
    );
}

/// A program written for the callback handler earlier versions gated a
/// LangGraph run from is told what replaces it, not a bare ImportError.
#[test]
fn the_gone_langgraph_callback_names_what_replaces_it() {
    let root = crate::common::python::root();
    let out = std::process::Command::new(crate::common::python::python(Framework::LangGraph))
        .args(["-c", "from conclave_steer.langgraph import SteerCallback"])
        .env("PYTHONPATH", root.join("hooks/python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("the framework's python starts");
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("ImportError"), "{said}");
    assert!(
        said.contains("steered(graph, steer)")
            && said.contains("invoke(graph, state, config, steer)"),
        "{said}"
    );
}
