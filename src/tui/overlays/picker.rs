//! The scenario picker: every scenario with its title and pattern, the
//! selected one's description; Enter launches it as a new run.

use super::frame_box;
use crate::tui::catalog::{Entry, Item};
use crate::tui::layout::centered;
use crate::tui::text::{fit, pad};
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

pub(crate) fn draw(frame: &mut Frame, area: Rect, entries: &[Entry], selected: usize) {
    let height = u16::try_from(entries.len() + 12).unwrap_or(u16::MAX);
    let area = centered(area, 96, height);
    let inner = frame_box(
        frame,
        area,
        "New run: pick a scenario or a recording",
        "j/k select · Enter launches · Esc closes · q quits",
    );
    let [list, about] = Layout::vertical([
        Constraint::Length(u16::try_from(entries.len().max(1)).unwrap_or(u16::MAX)),
        Constraint::Min(0),
    ])
    .areas(inner);
    let width = usize::from(inner.width);
    let title_w = width.saturating_sub(18).max(10);
    let mut lines: Vec<Line> = entries
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let pattern = entry.kind();
            let style = match &entry.item {
                Item::Scenario(Ok(_)) => theme::bold(),
                Item::Scenario(Err(_)) => theme::error(),
                Item::Recording(_) => theme::dim(),
            };
            let mut line = Line::from(vec![
                Span::styled(pad(&entry.title(), title_w), style),
                Span::styled(format!("  {}", pad(&pattern, 14)), theme::dim()),
            ]);
            if i == selected {
                line = line.patch_style(theme::selected());
            }
            line
        })
        .collect();
    if entries.is_empty() {
        lines.push(Line::styled("No scenarios found.", theme::dim()));
    }
    frame.render_widget(Paragraph::new(lines), list);

    let about_lines = match entries.get(selected) {
        Some(entry) => match &entry.item {
            Item::Recording(path) => vec![
                Line::raw(""),
                Line::styled(fit(&entry.origin, width), theme::dim()),
                Line::raw(fit(
                    &format!("Replay the run recorded in {}.", path.display()),
                    2000,
                )),
            ],
            Item::Scenario(Ok(scenario)) => vec![
                Line::raw(""),
                Line::styled(fit(&entry.origin, width), theme::dim()),
                Line::raw(fit(
                    scenario
                        .description
                        .as_deref()
                        .unwrap_or("(no description)"),
                    2000,
                )),
            ],
            Item::Scenario(Err(error)) => vec![
                Line::raw(""),
                Line::styled(fit(&entry.origin, width), theme::dim()),
                Line::styled(fit(error, 2000), theme::error()),
            ],
        },
        None => Vec::new(),
    };
    frame.render_widget(
        Paragraph::new(about_lines).wrap(Wrap { trim: false }),
        about,
    );
}
