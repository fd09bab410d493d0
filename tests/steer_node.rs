//! Steering real Node frameworks' runs through the real `conclave watch`
//! (docs/steer.md, "Node"): the Vercel AI SDK, the OpenAI Agents SDK for
//! JavaScript and LangGraph.js, installed pinned by the tests
//! (`common::node`), each run offline on its own mock or scripted model
//! with the repository's hook package (hooks/node), one Node process per
//! framework. Its first run is paused at its first gate, stepped three
//! gates and stopped (the framework's call ends with the hook's stop); in
//! its second a person turns a flag off (the next step goes without the
//! tool, or the edge) and rejects a tool call (the model's next request
//! reads the reason).

use crate::common::node;
use crate::common::steer::{PATIENCE, Run, Watch, hold_all};
use crate::steer::{decisions, line_of, paused_stepped_stopped, rejected_and_read};
use crate::steer_langgraph::interrupt_answered_credit;
use serde_json::{Value, json};

/// The reason a person rejects the billing agent's tool call with.
const REASON: &str = "over the refund limit; ask the customer first";

/// The steps run's three gates passed (a model call, the tool's first
/// call, a model call) and its stop, thrown out of the framework's call.
fn stepped_then_stopped(run: &Run) {
    assert_eq!(run.expect("model_call")["call"], 1);
    assert_eq!(run.expect("tool")["n"], 1);
    assert_eq!(run.expect("model_call")["call"], 2);
    let stopped = run.expect("stopped");
    assert_eq!(stopped["reason"], "stopped by a person", "{stopped}");
}

/// The decide run held at its first gate with its flag listed, let run on
/// to its approval of lookup_invoice (7): the approval.
fn run_on_to_the_approval(watch: &Watch, decide: &str, flag: &str) -> Value {
    let (_, view) = watch.waiting(decide, "gate");
    assert_eq!(view["flags"][0]["name"], flag, "{view}");
    assert_eq!(view["flags"][0]["on"], true, "{view}");
    watch.steer(json!({"op": "run_on", "trace_id": decide}));
    let (approval, _) = watch.waiting(decide, "approval");
    assert_eq!(approval["tool"], "lookup_invoice");
    assert_eq!(approval["arguments"], json!({"invoice": 7}));
    approval
}

/// The flag legal_analyst turned off and the call rejected: the model's
/// next request reads the reason and is offered no legal_check; the run
/// finishes with the model's answer.
fn flag_off_and_rejected(watch: &Watch, run: &Run, decide: &str, approval: &Value) {
    let first = run.expect("model_call");
    let offered = first["tools"].as_array().unwrap();
    assert!(offered.contains(&json!("legal_check")), "{first}");
    watch
        .steer(json!({"op": "set_flag", "trace_id": decide, "name": "legal_analyst", "on": false}));
    let second = rejected_and_read(watch, run, decide, approval, REASON);
    let offered = second["tools"].as_array().unwrap();
    assert!(!offered.contains(&json!("legal_check")), "{second}");
    assert!(offered.contains(&json!("lookup_invoice")), "{second}");
    assert_eq!(run.expect("finished")["output"], "settled");
}

/// The watch's lines of both runs: the steps run stopped, the decide run's
/// rejection and flag among its decisions.
fn both_lines_say_so(watch: &Watch, steps: &str, decide: &str, flag: &str) {
    let lines = [watch.finished(), watch.finished()];
    assert_eq!(
        line_of(&lines, steps)["steering"]["stopped"],
        "stopped by a person"
    );
    let decided = decisions(line_of(&lines, decide));
    let rejected = |d: &&Value| d["decision"] == "rejected" && d["by"] == "person";
    assert!(
        decided
            .iter()
            .any(|d| rejected(&d) && d["reason"] == REASON),
        "{decided:?}"
    );
    assert!(
        decided
            .iter()
            .any(|d| d["decision"] == "flag_set" && d["name"] == flag && d["on"] == false),
        "{decided:?}"
    );
}

/// An agent's two runs (`script`): the steps run paused, stepped and
/// stopped at its model calls and tool calls; the decide run's flag turned
/// off and its approval rejected.
fn an_agent_run_steered(script: &str) {
    let watch = Watch::start(&["--runs", "2"]);
    watch.steer(hold_all());
    let run = node::start(script, &watch.url);
    let first = ("model_call", "Counter");
    let steps = paused_stepped_stopped(&watch, &run, &[], first, ("tool_call", "count"));
    stepped_then_stopped(&run);

    let decide = run.expect("run")["trace_id"].as_str().unwrap().to_string();
    let approval = run_on_to_the_approval(&watch, &decide, "legal_analyst");
    assert_eq!(approval["agent"], "Billing Agent");
    flag_off_and_rejected(&watch, &run, &decide, &approval);
    assert!(run.end().success());
    both_lines_say_so(&watch, &steps, &decide, "legal_analyst");
}

#[test]
fn an_ai_sdk_run_is_held_stepped_decided_and_stopped_through_the_watch() {
    an_agent_run_steered("ai_sdk_run.mjs");
}

/// Its approvals are the SDK's own needsApproval, answered on the run's state.
#[test]
fn an_openai_agents_js_run_is_held_stepped_decided_and_stopped_through_the_watch() {
    an_agent_run_steered("openai_agents_run.mjs");
}

#[test]
fn a_langgraph_js_run_is_held_stepped_decided_and_stopped_through_the_watch() {
    let watch = Watch::start(&["--runs", "2"]);
    watch.steer(hold_all());
    let run = node::start("langgraph_run.mjs", &watch.url);
    let steps = paused_stepped_stopped(&watch, &run, &[], ("node", "a"), ("node", "d"));
    let ran: Vec<Value> = (0..3).map(|_| run.expect("node")["name"].clone()).collect();
    assert_eq!(ran, [json!("a"), json!("b"), json!("c")]);
    assert_eq!(run.expect("stopped")["reason"], "stopped by a person");

    let decide = run.expect("run")["trace_id"].as_str().unwrap().to_string();
    let (gate, _) = watch.waiting(&decide, "gate");
    assert_eq!(gate["name"], "model");
    let approval = run_on_to_the_approval(&watch, &decide, "legal_review");
    watch.steer(json!({"op": "set_flag", "trace_id": decide, "name": "legal_review", "on": false}));
    assert_eq!(run.expect("model_call")["call"], 1);
    rejected_and_read(&watch, &run, &decide, &approval, REASON);
    // interrupt(), answered from the watch, resumes the graph.
    interrupt_answered_credit(&watch, &run, &decide);
    assert!(run.end().success());
    both_lines_say_so(&watch, &steps, &decide, "legal_review");
}

/// What the hook's client alone (hook_run.mjs) came to.
struct Came {
    trace: Value,
    approval: Value,
    asked: Value,
    flag: Value,
    /// The hook's lines on stderr.
    said: Vec<String>,
}

fn client_run(mut run: Run) -> Came {
    let trace = run.expect("run")["trace_id"].clone();
    run.expect("gated");
    let approval = run.expect("approval");
    let asked = run.expect("asked")["answer"].clone();
    let flag = run.expect("flag")["on"].clone();
    drop(run.child.stdin.take());
    let status = run.child.wait().expect("the run ends");
    // Its stderr whole: the stream closes with the process.
    let mut said = Vec::new();
    while let Ok(line) = run.stderr.recv_timeout(PATIENCE) {
        said.push(line);
    }
    assert!(status.success(), "{status} {said:?}");
    said.retain(|l| l.starts_with("conclave-steer:"));
    Came {
        trace,
        approval,
        asked,
        flag,
        said,
    }
}

#[test]
fn the_node_hook_names_its_run_by_conclave_run_id_before_anything_else() {
    let watch = Watch::start(&["--reject", "wire_money", "--flag", "legal_analyst=off"]);
    let given = "0123456789ABCDEF0123456789abcdef";
    let env = [("CONCLAVE_RUN_ID", given)];
    let run = node::start_with("hook_run.mjs", &[], &watch.url, &env);
    let trace = given.to_lowercase();
    let Came {
        trace: named,
        approval,
        asked,
        flag,
        said,
    } = client_run(run);
    assert_eq!(named, trace.as_str());
    assert_eq!(approval["approved"], false, "{approval}");
    assert!(
        approval["reason"]
            .as_str()
            .unwrap()
            .contains("--reject wire_money"),
        "{approval}"
    );
    assert_eq!(asked, Value::Null);
    assert_eq!(flag, false, "the watch's --flag rule");
    assert!(said.is_empty(), "{said:?}");
    let view = watch.wait_for("the run listed by its id", |runs| {
        runs.iter()
            .find(|r| r["trace_id"] == trace.as_str())
            .cloned()
    });
    assert_eq!(view["gates"], 1, "{view}");
    assert_eq!(view["flags"][0]["default"], true, "{view}");
}

#[test]
fn a_node_hook_without_its_watch_goes_on_and_a_strict_one_rejects() {
    // A port nobody listens on any more.
    let gone = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", gone.local_addr().unwrap());
    drop(gone);
    let Came {
        approval,
        asked,
        flag,
        said,
        ..
    } = client_run(node::start("hook_run.mjs", &url));
    assert_eq!(approval["approved"], true, "{approval}");
    assert_eq!(asked, Value::Null);
    assert_eq!(flag, true, "the hook's default");
    assert_eq!(said.len(), 1, "said once: {said:?}");
    assert!(said[0].contains("cannot reach the watch"), "{said:?}");

    let strict = node::start_with("hook_run.mjs", &["strict"], &url, &[]);
    let Came { approval, said, .. } = client_run(strict);
    assert_eq!(approval["approved"], false, "{approval}");
    assert!(
        approval["reason"].as_str().unwrap().contains("strict"),
        "{approval}"
    );
    assert!(said[0].contains("approvals rejected: strict"), "{said:?}");
}

#[test]
fn a_node_hook_presents_its_token_and_a_refused_one_goes_on_unsteered() {
    let env = [("CONCLAVE_TEST_STEER_TOKEN", "s3cret-steer")];
    let args = [
        "--token-env",
        "CONCLAVE_TEST_STEER_TOKEN",
        "--reject",
        "wire_money",
    ];
    let watch = Watch::start_on("127.0.0.1:0", &args, &env);
    let token = [("CONCLAVE_STEER_TOKEN", "s3cret-steer")];
    let run = node::start_with("hook_run.mjs", &[], &watch.url, &token);
    let Came { approval, said, .. } = client_run(run);
    assert_eq!(approval["approved"], false, "the watch's rule: {approval}");
    assert!(said.is_empty(), "{said:?}");

    let wrong = [("CONCLAVE_STEER_TOKEN", "wrong")];
    let run = node::start_with("hook_run.mjs", &[], &watch.url, &wrong);
    let Came {
        approval,
        asked,
        flag,
        said,
        ..
    } = client_run(run);
    assert_eq!(approval["approved"], true, "unsteered: {approval}");
    assert_eq!((asked, flag), (Value::Null, json!(true)));
    assert_eq!(said.len(), 1, "said once: {said:?}");
    assert!(said[0].contains("refused (401)"), "{said:?}");
}
