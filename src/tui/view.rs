//! Drawing the whole screen from the app: the layout, the panes of the
//! selected run, and the open overlay on top, in the chosen theme. Reads,
//! never changes.

use super::app::App;
use super::keymap::PaneId;
use super::layout::Areas;
use super::overlays;
use super::panes::{self, resilience};
use super::slot::RunView;
use super::theme;
use super::view_state::Overlay;
use crate::tui::overlays::steer::SteerDialog;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

pub fn draw(frame: &mut Frame, app: &App) {
    let screen = frame.area();
    let areas = app.areas(screen);
    let run = app.run().map(|slot| slot.view());
    let warnings = app
        .watching
        .as_ref()
        .map(super::watching::Watching::warnings)
        .unwrap_or_default();
    panes::attention::draw(
        frame,
        areas.attention,
        &panes::attention::needing(&app.runs),
        &warnings,
    );
    let steer = app
        .steered()
        .map(|(_, view)| overlays::steer::steer_line(view));
    panes::header::draw(frame, areas.header, run.as_ref(), steer);
    panes::run_list::draw(
        frame,
        areas.runs,
        &app.runs,
        focused(app, PaneId::Runs),
        app.runs_search.as_deref(),
    );
    match &run {
        Some(run) => draw_run_panes(frame, app, &areas, run),
        None => draw_no_runs(frame, screen, &areas, app),
    }
    if let Some(run) = &run
        && let Some(replay) = run.replay
    {
        let jump = match &app.overlay {
            Some(Overlay::Jump(text)) => Some(text.as_str()),
            _ => None,
        };
        let word = run.unit.gate_word();
        panes::timeline::draw(frame, areas.timeline, replay, word, run.now_ms, jump);
    }
    panes::footer::draw(frame, areas.footer, app);
    // A replay shows the question to a person while the run waited for
    // the answer, and the answer where it stands on it; after that the
    // pattern's pane and the Result pane show it, as they did live.
    let on_answer = |run: &RunView| {
        run.state
            .log
            .events
            .back()
            .is_some_and(|e| matches!(e.kind, crate::bus::EventKind::HumanDecided { .. }))
    };
    if let Some(run) = &run
        && run.replay.is_some()
        && app.overlay.is_none()
        && let Some(asked) = run
            .state
            .asked
            .as_ref()
            .filter(|e| e.waiting() || on_answer(run))
    {
        let width = overlays::decide::inner_width(screen);
        let context = run.unit.question_lines(&run.state.pattern, width);
        overlays::decide::draw_record(frame, screen, asked, context);
    }

    draw_overlay(frame, app, run.as_ref(), screen, &areas);
    app.options.theme.apply(frame.buffer_mut());
}

/// Whether `pane` takes the keys: focused, with no overlay over it.
fn focused(app: &App, pane: PaneId) -> bool {
    app.overlay.is_none() && app.focus == pane
}

/// The selected run's pattern, resilience, event log and Result panes.
fn draw_run_panes(frame: &mut Frame, app: &App, areas: &Areas, run: &RunView) {
    let (state, ui) = (run.state, run.ui);
    panes::pattern::draw(
        frame,
        areas.pattern,
        run.unit,
        state,
        ui,
        run.now_ms,
        focused(app, PaneId::Pattern),
    );
    resilience::draw(
        frame,
        areas.resilience,
        &state.resilience,
        &ui.gateway_tools,
        run.scenario.resilience.is_some(),
        run.now_ms,
        focused(app, PaneId::Resilience),
    );
    let filter_input = match &app.overlay {
        Some(Overlay::Filter(text)) => Some(text.as_str()),
        _ => None,
    };
    panes::event_log::draw(
        frame,
        areas.log,
        state,
        &ui.log,
        focused(app, PaneId::Log) || filter_input.is_some(),
        filter_input,
    );
    panes::result::draw(
        frame,
        areas.result,
        run,
        ui.result_scroll,
        focused(app, PaneId::Result),
    );
}

/// Where the run panes would be, the keys that start one (or, watching,
/// where the watch listens).
fn draw_no_runs(frame: &mut Frame, screen: Rect, areas: &Areas, app: &App) {
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
    let said = match &app.watching {
        Some(watching) => format!(
            "  Waiting for the first span: {} (? for help, q to quit).",
            watching.listening
        ),
        None => "  No runs yet. Press n to pick a scenario, ? for help, q to quit.".to_string(),
    };
    frame.render_widget(
        Paragraph::new(vec![Line::raw(""), Line::styled(said, theme::dim())]),
        body,
    );
}

/// The open overlay, over the panes.
fn draw_overlay(frame: &mut Frame, app: &App, run: Option<&RunView>, screen: Rect, areas: &Areas) {
    match &app.overlay {
        Some(Overlay::Help { scroll }) => overlays::help::draw(frame, screen, app, *scroll),
        Some(Overlay::Flags { selected }) => {
            if let Some(run) = run {
                overlays::flags::draw(
                    frame,
                    screen,
                    &run.state.flags,
                    run.ui,
                    run.state.is_live(),
                    *selected,
                );
            }
        }
        Some(Overlay::Picker(picker)) => {
            overlays::picker::draw(frame, above(screen, areas.footer), &app.catalog, picker)
        }
        Some(Overlay::Goal(editor)) => overlays::goal::draw(frame, screen, editor),
        Some(Overlay::Details(details)) => overlays::details::draw(frame, screen, details),
        Some(Overlay::Quit { .. }) => overlays::quit::draw(frame, screen, &app.runs, &app.held()),
        Some(Overlay::StopProgram { run }) => {
            overlays::stop_program::draw(frame, screen, app, *run)
        }
        Some(Overlay::Compare { comparison, scroll }) => {
            super::compare::draw(frame, above(screen, areas.footer), comparison, *scroll)
        }
        Some(Overlay::Export(prompt)) => {
            if let Some(Overlay::Compare { comparison, scroll }) = &prompt.under {
                super::compare::draw(frame, above(screen, areas.footer), comparison, *scroll);
            }
            overlays::write::draw(frame, screen, prompt);
        }
        Some(Overlay::Trust(prompt)) => {
            let source = prompt.launch.source.as_deref();
            let name = source.unwrap_or(&prompt.launch.scenario.name);
            overlays::trust::draw(frame, screen, name, &prompt.consent, &prompt.changes)
        }
        Some(Overlay::Decide(prompt)) => {
            let slot = app.runs.iter().find(|slot| slot.state.run == prompt.run);
            if let Some(slot) = slot
                && let Some(asked) = &slot.state.asked
            {
                let width = overlays::decide::inner_width(screen);
                let context = slot.unit.question_lines(&slot.state.pattern, width);
                overlays::decide::draw(frame, screen, asked, context, prompt);
            }
        }
        Some(Overlay::Sweep) => {
            if let Some(sweep) = &app.sweep {
                super::sweep::view::draw(frame, above(screen, areas.footer), sweep);
            }
        }
        Some(Overlay::Fork(prompt)) => overlays::fork::draw(frame, screen, prompt),
        Some(Overlay::ProgramFork(prompt)) => overlays::program_fork::draw(frame, screen, prompt),
        Some(Overlay::Steer(SteerDialog::Break { name, .. })) => {
            let breaks = app.watching.as_ref().map(|w| w.breaks.clone());
            overlays::steer::draw_breaks(frame, screen, &breaks.unwrap_or_default(), name);
        }
        Some(Overlay::Steer(dialog)) => {
            let view = app.watching.as_ref().and_then(|w| w.view(dialog.trace()));
            if let Some(view) = view {
                overlays::steer::draw(frame, screen, view, dialog);
            }
        }
        Some(Overlay::Filter(_) | Overlay::Jump(_) | Overlay::Search { .. }) | None => {}
    }
}

/// The screen above the footer, so that its keys and notices stay in view.
fn above(screen: Rect, footer: Rect) -> Rect {
    Rect {
        height: screen.height.saturating_sub(footer.height),
        ..screen
    }
}
