//! A captured LangGraph run, told as events by the watch and folded by
//! the unit a watched run is seated with: its chain, its spans and its
//! spend are the summary's, its pane draws the chain and the span tree as
//! one list, the keys move through it and `Enter` shows a span whole.

use super::WatchedUnit;
use super::held::WatchedView;
use super::state::WatchedRun;
use crate::bus::{Event, EventKind};
use crate::tui::keymap::Action;
use crate::tui::patterns::fold::PatternFold;
use crate::tui::patterns::unit::{Seen, Unit};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::Value;

fn folded(events: &[Event]) -> PatternFold {
    let EventKind::RunStarted(started) = &events[0].kind else {
        panic!("a run starts with its start");
    };
    let unit = crate::tui::patterns::unit_for(started.pattern, started.source.as_deref());
    let mut fold = unit.seat(started);
    for event in &events[1..] {
        fold.apply(&event.kind, event.t_ms);
    }
    fold
}

fn screen(run: &WatchedRun, list: &WatchedView, size: (u16, u16)) -> String {
    let mut terminal = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
    terminal
        .draw(|frame| {
            let seen = Seen {
                now_ms: 0,
                live: false,
                outcome: None,
                focused: true,
                calling: &[],
                spent: &Default::default(),
            };
            WatchedUnit.draw(frame, frame.area(), run, list, seen);
        })
        .unwrap();
    let buffer = terminal.backend().buffer();
    (0..buffer.area.height)
        .map(|y| {
            (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_watched_run_folds_the_summarys_chain_and_spend_and_draws_its_span_tree() {
    let (events, facts) = crate::watch::translate::tests::told("langgraph_openinference").remove(0);
    let fold = folded(&events);
    let run: &WatchedRun = fold.get().expect("a watched run's own fold");
    assert_eq!(Value::from(run.spend.model_calls), facts["model_calls"]);
    assert_eq!(Value::from(run.spend.input), facts["input_tokens"]);
    assert_eq!(Value::from(run.spend.output), facts["output_tokens"]);
    assert_eq!(run.chain.llm_calls, run.spend.model_calls);
    let handoffs: Vec<String> = run
        .chain
        .handoffs
        .iter()
        .map(|h| format!("{} → {}", h.from, h.to))
        .collect();
    assert_eq!(Value::from(handoffs), facts["handoffs"]);
    let spans = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::SpanArrived { .. }))
        .count();
    assert_eq!(run.forest.len(), spans);
    assert_eq!(
        run.chain.links[0].agent, "supervisor",
        "the chain starts with its first agent"
    );

    // Tall enough for every row, from the top.
    for size in [(160, 200), (80, 200)] {
        let shown = screen(run, &WatchedView::at(0), size);
        assert!(
            shown.contains(&format!("Span tree · {spans} spans")),
            "{shown}"
        );
        assert!(shown.contains("◆ LangGraph"), "{shown}");
        assert!(shown.contains("supervisor"), "{shown}");
        assert!(shown.contains("Watched agents: "), "{shown}");
    }

    // One list: the agents, handoffs and tool calls, then the tree. The
    // list follows its last row; from the top the keys walk down into
    // the tree, and Enter shows the selected span whole.
    let mut list = WatchedView::default();
    let last = WatchedUnit.details(run, &list).unwrap();
    WatchedUnit.navigate(&mut list, Action::Top, run, 10);
    let agent = WatchedUnit.details(run, &list).unwrap();
    assert_eq!(
        agent["agent"],
        run.agents()[0],
        "the agent that started first"
    );
    let mut root = None;
    for _ in 0..200 {
        WatchedUnit.navigate(&mut list, Action::Down, run, 10);
        let item = WatchedUnit.details(run, &list).unwrap();
        if item["name"] == "LangGraph" {
            root = Some(item);
            break;
        }
    }
    let root = root.expect("the tree's root below the chain");
    WatchedUnit.navigate(&mut list, Action::Down, run, 10);
    let second = WatchedUnit.details(run, &list).unwrap();
    assert_eq!(second["parent"], root["span_id"]);
    assert!(second["ms"].is_u64());
    WatchedUnit.navigate(&mut list, Action::Bottom, run, 10);
    assert_eq!(WatchedUnit.details(run, &list).unwrap(), last);
    assert_ne!(last["span_id"], second["span_id"]);
}

#[test]
fn a_watched_runs_agents_are_named_in_the_order_they_started() {
    use crate::watch::translate::tests::{sets, told};
    let mut by_start = 0;
    for set in sets() {
        for (events, _) in told(&set) {
            let fold = folded(&events);
            let run: &WatchedRun = fold.get().expect("a watched run's own fold");
            let EventKind::RunFinished { result, .. } = &events.last().unwrap().kind else {
                panic!("{set}: the run ends with its finish");
            };
            let summary: Vec<String> =
                serde_json::from_value(result.value()["agents"].clone()).unwrap();
            let agents = run.agents();
            // Where every agent has its span, they are the summary's, in
            // the summary's order (by start).
            if !agents.is_empty() && agents.iter().all(|a| run.agent_starts.contains_key(*a)) {
                assert_eq!(agents, summary, "{set}");
                by_start += 1;
            }
            if set == "pydantic_ai" {
                // The coordinator's span arrives after its delegate's
                // turns; it started first and is named first.
                assert_eq!(agents, ["coordinator", "researcher"]);
                let text = screen(run, &WatchedView::default(), (160, 30));
                assert!(
                    text.contains(
                        "Watched agents: coordinator, researcher · 1 handoff · 4 model calls"
                    ),
                    "{text}"
                );
            }
        }
    }
    assert!(by_start >= 3, "{by_start} runs with agent spans");
}

#[test]
fn a_span_this_version_cannot_read_is_counted_unread_and_written_back_as_it_was() {
    let (events, _) = crate::watch::translate::tests::told("langgraph_openinference").remove(0);
    let arrived = events
        .iter()
        .find(|e| matches!(e.kind, EventKind::SpanArrived { .. }))
        .unwrap();
    // A later version's span: fields this one does not know, ids it
    // cannot read.
    let mut line = serde_json::to_value(arrived).unwrap();
    let later = serde_json::json!({"trace": "not hex", "span": 7, "parts": [1, 2]});
    line["span"] = later.clone();
    let read: Event = serde_json::from_value(line.clone()).expect("the event still reads");
    assert_eq!(
        serde_json::to_value(&read).unwrap(),
        line,
        "written back whole"
    );
    let EventKind::SpanArrived { span, .. } = &read.kind else {
        panic!("a span's arrival");
    };
    assert!(span.span().is_none());

    // A span read back from its recording is the span the watch told.
    let back: Event = serde_json::from_str(&serde_json::to_string(arrived).unwrap()).unwrap();
    assert_eq!(&back, arrived);

    let mut fold = folded(&events[..1]);
    fold.apply(&read.kind, read.t_ms);
    fold.apply(&arrived.kind, arrived.t_ms);
    let run: &WatchedRun = fold.get().unwrap();
    assert_eq!((run.unread, run.forest.len()), (1, 1));
}

#[test]
fn the_panes_forest_holds_the_span_the_watch_told_not_a_copy() {
    let (events, _) = crate::watch::translate::tests::told("langgraph_openinference").remove(0);
    let fold = folded(&events);
    let run: &WatchedRun = fold.get().unwrap();
    for event in &events {
        if let EventKind::SpanArrived { span, .. } = &event.kind {
            let told = span.span().expect("a span the watch read");
            let kept = run.forest.get(told.span_id).and_then(|n| n.span.as_ref());
            assert!(kept.is_some_and(|kept| std::sync::Arc::ptr_eq(kept, told)));
        }
    }
}

/// Fold `events` in two parts; between them, pick the row `pick` lands
/// on. The picked item, by its details, before and after the second
/// part, and what its row number before points at after.
fn picked_across(events: &[Event], cut: usize, pick: Action) -> (Value, Value, Value) {
    let mut fold = folded(&events[..cut]);
    let run: &WatchedRun = fold.get().unwrap();
    let mut view = WatchedView::default();
    WatchedUnit.navigate(&mut view, Action::Top, run, 10);
    WatchedUnit.navigate(&mut view, pick, run, 10);
    let before = WatchedUnit.details(run, &view).unwrap();
    let rows = super::pane::Rows::of(run);
    let row = (0..rows.len())
        .find(|i| WatchedUnit.details(run, &WatchedView::at(*i)).as_ref() == Some(&before))
        .unwrap();
    for event in &events[cut..] {
        fold.apply(&event.kind, event.t_ms);
    }
    let run: &WatchedRun = fold.get().unwrap();
    let after = WatchedUnit.details(run, &view).unwrap();
    let stale = WatchedUnit.details(run, &WatchedView::at(row)).unwrap();
    (before, after, stale)
}

#[test]
fn a_picked_row_stays_on_its_item_while_rows_come_in_above_it() {
    use crate::watch::translate::tests::told;
    // A span near the tree's bottom; the spans that come later take
    // rows above it.
    let (events, _) = told("langgraph_openinference").remove(0);
    let (before, after, stale) = picked_across(&events, events.len() / 2, Action::Bottom);
    assert_eq!(after["span_id"], before["span_id"], "{after}");
    assert_ne!(stale["span_id"], before["span_id"], "rows came in above it");

    // The delegate's agent, first until the coordinator's span (which
    // started first, and ends last) arrives and takes the first row.
    let (events, _) = told("pydantic_ai").remove(0);
    let cut = events
        .iter()
        .position(|e| matches!(&e.kind, EventKind::SpanArrived { agent: Some(a), .. } if a == "coordinator"))
        .unwrap();
    let (before, after, stale) = picked_across(&events, cut, Action::Top);
    assert_eq!(before["agent"], "researcher");
    assert_eq!(after["agent"], "researcher", "{after}");
    assert_eq!(stale["agent"], "coordinator");
}

/// LangGraph.js's supervisor hands off by raising `ParentCommand`: on the
/// screen the run has no failed span, its graph no `__start__` node, its
/// Result pane the answer the run returned and every span understood.
#[test]
fn a_langgraph_js_run_shows_no_failure_no_start_node_and_its_answer() {
    let set = "langgraph_js_supervisor_openinference";
    let (events, _) = crate::watch::translate::tests::told(set).remove(0);
    let fold = folded(&events);
    let run: &WatchedRun = fold.get().expect("a watched run's own fold");
    assert_eq!((run.failed, run.not_understood), (0, 0));
    let plan = format!(
        "{:?}",
        run.graph().expect("a graph").graph.as_ref().unwrap().plan
    );
    assert!(
        plan.contains("billing") && !plan.contains("__start__"),
        "{plan}"
    );
    let expected = crate::watch::fixture_tests::read_json(
        &crate::watch::fixture_tests::set_dir(set).join("expected.json"),
    );
    let answer = run.answer.as_ref().map(|(_, text)| text.as_str());
    assert_eq!(Value::from(answer), expected["final_answer"]);
}
