//! The resilience pane's rows: a tool's name with its trend, its breaker as
//! a coloured badge (CLOSED green, OPEN red with the countdown to
//! half-open, HALF-OPEN yellow with probes used), consecutive failures
//! against the threshold, the bulkhead's in-flight of max as a gauge with
//! queued and rejected calls, calls, retries, the fallbacks an endpoint's
//! refused features caused (never errors), the error rate over the last
//! 10 s (refusals counted), latency p50/p95, for a streamed model the time
//! to the first token and the tokens a second, and a sparkline of its calls
//! over the run. One row per tool where room is short, two or three where
//! there is room. They draw what they are given.

use super::chart::{bars, spark_colour};
use crate::bus::BreakerState;
use crate::tui::state::{BreakerView, BulkheadView, ToolHealth, Trend};
use crate::tui::text::pad;
use crate::tui::theme;
use crate::tui::widgets::{bar, millis, seconds};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

const BADGE: usize = 16;
const FAILURES: usize = 7;

/// How rows are drawn: the time, the width, the name column, and whether
/// any tool has a breaker or a bulkhead (without, their columns are left
/// out).
pub(super) struct Look {
    pub(super) now: u64,
    pub(super) width: usize,
    pub(super) shielded: bool,
    /// The name column, its trend mark included.
    pub(super) name_w: usize,
}

impl Look {
    /// One row: the columns that fit, in order of what matters most, and a
    /// sparkline in what is left.
    pub(super) fn compact(&self, tool: &ToolHealth) -> Line<'static> {
        let mut columns = vec![name(tool, self.name_w)];
        if self.shielded {
            columns.push(vec![Span::raw(" "), badge(tool.breaker.as_ref(), self.now)]);
            columns.push(vec![Span::raw(" "), failures(tool.breaker.as_ref())]);
            columns.push(bulkhead(tool.bulkhead.as_ref(), false));
        }
        // Answers served stale are what a reader of the run must know.
        if tool.stale > 0 {
            columns.push(vec![Span::styled(
                format!(" stale {}", tool.stale),
                Style::default().fg(theme::CAUTION),
            )]);
        }
        if let Some(fallbacks) = fallbacks(tool) {
            columns.push(vec![Span::raw(" "), fallbacks]);
        }
        columns.push(vec![Span::raw(" "), error_rate(tool, self.now)]);
        columns.push(vec![Span::raw(" "), latencies(tool)]);
        if let Some(speed) = streaming(tool) {
            columns.push(vec![Span::raw(" "), speed]);
        }
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
    /// third: calls a second over the run.
    pub(super) fn detailed(&self, tool: &ToolHealth, wide: bool) -> Vec<Line<'static>> {
        let mut head = vec![name(tool, self.name_w)];
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
            if let Some(speed) = streaming(tool) {
                head.push(vec![Span::raw(" · "), speed]);
            }
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
        if tool.stale > 0 {
            traffic.push(vec![Span::styled(
                format!("  stale {}", tool.stale),
                Style::default().fg(theme::CAUTION),
            )]);
        }
        if let Some(fallbacks) = fallbacks(tool) {
            traffic.push(vec![Span::raw("  "), fallbacks]);
        }
        if self.shielded {
            traffic.push(vec![Span::raw("  "), error_rate(tool, self.now)]);
            traffic.push(vec![Span::raw("  "), latencies(tool)]);
            if let Some(speed) = streaming(tool) {
                traffic.push(vec![Span::raw(" · "), speed]);
            }
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

/// The calls the endpoint refused a feature of, asked again another way:
/// `fallback 2`; none without.
fn fallbacks(tool: &ToolHealth) -> Option<Span<'static>> {
    (tool.fallbacks > 0).then(|| {
        Span::styled(
            format!("fallback {}", tool.fallbacks),
            Style::default().fg(theme::ACCENT),
        )
    })
}

fn latencies(tool: &ToolHealth) -> Span<'static> {
    match (tool.latency(50), tool.latency(95)) {
        (Some(p50), Some(p95)) => Span::raw(format!("p50 {} p95 {}", millis(p50), millis(p95))),
        _ => Span::styled("p50 — p95 —", theme::dim()),
    }
}

/// How fast the last streamed answer came: `ttft 420ms · 38 tok/s`.
fn streaming(tool: &ToolHealth) -> Option<Span<'static>> {
    let speed = tool.streaming?;
    let mut text = format!("ttft {}", millis(speed.first_token_ms));
    if let Some(rate) = speed.tokens_per_s {
        text.push_str(&format!(" · {rate:.0} tok/s"));
    }
    Some(Span::styled(text, Style::default().fg(theme::ACCENT)))
}

/// The tool's calls a second over the run so far, in `width` columns
/// scaled to the busiest; a gap is a quiet stretch.
fn sparkline(tool: &ToolHealth, now: u64, width: usize) -> Span<'static> {
    let rates: Vec<f64> = tool
        .history
        .columns(now, width)
        .iter()
        .map(|c| c.calls_per_second())
        .collect();
    let peak = rates.iter().copied().fold(0.0, f64::max);
    let row = bars(&rates, peak, 1).pop().unwrap_or_default();
    Span::styled(row, spark_colour())
}

/// The trend mark since the last ranking (▲ sicker, ▼ better) and the
/// name, `width` columns in all.
fn name(tool: &ToolHealth, width: usize) -> Vec<Span<'static>> {
    let mark = match tool.rank.trend {
        Trend::Sicker => Span::styled("▲", theme::error()),
        Trend::Better => Span::styled("▼", Style::default().fg(theme::GO)),
        Trend::Steady => Span::raw(" "),
    };
    vec![
        mark,
        Span::styled(pad(&tool.name, width.saturating_sub(1)), theme::bold()),
    ]
}
