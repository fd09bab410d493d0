//! The result: the pattern's headline (the final decision, the health, the
//! grounded answer, who answered), the stop reason and phase, the pattern's
//! tally, and the brief or answer; while the run is live, what it is doing.

use crate::bus::RunStatus;
use crate::tui::keymap::PaneId;
use crate::tui::patterns::unit::PatternUnit;
use crate::tui::state::{Activity, RunState};
use crate::tui::text::fit;
use crate::tui::theme;
use crate::tui::widgets::block;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

/// `unit` is the run's pattern's; `scroll` how far the pane is scrolled.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    state: &RunState,
    unit: &dyn PatternUnit,
    scroll: u16,
    focused: bool,
) {
    let block = block(PaneId::Result, "Result", focused);
    let fold = &state.pattern;
    let lines = match &state.outcome {
        Some(outcome) => {
            let mut lines = vec![unit.headline(fold, outcome)];
            let reason_style = match outcome.status {
                RunStatus::Ok => Style::default().fg(theme::GO),
                RunStatus::Stopped => theme::error(),
            };
            lines.push(Line::from(vec![
                Span::styled("stop reason ", theme::dim()),
                Span::styled(fit(&outcome.stop_reason.to_string(), 200), reason_style),
            ]));
            if let Some(phase) = &outcome.phase {
                lines.push(Line::from(vec![
                    Span::styled("phase       ", theme::dim()),
                    Span::raw(fit(phase, 200)),
                ]));
            }
            if let Some(error) = &outcome.error {
                lines.push(Line::from(vec![
                    Span::styled("model error ", theme::dim()),
                    Span::styled(fit(error, 400), theme::error()),
                ]));
            }
            lines.extend(unit.tally(fold, outcome));
            if let Some(answer) = &outcome.summary.answer {
                lines.push(Line::raw(""));
                lines.push(Line::raw(fit(answer, 20_000)));
            }
            lines.extend(unit.after_answer(fold));
            lines
        }
        None => {
            let doing = match &state.activity {
                Activity::Starting => "Starting…".to_string(),
                Activity::Paused { gate } => format!(
                    "Paused {gate}. space resumes, s runs one {}.",
                    unit.gate_word()
                ),
                Activity::Running | Activity::Finished => {
                    unit.doing(fold, state.calling.as_deref())
                }
            };
            vec![
                Line::styled(doing, theme::dim()),
                Line::raw(""),
                Line::styled(unit.later(), theme::dim()),
            ]
        }
    };
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0)),
        area,
    );
}
