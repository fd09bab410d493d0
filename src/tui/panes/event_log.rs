//! The event log: one line per event, newest at the bottom. It follows new
//! events until scrolled up (`G` follows again), filters with `/`, and says
//! how many events this view missed if it ever fell behind.

use crate::bus::EventKind;
use crate::bus::describe::{clock, describe, kind_name};
use crate::tui::keymap::PaneId;
use crate::tui::patterns;
use crate::tui::state::RunState;
use crate::tui::text::fit;
use crate::tui::theme;
use crate::tui::view_state::LogView;
use crate::tui::widgets::block;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// `filter_input` is the filter being typed, when the filter line is open.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    state: &RunState,
    view: &LogView,
    focused: bool,
    filter_input: Option<&str>,
) {
    let mut title = format!("Event log · {}", view.count(state));
    if let Some(filter) = &view.filter {
        title.push_str(&format!(" matching \"{}\"", fit(filter, 20)));
    }
    title.push_str(if view.follows() {
        " · following"
    } else {
        " · scrolled, G follows"
    });
    let mut block = block(PaneId::Log, &title, focused);
    if state.missed > 0 {
        block = block.title(Span::styled(
            format!(" {} missed ", state.missed),
            theme::error(),
        ));
    }
    if state.log.dropped > 0 {
        block = block.title(Span::styled(
            format!(" {} older in the recording ", state.log.dropped),
            theme::dim(),
        ));
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let input_rows = u16::from(filter_input.is_some());
    let rows = usize::from(inner.height.saturating_sub(input_rows));
    let width = usize::from(inner.width);
    let mut lines: Vec<Line> = view
        .window(state, rows)
        .into_iter()
        .filter_map(|i| state.log.events.get(i))
        .map(|event| {
            let name = kind_name(&event.kind);
            let head = format!("{} #{:<4} ", clock(event.t_ms), event.seq);
            let rest = width.saturating_sub(head.chars().count() + name.len() + 1);
            Line::from(vec![
                Span::styled(head, theme::dim()),
                Span::styled(name, kind_style(&event.kind)),
                Span::raw(" "),
                Span::raw(fit(&describe(&event.kind), rest)),
            ])
        })
        .collect();
    if !view.follows()
        && let Some(last) = lines.last_mut()
    {
        *last = std::mem::take(last).patch_style(theme::selected());
    }
    if let Some(input) = filter_input {
        while lines.len() < rows {
            lines.push(Line::raw(""));
        }
        lines.push(Line::from(vec![
            Span::styled("/", Style::default().fg(theme::ACCENT)),
            Span::raw(fit(input, width.saturating_sub(2))),
            Span::styled("▏", Style::default().fg(theme::ACCENT)),
        ]));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn kind_style(kind: &EventKind) -> Style {
    match kind {
        EventKind::Pattern(event) => patterns::log_style(event),
        EventKind::RunStarted(_) | EventKind::RunFinished { .. } => {
            Style::default().fg(theme::ACCENT)
        }
        EventKind::RetryScheduled { .. }
        | EventKind::CallRepair { .. }
        | EventKind::OutputModeChanged { .. }
        | EventKind::RequestAdapted { .. } => Style::default().fg(theme::CAUTION),
        EventKind::CallRejected { .. } => theme::error(),
        EventKind::FallbackServed { .. } => Style::default().fg(theme::CAUTION),
        EventKind::BreakerTransition { to, .. } => theme::breaker(*to),
        EventKind::HumanDecided { .. } => Style::default().fg(theme::CAUTION),
        EventKind::Paused { .. }
        | EventKind::Resumed { .. }
        | EventKind::Stepped { .. }
        | EventKind::Steered { .. } => Style::default().fg(theme::CAUTION),
        EventKind::ProgramOutput { stderr: true, .. } => Style::default().fg(theme::CAUTION),
        EventKind::ProgramOutput { stderr: false, .. } => Style::default(),
        EventKind::FlagChanged { .. } | EventKind::WentLive { .. } => {
            Style::default().fg(Color::Magenta)
        }
        EventKind::BudgetConsumed { .. }
        | EventKind::CallStarted { .. }
        | EventKind::CallDelta { .. }
        | EventKind::CallFinished { .. }
        | EventKind::AttemptStarted { .. }
        | EventKind::AttemptFinished { .. }
        | EventKind::Bulkhead { .. }
        | EventKind::ToolsDescribed { .. }
        | EventKind::SpanArrived { .. } => theme::dim(),
    }
}
