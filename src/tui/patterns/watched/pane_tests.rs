//! A watched run of ten agents, nine handoffs and 95 tool calls in the
//! main dashboard at 160×48 and at 80×24: every pane scrolls to its last
//! row. The pattern pane's one list (the agents, the handoffs and tool
//! calls, the span tree) shows every agent, handoff and tool call on the
//! way down by pages, and `PgDn`, `End` and `G` each put its last row at
//! the pane's bottom with the row before it above; the event log and the
//! result pane reach the same last page by pages as by `G`.

use crate::bus::Event;
use crate::span::{Span, Value};
use crate::tui::app::App;
use crate::tui::app::tests::{app_with, press, screen_of};
use crate::watch::runs::{Limits, Runs};
use crate::watch::summary::summarise;
use crate::watch::translate::Translator;
use crate::watch::translate::tests::came;
use crossterm::event::KeyCode;
use std::collections::BTreeSet;
use std::sync::Arc;

const MS: u64 = 1_000_000;
const AGENTS: u64 = 10;

pub(super) fn span(
    id: u64,
    parent: Option<u64>,
    name: &str,
    ms: (u64, u64),
    attrs: &[(&str, &str)],
) -> Span {
    Span {
        trace_id: 0x7e57,
        span_id: id,
        parent,
        remote_parent: None,
        name: name.into(),
        start_ns: 1_700_000_000_000 * MS + ms.0 * MS,
        end_ns: 1_700_000_000_000 * MS + ms.1 * MS,
        error: None,
        attrs: attrs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::Str(v.to_string())))
            .collect(),
        events: Vec::new(),
        service: Some("support-bot".into()),
        scope: String::new(),
        language: None,
    }
}

/// Tool calls of agent `a`: ten for the first five, nine for the rest.
fn tools(a: u64) -> u64 {
    if a < 5 { 10 } else { 9 }
}

/// The span of tool call `t` of agent `a` (under `agent`), at `at` ms.
fn tool_call(a: u64, t: u64, agent: u64, start: u64) -> Span {
    span(
        10_000 + a * 1000 + t,
        Some(agent),
        &format!("tool call {a}-{t}"),
        (start, start + 50),
        &[
            ("gen_ai.operation.name", "execute_tool"),
            ("gen_ai.tool.name", &format!("lookup_{a}_{t}")),
        ],
    )
}

/// A root, ten agents one after the other, each with its tool calls
/// (`tool call A-T`, the tool `lookup_A_T`) and, but the last, a handoff
/// to the next; children first, the root last, as spans arrive.
fn spans() -> Vec<Span> {
    let mut spans = Vec::new();
    for a in 0..AGENTS {
        let agent = 100 + a;
        let at = a * 1000;
        for t in 1..=tools(a) {
            spans.push(tool_call(a, t, agent, at + 10 + t * 80));
        }
        if a + 1 < AGENTS {
            spans.push(span(
                1000 + a * 20 + 19,
                Some(agent),
                "agent_handoff",
                (at + 880, at + 890),
                &[
                    ("gen_ai.handoff.from_agent", &format!("agent_{a}")),
                    ("gen_ai.handoff.to_agent", &format!("agent_{}", a + 1)),
                ],
            ));
        }
        spans.push(span(
            agent,
            Some(1),
            &format!("invoke_agent agent_{a}"),
            (at, at + 900),
            &[
                ("gen_ai.operation.name", "invoke_agent"),
                ("gen_ai.agent.name", &format!("agent_{a}")),
            ],
        ));
    }
    spans.push(span(1, None, "workflow", (0, AGENTS * 1000), &[]));
    spans
}

/// The run's spans told as the watch tells them, in batches of ten.
fn told() -> Vec<Arc<Event>> {
    told_of(spans())
}

/// `spans` told as the watch tells them, in batches of ten.
pub(super) fn told_of(spans: Vec<Span>) -> Vec<Arc<Event>> {
    let mut runs = Runs::new(Limits::default());
    let now = tokio::time::Instant::now();
    let mut translator = None;
    let mut seen = 0;
    let mut events = Vec::new();
    let mut trace = 0;
    for batch in spans.chunks(10) {
        for id in runs.accept(batch.to_vec(), now) {
            trace = id;
            translator = Some(Translator::new(1, id));
        }
        let run = runs.get(trace).unwrap();
        let translator = translator.as_mut().unwrap();
        events.extend(translator.take_read(
            &came(&run.arrivals[seen..]),
            &run.forest,
            &run.readings,
            None,
        ));
        seen = run.arrivals.len();
    }
    let run = runs.get(trace).unwrap();
    let summary = summarise(trace, &run.forest, None);
    let translator = translator.as_mut().unwrap();
    events.extend(translator.finish((&run.forest, &run.readings), &summary, None, 0));
    events.into_iter().map(Arc::new).collect()
}

/// The rows inside the pane titled `title` (its frame found around the
/// title), as drawn.
pub(super) fn pane(screen: &str, title: &str) -> Vec<String> {
    let grid: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let (top, at) = grid
        .iter()
        .enumerate()
        .find_map(|(y, row)| {
            let line: String = row.iter().collect();
            let byte = line.find(title)?;
            Some((y, line[..byte].chars().count()))
        })
        .unwrap_or_else(|| panic!("no pane {title}:\n{screen}"));
    let left = (0..at).rev().find(|x| grid[top][*x] == '┌').unwrap();
    let right = (at..grid[top].len())
        .find(|x| grid[top][*x] == '┐')
        .unwrap();
    let bottom = (top + 1..grid.len())
        .find(|y| grid[*y][left] == '└')
        .unwrap();
    (top + 1..bottom)
        .map(|y| grid[y][left + 1..right].iter().collect::<String>())
        .collect()
}

fn key(app: &mut App, code: KeyCode) {
    press(app, code);
}

/// `PgDn` until the pane shows `last` on its bottom row (never more
/// presses than the pane has rows), every row shown on the way kept.
fn pages_to(app: &mut App, size: (u16, u16), title: &str, last: &str) -> Vec<String> {
    let mut all = Vec::new();
    for _ in 0..400 {
        let rows = pane(&screen_of(app, size.0, size.1), title);
        all.extend(rows.iter().cloned());
        if rows.last().is_some_and(|r| r.contains(last)) {
            return all;
        }
        key(app, KeyCode::PageDown);
    }
    panic!("{title}: {last} never at the bottom by pages");
}

/// The pane's last row at its bottom, the row before it above.
fn at_bottom(rows: &[String], last: &str, before: &str) {
    let n = rows.len();
    assert!(rows[n - 1].contains(last), "{}", rows.join("\n"));
    assert!(rows[n - 2].contains(before), "{}", rows.join("\n"));
}

fn every_pane_scrolls_at(size: (u16, u16)) {
    let mut app = app_with(&told());
    let title = "Watched agents: agent_0, agent_1";
    key(&mut app, KeyCode::Char('2'));
    // The list follows its last row: the span tree's last.
    at_bottom(
        &pane(&screen_of(&mut app, size.0, size.1), title),
        "tool call 9-9",
        "tool call 9-8",
    );
    // From the top, a page at a time: every agent, handoff and tool call
    // on the way, the last row at the bottom.
    key(&mut app, KeyCode::Char('g'));
    let top = pane(&screen_of(&mut app, size.0, size.1), title);
    assert!(top[0].contains("agent_0"), "{}", top.join("\n"));
    let seen = pages_to(&mut app, size, title, "tool call 9-9");
    let seen: BTreeSet<&str> = seen.iter().map(String::as_str).collect();
    let text = seen.iter().copied().collect::<Vec<_>>().join("\n");
    for a in 0..AGENTS {
        let tally = format!("1 turn · {} tool calls", tools(a));
        assert!(
            seen.iter()
                .any(|r| r.contains(&format!("agent_{a} ")) && r.contains(&tally)),
            "agent {a}:\n{text}"
        );
        for t in 1..=tools(a) {
            let call = format!("called lookup_{a}_{t}");
            assert!(text.contains(&call), "{call}:\n{text}");
        }
        if a + 1 < AGENTS {
            assert!(
                seen.iter()
                    .any(|r| r.contains(&format!("agent_{a}")) && r.contains("─→")),
                "handoff {a}:\n{text}"
            );
        }
    }
    assert!(text.contains("Span tree · "), "{text}");
    let rows = pane(&screen_of(&mut app, size.0, size.1), title);
    at_bottom(&rows, "tool call 9-9", "tool call 9-8");
    // Past the end nothing moves; End and G land on the same page.
    key(&mut app, KeyCode::PageDown);
    assert_eq!(pane(&screen_of(&mut app, size.0, size.1), title), rows);
    for last in [KeyCode::End, KeyCode::Char('G')] {
        key(&mut app, KeyCode::Char('g'));
        key(&mut app, last);
        let drawn = pane(&screen_of(&mut app, size.0, size.1), title);
        at_bottom(&drawn, "tool call 9-9", "tool call 9-8");
    }
    // The event log and the result pane: by pages to the page `G` shows.
    for (pane_key, title) in [('3', "Event log"), ('4', "Result")] {
        key(&mut app, KeyCode::Char(pane_key));
        key(&mut app, KeyCode::Char('G'));
        let end = pane(&screen_of(&mut app, size.0, size.1), title);
        let last = end
            .iter()
            .rev()
            .find(|r| !r.trim().is_empty())
            .unwrap_or_else(|| panic!("{title} empty"))
            .trim()
            .to_string();
        key(&mut app, KeyCode::Char('g'));
        if pane(&screen_of(&mut app, size.0, size.1), title) == end {
            // It fits whole: its last row is shown.
            continue;
        }
        let mut pages = 0;
        loop {
            let now = pane(&screen_of(&mut app, size.0, size.1), title);
            if now == end {
                break;
            }
            pages += 1;
            assert!(pages < 400, "{title}: {last} never reached by pages");
            key(&mut app, KeyCode::PageDown);
        }
    }
}

#[test]
fn every_pane_of_a_watched_run_scrolls_to_its_last_row_at_160_by_48() {
    every_pane_scrolls_at((160, 48));
}

#[test]
fn every_pane_of_a_watched_run_scrolls_to_its_last_row_at_80_by_24() {
    every_pane_scrolls_at((80, 24));
}

#[test]
fn the_pattern_panes_keys_for_a_watched_run_are_its_lists_and_each_works() {
    use crate::tui::keymap::{PaneId, Scope};
    let size = (160, 48);
    let mut app = app_with(&told());
    let title = "Watched agents: agent_0, agent_1";
    key(&mut app, KeyCode::Char('2'));
    // No graph keys (h/l, +/-, v): the list's own, each acting.
    assert_eq!(app.pane_scopes(), vec![Scope::Pane(PaneId::Pattern)]);
    key(&mut app, KeyCode::Char('g'));
    key(&mut app, KeyCode::Char('/'));
    for c in "lookup_3_7".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let rows = pane(&screen_of(&mut app, size.0, size.1), title);
    assert!(
        rows.iter().any(|r| r.contains("called lookup_3_7")),
        "{}",
        rows.join("\n")
    );
    key(&mut app, KeyCode::Enter);
    let details = screen_of(&mut app, size.0, size.1);
    assert!(details.contains(r#""tool": "lookup_3_7""#), "{details}");
    assert!(details.contains(r#""agent": "agent_3""#), "{details}");
    key(&mut app, KeyCode::Esc);
    // Up from the last row is the row before it.
    key(&mut app, KeyCode::End);
    key(&mut app, KeyCode::Up);
    key(&mut app, KeyCode::Enter);
    let details = screen_of(&mut app, size.0, size.1);
    assert!(details.contains(r#""name": "tool call 9-8""#), "{details}");
}

#[test]
fn a_run_past_the_chains_kept_tool_calls_says_so_and_scrolls_to_its_end() {
    // One agent with 1,100 tool calls: the chain keeps the latest (512
    // to 1,023 of them) and a row counts the rest.
    let mut spans: Vec<Span> = (1..=1100).map(|t| tool_call(0, t, 100, t * 10)).collect();
    spans.push(span(
        100,
        Some(1),
        "invoke_agent agent_0",
        (0, 12_000),
        &[
            ("gen_ai.operation.name", "invoke_agent"),
            ("gen_ai.agent.name", "agent_0"),
        ],
    ));
    spans.push(span(1, None, "workflow", (0, 12_000), &[]));
    let mut app = app_with(&told_of(spans));
    let title = "Watched agents: agent_0";
    for size in [(160, 48), (80, 24)] {
        key(&mut app, KeyCode::Char('2'));
        key(&mut app, KeyCode::Char('g'));
        let top = pane(&screen_of(&mut app, size.0, size.1), title);
        assert!(
            top[0].contains("agent_0 1 turn · 1100 tool calls"),
            "{}",
            top.join("\n")
        );
        assert!(
            top[1].contains("tool calls before these, not kept"),
            "{}",
            top.join("\n")
        );
        assert!(!top[1].contains("handoff"), "{}", top.join("\n"));
        key(&mut app, KeyCode::End);
        let end = pane(&screen_of(&mut app, size.0, size.1), title);
        at_bottom(&end, "tool call 0-1100", "tool call 0-1099");
    }
}
