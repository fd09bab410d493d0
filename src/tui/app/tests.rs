//! Keys in, effects out: what the app decides, checked without a terminal
//! and without an engine (runs are shown from their events alone).

use super::*;
use crate::bus::{ClockMode, Event, EventKind, FlagState, RunStarted, RunStatus};
use crate::control::Control;
use crate::patterns::events::PatternEvent;
use crate::patterns::events::RoundEvent;
use crate::stop::StopReason;
use crate::tui::catalog::{Item, Recorded};
use crate::tui::effect::{Done, Effect};
use crate::tui::keymap::{Scope, UnitKeys};
use crate::tui::overlays::picker::PickerView;
use crate::tui::patterns::round_table::TableView;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

pub(crate) fn scenario(pattern: &str) -> Arc<Scenario> {
    Arc::new(
        serde_json::from_value(json!({
            "name": "t", "pattern": pattern, "goal": "Decide.", "context": {}, "seed": 3,
            "team": {"roles": {"a": {}, "b": {}, "legal": {}}, "sequence": ["a", "b"]},
            "workers": {"w": {}},
            "flags": {"legal": {"default": false, "roles": ["legal"], "joins": true}},
            "provider": {"kind": "sim"}
        }))
        .unwrap(),
    )
}

/// A run of `pattern` seeded 7, after its start and two rounds begun.
pub(crate) fn events(pattern: &str) -> Vec<Arc<Event>> {
    let scenario = scenario(pattern);
    let kinds = vec![
        EventKind::RunStarted(RunStarted {
            pattern: scenario.pattern,
            seed: 7,
            goal: "Decide.".into(),
            clock: ClockMode::Virtual,
            flags: vec![FlagState {
                name: "legal".into(),
                on: false,
            }],
            source: None,
            started_at_ms: 0,
            model: None,
            scenario,
            forked_from: None,
        }),
        EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
            round: 1,
            speakers: vec!["a".into(), "b".into()],
        })),
        EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
            round: 2,
            speakers: vec!["a".into(), "b".into()],
        })),
    ];
    numbered(kinds)
}

fn numbered(kinds: Vec<EventKind>) -> Vec<Arc<Event>> {
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| {
            Arc::new(Event {
                run: 1,
                seq: i as u64 + 1,
                t_ms: i as u64 * 100,
                kind,
            })
        })
        .collect()
}

pub(crate) fn finished(pattern: &str) -> Vec<Arc<Event>> {
    let mut all = events(pattern);
    all.push(Arc::new(Event {
        run: 1,
        seq: all.len() as u64 + 1,
        t_ms: 900,
        kind: EventKind::RunFinished {
            status: RunStatus::Stopped,
            stop_reason: StopReason::Cancelled,
            phase: None,
            result: std::sync::Arc::new(json!({"status": "stopped"}).into()),
            summary: Box::default(),
            error: None,
        },
    }));
    all
}

pub(crate) fn app_with(events: &[Arc<Event>]) -> App {
    let mut app = App::new(AppOptions::default());
    app.add_from_events(events, Some("t.json".into())).unwrap();
    app
}

/// The screen's text at `width`×`height`, as a terminal would show it.
pub(crate) fn screen_of(app: &mut App, width: u16, height: u16) -> String {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| crate::tui::view::draw(frame, app))
        .unwrap();
    let buffer = terminal.backend().buffer();
    buffer
        .content
        .chunks(usize::from(buffer.area.width))
        .map(|row| row.iter().map(|c| c.symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.key(KeyEvent::new(code, KeyModifiers::NONE))
}

#[test]
fn space_and_s_ask_the_run_for_a_pause_a_resume_and_a_step() {
    let mut app = app_with(&events("collaboration"));
    let pause = Effect::Control {
        run: 1,
        command: Control::Pause,
    };
    assert_eq!(press(&mut app, KeyCode::Char(' ')), vec![pause]);
    assert!(
        app.run().unwrap().ui.pause_requested,
        "the header says it is pausing until the run reaches its gate"
    );
    assert_eq!(
        press(&mut app, KeyCode::Char(' ')),
        vec![Effect::Control {
            run: 1,
            command: Control::Resume
        }]
    );
    assert_eq!(
        press(&mut app, KeyCode::Char('s')),
        vec![Effect::Control {
            run: 1,
            command: Control::Step
        }]
    );
}

#[test]
fn the_picker_launches_a_scenario_with_its_defaults_or_replays_a_recording() {
    let mut app = App::new(AppOptions::default());
    assert!(press(&mut app, KeyCode::Char(' ')).is_empty());
    assert_eq!(app.notice.as_deref(), Some("no run"));
    let scan = press(&mut app, KeyCode::Char('n'));
    assert!(
        matches!(scan.as_slice(), [Effect::ScanCatalog { .. }]),
        "the loop scans the folders: {scan:?}"
    );
    crate::tui::world::settle(&mut app, scan);
    let Some(Overlay::Picker(picker)) = &app.overlay else {
        panic!("n opens the picker");
    };
    let Some(Entry {
        item: Item::Scenario(Ok(chosen)),
        ..
    }) = picker.selected(&app.catalog)
    else {
        panic!("the picker starts on a scenario");
    };
    let chosen = Arc::clone(chosen);
    let effects = press(&mut app, KeyCode::Enter);
    assert_eq!(
        effects,
        vec![Effect::Launch {
            run: 1,
            launch: Launch::of(Arc::clone(&chosen), None, Overrides::default())
        }],
        "a built-in scenario has no file to name"
    );
    let [Effect::Launch { launch, .. }] = effects.as_slice() else {
        unreachable!()
    };
    assert_eq!(launch.seed, chosen.seed.unwrap_or(0));
    assert_eq!(launch.flags.len(), chosen.flags.len());
    assert!(app.overlay.is_none());
    assert!(app.runs.is_empty(), "the update itself starts nothing");

    let recording = std::path::PathBuf::from("runs/old.jsonl");
    app.open_picker();
    app.catalog.push(Entry {
        origin: "runs/old.jsonl".into(),
        item: Item::Recording(Recorded {
            path: recording.clone(),
            start: None,
            finish: None,
        }),
    });
    app.overlay = Some(Overlay::Picker(PickerView::new(app.catalog.len() - 1)));
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        vec![Effect::OpenRecording {
            job: 1,
            path: recording
        }]
    );
    assert!(
        app.overlay.is_some(),
        "the picker stays open until the recording opens"
    );
}

#[test]
fn quitting_and_failures_are_the_loops_to_carry_out() {
    let mut app = app_with(&events("collaboration"));
    assert_eq!(press(&mut app, KeyCode::Char('q')), vec![Effect::Quit]);
    app.open_picker();
    let opening = app.open_recording(std::path::Path::new("runs/gone.jsonl"));
    let [Effect::OpenRecording { job, .. }] = opening.as_slice() else {
        panic!("{opening:?}");
    };
    app.done(Done::Opened {
        job: *job,
        opened: Err("runs/gone.jsonl: no such file\nmore".into()),
    });
    assert_eq!(
        app.notice.as_deref(),
        Some("runs/gone.jsonl: no such file"),
        "a recording that cannot be read says so, on one line"
    );
    assert!(
        matches!(app.overlay, Some(Overlay::Picker { .. })),
        "and the picker stays open"
    );
}

#[test]
fn each_pattern_adds_its_own_keys_and_no_other() {
    let mut app = app_with(&events("collaboration"));
    assert_eq!(
        app.pane_scopes(),
        vec![
            Scope::Unit(UnitKeys::RoundTable),
            Scope::Pane(PaneId::Pattern)
        ]
    );
    press(&mut app, KeyCode::Char('h'));
    let table: &TableView = app.run().unwrap().ui.pattern.get().unwrap();
    assert_eq!((table.column, table.follow), (0, false), "back to round 1");
    assert_eq!(app.notice, None);

    let mut app = app_with(&events("orchestrator"));
    assert_eq!(
        app.pane_scopes(),
        vec![Scope::Unit(UnitKeys::Workers), Scope::Pane(PaneId::Pattern)],
        "the workers add their sort and filter"
    );
    assert!(press(&mut app, KeyCode::Char('h')).is_empty());
    assert_eq!(app.notice, None, "h is not a key of the workers pane");
    assert!(
        app.run().unwrap().ui.pattern.get::<TableView>().is_none(),
        "and moves no round table"
    );
    let app = app_with(&events("coordinator"));
    assert_eq!(
        app.pane_scopes(),
        vec![Scope::Pane(PaneId::Pattern)],
        "a coordinator without teams has none to open"
    );
    let mut with_teams = events("coordinator");
    if let EventKind::RunStarted(started) = &mut Arc::make_mut(&mut with_teams[0]).kind {
        let team = json!({"pattern": "swarm", "entry": "a", "agents": {"a": {}}});
        Arc::make_mut(&mut started.scenario)
            .teams
            .insert("t".into(), serde_json::from_value(team).unwrap());
    }
    assert_eq!(
        app_with(&with_teams).pane_scopes(),
        vec![Scope::Unit(UnitKeys::Members), Scope::Pane(PaneId::Pattern)],
        "a coordinator opens its member teams"
    );
}

/// A scenario that runs a program, as a file would give it.
pub(crate) fn runs_a_program() -> Arc<Scenario> {
    let text = r#"{"name": "ops", "pattern": "orchestrator", "goal": "Report.", "context": {},
        "workers": {"inventory_worker": {"command": {"argv": ["conclave", "toolbox", "inventory"]}}},
        "provider": {"kind": "sim"}}"#;
    Arc::new(crate::scenario::parse(text, "ops.json").unwrap())
}

#[test]
fn allow_exec_on_the_command_line_asks_nothing() {
    let mut app = App::new(AppOptions {
        allow_exec: true,
        ..AppOptions::default()
    });
    let launch = app.allowed(Launch::of(runs_a_program(), None, Overrides::default()));
    assert!(launch.is_some_and(|l| l.allow_exec));
    assert!(app.overlay.is_none());
}
