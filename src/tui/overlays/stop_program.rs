//! The question before stopping a program launched here: which run, what
//! a stop sends to its process group, and the keys that answer.

use super::frame_box;
use crate::bus::RunId;
use crate::tui::app::App;
use crate::tui::layout::centered;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

pub(crate) fn draw(frame: &mut Frame, screen: Rect, app: &App, run: RunId) {
    let name = app
        .runs
        .iter()
        .find(|slot| slot.state.run == run)
        .map(|slot| slot.scenario.name.clone())
        .unwrap_or_default();
    let area = centered(screen, 60, 9);
    let inner = frame_box(
        frame,
        area,
        "Stop the program?",
        "y stops · any other key keeps it",
    );
    let width = usize::from(inner.width);
    let lines = vec![
        Line::styled(fit(&format!("▶ {run} {name}"), width), theme::bold()),
        Line::raw(
            "Its process group gets SIGINT, then SIGTERM and SIGKILL after its grace \
             (stop_grace_ms): nothing it started is left running.",
        ),
        Line::raw(""),
        Line::from(vec![
            Span::styled("y", Style::default().fg(theme::ACCENT)),
            Span::raw(" stop   "),
            Span::styled("any other key", Style::default().fg(theme::ACCENT)),
            Span::raw(" keep it running"),
        ]),
    ];
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), inner);
}
