//! The resilience pane: per tool, sickest first, its breaker as a coloured
//! badge (CLOSED green, OPEN red with the countdown to half-open, HALF-OPEN
//! yellow with probes used), consecutive failures against the threshold,
//! the bulkhead's in-flight of max as a gauge with queued and rejected
//! calls, calls, retries, the error rate over the last 10 s, latency
//! p50/p95 and a sparkline of calls per second, so a glance tells which
//! dependency is sick and whether the gateway shields it. A strip of one
//! row per tool where room is short, two rows per tool where there is room.
//! It draws and changes nothing.

use crate::bus::BreakerState;
use crate::scenario::GatewayMechanism;
use crate::tui::keymap::PaneId;
use crate::tui::search;
use crate::tui::selection::ListView;
use crate::tui::state::{BreakerView, BulkheadView, Resilience, ToolHealth};
use crate::tui::text::pad;
use crate::tui::theme;
use crate::tui::tool_list;
use crate::tui::widgets::{bar, block, millis, seconds};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

const BADGE: usize = 15;
const FAILURES: usize = 7;
const SPARKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// How tall the strip would like to be: a title row and a row per tool.
pub(crate) fn wanted_strip_rows(resilience: &Resilience) -> u16 {
    u16::try_from(resilience.tools.len() + 1).unwrap_or(u16::MAX)
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
        "Resilience · {count} tool{}",
        if count == 1 { "" } else { "s" }
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
    let now = now_ms;
    let width = usize::from(inner.width);
    let selected = selection.row(&shown);
    let shielded = tools
        .iter()
        .any(|t| t.breaker.is_some() || t.bulkhead.is_some());
    let room = usize::from(inner.height);
    let rows_per_tool = match width {
        0..60 => 1,
        _ if room >= tools.len() * 3 => 3,
        _ if room >= tools.len() * 2 => 2,
        _ => 1,
    };
    let look = Look {
        now,
        width,
        shielded,
        name_w: tools
            .iter()
            .map(|t| t.name.chars().count())
            .max()
            .unwrap_or(5)
            .clamp(5, 20),
    };
    let fits = (room / rows_per_tool).max(1);
    let first = selection.first(&shown, fits);
    let mut lines = Vec::new();
    for (i, tool) in tools.iter().enumerate().skip(first).take(fits) {
        let mut rows = match rows_per_tool {
            1 => vec![look.compact(tool)],
            n => look.detailed(tool, n == 3),
        };
        let chosen = focused && Some(i) == selected;
        for row in &mut rows {
            *row = search::mark(std::mem::take(row), selection.search.as_deref(), chosen);
        }
        lines.extend(rows);
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// How rows are drawn: the time, the width, the name column, and whether
/// any tool has a breaker or a bulkhead (without, their columns are left
/// out).
struct Look {
    now: u64,
    width: usize,
    shielded: bool,
    name_w: usize,
}

impl Look {
    /// One row: the columns that fit, in order of what matters most, and a
    /// sparkline in what is left.
    fn compact(&self, tool: &ToolHealth) -> Line<'static> {
        let mut columns = vec![vec![Span::styled(
            pad(&tool.name, self.name_w),
            theme::bold(),
        )]];
        if self.shielded {
            columns.push(vec![Span::raw(" "), badge(tool.breaker.as_ref(), self.now)]);
            columns.push(vec![Span::raw(" "), failures(tool.breaker.as_ref())]);
            columns.push(bulkhead(tool.bulkhead.as_ref(), false));
        }
        columns.push(vec![Span::raw(" "), error_rate(tool, self.now)]);
        columns.push(vec![Span::raw(" "), latencies(tool)]);
        columns.push(vec![Span::styled(
            format!(" calls {}", tool.calls),
            theme::dim(),
        )]);
        columns.push(vec![Span::styled(
            format!(" retries {}", tool.retries),
            theme::dim(),
        )]);
        let mut line = fill(columns, self.width);
        let used = line.width();
        let room = self.width.saturating_sub(used + 1).min(24);
        if room >= 4 {
            line.push_span(Span::raw(" "));
            line.push_span(sparkline(tool, self.now, room));
        }
        line
    }

    /// Two rows: the breaker and bulkhead, then the traffic; with `wide`, a
    /// third: calls per second over as many seconds as fit.
    fn detailed(&self, tool: &ToolHealth, wide: bool) -> Vec<Line<'static>> {
        let mut head = vec![vec![Span::styled(
            pad(&tool.name, self.name_w),
            theme::bold(),
        )]];
        if self.shielded {
            head.push(vec![Span::raw(" "), badge(tool.breaker.as_ref(), self.now)]);
            head.push(vec![Span::raw(" "), failures(tool.breaker.as_ref())]);
            let used: usize = head.iter().flatten().map(Span::width).sum();
            let in_words = bulkhead(tool.bulkhead.as_ref(), true);
            let wide_enough = used + in_words.iter().map(Span::width).sum::<usize>() <= self.width;
            head.push(if wide_enough {
                in_words
            } else {
                bulkhead(tool.bulkhead.as_ref(), false)
            });
            if let Some(b) = tool.breaker.as_ref().filter(|b| b.opened > 0) {
                head.push(vec![Span::styled(
                    format!("  opened {}×", b.opened),
                    theme::dim(),
                )]);
            }
        } else {
            head.push(vec![Span::raw(" "), error_rate(tool, self.now)]);
            head.push(vec![Span::raw(" "), latencies(tool)]);
        }
        let mut traffic = vec![
            vec![Span::raw(format!("  calls {}", tool.calls))],
            vec![Span::styled(
                format!("  retries {}", tool.retries),
                theme::dim(),
            )],
            vec![Span::styled(
                format!("  failed fast {}", tool.rejected),
                if tool.rejected > 0 {
                    theme::error()
                } else {
                    theme::dim()
                },
            )],
        ];
        if self.shielded {
            traffic.push(vec![Span::raw("  "), error_rate(tool, self.now)]);
            traffic.push(vec![Span::raw("  "), latencies(tool)]);
        }
        let mut second = fill(traffic, self.width);
        if !wide {
            let room = self.width.saturating_sub(second.width() + 2).min(30);
            if room >= 4 {
                second.push_span(Span::raw("  "));
                second.push_span(sparkline(tool, self.now, room));
            }
            return vec![fill(head, self.width), second];
        }
        let label = "  calls/s ";
        let room = self.width.saturating_sub(label.len()).min(90);
        let spark = Line::from(vec![
            Span::styled(label, theme::dim()),
            sparkline(tool, self.now, room),
        ]);
        vec![fill(head, self.width), second, spark]
    }
}

/// The columns that fit in `width`, in order; the first always.
fn fill(columns: Vec<Vec<Span<'static>>>, width: usize) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for (i, column) in columns.into_iter().enumerate() {
        let w: usize = column.iter().map(Span::width).sum();
        if i > 0 && used + w > width {
            break;
        }
        used += w;
        spans.extend(column);
    }
    Line::from(spans)
}

/// The breaker's state as a badge of `BADGE` columns.
fn badge(breaker: Option<&BreakerView>, now: u64) -> Span<'static> {
    let Some(b) = breaker else {
        return Span::styled(pad("no breaker", BADGE), theme::dim());
    };
    if b.off {
        return Span::styled(pad("BREAKER OFF", BADGE), theme::dim());
    }
    let text = match b.state {
        BreakerState::Closed => "● CLOSED".to_string(),
        BreakerState::Open => {
            let left = (b.since_ms + b.open_for_ms).saturating_sub(now);
            if left == 0 {
                "● OPEN probe due".to_string()
            } else {
                format!("● OPEN {}", seconds(left))
            }
        }
        BreakerState::HalfOpen => format!("◐ HALF-OPEN {}/{}", b.probes_used, b.probes),
    };
    let style = theme::breaker(b.state);
    let style = if b.state == BreakerState::Closed {
        style
    } else {
        style.add_modifier(Modifier::BOLD)
    };
    Span::styled(pad(&text, BADGE), style)
}

/// Consecutive failures against the threshold (or the failure share
/// against the rate threshold).
fn failures(breaker: Option<&BreakerView>) -> Span<'static> {
    let Some(b) = breaker.filter(|b| !b.off) else {
        return Span::styled(pad("", FAILURES), theme::dim());
    };
    let text = match (b.threshold, b.failure_rate) {
        (Some(threshold), _) => format!("{}/{threshold}", b.failures),
        (None, Some(rate)) => {
            let share = if b.window.is_empty() {
                0.0
            } else {
                b.window.iter().filter(|f| **f).count() as f64 / b.window.len() as f64
            };
            format!("{:.0}%/{:.0}%", share * 100.0, rate.threshold * 100.0)
        }
        (None, None) => String::new(),
    };
    let style = if b.failures > 0 {
        Style::default().fg(theme::CAUTION)
    } else {
        theme::dim()
    };
    Span::styled(pad(&text, FAILURES), style)
}

/// In-flight of max as a gauge, with queued and rejected calls.
fn bulkhead(bulkhead: Option<&BulkheadView>, words: bool) -> Vec<Span<'static>> {
    let Some(b) = bulkhead else {
        return vec![Span::styled(pad(" no bulkhead", 17), theme::dim())];
    };
    if b.off {
        return vec![Span::styled(pad(" bulkhead off", 17), theme::dim())];
    }
    const GAUGE: usize = 6;
    let filled = if b.max == 0 {
        GAUGE
    } else {
        ((b.in_flight.min(b.max) as usize * GAUGE) as f64 / b.max as f64).round() as usize
    };
    let full = b.in_flight >= b.max;
    let colour = if full {
        theme::BLOCK
    } else if b.in_flight * 2 >= b.max {
        theme::CAUTION
    } else {
        theme::GO
    };
    let mut spans = vec![
        Span::raw(if words { " bulkhead " } else { " " }),
        Span::styled(bar(filled, GAUGE), Style::default().fg(colour)),
        Span::raw(format!(" {}/{}", b.in_flight, b.max)),
    ];
    let (queued, rejected) = if words {
        (
            format!(" queued {}", b.queued),
            format!(" rejected {}", b.rejected),
        )
    } else {
        (format!(" q{}", b.queued), format!(" ✗{}", b.rejected))
    };
    spans.push(Span::styled(
        queued,
        if b.queued > 0 {
            Style::default().fg(theme::CAUTION)
        } else {
            theme::dim()
        },
    ));
    spans.push(Span::styled(
        rejected,
        if b.rejected > 0 {
            theme::error()
        } else {
            theme::dim()
        },
    ));
    spans
}

fn error_rate(tool: &ToolHealth, now: u64) -> Span<'static> {
    match tool.error_rate(now) {
        None => Span::styled("err    —", theme::dim()),
        Some(rate) => {
            let style = if rate >= 0.5 {
                theme::error()
            } else if rate > 0.0 {
                Style::default().fg(theme::CAUTION)
            } else {
                Style::default().fg(theme::GO)
            };
            Span::styled(format!("err {:>3.0}%", rate * 100.0), style)
        }
    }
}

fn latencies(tool: &ToolHealth) -> Span<'static> {
    match (tool.latency(50), tool.latency(95)) {
        (Some(p50), Some(p95)) => Span::raw(format!("p50 {} p95 {}", millis(p50), millis(p95))),
        _ => Span::styled("p50 — p95 —", theme::dim()),
    }
}

/// Calls per second over the run's last seconds (at most `width`), scaled
/// to the busiest; a gap is a second without calls.
fn sparkline(tool: &ToolHealth, now: u64, width: usize) -> Span<'static> {
    let seconds = usize::try_from(now / 1000 + 1)
        .unwrap_or(usize::MAX)
        .min(width);
    let counts = tool.calls_per_second(now, seconds);
    let peak = counts.iter().copied().max().unwrap_or(0);
    let bars: String = counts
        .iter()
        .map(|c| match (*c, peak) {
            (0, _) | (_, 0) => ' ',
            (c, peak) => {
                let level = (c as usize * SPARKS.len()).div_ceil(peak as usize);
                SPARKS[level.clamp(1, SPARKS.len()) - 1]
            }
        })
        .collect();
    Span::styled(bars, Style::default().fg(theme::ACCENT))
}
