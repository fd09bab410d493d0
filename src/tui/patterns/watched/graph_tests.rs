//! A watched run's graph: the LangGraph fixture's spans (captured from
//! the real packages, `tests/fixtures/watch/`) read as their graph, nodes
//! and visits; a node in which no model was called is a tool node; the
//! graph drawn at the top of the watched pane in the whole dashboard at
//! 160×48 and 80×24, the list below it still scrolling to its last row;
//! the graph made again only after a span that may name a node, and
//! never for a run whose spans name none.

use super::graph::graph_of;
use super::pane_tests::{span, told_of};
use super::state::WatchedRun;
use crate::bus::Event;
use crate::span::{Span, spans_of};
use crate::tui::patterns::folding::Fold;
use crate::watch::forest::Forest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use std::path::Path;
use std::sync::Arc;

/// Every span of a captured set, in arrival order.
pub(super) fn captured(set: &str) -> Vec<Span> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/watch")
        .join(set);
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    let mut spans = Vec::new();
    for request in index["requests"].as_array().unwrap() {
        assert!(
            request["content_encoding"].is_null(),
            "{set} is not gzipped"
        );
        let body = std::fs::read(dir.join(request["file"].as_str().unwrap())).unwrap();
        let decoded: ExportTraceServiceRequest = prost::Message::decode(&body[..]).unwrap();
        spans.extend(spans_of(&decoded));
    }
    spans
}

pub(super) fn forest_of(spans: &[Span]) -> Forest {
    let mut forest = Forest::new(1000);
    for span in spans {
        forest.insert(span.clone());
    }
    forest
}

/// The graph's nodes, each with its kind.
fn kinds(forest: &Forest) -> Vec<(String, String)> {
    let fold = graph_of(forest).expect("the spans name their nodes");
    let graph = fold.graph.as_ref().unwrap();
    graph
        .plan
        .nodes
        .iter()
        .map(|n| (n.id.clone(), n.kind.clone()))
        .collect()
}

/// LangGraph's spans of one node activation: the node's own span, named
/// as the node, and `inner` spans under it (name, OpenInference kind).
fn activation(id: u64, node: &str, ns: &str, ms: (u64, u64), inner: &[(&str, &str)]) -> Vec<Span> {
    let metadata = format!(
        r#"{{"langgraph_node": "{node}", "langgraph_step": 1, "langgraph_checkpoint_ns": "{ns}"}}"#
    );
    let mut spans: Vec<Span> = inner
        .iter()
        .enumerate()
        .map(|(i, (name, kind))| {
            let mut attrs = vec![
                ("openinference.span.kind", *kind),
                ("metadata", metadata.as_str()),
            ];
            if *kind == "LLM" {
                attrs.extend([
                    ("llm.token_count.prompt", "100"),
                    ("llm.token_count.completion", "10"),
                ]);
            }
            span(
                id + 1 + i as u64,
                Some(id),
                name,
                (ms.0 + 1, ms.1 - 1),
                &attrs,
            )
        })
        .collect();
    spans.push(span(
        id,
        Some(1),
        node,
        ms,
        &[
            ("openinference.span.kind", "CHAIN"),
            ("metadata", metadata.as_str()),
        ],
    ));
    spans
}

/// A ReAct graph's run (LangGraph's `create_react_agent`): `agent` calls
/// the model, `tools` runs a search and a handoff tool that OpenInference
/// marks AGENT by its name, `agent` answers.
pub(super) fn react_spans() -> Vec<Span> {
    let mut spans = activation(10, "agent", "agent:a1", (0, 400), &[("ChatModel", "LLM")]);
    spans.extend(activation(
        20,
        "tools",
        "tools:t1",
        (400, 800),
        &[
            ("web_search", "TOOL"),
            ("transfer_to_writer_agent", "AGENT"),
        ],
    ));
    spans.extend(activation(
        30,
        "agent",
        "agent:a2",
        (800, 1200),
        &[("ChatModel", "LLM")],
    ));
    spans.push(span(1, None, "LangGraph", (0, 1200), &[]));
    spans
}

#[test]
fn a_langgraph_runs_nodes_are_its_graph_with_each_visit() {
    let forest = forest_of(&captured("langgraph_openinference"));
    let fold = graph_of(&forest).expect("LangGraph's spans name their nodes");
    let graph = fold.graph.as_ref().unwrap();
    let path: Vec<&str> = fold
        .path
        .iter()
        .map(|n| graph.plan.nodes[*n].id.as_str())
        .collect();
    assert_eq!(
        path,
        [
            "supervisor",
            "research_agent",
            "supervisor",
            "writer_agent",
            "supervisor"
        ]
    );
    assert_eq!(fold.steps, 5);
    assert_eq!(fold.nodes[0].visits, 3);
    // Each called a model: each an agent, its box's rule the kind alone.
    let agent = |n: &str| (n.to_string(), "agent".to_string());
    assert_eq!(
        kinds(&forest),
        [
            agent("supervisor"),
            agent("research_agent"),
            agent("writer_agent")
        ]
    );
    assert!(graph.plan.nodes.iter().all(|n| n.label.is_empty()));
}

#[test]
fn a_node_in_which_no_model_was_called_is_a_tool_node() {
    let forest = forest_of(&react_spans());
    let node = |n: &str, kind: &str| (n.to_string(), kind.to_string());
    // Its handoff tool's span reads AGENT; the node called no model.
    assert_eq!(
        kinds(&forest),
        [node("agent", "agent"), node("tools", "tool")]
    );
    let fold = graph_of(&forest).unwrap();
    assert_eq!(fold.steps, 3);
}

#[test]
fn a_run_whose_spans_name_no_graph_has_none_and_never_makes_one() {
    let spans = captured("autogen");
    assert!(graph_of(&forest_of(&spans)).is_none());
    let run = folded(&told_of(spans));
    assert_eq!(run.graph_made(), None, "no span may name a node");
    assert!(run.graph().is_none());
}

fn folded(events: &[Arc<Event>]) -> WatchedRun {
    let mut run = WatchedRun::default();
    for event in events {
        run.apply(&event.kind, event.t_ms);
    }
    run
}

#[test]
fn the_graph_kept_as_spans_arrive_is_the_graph_made_from_the_whole_forest() {
    for set in [
        "langgraph_openinference",
        "langgraph_supervisor_openinference",
        "openai_agents_openinference",
        "crewai_event_listener",
    ] {
        let run = folded(&told_of(captured(set)));
        let whole = graph_of(&run.forest);
        assert!(whole.is_some(), "{set} names its nodes");
        assert_eq!(run.graph(), whole.as_ref(), "{set}");
    }
}

/// `spans`' `span_arrived` events, as the watch tells them.
fn arrived(spans: Vec<Span>) -> Vec<Arc<Event>> {
    told_of(spans)
        .into_iter()
        .filter(|e| matches!(e.kind, crate::bus::EventKind::SpanArrived { .. }))
        .collect()
}

#[test]
fn the_graph_is_made_again_only_after_a_span_that_may_name_a_node() {
    let mut spans = react_spans();
    let root = spans.pop().unwrap();
    let mut run = folded(&told_of(spans));
    assert_eq!(run.graph_made(), Some(false));
    assert_eq!(run.graph().map(|g| g.steps), Some(3));
    assert_eq!(run.graph_made(), Some(true));
    // A span that names no node (the root) keeps the graph made.
    for event in arrived(vec![root]) {
        run.apply(&event.kind, event.t_ms);
    }
    assert_eq!(run.graph_made(), Some(true));
    // One that does is read into it when next wanted.
    for event in arrived(activation(40, "tools", "tools:t2", (1200, 1300), &[])) {
        run.apply(&event.kind, event.t_ms);
    }
    assert_eq!(run.graph_made(), Some(false));
    assert_eq!(run.graph().map(|g| g.steps), Some(4));
}
