//! The footer: the keys of the focused pane and the global ones, drawn from
//! the key table, dimmed where unavailable; first what the screen waits
//! on while the loop reads a file, and a notice when there is one.

use crate::tui::app::App;
use crate::tui::keymap::{self, Action, Binding, Scope};
use crate::tui::text::fit;
use crate::tui::theme;
use crate::tui::widgets::parts;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let mut spans = Vec::new();
    if let Some(waiting) = app.waiting_line() {
        spans.push(Span::styled(
            format!(" {} ", fit(&waiting, 80)),
            theme::dim(),
        ));
        spans.push(Span::styled("│", theme::dim()));
    }
    if let Some(notice) = &app.notice {
        spans.push(Span::styled(
            format!(" {} ", fit(notice, 80)),
            Style::default().fg(theme::CAUTION),
        ));
        spans.push(Span::styled("│", theme::dim()));
    }
    if app.watching.as_ref().is_some_and(|w| w.holds_new) {
        spans.push(Span::styled(
            " ⏸ EVERY RUN HELD, new ones from their first gate: P runs all on ",
            theme::bold().fg(theme::CAUTION),
        ));
        spans.push(Span::styled("│", theme::dim()));
    }
    if let Some(watching) = &app.watching {
        spans.push(Span::styled(
            format!(" {} ", fit(&watching.counts(), 96)),
            theme::dim(),
        ));
        spans.push(Span::styled("│", theme::dim()));
    }
    let replaying = app.overlay.is_none() && app.run().is_some_and(|s| s.replay.is_some());
    let mut groups = Vec::new();
    if replaying {
        groups.push(vec![Scope::Replay]);
    }
    match app.overlay.as_ref() {
        Some(overlay) => groups.push(vec![Scope::Overlay(overlay.kind())]),
        // A steered run's keys come first: at any width they are in view.
        None if app.steer_keys() => {
            groups.push(vec![Scope::WatchSteer, Scope::Everywhere]);
            groups.push(app.pane_scopes());
        }
        None => {
            groups.push(app.pane_scopes());
            groups.push(vec![Scope::Everywhere]);
        }
    }
    // A watched run is another framework's: what cannot be done to it
    // is not offered at all.
    let watched = app.run().is_some_and(crate::tui::slot::RunSlot::is_watched);
    let mut keys = Vec::new();
    for group in &groups {
        for binding in keymap::bindings_in(group) {
            // A replay's own keys replace the live run's for the same keys.
            if replaying
                && binding.scope != Scope::Replay
                && keymap::bindings(Scope::Replay)
                    .any(|r| r.keys.iter().any(|k| binding.keys.contains(k)))
            {
                continue;
            }
            // Focus, run switching and paging are listed in help; the
            // footer keeps to what a run's screen needs most.
            if !in_footer(binding) {
                continue;
            }
            let available = app.unavailable(binding.action).is_none();
            // A pane's keys that do not apply to this pattern are left out.
            // So is unzooming while nothing is zoomed, and the sweep's key
            // without a sweep.
            if !available
                && (watched
                    || matches!(binding.scope, Scope::Pane(_) | Scope::Unit(_))
                    || matches!(
                        binding.action,
                        keymap::Action::Unzoom | keymap::Action::Sweep
                    ))
            {
                continue;
            }
            let (key_style, help_style) = if available {
                (Style::default().fg(theme::ACCENT), Style::default())
            } else {
                (theme::dim(), theme::dim())
            };
            keys.push(vec![
                Span::styled(format!(" {}", binding.label), key_style),
                Span::styled(format!(" {}", binding.help), help_style),
            ]);
        }
    }
    // Whole keys only: what does not fit is left out, never cut mid-word.
    let used: usize = spans.iter().map(Span::width).sum();
    let room = usize::from(area.width).saturating_sub(used);
    spans.extend(parts(keys, &Span::raw(""), room).spans);
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Whether the footer lists `binding`: focus, run switching and paging
/// are left to help, and so are a pane's moves up and down and its Esc
/// and the attention jump, so the footer keeps to what a screen needs
/// most (an overlay's keys are all listed: they are all there is).
fn in_footer(binding: &Binding) -> bool {
    // What typing does in a dialog is said by its fields, and in help.
    if binding.label == keymap::TYPING {
        return false;
    }
    // A key taken before every scope's (Ctrl-C) is said in help.
    if binding.keys.is_empty() && binding.scope == Scope::Everywhere {
        return false;
    }
    let pane = matches!(binding.scope, Scope::Pane(_) | Scope::Unit(_));
    match binding.action {
        Action::Focus(_)
        | Action::PrevRun
        | Action::NextRun
        | Action::FocusPrev
        | Action::FocusNext
        | Action::PageUp
        | Action::PageDown
        | Action::Top
        | Action::Bottom
        // The attention line says `E` when there is somewhere to jump.
        | Action::Attend => false,
        Action::Up | Action::Down | Action::Close => !pane,
        _ => true,
    }
}
