//! The outcome first and whole answers, on real runs of the shipped
//! scenarios on the virtual clock: a partial run says PARTIAL and names its
//! degraded tool in the result and the header; a cut answer says there is
//! more and is read whole scrolled to its end or zoomed; the scroll stops
//! at the last row; every screen size draws; NO_COLOR keeps the selection.

use crate::common;

use conclave::bus::Event;
use conclave::engine::LaunchOptions;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::keymap::{Action, PaneId};
use conclave::tui::theme::{Theme, ThemeName};
use conclave::tui::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use std::sync::Arc;

async fn full_run(file: &str) -> Vec<Arc<Event>> {
    let (_, events) = common::run(common::shipped(file), LaunchOptions::default()).await;
    events.into_iter().map(Arc::new).collect()
}

fn app_with(events: &[Arc<Event>], options: AppOptions, width: u16, height: u16) -> App {
    let mut app = App::new(options);
    app.add_from_events(events, Some("scenarios/test.json".into()))
        .expect("events start with run_started");
    // What the loop records after each frame: scrolling measures against it.
    app.screen = Rect::new(0, 0, width, height);
    app
}

fn screen(app: &App) -> Buffer {
    let mut terminal =
        Terminal::new(TestBackend::new(app.screen.width, app.screen.height)).unwrap();
    terminal.draw(|frame| view::draw(frame, app)).unwrap();
    terminal.backend().buffer().clone()
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

/// The text inside the result pane's border, row by row.
fn result_rows(app: &App) -> Vec<String> {
    let area = app.areas(app.screen).result;
    let buffer = screen(app);
    (area.y + 1..area.bottom().saturating_sub(1))
        .map(|y| {
            (area.x + 1..area.right().saturating_sub(1))
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect()
}

/// The answer's words as the result pane shows them, read row by row
/// while scrolling from the top to the end.
fn scroll_through(app: &mut App) -> String {
    app.update(Action::Focus(4));
    app.update(Action::Top);
    let mut seen: Vec<String> = Vec::new();
    let mut last = None;
    loop {
        let rows = result_rows(app);
        if last.as_ref() == Some(&rows) {
            break;
        }
        seen.push(rows[0].clone());
        last = Some(rows);
        app.update(Action::Down);
    }
    seen.extend(last.unwrap().into_iter().skip(1));
    seen.join(" ")
}

fn words(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

#[tokio::test(start_paused = true)]
async fn a_partial_run_says_partial_and_names_the_degraded_tool() {
    let events = full_run("vendor_outage.json").await;
    let app = app_with(&events, AppOptions::default(), 100, 30);
    let drawn = text(&screen(&app));
    insta::assert_snapshot!("vendor_outage_finished_100x30", drawn);
    let result = result_rows(&app).join("\n");
    assert!(
        result.starts_with("HEALTH GREEN · PARTIAL"),
        "the outcome leads:\n{result}"
    );
    assert!(result.contains("degraded    enrichment_worker"), "{result}");
    let header: Vec<&str> = drawn.lines().take(2).collect();
    assert!(header[0].contains(" PARTIAL "), "the badge: {header:?}");
    assert!(
        header[1].contains("stop: success · PARTIAL · 15 tasks failed"),
        "{header:?}"
    );
    assert!(!drawn.contains("FINISHED"), "{drawn}");
}

/// Each long answer at 80×24: cut with a mark, then read whole.
#[tokio::test(start_paused = true)]
async fn long_answers_at_80x24_say_there_is_more_and_read_whole() {
    for (name, file) in [
        ("support_swarm", "support_swarm.json"),
        ("launch_coordinator", "launch_coordinator.json"),
        ("morning_ops_report", "morning_ops_report.json"),
    ] {
        let events = full_run(file).await;
        let answer = conclave::tui::state::RunState::from_events(1, &events)
            .outcome
            .and_then(|o| o.summary.answer().map(str::to_string))
            .expect("the run answers");
        let mut app = app_with(&events, AppOptions::default(), 80, 24);
        app.update(Action::Focus(4));
        let cut = text(&screen(&app));
        assert!(
            cut.contains("…more"),
            "{name}: the cut view says so:\n{cut}"
        );
        insta::assert_snapshot!(format!("{name}_cut_80x24"), cut);

        // Scrolled to its end, the last row of the answer is the last row
        // of the pane, and no key scrolls further.
        app.update(Action::Follow);
        let end = text(&screen(&app));
        insta::assert_snapshot!(format!("{name}_scrolled_to_end_80x24"), end);
        assert!(!end.contains("…more"), "{name}: at the end:\n{end}");
        let rows = result_rows(&app);
        assert!(
            !rows.last().unwrap().is_empty(),
            "{name}: no blank page: {rows:?}"
        );
        app.update(Action::Down);
        assert_eq!(
            result_rows(&app),
            rows,
            "{name}: the scroll stops at the end"
        );
        app.update(Action::PageDown);
        assert_eq!(result_rows(&app), rows, "{name}: a page too");

        // Read row by row from the top, the pane holds the whole answer.
        let read = scroll_through(&mut app);
        let wanted = words(&answer);
        let read = words(&read);
        assert!(
            read.windows(wanted.len()).any(|w| w == wanted.as_slice()),
            "{name}: the whole answer {wanted:?} in {read:?}"
        );

        // Zoomed, the answer fits whole on one screen.
        app.update(Action::Top);
        app.update(Action::Zoom);
        let zoomed = text(&screen(&app));
        insta::assert_snapshot!(format!("{name}_zoomed_80x24"), zoomed);
        let shown = words(&result_rows(&app).join(" ")).join(" ");
        assert!(
            shown.contains(&wanted.join(" ")),
            "{name}: zoomed:\n{zoomed}"
        );
        assert!(zoomed.starts_with(" CONCLAVE"), "the header stays");
        assert!(
            zoomed.lines().last().unwrap().starts_with(" G end"),
            "the footer stays:\n{zoomed}"
        );
        app.update(Action::Unzoom);
        assert_eq!(text(&screen(&app)), cut, "{name}: Esc unzooms");
    }
}

#[tokio::test(start_paused = true)]
async fn z_zooms_the_focused_pane_and_back() {
    let events = full_run("support_swarm.json").await;
    let mut app = app_with(&events, AppOptions::default(), 80, 24);
    let normal = app.areas(app.screen);
    app.update(Action::Focus(3));
    app.update(Action::Zoom);
    let zoomed = app.areas(app.screen);
    assert_eq!(zoomed.log, Rect::new(0, 2, 80, 21));
    assert_eq!(zoomed.pattern.area(), 0);
    assert_eq!(zoomed.header, normal.header);
    assert_eq!(zoomed.footer, normal.footer);
    // The zoom follows the focus.
    app.update(Action::Focus(2));
    assert_eq!(app.areas(app.screen).pattern, zoomed.log);
    app.update(Action::Zoom);
    assert_eq!(app.areas(app.screen), normal);
    // The runs bar does not zoom.
    app.update(Action::Focus(1));
    app.update(Action::Zoom);
    assert!(!app.zoomed);
    assert_eq!(app.notice.as_deref(), Some("the runs bar does not zoom"));
}

#[tokio::test(start_paused = true)]
async fn every_size_draws_whole_and_zoomed() {
    let finished = full_run("vendor_outage.json").await;
    let mid = finished[..finished.len() / 2].to_vec();
    let coordinator = full_run("launch_coordinator.json").await;
    let widths = (20..=300u16).step_by(23).chain([20, 79, 80, 119, 120, 300]);
    let sizes: Vec<(u16, u16)> = widths
        .flat_map(|w| {
            (5..=100u16)
                .step_by(19)
                .chain([5, 24, 100])
                .map(move |h| (w, h))
        })
        .collect();
    for events in [&finished, &mid, &coordinator] {
        // Folded once, then resized as a terminal is.
        let mut app = app_with(events, AppOptions::default(), 80, 24);
        for &(width, height) in &sizes {
            app.screen = Rect::new(0, 0, width, height);
            for (pane, number) in [
                (PaneId::Pattern, "[2]"),
                (PaneId::Log, "[3]"),
                (PaneId::Result, "[4]"),
                (PaneId::Resilience, "[5]"),
            ] {
                app.focus = pane;
                app.zoomed = false;
                panes_apart(&app, width, height);
                screen(&app);
                app.update(Action::Follow);
                app.zoomed = true;
                panes_apart(&app, width, height);
                // Zoomed, the focused pane is the one on screen, title and
                // all, wherever there is room for a title.
                if width >= 30 && height >= 8 {
                    let zoomed = text(&screen(&app));
                    assert!(
                        zoomed.contains(number),
                        "{pane:?} zoomed at {width}x{height}:\n{zoomed}"
                    );
                } else {
                    screen(&app);
                }
            }
        }
    }
}

/// The app's panes at `width` × `height` lie within the screen and do not
/// overlap.
fn panes_apart(app: &App, width: u16, height: u16) {
    let screen = Rect::new(0, 0, width, height);
    let areas = app.areas(screen);
    let named = [
        ("header", areas.header),
        ("pattern", areas.pattern),
        ("log", areas.log),
        ("result", areas.result),
        ("footer", areas.footer),
    ];
    for (i, (name, area)) in named.iter().enumerate() {
        assert_eq!(
            screen.union(*area),
            screen,
            "{name} {area:?} within {width}x{height}"
        );
        for (other, next) in &named[i + 1..] {
            assert!(
                area.is_empty() || next.is_empty() || !area.intersects(*next),
                "{name} {area:?} and {other} {next:?} overlap at {width}x{height}"
            );
        }
    }
}

#[tokio::test(start_paused = true)]
async fn no_color_keeps_the_selection_reversed_and_the_focus_bold() {
    let events = full_run("vendor_outage.json").await;
    let options = AppOptions {
        theme: Theme {
            name: ThemeName::Default,
            no_color: true,
        },
        ..AppOptions::default()
    };
    let mut app = app_with(&events, options, 100, 30);
    app.update(Action::Focus(2));
    app.update(Action::Down);
    let buffer = screen(&app);
    for cell in &buffer.content {
        assert_eq!(cell.fg, Color::Reset, "no colour under NO_COLOR");
        assert_eq!(cell.bg, Color::Reset, "no colour under NO_COLOR");
    }
    let pattern = app.areas(app.screen).pattern;
    let selected_row = (pattern.y + 1..pattern.bottom()).find(|&y| {
        buffer[(pattern.x + 1, y)]
            .modifier
            .contains(Modifier::REVERSED)
    });
    assert!(
        selected_row.is_some(),
        "the selected task stays in reverse video:\n{}",
        text(&buffer)
    );
    assert!(
        buffer[(pattern.x, pattern.y)]
            .modifier
            .contains(Modifier::BOLD),
        "the focused pane's border stays bold"
    );
    let log = app.areas(app.screen).log;
    assert!(!buffer[(log.x, log.y)].modifier.contains(Modifier::BOLD));
}

#[tokio::test(start_paused = true)]
async fn a_deadlocked_table_says_no_consensus_and_leads_to_no_next_round() {
    let events = full_run("loyalty_program_deadlock.json").await;
    let app = app_with(&events, AppOptions::default(), 160, 48);
    let drawn = text(&screen(&app));
    insta::assert_snapshot!("loyalty_deadlock_160x48", drawn);
    let result = result_rows(&app).join(" ");
    assert!(result.starts_with("NO DECISION"), "{result}");
    assert!(
        words(&result)
            .join(" ")
            .contains("stopped no consensus after 3 rounds · max_rounds_reached"),
        "{result}"
    );
    let decisions = drawn
        .lines()
        .find(|l| l.contains("│decision"))
        .expect("the decision row");
    assert_eq!(decisions.matches("→ next").count(), 2, "{decisions}");
    assert!(decisions.contains("✗ none"), "the last round: {decisions}");
}
