//! What `Enter` on a node shows: the node as planned, its state and
//! visits, each activation (input, output, answer or error, tokens, cost,
//! the state it wrote), its out-edges as last evaluated, a join's barrier
//! and a map's items. JSON text from the run is shown as JSON where it
//! reads as JSON; the details overlay cleans what it draws.

use super::live::{Activation, NodeLive};
use super::state::GraphFold;
use serde_json::{Value, json};

/// What a team node's details say of its pane, before its team has run
/// (once it has, `Enter` opens the pane instead of these details).
const TEAM_PANE: &str = "Enter opens the team's own pane once the node has run";

pub(crate) fn node(fold: &GraphFold, n: usize) -> Option<Value> {
    let graph = fold.graph.as_ref()?;
    let node = graph.plan.nodes.get(n)?;
    let live: &NodeLive = fold.nodes.get(n)?;
    let edges: Vec<Value> = graph.plan.out[n]
        .iter()
        .map(|e| {
            let edge = &graph.plan.edges[*e];
            let eval = fold.edges[*e].as_ref();
            json!({
                "to": graph.plan.nodes[edge.to].id, "when": edge.when,
                "default": edge.default, "back": edge.back,
                "evaluated": eval.is_some(),
                "checks": eval.map(|v| v.checks.iter()
                    .map(|(said, held)| json!({"said": said, "held": held}))
                    .collect::<Vec<_>>()),
                "taken": eval.map(|v| v.taken),
                "visits": eval.and_then(|v| v.visits),
                "max_visits": eval.and_then(|v| v.max_visits),
            })
        })
        .collect();
    let mut details = json!({
        "node": node.id, "kind": node.kind, "label": node.label,
        "state": live.state.word(), "visits": live.visits, "max_visits": node.max_visits,
        "activations": live.activations.iter().map(activation).collect::<Vec<_>>(),
        "out_edges": edges,
    });
    if let Some(join) = &live.join {
        details["join"] = json!({
            "wait": node.wait, "rule": join.rule, "arrived": join.arrived,
            "waiting_on": join.waiting_on, "fired": join.fired,
        });
    }
    if let Some(map) = live.map {
        details["map"] = json!({
            "done": map.done, "failed": map.failed, "running": map.running, "of": map.of,
        });
    }
    if node.kind == "team" {
        let runs = fold.teams.get(&n).map_or(0, |chain| chain.members.len());
        details["team"] = json!({ "name": node.label, "runs": runs, "pane": TEAM_PANE });
    }
    Some(details)
}

fn activation(a: &Activation) -> Value {
    let read = |text: &str| serde_json::from_str(text).unwrap_or_else(|_| Value::from(text));
    let mut value = json!({
        "visit": a.visit, "step": a.step, "started_ms": a.started_ms, "input": read(&a.input),
    });
    if let Some(shown) = &a.read {
        value["read"] = read(shown);
    }
    if let Some(done) = &a.finished {
        value["finished_ms"] = json!(done.ms);
        value["status"] = json!(done.status);
        value["output"] = read(&done.output);
        value["answer"] = json!(done.answer);
        value["error"] = json!(done.error);
        value["tokens"] = json!(done.tokens);
        value["cost_usd"] = json!(done.cost_usd);
    } else {
        value["status"] = json!("running");
    }
    if !a.writes.is_empty() {
        value["wrote"] = a
            .writes
            .iter()
            .map(|(key, text)| (key.clone(), read(text)))
            .collect::<serde_json::Map<_, _>>()
            .into();
    }
    value
}
