//! Snapshots of the research pane and the screen around it, drawn into
//! ratatui's TestBackend from real runs of the shipped research scenarios
//! on the virtual clock: mid-run (one page read, the next being read),
//! finished with an answer, and stopped without a reliable source.

use crate::common;
use conclave::patterns::events::PatternEvent;

use conclave::bus::{Event, EventKind};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::ResearchEvent;
use conclave::patterns::events::ResearchPhase;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::keymap::{Action, PaneId};
use conclave::tui::panes;
use conclave::tui::patterns::research::state::{Research, SourceStatus, StepState};
use conclave::tui::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use std::sync::Arc;

const PAYMENTS: &str = "payments_incident_research.json";
const LOCKED: &str = "payments_research_locked_down.json";

fn app_with(events: &[Arc<Event>]) -> App {
    let mut app = App::new(AppOptions::default());
    app.add_from_events(events, Some("scenarios/test.json".into()))
        .expect("events start with run_started");
    app
}

async fn full_run(file: &str) -> Vec<Arc<Event>> {
    let (_, events) = common::run(common::shipped(file), LaunchOptions::default()).await;
    events.into_iter().map(Arc::new).collect()
}

/// The payments run as it reads the vendor's page: the status page read
/// with its note, the vendor allowed and its read in flight.
async fn mid_run() -> Vec<Arc<Event>> {
    let events = full_run(PAYMENTS).await;
    let allowed = events
        .iter()
        .position(
            |e| matches!(&e.kind, EventKind::Pattern(PatternEvent::Research(ResearchEvent::SourceAllowed(a))) if a.domain == "vendor.example.com"),
        )
        .unwrap();
    let cut = allowed
        + events[allowed..]
            .iter()
            .position(|e| matches!(&e.kind, EventKind::CallStarted { .. }))
            .unwrap();
    events[..=cut].to_vec()
}

fn screen(app: &App, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| view::draw(frame, app)).unwrap();
    terminal.backend().buffer().clone()
}

fn text(buffer: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let mut line = String::new();
        for x in 0..buffer.area.width {
            line.push_str(buffer[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn snap_screens(name: &str, app: &App) {
    for (width, height) in [(80, 24), (160, 48)] {
        insta::assert_snapshot!(
            format!("{name}_{width}x{height}"),
            text(&screen(app, width, height))
        );
    }
}

fn pane(app: &App, width: u16, height: u16) -> Buffer {
    let run = app.run().unwrap().view();
    let focused = app.focus == PaneId::Pattern;
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|f| {
            let area = f.area();
            panes::pattern::draw(f, area, run.unit, run.state, run.ui, run.now_ms, focused)
        })
        .unwrap();
    terminal.backend().buffer().clone()
}

/// The first cell of the first place `word` is on screen (every symbol
/// here is one column wide).
fn cell_of<'b>(buffer: &'b Buffer, word: &str) -> &'b ratatui::buffer::Cell {
    let text = text(buffer);
    let (row, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(word))
        .unwrap_or_else(|| panic!("no {word:?} on screen"));
    let column = line[..line.find(word).unwrap()].chars().count();
    &buffer[(u16::try_from(column).unwrap(), u16::try_from(row).unwrap())]
}

fn colour_of(buffer: &Buffer, word: &str) -> Color {
    cell_of(buffer, word).fg
}

#[tokio::test(start_paused = true)]
async fn the_research_pane_mid_run() {
    let app = app_with(&mid_run().await);
    let research: &Research = app.run().unwrap().state.pattern.get().unwrap();
    assert_eq!(research.current, Some(ResearchPhase::ReadExtract));
    assert_eq!(
        research.step(ResearchPhase::ReadExtract),
        &StepState::Running
    );
    assert!(matches!(research.sources[1].status, SourceStatus::Allowed));
    snap_screens("research_mid_run", &app);
    let buffer = pane(&app, 96, 16);
    insta::assert_snapshot!("pane_research_mid_run", text(&buffer));
    assert_eq!(colour_of(&buffer, "✓ dedupe"), Color::Green);
    assert_eq!(
        cell_of(&buffer, "● read").bg,
        Color::Cyan,
        "the current step is highlighted"
    );
    assert!(text(&buffer).contains("reading…"), "the vendor's page");
}

#[tokio::test(start_paused = true)]
async fn the_research_pane_finished_resolves_the_selected_citation() {
    let mut app = app_with(&full_run(PAYMENTS).await);
    snap_screens("research_finished", &app);
    app.update(Action::Focus(2));
    app.update(Action::Down);
    let buffer = pane(&app, 110, 18);
    let shown = text(&buffer);
    insta::assert_snapshot!("pane_research_finished", shown);
    assert!(
        shown.contains(
            "n2 → https://vendor.example.com/policies/enterprise-sla · Enterprise SLA · 2026-01-15"
        ),
        "{shown}"
    );
    assert_eq!(colour_of(&buffer, "✗ regulator"), Color::Red);
    let run = app.run().unwrap().view();
    let mut terminal = Terminal::new(TestBackend::new(70, 16)).unwrap();
    terminal
        .draw(|f| {
            let area = f.area();
            panes::result::draw(f, area, &run, run.ui.result_scroll, false)
        })
        .unwrap();
    insta::assert_snapshot!(
        "pane_result_research_finished",
        text(terminal.backend().buffer())
    );
}

#[tokio::test(start_paused = true)]
async fn a_locked_down_run_shows_each_denial_and_no_answer() {
    let app = app_with(&full_run(LOCKED).await);
    snap_screens("research_no_reliable_sources", &app);
    let shown = text(&pane(&app, 110, 18));
    assert!(
        shown.contains("source_denied_execution (flag vendor_reads off)"),
        "{shown}"
    );
    assert!(
        shown.contains("No answer: no_reliable_sources at read_extract"),
        "{shown}"
    );
}

#[tokio::test(start_paused = true)]
async fn no_size_overflows_or_panics() {
    for events in [mid_run().await, full_run(LOCKED).await] {
        let app = app_with(&events);
        for (width, height) in [(1, 1), (20, 5), (40, 10), (79, 23), (200, 60), (5, 100)] {
            let buffer = screen(&app, width, height);
            assert_eq!(buffer.area, Rect::new(0, 0, width, height));
            let _ = pane(&app, width, height);
        }
    }
}
