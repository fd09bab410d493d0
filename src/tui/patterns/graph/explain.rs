//! The words under the graph: the selected node's out-edges as last
//! evaluated, with each check's real values (`review→draft
//! verdict=="revise" ✓  visits(draft)=2<3 ✓  taken, 2/3`), the joins still
//! waiting (`merge 1/2: waiting on publish_b`), the maps under way and a
//! question a person is asked. Text from the scenario and the model is
//! cleaned where it is fitted to the line.

use super::live::{EdgeEval, NodeState};
use super::state::{Graph, GraphFold};
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

/// The lines for node `selected`, then the run's waiting joins, maps and
/// question, `width` wide.
pub(crate) fn lines(fold: &GraphFold, selected: usize, width: usize) -> Vec<Line<'static>> {
    let Some(graph) = &fold.graph else {
        return Vec::new();
    };
    let mut lines = vec![headline(graph, fold, selected, width)];
    for &e in &graph.plan.out[selected] {
        lines.push(edge_line(graph, e, fold.edges[e].as_ref(), width));
    }
    if let Some((node, question)) = &fold.asking {
        let words = format!("{} asks: {question}", graph.plan.nodes[*node].id);
        lines.push(Line::styled(fit(&words, width), theme::bold()));
    }
    for (n, live) in fold.nodes.iter().enumerate() {
        if let Some(join) = live.join.as_ref().filter(|j| !j.fired || n == selected) {
            lines.push(Line::styled(
                fit(&barrier(&graph.plan.nodes[n].id, join), width),
                if join.fired {
                    theme::dim()
                } else {
                    Style::default().fg(Color::Cyan)
                },
            ));
        }
        if let Some(map) = live.map.filter(|m| m.running > 0 || n == selected) {
            let id = &graph.plan.nodes[n].id;
            let mut words = format!("{id} {}/{} done", map.done, map.of);
            if map.failed > 0 {
                words.push_str(&format!(" · {} failed", map.failed));
            }
            if map.running > 0 {
                words.push_str(&format!(" · {} running", map.running));
            }
            lines.push(Line::raw(fit(&words, width)));
        }
    }
    lines
}

/// The selected node: its state, id, kind and what it runs, its visits.
fn headline(graph: &Graph, fold: &GraphFold, n: usize, width: usize) -> Line<'static> {
    let node = &graph.plan.nodes[n];
    let live = &fold.nodes[n];
    let mut words = format!("{} {}  {}", live.state.glyph(), node.id, node.kind);
    if !node.label.is_empty() {
        words.push_str(&format!(" {}", node.label));
    }
    if let Some(wait) = &node.wait {
        words.push_str(&format!(" (wait {wait})"));
    }
    words.push_str(&format!(" · {}", live.state.word()));
    match (live.visits, node.max_visits) {
        (0, _) => {}
        (v, Some(max)) => words.push_str(&format!(" · visit {v}/{max}")),
        (v, None) => words.push_str(&format!(" · visit {v}")),
    }
    let style = match live.state {
        NodeState::Waiting => theme::bold(),
        state => state.style(),
    };
    Line::styled(fit(&words, width), style)
}

/// An out-edge as last evaluated: each check with its values and whether
/// it held, then taken or not (with the target's visits against its
/// bound); before its first evaluation, its condition.
fn edge_line(graph: &Graph, e: usize, eval: Option<&EdgeEval>, width: usize) -> Line<'static> {
    let edge = &graph.plan.edges[e];
    let ends = format!(
        "{}→{}",
        graph.plan.nodes[edge.from].id, graph.plan.nodes[edge.to].id
    );
    let Some(eval) = eval else {
        let when = match (&edge.when, edge.default) {
            (Some(when), _) => format!("  when {when}"),
            (None, true) => "  default".to_string(),
            (None, false) => String::new(),
        };
        return Line::styled(
            fit(&format!("  {ends}{when}  not evaluated yet"), width),
            theme::dim(),
        );
    };
    let mut spans = vec![Span::raw(format!("  {ends}"))];
    if eval.checks.is_empty() && edge.default {
        spans.push(Span::raw("  default"));
    }
    for (said, held) in &eval.checks {
        let (mark, colour) = if *held {
            ('✓', Color::Green)
        } else {
            ('✗', Color::Red)
        };
        spans.push(Span::raw(format!("  {said} ")));
        spans.push(Span::styled(mark.to_string(), Style::default().fg(colour)));
    }
    let outcome = match (eval.taken, eval.visits, eval.max_visits) {
        (true, Some(v), Some(max)) => format!("  taken, {v}/{max}"),
        (true, _, _) => "  taken".to_string(),
        (false, _, _) => "  not taken".to_string(),
    };
    spans.push(Span::styled(
        outcome,
        if eval.taken {
            Style::default().fg(Color::Green)
        } else {
            theme::dim()
        },
    ));
    fitted(spans, width)
}

/// `spans` cleaned and cut to `width` columns.
fn fitted(spans: Vec<Span<'static>>, width: usize) -> Line<'static> {
    let mut left = width;
    let mut out = Vec::new();
    for span in spans {
        if left == 0 {
            break;
        }
        let text = fit(&span.content, left);
        left = left.saturating_sub(unicode_width::UnicodeWidthStr::width(text.as_str()));
        out.push(Span::styled(text, span.style));
    }
    Line::from(out)
}

/// A join's barrier: `merge 1/2: waiting on publish_b`, or what fired it.
pub(crate) fn barrier(id: &str, join: &super::live::Barrier) -> String {
    if join.fired {
        return format!("{id} fired: {}", join.arrived.join(", "));
    }
    let all = join.arrived.len() + join.waiting_on.len();
    format!(
        "{id} {}/{all}: waiting on {}",
        join.arrived.len(),
        join.waiting_on.join(", ")
    )
}
