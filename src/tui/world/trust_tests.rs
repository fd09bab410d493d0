//! The dashboard's confirmation against real files: it names what changed
//! since the file was allowed, and a program rewritten while it was open
//! is asked about again rather than run on the old answer.

use crate::scenario::Scenario;
use crate::tui::app::tests::{press, runs_a_program, scenario};
use crate::tui::app::{App, AppOptions, Launch, Overrides};
use crate::tui::effect::{Done, Effect};
use crate::tui::view_state::{Overlay, TrustPrompt};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::Path;
use std::sync::Arc;

/// `s.json` in `dir`, whose one worker is `./tool.sh`, loaded as the
/// picker loads it.
fn scenario_in(dir: &Path) -> Arc<Scenario> {
    let text = r#"{"name": "ops", "pattern": "orchestrator", "goal": "Report.", "context": {},
        "workers": {"tool_worker": {"command": {"argv": ["./tool.sh"]}}},
        "provider": {"kind": "sim"}}"#;
    std::fs::write(dir.join("s.json"), text).unwrap();
    Arc::new(crate::scenario::load(&dir.join("s.json")).unwrap())
}

fn write_tool(dir: &Path, says: &str) {
    let tool = dir.join("tool.sh");
    std::fs::write(
        &tool,
        format!("#!/bin/sh\necho '{{\"says\": \"{says}\"}}'\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn app_trusting(store: &crate::trust::TrustStore) -> App {
    App::new(AppOptions {
        trust: store.clone(),
        ..AppOptions::default()
    })
}

fn yes(app: &mut App) -> Vec<Effect> {
    app.key(KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE))
}

fn asked(app: &App) -> Option<&TrustPrompt> {
    match &app.overlay {
        Some(Overlay::Trust(prompt)) => Some(prompt),
        _ => None,
    }
}

#[test]
fn the_confirmation_names_the_program_that_changed_since_the_allowance() {
    let state = tempfile::tempdir().unwrap();
    let store = crate::trust::TrustStore::at(state.path().to_path_buf());
    let dir = tempfile::tempdir().unwrap();
    write_tool(dir.path(), "one");
    let mut app = app_trusting(&store);
    app.launch(scenario_in(dir.path()), None);
    assert_eq!(
        asked(&app).map(|p| p.changes.len()),
        Some(0),
        "never allowed"
    );
    let effects = yes(&mut app);
    let [Effect::RememberTrust { consent, .. }, Effect::Launch { .. }] = effects.as_slice() else {
        panic!("y remembers the allowance and launches: {effects:?}");
    };
    store.remember(consent).unwrap();

    write_tool(dir.path(), "two");
    app.launch(scenario_in(dir.path()), None);
    let tool = std::fs::canonicalize(dir.path().join("tool.sh")).unwrap();
    assert_eq!(
        asked(&app).map(|p| p.changes.clone()),
        Some(vec![format!(
            "{} changed since you allowed it",
            tool.display()
        )]),
        "asks again, naming the program"
    );
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 32)).unwrap();
    terminal
        .draw(|frame| crate::tui::view::draw(frame, &app))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let screen: String = (0..32)
        .map(|y| {
            (0..120)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
                + "\n"
        })
        .collect();
    assert!(
        screen.contains(&format!(
            "! {} changed since you allowed it",
            tool.display()
        )),
        "shown in the confirmation:\n{screen}"
    );
}

#[test]
fn a_program_rewritten_while_the_question_is_open_is_asked_about_again() {
    let state = tempfile::tempdir().unwrap();
    let store = crate::trust::TrustStore::at(state.path().to_path_buf());
    let dir = tempfile::tempdir().unwrap();
    write_tool(dir.path(), "as shown");
    let mut app = app_trusting(&store);
    app.launch(scenario_in(dir.path()), None);
    assert!(asked(&app).is_some());

    write_tool(dir.path(), "rewritten meanwhile");
    assert!(
        yes(&mut app).is_empty(),
        "nothing launches on the old answer"
    );
    let tool = std::fs::canonicalize(dir.path().join("tool.sh")).unwrap();
    assert_eq!(
        asked(&app).map(|p| p.changes.clone()),
        Some(vec![format!(
            "{} changed while you were asked",
            tool.display()
        )])
    );
    assert!(
        !store.allows(&scenario_in(dir.path())),
        "nothing remembered"
    );

    let effects = yes(&mut app);
    let [
        Effect::RememberTrust { consent, .. },
        Effect::Launch { launch, .. },
    ] = effects.as_slice()
    else {
        panic!("a yes to what is there now runs it: {effects:?}");
    };
    assert!(launch.allow_exec);
    store.remember(consent).unwrap();
    assert!(store.allows(&scenario_in(dir.path())));
}

fn app_owning(store: crate::trust::TrustStore) -> App {
    App::new(AppOptions {
        trust: store,
        ..AppOptions::default()
    })
}

#[test]
fn a_scenario_that_runs_programs_asks_first_and_any_key_but_y_cancels() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::trust::TrustStore::at(dir.path().to_path_buf());
    let mut app = app_owning(store.clone());
    assert!(
        app.launch(runs_a_program(), Some("ops.json".into()))
            .is_empty()
    );
    assert!(matches!(app.overlay, Some(Overlay::Trust(_))), "asks first");
    assert!(app.run().is_none(), "and starts nothing meanwhile");
    for key in [
        KeyCode::Char('n'),
        KeyCode::Char('q'),
        KeyCode::Enter,
        KeyCode::Esc,
    ] {
        assert!(
            app.launch(runs_a_program(), Some("ops.json".into()))
                .is_empty()
        );
        assert!(
            press(&mut app, key).is_empty(),
            "{key:?} launches nothing and does not quit"
        );
        assert!(app.overlay.is_none(), "{key:?} cancels");
        assert_eq!(app.notice.as_deref(), Some("ops was not run"));
    }
    assert!(!store.allows(&runs_a_program()), "nothing remembered");
    assert!(app.run().is_none());
}

#[test]
fn y_allows_the_launch_and_remembers_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::trust::TrustStore::at(dir.path().to_path_buf());
    let mut app = app_owning(store.clone());
    app.launch(runs_a_program(), Some("ops.json".into()));
    let effects = press(&mut app, KeyCode::Char('y'));
    let consent = match effects.as_slice() {
        [
            Effect::RememberTrust { store: to, consent },
            Effect::Launch { run: 1, launch },
        ] => {
            assert_eq!(to, &store, "remembered where the app reads");
            assert!(launch.allow_exec, "allowed");
            assert_eq!(launch.scenario.name, "ops");
            consent.clone()
        }
        other => panic!("expected the allowance and one launch, got {other:?}"),
    };
    assert!(app.overlay.is_none());
    assert!(
        !store.allows(&runs_a_program()),
        "the update writes nothing itself"
    );
    store.remember(&consent).unwrap();
    assert!(store.allows(&runs_a_program()), "remembered for this file");
    let again = app.allowed(Launch::of(runs_a_program(), None, Overrides::default()));
    assert!(
        again.is_some_and(|l| l.allow_exec) && app.overlay.is_none(),
        "the same file does not ask again"
    );
    let sim_only = app.allowed(Launch::of(
        scenario("orchestrator"),
        None,
        Overrides::default(),
    ));
    assert!(
        sim_only.is_some_and(|l| !l.allow_exec),
        "a scenario without programs never asks"
    );
}

#[test]
fn an_allowance_not_remembered_still_launches_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = App::new(AppOptions {
        trust: crate::trust::TrustStore::at(dir.path().to_path_buf()),
        ..AppOptions::default()
    });
    let ops = runs_a_program();
    app.launch(ops, Some("ops.json".into()));
    let effects = press(&mut app, KeyCode::Char('y'));
    assert!(matches!(
        effects.as_slice(),
        [Effect::RememberTrust { .. }, Effect::Launch { .. }]
    ));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing written by the update"
    );
    app.done(Done::NotRemembered("read-only file system".into()));
    assert_eq!(
        app.notice.as_deref(),
        Some("allowed for this launch only (cannot remember it: read-only file system)")
    );
}
