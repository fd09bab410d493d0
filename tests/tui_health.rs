//! The resilience pane's honest health, from real runs on the virtual
//! clock: refusals count as failed calls, the sickest tool leads the list
//! at every moment of an outage, the selected tool's chart over the run,
//! and breaker moves marked on the replay's timeline.

use crate::common;

use conclave::bus::{BreakerState, Event, EventKind};
use conclave::engine::LaunchOptions;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::keymap::Action;
use conclave::tui::state::RunState;
use conclave::tui::{panes, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use std::io::Write;
use std::sync::Arc;

async fn shipped_run(file: &str) -> Vec<Arc<Event>> {
    let (_, events) = common::run(common::shipped(file), LaunchOptions::default()).await;
    events.into_iter().map(Arc::new).collect()
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
        let line: String = (0..area.width).map(|x| buffer[(x, y)].symbol()).collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| view::draw(frame, app)).unwrap();
    text(terminal.backend().buffer())
}

/// The selected run's resilience pane alone.
fn pane(app: &App, width: u16, height: u16) -> String {
    let run = app.run().unwrap().view();
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| {
            panes::resilience::draw(
                frame,
                frame.area(),
                &run.state.resilience,
                &run.ui.gateway_tools,
                run.scenario.resilience.is_some(),
                run.now_ms,
                false,
            )
        })
        .unwrap();
    text(terminal.backend().buffer())
}

/// The first tool row under the resilience pane's title on a screen.
fn first_tool(screen: &str) -> String {
    let mut lines = screen.lines().skip_while(|l| !l.contains("[5] Resilience"));
    lines.next();
    let row = lines.next().unwrap_or_default();
    row.trim_start_matches(['│', '▲', '▼', ' '])
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(start_paused = true)]
async fn slow_dependency_counts_the_refused_searches_as_failed() {
    let events = shipped_run("slow_dependency.json").await;
    let state = RunState::from_events(1, &events);
    let search = state
        .resilience
        .tools
        .iter()
        .find(|t| t.name == "search_worker")
        .unwrap();
    let refused = events
        .iter()
        .filter(
            |e| matches!(&e.kind, EventKind::CallRejected { tool, .. } if tool == "search_worker"),
        )
        .count();
    assert_eq!(
        (search.calls, search.failures),
        (2, 0),
        "two searches ran, and answered"
    );
    assert_eq!(
        (refused, search.rejected),
        (4, 4),
        "four the bulkhead refused"
    );
    let end = events.last().unwrap().t_ms;
    assert_eq!(search.error_rate(end), Some(4.0 / 6.0));

    let app = app_with(&events);
    let strip = screen(&app, 100, 30);
    assert_eq!(first_tool(&strip), "search_worker", "{strip}");
    assert!(strip.contains("err  67%"), "{strip}");
    insta::assert_snapshot!("slow_dependency_finished_100x30", strip);
}

#[tokio::test(start_paused = true)]
async fn in_the_vendor_outage_the_enrichment_worker_leads_from_its_first_failure_to_the_end() {
    let events = shipped_run("vendor_outage.json").await;
    let first_failure = events
        .iter()
        .position(|e| {
            matches!(&e.kind, EventKind::CallFinished { tool, outcome, .. }
                if tool == "enrichment_worker" && *outcome != conclave::bus::CallOutcome::Ok)
        })
        .unwrap();
    // The rows are ranked once a second of run time: from the first
    // ranking after the failure on, it leads.
    let ranked = events[first_failure].t_ms + 1000;
    let from = events.iter().position(|e| e.t_ms >= ranked).unwrap();
    for end in (from..=events.len()).step_by(7).chain([events.len()]) {
        let app = app_with(&events[..end]);
        let strip = screen(&app, 100, 30);
        assert_eq!(
            first_tool(&strip),
            "enrichment_worker",
            "after event {end} of {}:\n{strip}",
            events.len()
        );
    }
    let mut app = app_with(&events);
    insta::assert_snapshot!("vendor_outage_finished_100x30", screen(&app, 100, 30));

    // Zoomed (5, z), the strip becomes the whole pane, chart included.
    app.update(Action::Focus(5));
    app.update(Action::Zoom);
    let zoomed = screen(&app, 100, 30);
    assert_eq!(first_tool(&zoomed), "enrichment_worker", "{zoomed}");
    assert!(
        zoomed.contains("enrichment_worker · run 0–9.9s"),
        "{zoomed}"
    );
    assert!(zoomed.contains("errors  100% ┤"), "{zoomed}");
}

#[tokio::test(start_paused = true)]
async fn the_chart_shows_the_outage_over_the_run() {
    let events = shipped_run("vendor_outage.json").await;
    let mut app = app_with(&events);
    let chart = pane(&app, 100, 24);
    insta::assert_snapshot!("chart_vendor_outage_finished", chart);
    let lines: Vec<&str> = chart.lines().collect();
    let title = lines
        .iter()
        .position(|l| l.contains("enrichment_worker · run 0–9.9s"));
    let title = title.unwrap_or_else(|| panic!("the first tool's chart:\n{chart}"));
    assert!(lines[title].contains("breaker opened 3×"), "{chart}");
    assert!(lines[title].contains("timeout 2000ms") || lines[title].contains("timeout 2.0s"));
    let band = lines.iter().find(|l| l.contains("breaker      │")).unwrap();
    let band: String = band.split('│').nth(2).unwrap().to_string();
    let (open, closed) = (band.find('█').unwrap(), band.rfind('─').unwrap());
    assert!(
        band.starts_with('─') && open < closed,
        "closed, open, closed again: {band}"
    );
    assert!(band.contains('▒'), "probing half-open between: {band}");
    // The latency scale's top is the timeout, said as such; the worst p95
    // is in the title.
    assert!(lines[title].contains("p95 up to 696ms"), "{chart}");
    for figure in ["calls/s", "errors  100% ┤", "p95 t/o 2.0s ┤"] {
        assert!(chart.contains(figure), "{figure}:\n{chart}");
    }
    assert!(
        chart.contains("0.0s") && chart.contains("9.9s"),
        "the time axis"
    );

    // Zoomed to a whole small screen, the pane keeps the list and the chart.
    let zoomed = pane(&app, 80, 24);
    insta::assert_snapshot!("pane_zoomed_80x24", zoomed);
    assert!(
        zoomed.contains("│enrichment_worker · run 0–9.9s"),
        "{zoomed}"
    );
    assert!(zoomed.contains("breaker      │─"), "{zoomed}");
    let wide = pane(&app, 200, 60);
    assert!(wide.contains("p95 t/o 2.0s ┤"), "{wide}");

    // Enter opens the tool's health with its score.
    app.update(Action::Focus(5));
    app.update(Action::Details);
    let details = match &app.overlay {
        Some(conclave::tui::view_state::Overlay::Details(details)) => details.text(),
        _ => panic!("Enter opens the tool's details"),
    };
    let tool: serde_json::Value = serde_json::from_str(&details).unwrap();
    assert_eq!(tool["tool"], "enrichment_worker");
    assert_eq!(tool["timeout_ms"], 2000);
    assert!(tool["health"]["score"].as_u64().unwrap() >= 200, "{tool}");
    assert!(["failing", "down"].contains(&tool["health"]["band"].as_str().unwrap()));
    app.update(Action::Close);

    // Selecting another tool charts it instead.
    app.update(Action::Down);
    let next = pane(&app, 100, 24);
    assert!(!next.contains("enrichment_worker · run"), "{next}");
    assert!(next.contains("│model · run 0–9.9s"), "{next}");
}

#[tokio::test(start_paused = true)]
async fn the_replay_timeline_marks_where_breakers_moved() {
    let events = shipped_run("vendor_outage.json").await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vendor_outage.jsonl");
    let mut file = std::fs::File::create(&path).unwrap();
    for event in &events {
        writeln!(file, "{}", serde_json::to_string(&**event).unwrap()).unwrap();
    }
    drop(file);
    let mut app = App::new(AppOptions::default());
    conclave::tui::world::open_replay(&mut app, &path).unwrap();
    let at_start = screen(&app, 100, 30);
    let timeline = at_start.lines().rev().nth(1).unwrap().to_string();
    assert!(timeline.contains("seq 1/"), "the timeline row: {timeline}");
    // The Result pane says where the replay stands, not what a live run
    // would say (`Running.`), and which keys move it.
    assert!(
        at_start.contains("Replay at event 1 of"),
        "the Result pane:\n{at_start}"
    );
    assert!(at_start.contains("The run was "), "{at_start}");
    assert!(!at_start.contains("│Running"), "{at_start}");
    let opened = events
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::BreakerTransition {
                    to: BreakerState::Open,
                    ..
                }
            )
        })
        .count();
    assert!(opened >= 2);
    assert!(
        timeline.contains('✕'),
        "openings ahead are marked: {timeline}"
    );
    assert!(timeline.contains('✓'), "and the closing: {timeline}");
    let bar: String = timeline
        .chars()
        .skip_while(|c| *c != '✕' && *c != '░')
        .collect();
    assert!(
        bar.find('✕') < bar.find('✓'),
        "opened before it closed: {timeline}"
    );

    let moved = app.playback(Action::End);

    conclave::tui::world::settle(&mut app, moved);
    let at_end = screen(&app, 100, 30);
    let timeline = at_end.lines().rev().nth(1).unwrap();
    assert!(
        timeline.contains('✕') && !timeline.contains('░'),
        "{timeline}"
    );
}
