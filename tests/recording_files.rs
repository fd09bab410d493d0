//! A recording is one run's file: runs started in the same second on the
//! same scenario (two dashboards, a headless run) each get a file of their
//! own, a file the user names is never written over, and a file that holds
//! two runs' events is refused rather than replayed as one run. A file a
//! recording links to (a fork's parent) is read within a bound, or not at
//! all when it is no regular file.

use crate::common;

use common::cli::{conclave, result};
use common::real::stderr;
use conclave::bus::{Delivery, Hub};
use conclave::tui::app::{App, AppOptions};
use conclave::tui::world::{LaunchSettings, World};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The checkout launch, instant, answering `answer`, written to `file` in
/// `dir`: the same scenario (its name names recordings) with a result of
/// its own.
fn checkout_answering(dir: &Path, file: &str, answer: &str) -> PathBuf {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/checkout_v2_launch.json");
    let mut scenario: Value =
        serde_json::from_str(&std::fs::read_to_string(shipped).unwrap()).unwrap();
    scenario["provider"]["latency_ms"] = 0.into();
    scenario["provider"]["final_answer"] = answer.into();
    let path = dir.join(file);
    std::fs::write(&path, serde_json::to_string_pretty(&scenario).unwrap()).unwrap();
    path
}

/// A dashboard that names its recordings in `runs` after `at`, launching
/// `scenario` as its run 1; the app, its world and the hub's feed.
fn dashboard(
    runs: &Path,
    at: jiff::Timestamp,
    scenario: &Path,
) -> (App, World, conclave::bus::Subscription) {
    let hub = Hub::new(1 << 16);
    let feed = hub.subscribe();
    let mut world = World::new(
        hub,
        LaunchSettings {
            runs_dir: Some(runs.to_path_buf()),
            named_at: Some(at),
            clock: Some(conclave::clock::ClockMode::Virtual),
            ..LaunchSettings::default()
        },
    );
    let mut app = App::new(AppOptions::default());
    let loaded = Arc::new(conclave::scenario::load(scenario).unwrap());
    let effects = app.launch(loaded, Some(scenario.display().to_string()));
    common::carry(&mut world, &mut app, effects);
    (app, world, feed)
}

/// Follow a dashboard's run to its end, its recording complete; the file
/// it recorded to.
async fn to_the_end(
    (mut app, mut world, mut feed): (App, World, conclave::bus::Subscription),
) -> PathBuf {
    while app.run().unwrap().is_live() {
        match feed.next().await {
            Delivery::Event(event) => app.apply(event),
            Delivery::Missed(n) => panic!("missed {n}"),
            Delivery::Closed => break,
        }
    }
    for handle in world.take_handles() {
        handle.finish().await.unwrap();
    }
    app.run().unwrap().recording.clone().unwrap()
}

/// `conclave replay FILE --headless`: its exit status, result and stderr.
fn replayed(path: &Path) -> (Option<i32>, Value, String) {
    let out = conclave(&["replay", path.to_str().unwrap(), "--headless"]);
    let said = stderr(&out);
    let document = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code(), document, said)
}

#[tokio::test(start_paused = true)]
async fn two_dashboards_and_a_headless_run_in_one_second_leave_three_recordings() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    let at: jiff::Timestamp = "2026-03-02T09:30:00Z".parse().unwrap();
    // The name a dashboard gives its run 1 of this scenario in that second,
    // taken first by a headless run told to record there.
    let taken = runs.join("20260302-093000-checkout_v2_launch-run1.jsonl");
    let headless_scenario = checkout_answering(dir.path(), "headless.json", "Headless run.");
    let headless = conclave(&[
        "run",
        headless_scenario.to_str().unwrap(),
        "--headless",
        "--record",
        taken.to_str().unwrap(),
    ]);
    assert_eq!(headless.status.code(), Some(0), "{}", stderr(&headless));
    let headless_result = result(&headless);
    assert_eq!(headless_result["answer"], "Headless run.");

    let first = dashboard(
        &runs,
        at,
        &checkout_answering(dir.path(), "first.json", "First dashboard."),
    );
    let second = dashboard(
        &runs,
        at,
        &checkout_answering(dir.path(), "second.json", "Second dashboard."),
    );
    let first = to_the_end(first).await;
    let second = to_the_end(second).await;

    let mut files: Vec<PathBuf> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "{files:?}");
    assert!(files.contains(&taken) && files.contains(&first) && files.contains(&second));
    assert!(first != taken && second != taken && first != second);
    for (file, answer, source) in [
        (&taken, "Headless run.", &headless_scenario),
        (&first, "First dashboard.", &dir.path().join("first.json")),
        (
            &second,
            "Second dashboard.",
            &dir.path().join("second.json"),
        ),
    ] {
        let (code, document, said) = replayed(file);
        assert_eq!(code, Some(0), "{}: {said}", file.display());
        // Its steps, and no problem with a line of the file.
        assert!(!said.contains(&file.display().to_string()), "{said}");
        assert_eq!(document["answer"], answer, "{}", file.display());
        let events = common::real::recording(file);
        let starts = common::real::of_type(&events, "run_started");
        assert_eq!(starts.len(), 1, "{}: one run", file.display());
        assert_eq!(starts[0]["source"], source.display().to_string());
    }
    assert_eq!(replayed(&taken).1, headless_result);
}

#[test]
fn a_file_given_to_record_that_exists_is_refused_and_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let kept = dir.path().join("kept.jsonl");
    let out = conclave(&[
        "run",
        "scenarios/checkout_v2_launch.json",
        "--headless",
        "--record",
        kept.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let before = std::fs::read(&kept).unwrap();

    let again = conclave(&[
        "run",
        "scenarios/checkout_v2_launch.json",
        "--headless",
        "--flag",
        "legal_analyst=on",
        "--record",
        kept.to_str().unwrap(),
    ]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(again.stdout.is_empty(), "no run, no result");
    assert_eq!(
        stderr(&again).trim_end(),
        format!(
            "conclave: cannot record to {}: a file is there already, and a recording is never written over (remove it first, or record to another name)",
            kept.display()
        )
    );
    assert_eq!(std::fs::read(&kept).unwrap(), before, "not truncated");
}

#[test]
fn a_file_holding_two_runs_interleaved_is_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let record = |name: &str, flag: &str| {
        let path = dir.path().join(name);
        let out = conclave(&[
            "run",
            "scenarios/checkout_v2_launch.json",
            "--headless",
            "--flag",
            flag,
            "--record",
            path.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        std::fs::read_to_string(path).unwrap()
    };
    let one = record("one.jsonl", "legal_analyst=off");
    // The other run is a dashboard's second.
    let two: String = record("two.jsonl", "legal_analyst=on")
        .lines()
        .map(|line| {
            let mut event: Value = serde_json::from_str(line).unwrap();
            event["run"] = 2.into();
            event.to_string() + "\n"
        })
        .collect();
    // Two runs' lines alternating, as two writers appending to one file.
    let mut lines = Vec::new();
    let (mut a, mut b) = (one.lines(), two.lines());
    loop {
        match (a.next(), b.next()) {
            (None, None) => break,
            (x, y) => lines.extend(x.into_iter().chain(y)),
        }
    }
    let both = dir.path().join("both.jsonl");
    std::fs::write(&both, lines.join("\n") + "\n").unwrap();
    let started_at = |text: &str| {
        let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        first["started_at_ms"].as_u64().unwrap()
    };
    let shown = |ms: u64| {
        jiff::Timestamp::from_millisecond(ms as i64)
            .unwrap()
            .to_string()
    };

    let (code, document, said) = replayed(&both);
    assert_eq!(code, Some(2), "{said}");
    assert_eq!(document, Value::Null, "no result");
    assert!(
        said.contains(&format!(
            "{}:2: a second run starts here: run 2 started at {}, in a recording of run 1 started at {} (line 1); a recording holds one run",
            both.display(),
            shown(started_at(&two)),
            shown(started_at(&one)),
        )),
        "{said}"
    );
}

/// `conclave export FILE --otlp URL` in at most 1 GiB of address space and
/// 60 seconds: how it ended and what it said.
fn exported_in_bounds(file: &Path, url: &str) -> (common::bounded::Finished, String) {
    use std::os::unix::process::CommandExt;
    let out = tempfile::tempdir().unwrap();
    let said = out.path().join("stderr");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_conclave"));
    command
        .args(["export", file.to_str().unwrap(), "--otlp", url])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&said).unwrap());
    let limit = || {
        let bound = libc::rlimit {
            rlim_cur: 1 << 30,
            rlim_max: 1 << 30,
        };
        // SAFETY: a valid rlimit, set on the child only.
        match unsafe { libc::setrlimit(libc::RLIMIT_AS, &bound) } {
            0 => Ok(()),
            _ => Err(std::io::Error::last_os_error()),
        }
    };
    // SAFETY: the closure only calls setrlimit, which is async-signal-safe.
    unsafe { command.pre_exec(limit) };
    let finished = common::bounded::run(command, std::time::Duration::from_secs(60), "export");
    (finished, std::fs::read_to_string(said).unwrap_or_default())
}

#[test]
fn export_of_a_fork_whose_parent_is_a_device_or_a_huge_sparse_file_goes_without_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let parent = dir.path().join("parent.jsonl");
    let fork = dir.path().join("fork.jsonl");
    for args in [
        vec!["run", "scenarios/checkout_v2_launch.json", "--headless"],
        vec![
            "fork",
            parent.to_str().unwrap(),
            "--at",
            "round 2",
            "--headless",
        ],
    ] {
        let recorded = if args[0] == "run" { &parent } else { &fork };
        let mut args = args.clone();
        args.extend(["--record", recorded.to_str().unwrap()]);
        let out = conclave(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    // 8 GiB of nothing: sparse, so no disk is used.
    let sparse = dir.path().join("sparse.jsonl");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(8 << 30)
        .unwrap();
    let cases = [
        (
            PathBuf::from("/dev/zero"),
            "/dev/zero: expected a recording file, found a device".to_string(),
        ),
        (
            sparse.clone(),
            format!(
                "{}: run 1's start is not in its first 1 MiB",
                sparse.display()
            ),
        ),
    ];
    for (linked_to, why) in cases {
        let linked = dir.path().join("linked.jsonl");
        common::rewrite_recording(&fork, &linked, |event| {
            if event["type"] == "run_started" {
                event["forked_from"]["file"] = linked_to.display().to_string().into();
            }
        });
        let collector = crate::receiver::Collector::start();
        let (finished, said) = exported_in_bounds(&linked, &collector.url());
        assert_eq!(
            (finished.exit, finished.signal),
            (Some(0), None),
            "{}: {said:?}",
            linked_to.display()
        );
        assert!(
            said.contains(&format!(
                "conclave: the trace goes without the link to the fork's parent: {why}"
            )),
            "{said}"
        );
        let spans = collector.spans();
        let root = spans.iter().find(|s| s.parent.is_empty()).unwrap();
        assert!(root.links.is_empty(), "{:?}", root.links);
    }
}
