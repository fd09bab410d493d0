//! Flags: every flag of the run with its description and state; Enter or
//! space toggles it live, from the run's next gate.

use super::frame_box;
use crate::tui::layout::centered;
use crate::tui::state::FlagView;
use crate::tui::text::fit;
use crate::tui::theme;
use crate::tui::view_state::RunUi;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

/// `ui` holds the flag changes not yet applied; `live` whether the run
/// can still apply them.
pub(crate) fn draw(
    frame: &mut Frame,
    area: Rect,
    flags: &[FlagView],
    ui: &RunUi,
    live: bool,
    selected: usize,
) {
    let height = u16::try_from(flags.len() * 3 + 4).unwrap_or(u16::MAX);
    let area = centered(area, 76, height);
    let inner = frame_box(frame, area, "Flags", "Enter/space toggles · Esc closes");
    let width = usize::from(inner.width);
    let mut lines = Vec::new();
    for (i, flag) in flags.iter().enumerate() {
        let pending = ui.pending_flag(&flag.name);
        let shown = pending.unwrap_or(flag.on);
        let state = if shown { "[on ]" } else { "[off]" };
        let mut spans = vec![
            Span::styled(
                format!("{state} "),
                Style::default().fg(if shown { theme::GO } else { theme::BLOCK }),
            ),
            Span::styled(fit(&flag.name, width.saturating_sub(30)), theme::bold()),
        ];
        if pending.is_some() {
            let when = if live {
                "  (applies at the next gate)"
            } else {
                "  (on restart)"
            };
            spans.push(Span::styled(when, Style::default().fg(theme::CAUTION)));
        }
        let mut line = Line::from(spans);
        if i == selected {
            line = line.patch_style(theme::selected());
        }
        lines.push(line);
        let description = flag.description.as_deref().unwrap_or("(no description)");
        lines.push(Line::styled(
            format!("      {}", fit(description, 400)),
            theme::dim(),
        ));
        lines.push(Line::raw(""));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
