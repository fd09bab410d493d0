//! What `y` copies and `w` writes leaves the process: a secret registered
//! after the runs (an API key read later) is masked in both. A file of its
//! own, since registering a secret holds for the whole process.

mod common;

use conclave::bus::Hub;
use conclave::engine::LaunchOptions;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::effect::Effect;
use conclave::tui::keymap::Action;
use conclave::tui::view_state::Overlay;
use std::sync::Arc;

const SECRET: &str = "sk-compare-0123456789abcdef";

#[tokio::test(start_paused = true)]
async fn copies_and_files_are_scrubbed_of_secrets() {
    let mut app = App::new(AppOptions::default());
    for (run, legal) in [(1, false), (2, true)] {
        let (_, events) = common::run(
            common::shipped("checkout_v2_launch.json"),
            LaunchOptions {
                goal: Some(format!("Decide with key {SECRET}.")),
                flags: vec![("legal_analyst".into(), legal)],
                ..LaunchOptions::default()
            },
        )
        .await;
        let events: Vec<_> = events
            .into_iter()
            .map(|mut e| {
                e.run = run;
                Arc::new(e)
            })
            .collect();
        app.add_from_events(&events, None).unwrap();
    }
    app.runs.pin(0);
    let compared = app.update(Action::Compare);
    conclave::tui::world::settle(&mut app, compared);
    assert!(matches!(app.overlay, Some(Overlay::Compare { .. })));
    conclave::secrets::register(SECRET);

    let effects = app.update(Action::Copy);
    let [Effect::Copy(sequence)] = effects.as_slice() else {
        panic!("a copy: {effects:?}");
    };
    use base64::Engine;
    let payload = sequence
        .strip_prefix("\u{1b}]52;c;")
        .and_then(|s| s.strip_suffix('\u{07}'))
        .unwrap();
    let copied = String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(payload)
            .unwrap(),
    )
    .unwrap();
    assert!(
        copied.contains("Decide with key [redacted]"),
        "the goal is there, masked"
    );
    assert!(!copied.contains("0123456789"), "{copied}");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cmp.json");
    app.update(Action::Write);
    if let Some(Overlay::Export(prompt)) = &mut app.overlay {
        prompt.path = path.display().to_string();
    }
    let effects = app.update(Action::Confirm);
    common::carry(&mut common::world(Hub::new(16)), &mut app, effects);
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.contains("[redacted]") && !written.contains("0123456789"));
}
