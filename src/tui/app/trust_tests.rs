//! The dashboard's confirmation against real files: it names what changed
//! since the file was allowed, and a program rewritten while it was open
//! is asked about again rather than run on the old answer.

use super::*;
use crate::tui::effect::Effect;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::Path;

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
