//! The resilience pane: per tool, sickest first (by health band, ranked
//! at most once a second so rows stay put, ▲/▼ marking who got sicker or
//! better in place), its breaker, bulkhead, traffic, error rate and
//! latency (see `rows`), so a glance tells which dependency is sick and
//! whether the gateway shields it; where there is room, a chart of the
//! selected tool over the run under the list (see `chart`). A strip of one
//! row per tool where room is short. It draws and changes nothing.

mod chart;
mod rows;

use crate::scenario::GatewayMechanism;
use crate::tui::keymap::PaneId;
use crate::tui::search;
use crate::tui::selection::ListView;
use crate::tui::state::{Resilience, ToolHealth};
use crate::tui::theme;
use crate::tui::tool_list;
use crate::tui::widgets::block;
use chart::{CHART_COLUMNS, CHART_ROWS};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders, Paragraph};
use rows::Look;

/// How tall the strip would like to be: a title row and a row per tool.
pub(crate) fn wanted_strip_rows(resilience: &Resilience) -> u16 {
    u16::try_from(resilience.tools.len() + 1).unwrap_or(u16::MAX)
}

/// How the pane's inner rows are shared between the list and the chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Plan {
    rows_per_tool: usize,
    list_rows: usize,
    chart_rows: usize,
}

impl Plan {
    /// The list whole and the chart under it when both fit (two rows a
    /// tool when that leaves the chart some height); a tall pane whose
    /// list does not fit (zoomed, with many tools) gives the chart half;
    /// otherwise the list alone, in as many rows a tool as fit.
    fn for_area(room: usize, width: usize, tools: usize) -> Plan {
        let chart = |rows_per_tool: usize, list_rows: usize| Plan {
            rows_per_tool,
            list_rows,
            chart_rows: room - list_rows,
        };
        if width >= CHART_COLUMNS && tools > 0 {
            if room >= 2 * tools + CHART_ROWS + 3 {
                return chart(2, 2 * tools);
            }
            if room >= tools + CHART_ROWS {
                return chart(1, tools);
            }
            if room >= 2 * CHART_ROWS + 2 {
                return chart(1, room - (room / 2).max(CHART_ROWS));
            }
        }
        let rows_per_tool = match width {
            0..60 => 1,
            _ if room >= tools * 3 => 3,
            _ if room >= tools * 2 => 2,
            _ => 1,
        };
        Plan {
            rows_per_tool,
            list_rows: room,
            chart_rows: 0,
        }
    }
}

/// `selection` is the pane's selected tool, `shielded` whether the
/// scenario has a `resilience` section, `now_ms` the run clock now.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    resilience: &Resilience,
    selection: &ListView,
    shielded: bool,
    now_ms: u64,
    focused: bool,
) {
    let shown = tool_list::shown(resilience, selection);
    let tools: Vec<&ToolHealth> = shown.order.iter().map(|i| &resilience.tools[*i]).collect();
    let boxed = usize::from(area.height) >= tools.len() + 2 && area.height > 3;
    let count = resilience.tools.len();
    let mut title = format!(
        "Resilience · {}",
        crate::words::plural(count as u64, "tool")
    );
    if !shielded {
        title.push_str(" · unshielded");
    }
    for mechanism in [GatewayMechanism::CircuitBreaker, GatewayMechanism::Bulkhead] {
        if !resilience.switched_on(mechanism) {
            title.push_str(&format!(" · {} off", mechanism.as_str().replace('_', " ")));
        }
    }
    title.push_str(&selection.title_words(tool_list::SHOW_WORDS));
    let mut frame_block = block(PaneId::Resilience, &title, focused);
    if !boxed {
        frame_block = frame_block.borders(Borders::TOP);
    }
    let inner = frame_block.inner(area);
    let hidden = tools.len().saturating_sub(usize::from(inner.height));
    let frame_block: Block = if hidden > 0 && !boxed {
        frame_block.title(Span::styled(
            format!(" +{hidden} more (5, j/k) "),
            theme::dim(),
        ))
    } else {
        frame_block
    };
    frame.render_widget(frame_block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let width = usize::from(inner.width);
    let selected = selection.row(&shown);
    let plan = Plan::for_area(usize::from(inner.height), width, tools.len());
    let look = Look {
        now: now_ms,
        width,
        shielded: tools
            .iter()
            .any(|t| t.breaker.is_some() || t.bulkhead.is_some()),
        name_w: 1 + tools
            .iter()
            .map(|t| t.name.chars().count())
            .max()
            .unwrap_or(5)
            .clamp(5, 20),
    };
    let fits = (plan.list_rows / plan.rows_per_tool).max(1);
    let first = selection.first(&shown, fits);
    let mut lines = Vec::new();
    for (i, tool) in tools.iter().enumerate().skip(first).take(fits) {
        let mut rows = match plan.rows_per_tool {
            1 => vec![look.compact(tool)],
            n => look.detailed(tool, n == 3),
        };
        let chosen = focused && Some(i) == selected;
        for row in &mut rows {
            *row = search::mark(std::mem::take(row), selection.search.as_deref(), chosen);
        }
        lines.extend(rows);
    }
    let list_rows = u16::try_from(plan.list_rows).unwrap_or(u16::MAX);
    frame.render_widget(
        Paragraph::new(lines),
        Rect {
            height: list_rows.min(inner.height),
            ..inner
        },
    );
    if let Some(tool) = selected
        .and_then(|row| tools.get(row))
        .filter(|_| plan.chart_rows >= CHART_ROWS)
    {
        let area = Rect {
            y: inner.y + list_rows,
            height: inner.height - list_rows,
            ..inner
        };
        let chart = chart::chart(tool, now_ms, width, plan.chart_rows);
        frame.render_widget(Paragraph::new(chart), area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chart_takes_what_the_list_leaves_and_only_with_room() {
        let plan = |room, width, tools| Plan::for_area(room, width, tools);
        assert_eq!(
            plan(16, 68, 3),
            Plan {
                rows_per_tool: 2,
                list_rows: 6,
                chart_rows: 10
            },
            "the 160-column screen's pane"
        );
        assert_eq!(
            plan(12, 98, 4).chart_rows,
            8,
            "a row a tool, then the chart"
        );
        assert_eq!(plan(8, 98, 4).chart_rows, 0, "the list first");
        assert_eq!(plan(8, 98, 4).rows_per_tool, 2);
        assert_eq!(plan(30, 30, 2).chart_rows, 0, "too narrow for a chart");
        let zoomed = plan(40, 118, 40);
        assert_eq!((zoomed.list_rows, zoomed.chart_rows), (20, 20));
        assert_eq!(plan(4, 80, 3).list_rows, 4, "the strip");
    }
}
