//! A launched run forked from the dashboard's world, as Enter in its
//! replay's fork dialog asks: the recording's program (a two-call
//! python3 program on the standard library) started again with call 1
//! served from the recording and call 2 live against the recorded
//! loopback upstream, its recording in the runs folder naming its
//! parent. Two program runs of a fraction of a second each.

use crate::common::cli::run_recorded;
use crate::common::openai_upstream;
use crate::common::python::root;
use conclave::bus::{Delivery, EventKind, Hub, RunStatus};
use conclave::tui::effect::{Done, Effect};
use conclave::tui::world::{LaunchSettings, World};
use serde_json::{Value, json};
use std::path::Path;

/// The two-call program run headless against `upstream` and recorded to
/// `dir/run.jsonl`.
fn recorded(dir: &Path, upstream: &str) -> std::path::PathBuf {
    let program = root().join("tests/fixtures/launch/two_calls.py");
    let scenario = json!({"name": "two_calls", "pattern": "program",
        "command": ["python3", program], "model": {"upstream": upstream},
        "max_seconds": 60});
    let app = dir.join("app.json");
    std::fs::write(&app, scenario.to_string()).unwrap();
    let record = dir.join("run.jsonl");
    run_recorded(app.to_str().unwrap(), &record);
    record
}

#[tokio::test]
async fn the_dashboards_fork_starts_the_program_with_the_calls_before_n_served() {
    let dir = tempfile::tempdir().unwrap();
    let upstream = openai_upstream::serve();
    let record = recorded(dir.path(), &upstream.base_url);
    assert_eq!(upstream.requests().len(), 2, "the parent's two calls");

    let hub = Hub::new(1 << 12);
    let mut feed = hub.subscribe();
    let runs = dir.path().join("runs");
    let mut world = World::new(
        hub,
        LaunchSettings {
            runs_dir: Some(runs.clone()),
            ..LaunchSettings::default()
        },
    );
    let read = world.carry_out(Effect::OfferProgramFork {
        recording: record.clone(),
        at_ms: 0,
    });
    assert!(read.is_none(), "read on a blocking thread: {read:?}");
    let offered = world.next_done().await;
    assert!(
        matches!(
            &offered,
            Some(Done::ProgramForkOffered { offer: Ok(_), .. })
        ),
        "{offered:?}"
    );
    let done = world.carry_out(Effect::ForkProgram {
        run: 7,
        recording: record.clone(),
        at: 2,
    });
    let Some(Done::ProgramStarted(started)) = done else {
        panic!("{done:?}");
    };
    assert_eq!(started.forked_from.as_deref(), Some(record.as_path()));
    let (status, error) = loop {
        match feed.next().await {
            Delivery::Event(event) if event.run == 7 => {
                if let EventKind::RunFinished { status, error, .. } = &event.kind {
                    break (*status, error.clone());
                }
            }
            Delivery::Event(_) => {}
            Delivery::Missed(n) => panic!("missed {n}"),
            Delivery::Closed => panic!("the hub closed before the fork ended"),
        }
    };
    assert_eq!(status, RunStatus::Ok, "{error:?}");
    assert_eq!(upstream.requests().len(), 3, "call 1 served, call 2 live");

    let files: Vec<_> = std::fs::read_dir(&runs).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "the fork's recording in the runs folder");
    let lines: Vec<Value> = crate::common::recorded(files[0].path());
    let launch = &lines[0]["launch"];
    assert_eq!(launch["forked_from"]["at"], "model call 2", "{launch}");
    assert_eq!(launch["forked_from"]["file"], record.to_str().unwrap());
    assert!(
        launch["forked_from"].get("answer").is_none(),
        "call 2 went live"
    );
    let calls: Vec<&Value> = lines.iter().filter(|l| l["type"] == "model_call").collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["from_cassette"], true, "{}", calls[0]);
    assert!(calls[1].get("from_cassette").is_none(), "{}", calls[1]);
}
