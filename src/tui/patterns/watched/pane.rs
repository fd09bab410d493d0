//! A watched run's pane as one list the keys scroll whole: the agents in
//! the order they started (each with its turns, tool calls and spend),
//! then the handoffs and the tool calls in the order they came (each in
//! full, none cut), then the span tree under its heading. One list, so
//! `j`/`k`, `PgUp`/`PgDn` (a page: the pane's own height), `g`, `End`
//! and `G` reach every row, `/` finds any, and `Enter` shows the row's
//! item whole. The list follows its end (`G`), as the event log follows
//! its newest line. Draws and changes nothing.

use super::state::WatchedRun;
use super::tree_pane;
use crate::sanitize::clean;
use crate::span::{SpanId, span_hex};
use crate::tui::patterns::chain::swarm::{handoff_row, name_width, tool_call_line};
use crate::tui::patterns::seen::Seen;
use crate::tui::search;
use crate::tui::selection::{ListView, Shown};
use crate::tui::text::fit;
use crate::tui::theme;
use crate::words::plural;
use ratatui::text::{Line, Span};
use serde_json::{Value, json};

/// One row of the pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Row {
    /// The `n`th agent, in the order they started.
    Agent(usize),
    /// The handoffs and tool calls of a long run no longer kept (its
    /// recording has every one), counted.
    Earlier,
    Handoff(usize),
    Call(usize),
    /// The span tree's heading.
    Tree,
    /// The span tree's `n`th row.
    Span(usize),
}

/// The pane's rows as the run stands: the chain's made (they are few:
/// the chain keeps at most its latest 512 of each), the tree's counted.
pub(crate) struct Rows<'a> {
    pub(crate) agents: Vec<&'a str>,
    chain: Vec<Row>,
    spans: usize,
}

impl<'a> Rows<'a> {
    pub(crate) fn of(run: &'a WatchedRun) -> Rows<'a> {
        let agents = run.agents();
        let chain = &run.chain;
        let mut rows: Vec<Row> = (0..agents.len()).map(Row::Agent).collect();
        if chain.earlier.handoffs + chain.earlier.tool_calls > 0 {
            rows.push(Row::Earlier);
        }
        let (mut h, mut c) = (0, 0);
        loop {
            let handoff = match (chain.handoffs.get(h), chain.tool_calls.get(c)) {
                (Some(handoff), Some(call)) => handoff.at_ms <= call.at_ms,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if handoff {
                rows.push(Row::Handoff(h));
                h += 1;
            } else {
                rows.push(Row::Call(c));
                c += 1;
            }
        }
        Rows {
            agents,
            chain: rows,
            spans: run.tree.len(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.chain.len() + 1 + self.spans
    }

    /// Every row, following the last.
    pub(crate) fn shown(&self) -> Shown {
        let len = self.len();
        Shown::all(len, len.checked_sub(1))
    }

    pub(crate) fn get(&self, index: usize) -> Option<Row> {
        let chain = self.chain.len();
        match index {
            i if i < chain => Some(self.chain[i]),
            i if i == chain => Some(Row::Tree),
            i if i - chain - 1 < self.spans => Some(Row::Span(i - chain - 1)),
            _ => None,
        }
    }

    /// Where the span tree's first row is.
    pub(crate) fn tree_start(&self) -> usize {
        self.chain.len() + 1
    }

    /// Where `row` of the agents, handoffs and tool calls, or the tree's
    /// heading, is.
    pub(crate) fn position(&self, row: Row) -> Option<usize> {
        match row {
            Row::Tree => Some(self.chain.len()),
            Row::Span(i) => Some(self.tree_start() + i).filter(|_| i < self.spans),
            row => self.chain.iter().position(|r| *r == row),
        }
    }
}

/// The heading of the span tree (also on the pane's bottom border, so it
/// is read wherever the list is scrolled).
pub(crate) fn tree_heading(run: &WatchedRun) -> String {
    let mut words = format!(
        "Span tree · {} · ◆ critical path",
        plural(run.forest.len() as u64, "span")
    );
    if run.failed > 0 {
        words.push_str(&format!(" · {} failed", run.failed));
    }
    words
}

/// `… 88 tool calls before these, not kept (the recording has them)`.
fn earlier(run: &WatchedRun) -> String {
    let earlier = &run.chain.earlier;
    let counted = [
        (earlier.handoffs, "handoff"),
        (earlier.tool_calls, "tool call"),
    ];
    let words: Vec<String> = counted
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, word)| plural(*n as u64, word))
        .collect();
    format!(
        "… {} before these, not kept (the recording has them)",
        words.join(" and ")
    )
}

/// What `/` looks for in a row; `ids` are the tree's rows' spans
/// (`SpanRows::ids`).
pub(crate) fn text(run: &WatchedRun, rows: &Rows, ids: &[SpanId], row: Row) -> String {
    let chain = &run.chain;
    match row {
        Row::Agent(i) => rows.agents.get(i).map(|a| a.to_string()),
        Row::Earlier => Some(earlier(run)),
        Row::Handoff(i) => chain.handoffs.get(i).map(|h| {
            let state = match &h.rejected {
                Some(reason) => format!("refused {reason}"),
                None => "accepted".to_string(),
            };
            format!("{} {} {state}", h.from, h.to)
        }),
        Row::Call(i) => chain
            .tool_calls
            .get(i)
            .map(|c| format!("{} {} {} {}", c.agent, c.tool, c.args, c.result)),
        Row::Tree => Some(tree_heading(run)),
        Row::Span(i) => ids
            .get(i)
            .and_then(|id| run.forest.get(*id)?.span.as_ref())
            .map(|span| span.name.clone()),
    }
    .unwrap_or_default()
}

/// What `Enter` shows of a row: an agent's tally, a handoff, a tool call,
/// or the span whole.
pub(crate) fn details(run: &WatchedRun, rows: &Rows, row: Row) -> Option<Value> {
    let chain = &run.chain;
    match row {
        Row::Agent(i) => {
            let agent = *rows.agents.get(i)?;
            let (turns, calls) = tally(run, agent);
            Some(json!({"agent": agent, "turns": turns, "tool_calls": calls}))
        }
        Row::Earlier => Some(json!({
            "handoffs_not_kept": chain.earlier.handoffs,
            "tool_calls_not_kept": chain.earlier.tool_calls,
        })),
        Row::Handoff(i) => {
            let h = chain.handoffs.get(i)?;
            Some(json!({
                "from": h.from,
                "to": h.to,
                "at_ms": h.at_ms,
                "refused": h.rejected.as_ref().map(ToString::to_string),
                "handoff": h.counted,
                "message": h.message,
            }))
        }
        Row::Call(i) => {
            let c = chain.tool_calls.get(i)?;
            Some(json!({
                "agent": c.agent,
                "tool": c.tool,
                "turn": c.turn,
                "at_ms": c.at_ms,
                "args": c.args,
                "result": c.result,
                "ok": c.ok,
            }))
        }
        Row::Tree => Some(json!({
            "spans": run.forest.len(),
            "failed": run.failed,
            "not_kept": run.forest.dropped,
        })),
        Row::Span(i) => {
            let id = run.tree.id_at(i)?;
            let Some(span) = &run.forest.get(id)?.span else {
                return Some(json!({
                    "span_id": span_hex(id),
                    "not_arrived": "its children named it; it has not ended yet",
                }));
            };
            let mut value = serde_json::to_value(span).ok()?;
            value["ms"] = json!(span.ms());
            Some(value)
        }
    }
}

/// An agent's turns and tool calls.
fn tally(run: &WatchedRun, agent: &str) -> (u32, u64) {
    let turns = run.turns.get(agent).copied().unwrap_or(0);
    let calls = run.tool_calls.get(agent).copied().unwrap_or(0);
    (turns, calls)
}

/// The rows `first..first + height` as lines `width` wide, the selected
/// one marked while the pane has focus.
pub(crate) fn lines(
    run: &WatchedRun,
    rows: &Rows,
    (list, shown): (&ListView, &Shown),
    (first, height, width): (usize, usize, usize),
    seen: Seen,
) -> Vec<Line<'static>> {
    let chain = &run.chain;
    let selected = list.row(shown);
    let query = list.search.as_deref();
    let from_w = name_width(chain.handoffs.iter().map(|h| h.from.as_str()));
    let to_w = name_width(chain.handoffs.iter().map(|h| h.to.as_str()));
    let agent_w = name_width(rows.agents.iter().copied());
    // The tree's rows shown, made at once (a walk down to the first).
    let tree_first = first.max(rows.tree_start()) - rows.tree_start();
    let tree_count = (first + height).saturating_sub(rows.tree_start().max(first));
    let mut tree = run
        .tree
        .window(&run.forest, tree_first, tree_count)
        .into_iter();
    (first..first + height)
        .map_while(|index| Some((index, rows.get(index)?)))
        .map(|(index, row)| {
            let line = match row {
                Row::Agent(i) => agent_line(run, rows, i, agent_w, seen, width),
                Row::Earlier => Line::styled(fit(&earlier(run), width), theme::dim()),
                Row::Handoff(i) => handoff_row(
                    chain.earlier.handoffs + i + 1,
                    &chain.handoffs[i],
                    from_w,
                    to_w,
                    width,
                ),
                Row::Call(i) => tool_call_line(&chain.tool_calls[i], width, true),
                Row::Tree => Line::styled(fit(&tree_heading(run), width), theme::bold()),
                Row::Span(_) => match tree.next() {
                    Some(row) => {
                        let span = run.forest.get(row.id).and_then(|n| n.span.as_deref());
                        tree_pane::line(&row, span, width)
                    }
                    None => Line::default(),
                },
            };
            let chosen = seen.focused && selected == Some(index);
            search::mark(line, query, chosen)
        })
        .collect()
}

/// `▶ billing   3 turns · 12 tool calls · ~1.1k tok · $0.01`: the agent
/// holding control marked while the run is live.
fn agent_line(
    run: &WatchedRun,
    rows: &Rows,
    i: usize,
    name_w: usize,
    seen: Seen,
    width: usize,
) -> Line<'static> {
    let agent = rows.agents[i];
    let (turns, calls) = tally(run, agent);
    let holds = seen.live && run.chain.holder().is_some_and(|l| l.agent == agent);
    let mark = if holds { "▶ " } else { "  " };
    let mut words = format!(
        "{} · {}",
        plural(u64::from(turns), "turn"),
        plural(calls, "tool call")
    );
    if let Some(spent) = seen.spent_by(agent) {
        words.push_str(&format!(" · {spent}"));
    }
    let name = crate::tui::text::pad(&fit(&clean(agent), name_w), name_w);
    let rest = fit(&words, width.saturating_sub(name_w + 3).max(1));
    Line::from(vec![
        Span::styled(mark, theme::dim()),
        Span::styled(name, theme::bold()),
        Span::raw(" "),
        Span::styled(rest, theme::dim()),
    ])
}
