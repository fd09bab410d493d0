//! A watched run's graph in the graph pane: the LangGraph fixture's spans
//! (captured from the real packages, `tests/fixtures/watch/`) drawn as
//! their graph, nodes and visits; a run whose spans name no graph has no
//! graph pane.

use super::graph::graph_of;
use super::screen;
use super::state::Watched;
use super::ui::WatchUi;
use crate::watch::consume::WatchFeed;
use crate::watch::forest::Forest;
use crate::watch::runs::{Arrival, Limits};
use crate::watch::span::{Span, spans_of};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::Path;

/// Every span of a captured set, in arrival order.
fn captured(set: &str) -> Vec<Span> {
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

fn watched_of(spans: Vec<Span>) -> Watched {
    let mut watched = Watched::new(Limits::default(), None);
    let trace = spans[0].trace_id;
    watched.take(WatchFeed::Opened(trace));
    let arrivals = spans
        .into_iter()
        .enumerate()
        .map(|(i, span)| Arrival {
            at_ms: i as u64,
            kind: crate::watch::read::read(&span).kind(),
            under_placeholder: false,
            span,
        })
        .collect();
    watched.take(WatchFeed::Arrived {
        run: trace,
        spans: arrivals,
    });
    watched
}

fn drawn(watched: &mut Watched, size: (u16, u16)) -> String {
    watched.read_selected(tokio::time::Instant::now());
    let mut terminal = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
    terminal
        .draw(|f| screen::draw(f, watched, &WatchUi::default()))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            out.push_str(buffer[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

#[test]
fn a_langgraph_runs_nodes_are_its_graph_with_each_visit() {
    let spans = captured("langgraph_openinference");
    let mut forest = Forest::new(1000);
    for span in spans.clone() {
        forest.insert(span);
    }
    let fold = graph_of(&forest).expect("LangGraph's spans name their nodes");
    let graph = fold.graph.as_ref().unwrap();
    let nodes: Vec<&str> = graph.plan.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(nodes, ["supervisor", "research_agent", "writer_agent"]);
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
    let mut watched = watched_of(spans);
    let live = drawn(&mut watched, (160, 60));
    assert!(live.contains("Graph · 3 nodes · step 5/5"), "{live}");
    assert!(live.contains("supervisor (following)"), "{live}");
    insta::assert_snapshot!("watched_langgraph_graph", live);
    // Once the run settled the pane follows no node any more.
    let summary =
        crate::watch::summary::summarise(watched.runs[0].trace_id, &watched.runs[0].forest, None);
    watched.take(WatchFeed::Finished(Box::new(summary)));
    let finished = drawn(&mut watched, (160, 60));
    assert!(
        finished.contains("step 5/5 · boxes · supervisor─"),
        "{finished}"
    );
}

#[test]
fn a_run_whose_spans_name_no_graph_has_no_graph_pane() {
    let spans = captured("autogen");
    let mut forest = Forest::new(1000);
    for span in spans.clone() {
        forest.insert(span);
    }
    assert!(graph_of(&forest).is_none());
    assert!(!drawn(&mut watched_of(spans), (160, 60)).contains("Graph ·"));
}
