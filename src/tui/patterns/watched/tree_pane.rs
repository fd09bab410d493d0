//! The span-tree pane: any watched trace's spans as a tree, each with its
//! duration, a placeholder where a parent has not arrived (drawn running,
//! with the time its children cover so far), failures in red and the
//! critical path marked `◆`. Every text from a span goes through
//! `crate::sanitize` first. Draws and mutates nothing.

use super::tree::TreeRow;
use crate::sanitize::clean;
use crate::span::span_hex;
use crate::tui::text::fit;
use crate::tui::theme;
use crate::tui::widgets::millis;
#[cfg(test)]
use crate::watch::forest::Forest;
#[cfg(test)]
use ratatui::Frame;
#[cfg(test)]
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
#[cfg(test)]
use ratatui::widgets::{Block, Paragraph};

#[cfg(test)]
/// Draw the tree `rows` of `forest` in `area` framed by `block`, from
/// row `scroll` on; only the rows shown are looked at.
pub(crate) fn draw(
    frame: &mut Frame,
    area: Rect,
    (forest, rows): (&Forest, &[TreeRow]),
    scroll: usize,
    block: Block,
) {
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if rows.is_empty() {
        let none = Line::styled("no spans yet", theme::dim());
        frame.render_widget(Paragraph::new(none), inner);
        return;
    }
    let first = scroll.min(rows.len().saturating_sub(1));
    let width = usize::from(inner.width);
    let lines: Vec<Line> = rows[first..]
        .iter()
        .take(usize::from(inner.height))
        .map(|row| {
            let span = forest.get(row.id).and_then(|n| n.span.as_deref());
            line(row, span, width)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

/// One row: the guides, the mark, the name and the duration.
pub(crate) fn line(row: &TreeRow, span: Option<&crate::span::Span>, width: usize) -> Line<'static> {
    let mut guide = String::new();
    for (depth, last) in row.lasts.iter().enumerate() {
        let own = depth + 1 == row.lasts.len();
        guide.push_str(match (own, *last, depth) {
            (true, _, 0) => "",
            (true, true, _) => "└─",
            (true, false, _) => "├─",
            (false, true, _) => "  ",
            (false, false, _) => "│ ",
        });
    }
    let mark = if row.critical { "◆ " } else { "  " };
    let (name, state, style) = match span {
        None => (
            format!("… parent {} not arrived yet", span_hex(row.id)),
            format!("running ≥{}", millis(row.ms)),
            Style::default().fg(theme::CAUTION),
        ),
        Some(span) => {
            let name = clean(&span.name).into_owned();
            match &span.error {
                // The message's first line (a stack's is the error's name).
                Some(message) => (
                    name,
                    format!(
                        "✗ {} {}",
                        millis(row.ms),
                        clean(message.trim().lines().next().unwrap_or_default())
                    ),
                    theme::error(),
                ),
                None => (name, millis(row.ms), Style::default()),
            }
        }
    };
    let style = if row.critical {
        style.add_modifier(Modifier::BOLD)
    } else {
        style
    };
    let lead = format!("{guide}{mark}");
    // The name keeps up to half the row before a long state takes it.
    let kept = name.chars().count().min(width / 2);
    let state = fit(
        &state,
        width.saturating_sub(lead.chars().count() + kept + 1),
    );
    let room = width.saturating_sub(lead.chars().count() + state.chars().count() + 1);
    let name = fit(&name, room);
    let pad =
        width.saturating_sub(lead.chars().count() + name.chars().count() + state.chars().count());
    Line::from(vec![
        Span::styled(lead, theme::dim()),
        Span::styled(name, style),
        Span::raw(" ".repeat(pad)),
        Span::styled(fit(&state, width), style),
    ])
}
