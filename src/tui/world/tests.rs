//! The world carries out what the app decided and says what came of it:
//! an engine started and kept, a command taken, a file written or why
//! not, a launch that could not start.

use super::*;
use crate::tui::launch::{Launch, Overrides};
use std::sync::Arc;

fn checkout() -> Launch {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/checkout_v2_launch.json");
    let scenario = Arc::new(crate::scenario::load(&path).unwrap());
    Launch::of(scenario, Some("checkout.json".into()), Overrides::default())
}

#[test]
fn a_file_is_written_whole_or_the_app_is_told_why_not() {
    let dir = tempfile::tempdir().unwrap();
    let mut world = World::new(Hub::new(16), virtual_settings());
    let path = dir.path().join("out.json");
    let done = world.carry_out(Effect::Write {
        path: path.clone(),
        contents: "{}\n".into(),
    });
    assert!(
        matches!(&done, Some(Done::Wrote { path: p, bytes: 3 }) if p == &path),
        "{done:?}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");

    let nowhere = dir.path().join("no-such-folder").join("x.json");
    let done = world.carry_out(Effect::Write {
        path: nowhere,
        contents: "{}".into(),
    });
    let Some(Done::NotWritten { why, .. }) = done else {
        panic!("{done:?}");
    };
    assert!(why.starts_with("the folder "), "{why}");
    assert!(world.carry_out(Effect::Quit).is_none(), "the loop's own");
}

#[tokio::test(start_paused = true)]
async fn a_launch_starts_an_engine_that_takes_commands_until_the_world_finishes_it() {
    let hub = Hub::new(1024);
    let mut world = World::new(
        hub,
        LaunchSettings {
            start_paused: true,
            ..virtual_settings()
        },
    );
    let done = world.carry_out(Effect::Launch {
        run: 3,
        launch: checkout(),
    });
    let Some(Done::Started(started)) = done else {
        panic!("{done:?}");
    };
    assert_eq!((started.run, started.in_place_of), (3, None));
    assert_eq!(started.source.as_deref(), Some("checkout.json"));
    let pause = Effect::Control {
        run: 3,
        command: Control::Step,
    };
    assert!(world.carry_out(pause).is_none(), "taken");
    let unknown = Control::SetFlag {
        name: "no_such_flag".into(),
        on: true,
    };
    let done = world.carry_out(Effect::Control {
        run: 3,
        command: unknown,
    });
    assert!(
        matches!(&done, Some(Done::Refused { run: 3, why, .. }) if why.starts_with("unknown flag")),
        "{done:?}"
    );
    assert!(
        world
            .carry_out(Effect::Control {
                run: 9,
                command: Control::Pause
            })
            .is_none(),
        "no engine runs 9: nothing to send"
    );
    assert!(world.finish().await.is_empty());
    assert!(world.take_handles().is_empty(), "finished and let go");
}

#[test]
fn a_launch_that_cannot_record_is_told_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _in_runtime = runtime.enter();
    let mut world = World::new(Hub::new(16), virtual_settings());
    let mut launch = checkout();
    launch.record = Some(dir.path().join("no-such-folder").join("run.jsonl"));
    let done = world.carry_out(Effect::Restart {
        old: 1,
        run: 2,
        launch,
    });
    let Some(Done::NotStarted {
        run: 2,
        name,
        in_place_of: Some(1),
        why,
    }) = done
    else {
        panic!("{done:?}");
    };
    assert_eq!(name, "checkout_v2_launch");
    assert!(why.contains("no-such-folder"), "{why}");
}

#[test]
fn a_fork_of_a_recording_made_before_cassettes_does_not_start_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.jsonl");
    let launch = checkout();
    let started = crate::bus::EventKind::RunStarted(crate::bus::RunStarted {
        pattern: launch.scenario.pattern,
        seed: 7,
        goal: "g".into(),
        clock: crate::bus::ClockMode::Virtual,
        flags: Vec::new(),
        source: None,
        started_at_ms: 0,
        model: None,
        scenario: Arc::clone(&launch.scenario),
        forked_from: None,
    });
    let first: crate::bus::Event = crate::bus::Event {
        run: 1,
        seq: 1,
        t_ms: 0,
        kind: started,
    };
    // A call finished without what it asked and answered.
    let lines = [
        serde_json::to_string(&first).unwrap(),
        r#"{"run":1,"seq":2,"t_ms":0,"type":"round_started","round":1,"speakers":["a"]}"#.into(),
        r#"{"run":1,"seq":3,"t_ms":5,"type":"call_finished","call":1,"tool":"model","attempt":1,"latency_ms":5,"outcome":"ok"}"#.into(),
    ];
    std::fs::write(&old, lines.join("\n") + "\n").unwrap();
    let mut fork = launch;
    fork.fork = Some(crate::engine::ForkRequest {
        recording: old,
        at: "round 1".into(),
        flags: Vec::new(),
        goal: None,
        seed: None,
        edits: Vec::new(),
    });
    let mut world = World::new(Hub::new(16), virtual_settings());
    let done = world.carry_out(Effect::Launch {
        run: 1,
        launch: fork,
    });
    let Some(Done::NotStarted { run: 1, why, .. }) = done else {
        panic!("{done:?}");
    };
    assert!(why.contains("older than cassettes"), "{why}");
    assert!(world.engines.is_empty(), "no engine started");
}

/// Settings whose runs go on tokio's clock, which a paused test runtime
/// advances without waiting on the wall.
fn virtual_settings() -> LaunchSettings {
    LaunchSettings {
        clock: Some(crate::clock::ClockMode::Virtual),
        ..LaunchSettings::default()
    }
}
