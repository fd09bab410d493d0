//! Help: every key of the key table, grouped by where it applies, with the
//! reason when a key is unavailable right now.

use super::frame_box;
use crate::tui::app::App;
use crate::tui::keymap::{self, OverlayKind, PaneId, Scope};
use crate::tui::layout::centered;
use crate::tui::theme;
use crate::tui::wrap::wrap;
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
    ("A person's answer (d)", Scope::Overlay(OverlayKind::Decide)),
    ("Sweep (S)", Scope::Overlay(OverlayKind::Sweep)),
    (
        "A watched run's hook (conclave watch, docs/steer.md)",
        Scope::WatchSteer,
    ),
    (
        "Stopping a watched run (x)",
        Scope::Overlay(OverlayKind::StopRun),
    ),
    (
        "A watch's breakpoints (b)",
        Scope::Overlay(OverlayKind::Break),
    ),
    (
        "Stopping a launched program (x)",
        Scope::Overlay(OverlayKind::StopProgram),
    ),
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
                    Scope::Unit(UnitKeys::Graph),
                ]);
            }
            let keys = keymap::bindings_in(&scopes)
                .map(|binding| (binding.label, binding.help))
                .collect();
            (*title, keys)
        })
        .collect()
}

/// The help box on `screen`: as wide as its longest line wants, up to
/// the screen, and as tall as the screen allows.
fn area_on(screen: Rect) -> Rect {
    centered(screen, 110, 40)
}

/// `line` wrapped to `width` with its first span (a key's label) as a
/// hanging indent: the rows after the first start under the help's words,
/// not at column 0.
fn hanging(line: &Line<'static>, width: usize) -> Vec<Line<'static>> {
    let label = line.spans.first().map_or(0, |s| s.width());
    if line.spans.len() < 2 || label + 8 > width {
        return wrap(std::slice::from_ref(line), width);
    }
    let words = Line::from(line.spans[1..].to_vec());
    wrap(&[words], width - label)
        .into_iter()
        .enumerate()
        .map(|(i, mut row)| {
            let lead = if i == 0 {
                line.spans[0].clone()
            } else {
                Span::raw(" ".repeat(label))
            };
            row.spans.insert(0, lead);
            row
        })
        .collect()
}

/// Every line of help for `app` now, unwrapped.
fn lines(app: &App) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let watched = app.run().is_some_and(crate::tui::slot::RunSlot::is_watched);
    for (title, scope) in GROUPS {
        // For a watched run, the dialogs it cannot open and a replay's
        // keys outside a replay are not listed either.
        if watched && !group_applies(app, *scope) {
            continue;
        }
        let heading = lines.len();
        lines.push(Line::styled(*title, theme::bold()));
        // The pattern pane's keys with those the run's pattern adds.
        let mut scopes = vec![*scope];
        if *scope == Scope::Pane(PaneId::Pattern)
            && let Some(keys) = app.run().and_then(|slot| slot.unit.keys(&slot.scenario))
        {
            scopes.push(keys);
        }
        for binding in keymap::bindings_in(&scopes) {
            let why = if matches!(scope, Scope::Everywhere | Scope::WatchSteer) || watched {
                app.unavailable(binding.action)
            } else {
                None
            };
            // A watched run is another framework's: what cannot be done
            // to it is not listed; nor is a key a replay takes first.
            if (watched && why.is_some()) || shadowed_in_replay(app, *scope, binding) {
                continue;
            }
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
        // A heading with no key under it is not shown.
        if lines.len() == heading + 1 {
            lines.truncate(heading);
            continue;
        }
        lines.push(Line::raw(""));
    }
    lines
}

/// Whether every key of `binding` (outside a replay's own group) is taken
/// by the replay on screen before the panes' and the global keys.
fn shadowed_in_replay(app: &App, scope: Scope, binding: &keymap::Binding) -> bool {
    !matches!(scope, Scope::Replay | Scope::Overlay(_))
        && !binding.keys.is_empty()
        && app.run().is_some_and(|r| r.replay.is_some())
        && binding.keys.iter().all(|key| {
            let event = crossterm::event::KeyEvent::new(key.code, key.mods);
            keymap::lookup(Scope::Replay, &event).is_some()
        })
}

/// Whether the keys of `scope` can act on the run on screen: a dialog's
/// when the key that opens it can, a replay's in a replay.
fn group_applies(app: &App, scope: Scope) -> bool {
    use crate::tui::keymap::Action;
    let opened_by = match scope {
        Scope::Replay => return app.run().is_some_and(|r| r.replay.is_some()),
        Scope::Overlay(OverlayKind::Flags) => Action::Flags,
        Scope::Overlay(OverlayKind::Picker) => Action::NewRun,
        Scope::Overlay(OverlayKind::Goal) => Action::EditGoal,
        Scope::Overlay(OverlayKind::Compare) => Action::Compare,
        Scope::Overlay(OverlayKind::Export) => Action::Write,
        Scope::Overlay(OverlayKind::Fork) => Action::Fork,
        Scope::Overlay(OverlayKind::Decide) => Action::Decide,
        Scope::Overlay(OverlayKind::Sweep) => Action::Sweep,
        Scope::Overlay(OverlayKind::StopRun | OverlayKind::StopProgram) => Action::StopRun,
        Scope::Overlay(OverlayKind::Break) => Action::Break,
        _ => return true,
    };
    app.unavailable(opened_by).is_none()
}

/// The help's rows wrapped to the box on `screen`, and how many of them
/// the box shows.
fn wrapped(app: &App, screen: Rect) -> (Vec<Line<'static>>, u16) {
    let area = area_on(screen);
    // The box's border on each side.
    let width = usize::from(area.width.saturating_sub(2));
    let rows = lines(app)
        .iter()
        .flat_map(|line| hanging(line, width))
        .collect();
    (rows, area.height.saturating_sub(2))
}

/// The furthest the help scrolls on `screen`: its last line at the
/// bottom of the box.
pub(crate) fn max_scroll(app: &App, screen: Rect) -> u16 {
    let (rows, shown) = wrapped(app, screen);
    u16::try_from(rows.len())
        .unwrap_or(u16::MAX)
        .saturating_sub(shown)
}

pub(crate) fn draw(frame: &mut Frame, screen: Rect, app: &App, scroll: u16) {
    let (rows, shown) = wrapped(app, screen);
    let total = u16::try_from(rows.len()).unwrap_or(u16::MAX);
    let scroll = scroll.min(total.saturating_sub(shown));
    let below = total.saturating_sub(scroll + shown);
    let hint = if below > 0 {
        format!("Esc closes · j/k, PgUp/PgDn scroll · {below} more lines below")
    } else {
        "Esc closes · j/k, PgUp/PgDn scroll · mouse wheel scrolls panes".to_string()
    };
    let inner = frame_box(frame, area_on(screen), "Keys", &hint);
    frame.render_widget(Paragraph::new(rows).scroll((scroll, 0)), inner);
}

#[cfg(test)]
mod hanging_tests {
    use super::*;

    #[test]
    fn a_wrapped_entry_continues_under_its_words_not_at_column_0() {
        let line = Line::from(vec![
            Span::raw(format!("  {:<7}", "Enter")),
            Span::raw("the node's activations; on a team node that ran, its team's own pane"),
        ]);
        let rows = hanging(&line, 40);
        assert!(rows.len() > 1, "{rows:?}");
        let text = |row: &Line| {
            row.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        };
        assert!(
            text(&rows[0]).starts_with("  Enter  the node's"),
            "{rows:?}"
        );
        for row in &rows[1..] {
            let text = text(row);
            assert!(
                text.starts_with("         ") && !text[9..].starts_with(' '),
                "{text:?}"
            );
            assert!(text.chars().count() <= 40, "{text:?}");
        }
    }

    #[test]
    fn the_graph_the_fork_and_a_persons_answer_say_their_keys() {
        let table = key_table();
        let helps = |group: &str| -> Vec<&str> {
            table
                .iter()
                .filter(|(title, _)| title.starts_with(group))
                .flat_map(|(_, keys)| keys.iter().map(|(_, help)| *help))
                .collect()
        };
        let graph = helps("Pattern pane").join(" | ");
        assert!(
            graph.contains("its team's own pane (←/→ its visits, Esc back to the graph)"),
            "{graph}"
        );
        assert!(graph.contains("scroll the edges explained"), "{graph}");
        let fork = helps("Fork").join(" | ");
        assert!(
            fork.contains("on the goal, model or edit row: type it"),
            "{fork}"
        );
        let answer = helps("A person's answer").join(" | ");
        assert!(
            answer.contains("previous answer") && answer.contains("a note"),
            "{answer}"
        );
    }
}

#[cfg(test)]
mod watched_replay_tests {
    use super::*;
    use std::sync::Arc;

    fn text(line: &Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    /// A watched run's replay lists each key once, the replay's own `r`
    /// rather than the shadowed restart, and no heading without keys.
    #[test]
    fn a_watched_replays_help_lists_r_once_and_no_empty_heading() {
        let (events, _) = crate::watch::translate::tests::told("pydantic_ai").remove(0);
        let events = events.into_iter().map(Arc::new).collect();
        let app = crate::tui::app::fork_tests::replaying(events);
        let rows = lines(&app);
        let r_rows: Vec<String> = rows
            .iter()
            .map(text)
            .filter(|t| t.starts_with("  r "))
            .collect();
        assert_eq!(r_rows.len(), 1, "{r_rows:?}");
        assert!(r_rows[0].contains("replay from the start"), "{r_rows:?}");
        for pair in rows.windows(2) {
            let heading = !text(&pair[0]).starts_with(' ') && !text(&pair[0]).is_empty();
            assert!(
                !(heading && text(&pair[1]).is_empty()),
                "a heading with no keys: {:?}",
                text(&pair[0])
            );
        }
        let last_heading = rows.iter().rev().map(text).find(|t| !t.is_empty()).unwrap();
        assert!(last_heading.starts_with("  "), "ends on {last_heading:?}");
    }
}
