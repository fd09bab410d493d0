//! Snapshots of the chain pane drawn into ratatui's TestBackend: a support
//! desk's accepted chain (mid-run, the holder against its node timeout, and
//! finished), a ping-pong whose transfers the loop window refuses, and a
//! coordinator with three members called side by side. The states come from
//! real runs of the shipped scenarios on the virtual clock.

use crate::common;
use conclave::patterns::events::PatternEvent;

use conclave::bus::{CallOutcome, Event, EventKind};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::TeamEvent;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::keymap::Action;
use conclave::tui::panes;
use conclave::tui::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;
use std::sync::Arc;

async fn full_run(file: &str, flags: Vec<(String, bool)>) -> Vec<Arc<Event>> {
    let (_, events) = common::run(
        common::shipped(file),
        LaunchOptions {
            flags,
            ..LaunchOptions::default()
        },
    )
    .await;
    events.into_iter().map(Arc::new).collect()
}

/// The events up to and including the first one `test` picks.
fn until(events: &[Arc<Event>], test: impl Fn(&EventKind) -> bool) -> Vec<Arc<Event>> {
    let cut = events
        .iter()
        .position(|e| test(&e.kind))
        .expect("the run has such an event");
    events[..=cut].to_vec()
}

fn app_with(events: &[Arc<Event>]) -> App {
    let mut app = App::new(AppOptions::default());
    app.add_from_events(events, Some("scenarios/test.json".into()))
        .expect("events start with run_started");
    app
}

fn text(buffer: &Buffer) -> String {
    let area = buffer.area;
    let mut out = String::new();
    for y in 0..area.height {
        let mut line = String::new();
        for x in 0..area.width {
            line.push_str(buffer[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn chain_pane(app: &App, width: u16, height: u16) -> Buffer {
    let run = app.run().unwrap().view();
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| {
            let area = frame.area();
            panes::pattern::draw(frame, area, run.unit, run.state, run.ui, run.now_ms, false)
        })
        .unwrap();
    terminal.backend().buffer().clone()
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| view::draw(frame, app)).unwrap();
    text(terminal.backend().buffer())
}

/// The cell of the first occurrence of `word` on the buffer.
fn find(buffer: &Buffer, word: &str) -> (u16, u16) {
    let rows = text(buffer);
    for (y, line) in rows.lines().enumerate() {
        if let Some(byte) = line.find(word) {
            let x = line[..byte].chars().count();
            return (x as u16, y as u16);
        }
    }
    panic!("{word:?} is not on screen:\n{rows}")
}

#[tokio::test(start_paused = true)]
async fn an_accepted_chain_grows_left_to_right() {
    let events = full_run("support_swarm.json", vec![]).await;
    // Refunds holds control: the refund API call is in flight.
    let mid = until(
        &events,
        |k| matches!(k, EventKind::CallStarted { tool, .. } if tool == "refund_api"),
    );
    let app = app_with(&mid);
    let buffer = chain_pane(&app, 90, 10);
    insta::assert_snapshot!("chain_support_mid_run", text(&buffer));
    let (x, y) = find(&buffer, "refunds");
    assert_eq!(
        buffer[(x, y)].bg,
        Color::Cyan,
        "the holder is highlighted while the run is live"
    );

    let app = app_with(&events);
    let buffer = chain_pane(&app, 90, 10);
    insta::assert_snapshot!("chain_support_finished", text(&buffer));
    let (x, y) = find(&buffer, "refunds");
    assert_eq!(buffer[(x, y)].bg, Color::Green, "the final agent replied");
    insta::assert_snapshot!("screen_support_finished_80x24", screen(&app, 80, 24));
    insta::assert_snapshot!("screen_support_finished_160x48", screen(&app, 160, 48));
}

#[tokio::test(start_paused = true)]
async fn a_ping_pong_shows_its_refused_transfers_as_dead_ends() {
    let events = full_run("pingpong_swarm.json", vec![]).await;
    let app = app_with(&events);
    let buffer = chain_pane(&app, 90, 12);
    insta::assert_snapshot!("chain_pingpong_finished", text(&buffer));
    let (x, y) = find(&buffer, "repetitive_handoff");
    assert_eq!(buffer[(x, y)].fg, Color::Red);
    let (x, y) = find(&buffer, "2 distinct");
    assert_eq!(buffer[(x, y)].fg, Color::Red, "fewer than the minimum");
}

#[tokio::test(start_paused = true)]
async fn a_coordinator_calls_three_members_side_by_side() {
    let events = full_run("launch_coordinator.json", vec![]).await;
    // The market analyst has answered; risk and legal are still running.
    let mid = until(
        &events,
        |k| matches!(k, EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallFinished { member, outcome: CallOutcome::Ok, .. })) if member == "market_analyst"),
    );
    let mut app = app_with(&mid);
    let buffer = chain_pane(&app, 100, 10);
    insta::assert_snapshot!("chain_coordinator_three_members", text(&buffer));
    let (_, market_y) = find(&buffer, "market_analyst");
    let (_, risk_y) = find(&buffer, "risk_analyst");
    let (_, legal_y) = find(&buffer, "legal_reviewer");
    assert!(
        market_y == risk_y && risk_y == legal_y,
        "the three members sit side by side"
    );
    insta::assert_snapshot!("screen_coordinator_mid_run_80x24", screen(&app, 80, 24));

    // Enter on the pattern pane opens the selected member call: while
    // the pane follows, the first member still running.
    app.update(Action::Focus(2));
    app.update(Action::Details);
    let shown = screen(&app, 100, 30);
    assert!(shown.contains("\"member\": \"risk_analyst\""), "{shown}");
    app.update(Action::Close);
    app.update(Action::Down);
    app.update(Action::Details);
    let shown = screen(&app, 100, 30);
    assert!(shown.contains("\"member\": \"legal_reviewer\""), "{shown}");

    let app = app_with(&events);
    insta::assert_snapshot!(
        "chain_coordinator_finished",
        text(&chain_pane(&app, 100, 10))
    );
}

#[tokio::test(start_paused = true)]
async fn live_a_turns_tool_call_and_a_transfers_message_show_as_they_happen() {
    let events = full_run("support_swarm.json", Vec::new()).await;
    // Right after billing's invoice lookup, before billing hands on.
    let after_lookup = until(
        &events,
        |k| matches!(k, EventKind::Pattern(PatternEvent::Team(TeamEvent::ToolUsed { tool, .. })) if tool == "invoice_lookup"),
    );
    let app = app_with(&after_lookup);
    let pane = text(&chain_pane(&app, 120, 16));
    assert!(
        pane.contains(r#"billing called invoice_lookup {"order_id":"A-1042"} → "#),
        "the call with what it asked:\n{pane}"
    );
    assert!(pane.contains("ch_2"), "and what came back:\n{pane}");
    assert!(
        pane.contains("«Possible duplicate charge on order A-1042.»"),
        "triage's transfer with the message it handed over:\n{pane}"
    );
    let used = after_lookup
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::ToolUsed {
                args, result, ..
            })) => Some((args.clone(), result.clone())),
            _ => None,
        })
        .unwrap();
    assert_eq!(used.0, r#"{"order_id":"A-1042"}"#);
    assert!(used.1.chars().count() <= conclave::patterns::events::TURN_TEXT_CHARS + 1);
}
