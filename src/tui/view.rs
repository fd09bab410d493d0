//! Drawing the whole screen from the app: the layout, the panes of the
//! selected run, and the open overlay on top. Reads, never changes.

use super::app::App;
use super::keymap::PaneId;
use super::layout::Areas;
use super::overlays;
use super::panes::{self, chain, research, resilience, round_table, workers};
use super::runs::RunSlot;
use super::theme;
use super::view_state::Overlay;
use crate::scenario::PatternKind;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

/// The areas of the screen for the app's selected run.
pub fn areas(app: &App, screen: Rect) -> Areas {
    let wanted = app.run().map_or(10, |slot| match slot.scenario.pattern {
        PatternKind::Orchestrator => workers::wanted_height(&slot.state.workers),
        PatternKind::Swarm | PatternKind::Coordinator => chain::wanted_height(&slot.state.chain),
        PatternKind::Research => research::wanted_height(&slot.state),
        _ => round_table::wanted_height(&slot.state),
    });
    let replaying = app.run().is_some_and(|slot| slot.replay.is_some());
    let strip = app.run().map_or(0, |slot| {
        resilience::wanted_strip_rows(&slot.state.resilience)
    });
    Areas::compute(screen, wanted, strip, replaying)
}

pub fn draw(frame: &mut Frame, app: &App) {
    let screen = frame.area();
    let areas = areas(app, screen);
    panes::header::draw(frame, areas.header, app.run());
    panes::run_list::draw(frame, areas.runs, app);
    let focused = |pane: PaneId| app.overlay.is_none() && app.focus == pane;
    match app.run() {
        Some(slot) => {
            draw_pattern(frame, areas.pattern, slot, focused(PaneId::Pattern));
            resilience::draw(frame, areas.resilience, slot, focused(PaneId::Resilience));
            let filter_input = match &app.overlay {
                Some(Overlay::Filter(text)) => Some(text.as_str()),
                _ => None,
            };
            panes::event_log::draw(
                frame,
                areas.log,
                slot,
                focused(PaneId::Log) || filter_input.is_some(),
                filter_input,
            );
            panes::result::draw(frame, areas.result, slot, focused(PaneId::Result));
        }
        None => {
            let body = Rect {
                y: areas.pattern.y,
                height: areas
                    .result
                    .bottom()
                    .max(areas.log.bottom())
                    .max(areas.resilience.bottom())
                    .saturating_sub(areas.pattern.y),
                ..screen
            };
            frame.render_widget(
                Paragraph::new(vec![
                    Line::raw(""),
                    Line::styled(
                        "  No runs yet. Press n to pick a scenario, ? for help, q to quit.",
                        theme::dim(),
                    ),
                ]),
                body,
            );
        }
    }
    if let Some(slot) = app.run()
        && let Some(replay) = &slot.replay
    {
        let jump = match &app.overlay {
            Some(Overlay::Jump(text)) => Some(text.as_str()),
            _ => None,
        };
        panes::timeline::draw(frame, areas.timeline, slot, replay, jump);
    }
    panes::footer::draw(frame, areas.footer, app);

    match &app.overlay {
        Some(Overlay::Help { scroll }) => overlays::help::draw(frame, screen, app, *scroll),
        Some(Overlay::Flags { selected }) => {
            if let Some(slot) = app.run() {
                overlays::flags::draw(frame, screen, slot, *selected);
            }
        }
        Some(Overlay::Picker { selected }) => {
            overlays::picker::draw(frame, screen, &app.catalog, *selected)
        }
        Some(Overlay::Goal(editor)) => overlays::goal::draw(frame, screen, editor),
        Some(Overlay::Details { scroll, text }) => {
            overlays::details::draw(frame, screen, text, *scroll)
        }
        Some(Overlay::Filter(_) | Overlay::Jump(_)) | None => {}
    }
}

/// The pane of the run's pattern.
fn draw_pattern(frame: &mut Frame, area: Rect, slot: &RunSlot, focused: bool) {
    match slot.scenario.pattern {
        PatternKind::Orchestrator => workers::draw(frame, area, slot, focused),
        PatternKind::Swarm | PatternKind::Coordinator => chain::draw(frame, area, slot, focused),
        PatternKind::Research => research::draw(frame, area, slot, focused),
        _ => round_table::draw(frame, area, slot, focused),
    }
}
