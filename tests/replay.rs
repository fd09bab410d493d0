//! Replays: a recording drives the same reducer and panes as the live run,
//! so the last frames match; time travel lands on the same states whichever
//! way it gets there; broken recordings open with what can be read.

use crate::common;
use conclave::bus::{Delivery, EventKind, Hub};
use conclave::patterns::events::{PatternEvent, RoundEvent};
use conclave::record::read_recording;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::keymap::Action;
use conclave::tui::replay::Replay;
use conclave::tui::state::RunState;
use conclave::tui::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The shipped scenarios whose workers are all simulated (those with real
/// workers need `conclave toolbox serve`: `real_examples.rs` runs them).
fn shipped_scenarios() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| conclave::scenario::load(p).is_ok_and(|s| !s.has_real_calls()))
        .collect();
    files.sort();
    files
}

/// Run `scenario` live in the dashboard's app until it finishes; returns
/// the app and the recording it wrote.
async fn live_app(scenario: &Path, runs_dir: &Path) -> (App, PathBuf) {
    let hub = Hub::new(1 << 16);
    let mut bus = hub.subscribe();
    let mut world = conclave::tui::world::World::new(
        hub,
        conclave::tui::world::LaunchSettings {
            runs_dir: Some(runs_dir.to_path_buf()),
            clock: Some(conclave::clock::ClockMode::Virtual),
            ..Default::default()
        },
    );
    let mut app = App::new(AppOptions::default());
    let loaded = std::sync::Arc::new(conclave::scenario::load(scenario).unwrap());
    let effects = app.launch(loaded, Some(scenario.display().to_string()));
    common::carry(&mut world, &mut app, effects);
    while app.run().unwrap().is_live() {
        match bus.next().await {
            // A table that asks a person (loyalty_program_asks_a_person)
            // gets the first answer, as a person at the dialog gives it.
            Delivery::Event(event)
                if matches!(
                    event.kind,
                    EventKind::Pattern(PatternEvent::Round(RoundEvent::EscalatedToHuman { .. }))
                ) =>
            {
                app.apply(event);
                app.update(Action::Down);
                let effects = app.update(Action::Confirm);
                assert!(!effects.is_empty(), "the answer goes to the run");
                common::carry(&mut world, &mut app, effects);
            }
            Delivery::Event(event) => app.apply(event),
            Delivery::Missed(n) => panic!("missed {n}"),
            Delivery::Closed => break,
        }
    }
    for handle in world.take_handles() {
        handle.finish().await.unwrap();
    }
    let recording = app.run().unwrap().recording.clone().unwrap();
    (app, recording)
}

fn frame(app: &App, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| view::draw(f, app)).unwrap();
    terminal.backend().buffer().clone()
}

fn row(buffer: &Buffer, y: u16) -> String {
    (0..buffer.area.width)
        .map(|x| buffer[(x, y)].symbol())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn the_last_frame_of_a_replay_is_the_last_frame_of_the_live_run() {
    let dir = tempfile::tempdir().unwrap();
    for scenario in shipped_scenarios() {
        let (live, recording) = live_app(&scenario, dir.path()).await;
        let mut replay = App::new(AppOptions::default());
        conclave::tui::world::open_replay(&mut replay, &recording).unwrap();
        let moved = replay.playback(Action::End);
        conclave::tui::world::settle(&mut replay, moved);

        // The replay's timeline takes one row: give it one more so that
        // every pane has the live run's size, then compare everything but
        // the first header row (live or replay) and the footer.
        let (width, height) = (160, 48);
        let live_frame = frame(&live, width, height);
        let replay_frame = frame(&replay, width, height + 1);
        for y in 1..height - 1 {
            assert_eq!(
                row(&live_frame, y),
                row(&replay_frame, y),
                "{}: row {y} differs",
                scenario.display()
            );
        }
        assert_eq!(
            live.run().unwrap().state,
            replay.run().unwrap().state,
            "{}",
            scenario.display()
        );
    }
}

#[tokio::test(start_paused = true)]
async fn stepping_back_to_round_1_and_forward_again_lands_where_going_forward_did() {
    let dir = tempfile::tempdir().unwrap();
    for scenario in shipped_scenarios() {
        let (_, path) = live_app(&scenario, dir.path()).await;
        let recording = read_recording(&path).unwrap();
        let all = RunState::from_events(1, &recording.events);
        let (mut replay, _) = Replay::open(recording).unwrap();
        let round_1 = replay.jump_to_unit(1);
        let mut forward = replay.seek(1);
        while !replay.at_end() {
            forward = replay.step_forward();
        }
        assert_eq!(
            forward,
            all,
            "{}: stepping forward reaches the end",
            scenario.display()
        );
        let mut back = forward;
        while replay.unit().0 > 1 {
            back = replay.step_back();
        }
        if replay.unit().1 > 1 {
            assert_eq!(back, round_1, "{}: round 1 either way", scenario.display());
        }
        let mut again = back;
        while !replay.at_end() {
            again = replay.step_forward();
        }
        assert_eq!(again, all, "{}: forward again", scenario.display());
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The lines of a real recording, to break in different ways.
async fn recorded_lines(dir: &Path) -> Vec<String> {
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/checkout_v2_launch.json");
    let (_, path) = live_app(&scenario, dir).await;
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

fn timeline_text(app: &App) -> String {
    let buffer = frame(app, 200, 30);
    (0..buffer.area.height)
        .map(|y| row(&buffer, y))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(start_paused = true)]
async fn broken_recordings_open_with_what_can_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let lines = recorded_lines(dir.path()).await;
    let total = lines.len();

    // A run killed half way: a note says where it ends.
    let cut = write(
        dir.path(),
        "cut.jsonl",
        &(lines[..total / 2].join("\n") + "\n{\"run\":1,\"se"),
    );
    let mut app = App::new(AppOptions::default());
    conclave::tui::world::open_replay(&mut app, &cut).unwrap();
    let moved = app.playback(Action::End);
    conclave::tui::world::settle(&mut app, moved);
    let screen = timeline_text(&app);
    assert!(
        screen.contains(&format!("ends at seq {}, no finish event", total / 2)),
        "{screen}"
    );
    assert!(
        screen.contains("1 unreadable line: "),
        "the torn last line is reported:\n{screen}"
    );
    assert!(
        screen.contains(&format!("cut.jsonl:{}:", total / 2 + 1)),
        "{screen}"
    );

    // A line that is not JSON, an event from a newer version and a gap.
    let mut broken = lines.clone();
    broken[3] = "this is not json".into();
    broken[5] = r#"{"run":1,"seq":6,"t_ms":0,"type":"hologram_projected"}"#.into();
    broken.remove(8);
    let broken = write(dir.path(), "broken.jsonl", &broken.join("\n"));
    let recording = read_recording(&broken).unwrap();
    let problems: Vec<(usize, String)> = recording
        .problems
        .iter()
        .map(|p| (p.line, p.message.clone()))
        .collect();
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert_eq!(problems[0].0, 4);
    assert!(problems[0].1.starts_with("not JSON"));
    assert_eq!(problems[1].0, 6);
    assert!(
        problems[1]
            .1
            .starts_with("an event kind this version does not know")
    );
    assert_eq!(problems[2].0, 9, "the line after the removed one");
    assert!(
        problems[2]
            .1
            .starts_with("seq jumps from 8 to 10: 1 event missing")
    );
    let mut app = App::new(AppOptions::default());
    conclave::tui::world::open_replay(&mut app, &broken).unwrap();
    let moved = app.playback(Action::End);
    conclave::tui::world::settle(&mut app, moved);
    assert!(
        app.run().unwrap().state.outcome.is_some(),
        "the replay goes on to the finish"
    );
    assert!(
        app.run().unwrap().state.missed >= 3,
        "the gaps count as missed events"
    );

    // Nothing to replay.
    let mut app = App::new(AppOptions::default());
    let empty = write(dir.path(), "empty.jsonl", "");
    assert!(
        conclave::tui::world::open_replay(&mut app, &empty)
            .unwrap_err()
            .contains("the recording is empty")
    );
    let foreign = write(dir.path(), "foreign.jsonl", "name,score\nada,3\n");
    assert!(
        conclave::tui::world::open_replay(&mut app, &foreign)
            .unwrap_err()
            .contains("not a Conclave recording")
    );
    assert!(app.runs.is_empty());
}

fn conclave(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(args)
        .output()
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn headless_replay_prints_the_result_and_a_line_per_round() {
    let dir = tempfile::tempdir().unwrap();
    let lines = recorded_lines(dir.path()).await;
    let full = write(dir.path(), "full.jsonl", &lines.join("\n"));
    let output = conclave(&["replay", full.to_str().unwrap(), "--headless"]);
    assert_eq!(output.status.code(), Some(0));
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let last: serde_json::Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert_eq!(result, last["result"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        vec![
            "round 1: blocking_vs_non_block → next round",
            "round 2: go_vs_caution → go_with_caution"
        ]
    );

    let cut = write(dir.path(), "cut.jsonl", &lines[..10].join("\n"));
    let output = conclave(&["replay", cut.to_str().unwrap(), "--headless"]);
    assert_eq!(output.status.code(), Some(3));
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("ends at seq 10, no finish event"));

    for text in ["", "<html></html>\n"] {
        let bad = write(dir.path(), "bad.jsonl", text);
        let output = conclave(&["replay", bad.to_str().unwrap(), "--headless"]);
        assert_eq!(output.status.code(), Some(2), "{text:?}");
        assert!(!output.stderr.is_empty());
    }
    let output = conclave(&["replay", "no/such/file.jsonl", "--headless"]);
    assert_eq!(output.status.code(), Some(2));
}
