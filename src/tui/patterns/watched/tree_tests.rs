//! The span tree: placeholders (a parent running while its children
//! ended), the critical path, text cleaned before the terminal; and the
//! rows kept as spans arrive against the rows made from scratch, on every
//! captured trace and on random arrival orders.

use super::span_rows::SpanRows;
use super::{tree, tree_pane};
use crate::span::{Span, Value};
use crate::watch::forest::{Forest, Inserted};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::widgets::Block;
const MS: u64 = 1_000_000;

/// A span of trace 7: `id` under `parent`, from `start` to `end` ms.
fn span(id: u64, parent: Option<u64>, name: &str, start: u64, end: u64) -> Span {
    Span {
        trace_id: 7,
        span_id: id,
        parent,
        remote_parent: None,
        name: name.into(),
        start_ns: start * MS,
        end_ns: end * MS,
        error: None,
        attrs: Vec::new(),
        events: Vec::new(),
        service: Some("support-bot".into()),
        scope: String::new(),
        language: None,
    }
}

fn with(mut span: Span, attrs: &[(&str, Value)]) -> Span {
    span.attrs = attrs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    span
}

fn s(text: &str) -> Value {
    Value::Str(text.into())
}

/// The agents-SDK-like run: a workflow root 1, agent `triage` (2) that
/// calls the model (3) and hands off (4) to `billing` (5), which calls a
/// tool that fails (6) and the model (7).
pub(crate) fn run_spans() -> Vec<Span> {
    let agent = |name: &str| {
        vec![
            ("gen_ai.operation.name", s("invoke_agent")),
            ("gen_ai.agent.name", s(name)),
        ]
    };
    let model = |input, output| {
        vec![
            ("gen_ai.operation.name", s("chat")),
            ("gen_ai.request.model", s("gpt-4o-mini")),
            ("gen_ai.usage.input_tokens", Value::Int(input)),
            ("gen_ai.usage.output_tokens", Value::Int(output)),
            ("llm.cost.total", Value::Float(0.25)),
        ]
    };
    let mut tool = with(
        span(6, Some(5), "execute_tool lookup_invoice", 60, 90),
        &[
            ("gen_ai.operation.name", s("execute_tool")),
            ("gen_ai.tool.name", s("lookup_invoice")),
        ],
    );
    tool.error = Some("invoice \u{1b}[31mnot found".into());
    vec![
        with(span(3, Some(2), "chat gpt-4o-mini", 5, 30), &model(100, 20)),
        with(
            span(4, Some(2), "agent_handoff", 31, 32),
            &[
                ("gen_ai.handoff.from_agent", s("triage")),
                ("gen_ai.handoff.to_agent", s("billing")),
            ],
        ),
        with(
            span(2, Some(1), "invoke_agent triage", 2, 33),
            &agent("triage"),
        ),
        tool,
        with(
            span(7, Some(5), "chat gpt-4o-mini", 91, 120),
            &model(200, 40),
        ),
        with(
            span(5, Some(1), "invoke_agent billing", 40, 125),
            &agent("billing"),
        ),
        span(1, None, "support workflow", 0, 130),
    ]
}

pub(crate) use crate::tui::buffer_text::text;

fn tree_drawn(forest: &Forest) -> String {
    let mut terminal = Terminal::new(TestBackend::new(64, 10)).unwrap();
    terminal
        .draw(|f| {
            let rows = tree::rows(forest);
            let block = Block::bordered().title("span tree");
            tree_pane::draw(f, f.area(), (forest, &rows), 0, block);
        })
        .unwrap();
    text(terminal.backend().buffer())
}

#[test]
fn a_child_hangs_under_a_running_placeholder_until_its_parent_comes() {
    let mut forest = Forest::new(100);
    for span in run_spans().into_iter().take(3) {
        forest.insert(span);
    }
    let rows = tree::rows(&forest);
    // The placeholder for 1 (not arrived) runs, with 2 and its calls below.
    assert_eq!(rows[0].id, 1);
    assert!(forest.get(1).is_some_and(|n| n.span.is_none()) && rows[0].running);
    assert_eq!(rows[0].ms, 31, "the time its children cover so far");
    assert_eq!(
        rows.iter().map(|r| r.id).collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
    insta::assert_snapshot!("span_tree_placeholder", tree_drawn(&forest));
    for span in run_spans().into_iter().skip(3) {
        forest.insert(span);
    }
    let rows = tree::rows(&forest);
    assert!(rows.iter().all(|r| !r.running), "every parent arrived");
    // The root ends with billing (5), which ends with its model call (7).
    assert_eq!(tree::critical_path(&forest), vec![1, 5, 7]);
    insta::assert_snapshot!("span_tree_whole", tree_drawn(&forest));
}

#[test]
fn span_text_reaches_the_tree_cleaned() {
    let mut forest = Forest::new(10);
    forest.insert(span(1, None, "evil\u{1b}]52;c;aGk=\u{7}name\u{202e}", 0, 5));
    let drawn = tree_drawn(&forest);
    assert!(drawn.contains("evilname"), "{drawn}");
    assert!(!drawn.contains('\u{1b}') && !drawn.contains('\u{202e}'));
}

/// Feed `spans` in order into a forest of `limit` spans and the rows kept
/// as they arrive; after each, the rows equal those made from scratch,
/// whole and any window of them.
fn rows_hold(spans: &[Span], limit: usize, what: &str) {
    let mut forest = Forest::new(limit);
    let mut kept = SpanRows::default();
    for (n, span) in spans.iter().enumerate() {
        let id = span.span_id;
        if let Inserted::Kept | Inserted::CutCircle = forest.insert(span.clone()) {
            kept.insert(&forest, id);
        }
        let whole = tree::rows(&forest);
        assert_eq!(kept.len(), whole.len(), "{what}: after {n}");
        assert_eq!(
            kept.window(&forest, 0, usize::MAX),
            whole,
            "{what}: after {n}"
        );
        let ids: Vec<_> = whole.iter().map(|r| r.id).collect();
        assert_eq!(kept.ids(), ids, "{what}: after {n}");
        // Each row is found again from its span (a held selection).
        for (row, id) in ids.iter().enumerate() {
            assert_eq!(kept.row_of(&forest, *id), Some(row), "{what}: after {n}");
        }
        for first in [1, whole.len() / 2, whole.len().saturating_sub(3)] {
            let end = whole.len().min(first + 5);
            let want = whole.get(first..end).unwrap_or_default();
            assert_eq!(kept.window(&forest, first, 5), want, "{what}: {first}");
            if let Some(row) = want.first() {
                assert_eq!(kept.id_at(first), Some(row.id), "{what}: {first}");
            }
        }
    }
}

/// A small random number source (xorshift), seeded: the orders are the
/// same at every run.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

#[test]
fn the_rows_kept_as_spans_arrive_are_the_rows_made_from_scratch_on_every_captured_trace() {
    use crate::bus::EventKind;
    let mut draw = Draw(0x5eed);
    let mut traces = 0;
    for set in crate::watch::translate::tests::sets() {
        for (events, _) in crate::watch::translate::tests::told(&set) {
            let spans: Vec<Span> = events
                .iter()
                .filter_map(|e| match &e.kind {
                    EventKind::SpanArrived { span, .. } => span.span().map(|s| Span::clone(s)),
                    _ => None,
                })
                .collect();
            assert!(!spans.is_empty(), "{set}");
            rows_hold(&spans, 100_000, &set);
            // And in other orders: parents before and after children.
            let mut shuffled = spans.clone();
            for round in 0..3 {
                draw.shuffle(&mut shuffled);
                rows_hold(&shuffled, 100_000, &format!("{set} shuffled {round}"));
            }
            traces += 1;
        }
    }
    assert!(traces >= 8, "{traces} captured traces");
}

#[test]
fn the_rows_kept_hold_on_random_trees_in_random_orders() {
    let mut draw = Draw(0x7e57_0001);
    for round in 0..60 {
        let n = 1 + draw.below(40);
        let mut spans: Vec<Span> = (1..=n as u64)
            .map(|id| {
                // Mostly a parent made earlier; some missing, some the
                // span itself or one made later (circles), some roots.
                let parent = match draw.below(10) {
                    0 => None,
                    1 => Some(id),
                    2 => Some(n as u64 + 1 + draw.below(3) as u64),
                    3 => Some(1 + draw.below(n) as u64),
                    _ if id > 1 => Some(1 + draw.below(id as usize - 1) as u64),
                    _ => None,
                };
                // Starts that tie, ends before starts.
                let start = draw.below(6) as u64 * 10;
                let end = start + draw.below(5) as u64 * 10;
                let end = if draw.below(8) == 0 { start / 2 } else { end };
                span(id, parent, &format!("s{id}"), start, end)
            })
            .collect();
        // A span sent twice keeps its first.
        if n > 2 {
            let again = spans[draw.below(n)].clone();
            spans.push(again);
        }
        draw.shuffle(&mut spans);
        let limit = if round % 5 == 0 { n / 2 + 1 } else { 1000 };
        rows_hold(&spans, limit, &format!("round {round}"));
    }
}
