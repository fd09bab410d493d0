//! Help: every key of the key table, grouped by where it applies, with the
//! reason when a key is unavailable right now.

use super::frame_box;
use crate::tui::app::App;
use crate::tui::keymap::{self, OverlayKind, PaneId, Scope};
use crate::tui::layout::centered;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

const GROUPS: &[(&str, Scope)] = &[
    ("Everywhere", Scope::Everywhere),
    ("Runs [1]", Scope::Pane(PaneId::Runs)),
    ("Pattern pane [2]", Scope::Pane(PaneId::Pattern)),
    ("Event log [3]", Scope::Pane(PaneId::Log)),
    ("Result [4]", Scope::Pane(PaneId::Result)),
    ("Resilience [5]", Scope::Pane(PaneId::Resilience)),
    ("Flags", Scope::Overlay(OverlayKind::Flags)),
    ("Scenario picker", Scope::Overlay(OverlayKind::Picker)),
    ("Details", Scope::Overlay(OverlayKind::Details)),
    ("Search (typing)", Scope::Overlay(OverlayKind::Search)),
    ("Goal editor", Scope::Overlay(OverlayKind::Goal)),
    ("Log filter", Scope::Overlay(OverlayKind::Filter)),
    (
        "Two runs side by side (c)",
        Scope::Overlay(OverlayKind::Compare),
    ),
    ("Writing to a file (w)", Scope::Overlay(OverlayKind::Export)),
    ("Replay (before the panes' keys)", Scope::Replay),
    ("Fork of a replay (x)", Scope::Overlay(OverlayKind::Fork)),
    ("Sweep (S)", Scope::Overlay(OverlayKind::Sweep)),
];

/// Every key of the dashboard, by where it applies (the pattern pane's
/// with those each pattern adds), as `(key, what it does)`: the help
/// overlay's table for the man page's KEYS.
pub fn key_table() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    use crate::tui::keymap::UnitKeys;
    GROUPS
        .iter()
        .map(|(title, scope)| {
            let mut scopes = vec![*scope];
            if *scope == Scope::Pane(PaneId::Pattern) {
                scopes.extend([
                    Scope::Unit(UnitKeys::RoundTable),
                    Scope::Unit(UnitKeys::Workers),
                    Scope::Unit(UnitKeys::Members),
                ]);
            }
            let keys = keymap::bindings_in(&scopes)
                .map(|binding| (binding.label, binding.help))
                .collect();
            (*title, keys)
        })
        .collect()
}

pub(crate) fn draw(frame: &mut Frame, area: Rect, app: &App, scroll: u16) {
    let area = centered(area, 72, 40);
    let inner = frame_box(
        frame,
        area,
        "Keys",
        "Esc closes · j/k scroll · mouse wheel scrolls panes",
    );
    let mut lines = Vec::new();
    for (title, scope) in GROUPS {
        lines.push(Line::styled(*title, theme::bold()));
        // The pattern pane's keys with those the run's pattern adds.
        let mut scopes = vec![*scope];
        if *scope == Scope::Pane(PaneId::Pattern)
            && let Some(keys) = app.run().and_then(|slot| slot.unit.keys(&slot.scenario))
        {
            scopes.push(keys);
        }
        for binding in keymap::bindings_in(&scopes) {
            let why = if *scope == Scope::Everywhere {
                app.unavailable(binding.action)
            } else {
                None
            };
            let mut spans = vec![
                Span::styled(
                    format!("  {:<7}", binding.label),
                    Style::default().fg(theme::ACCENT),
                ),
                Span::raw(binding.help),
            ];
            if let Some(why) = why {
                spans.push(Span::styled(
                    format!("  (unavailable: {why})"),
                    theme::dim(),
                ));
            }
            lines.push(Line::from(spans));
        }
        lines.push(Line::raw(""));
    }
    frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), inner);
}
