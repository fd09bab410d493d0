//! The sweep in the dashboard: per combination, bars of outcomes, stop
//! reasons, verdicts, budgets used, calls and tokens; a bar's runs
//! listed; Enter on a run replays it (its seed and flags run again with a
//! recording), and the replay ends as the sweep counted that run.

use crate::common;

use conclave::bus::{EventKind, Hub, RunStatus};
use conclave::engine::ProviderChoice;
use conclave::sweep::{Job, Prepared, SweepArgs, SweepPlan, prepare, run_local};
use conclave::tui::app::{App, AppOptions};
use conclave::tui::effect::Effect;
use conclave::tui::keymap::Action;
use conclave::tui::sweep::{Ended, SweepState};
use conclave::tui::view_state::Overlay;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

const FILE: &str = "scenarios/checkout_v2_launch.json";

/// A dashboard showing the finished sweep of seeds 1..=20 with the legal
/// analyst on and off, its recordings under `recordings`.
fn swept(recordings: Option<PathBuf>) -> (App, Prepared) {
    let flags = vec![("legal_analyst".into(), vec![true, false])];
    sweep_of(FILE, SweepPlan::new(1..=20, flags).unwrap(), recordings)
}

/// A dashboard showing the finished sweep of `file` by `plan`.
fn sweep_of(file: &str, plan: SweepPlan, recordings: Option<PathBuf>) -> (App, Prepared) {
    let sweep = prepare(SweepArgs {
        scenario: PathBuf::from(file),
        at: None,
        plan,
        parallel: Some(2),
        provider: ProviderChoice::default(),
        allow_real: false,
        allow_exec: false,
        answer: None,
        otlp: None,
    })
    .unwrap();
    let mut app = App::new(AppOptions {
        recordings_dir: recordings,
        ..AppOptions::default()
    });
    app.show_sweep(SweepState::new(&sweep));
    let mut results = Vec::new();
    run_local(
        &sweep.scenario,
        Some(&sweep.source),
        sweep.plan.jobs(),
        2,
        |r| results.push(r),
    )
    .unwrap();
    for result in results {
        app.sweep_result(result);
    }
    app.sweep_ended(Ended::Done);
    (app, sweep)
}

#[test]
fn the_sweep_shows_bars_per_combination() {
    let (mut app, _) = swept(None);
    let screen = common::screen::of_app(&app, 120, 30);
    assert!(screen.contains("done · 40/40 runs"), "{screen}");
    assert!(screen.contains("legal_analyst=on · 20 runs"), "{screen}");
    assert!(screen.contains("legal_analyst=off · 20 runs"), "{screen}");
    insta::assert_snapshot!("sweep_outcomes_120x30", screen);
    app.update(Action::Right);
    insta::assert_snapshot!(
        "sweep_stop_reasons_120x30",
        common::screen::of_app(&app, 120, 30)
    );
    for _ in 0..3 {
        app.update(Action::Right);
    }
    insta::assert_snapshot!(
        "sweep_model_calls_120x30",
        common::screen::of_app(&app, 120, 30)
    );
    insta::assert_snapshot!(
        "sweep_model_calls_80x24",
        common::screen::of_app(&app, 80, 24)
    );
}

#[test]
fn a_measure_that_varies_by_seed_shows_as_bars_of_its_values() {
    let (mut app, _) = sweep_of(
        "scenarios/vendor_outage.json",
        SweepPlan::new(1..=30, Vec::new()).unwrap(),
        None,
    );
    for _ in 0..3 {
        app.update(Action::Right);
    }
    let screen = common::screen::of_app(&app, 100, 24);
    assert!(screen.contains("no flags · 30 runs"), "{screen}");
    assert!(
        screen.contains("dispatches 43") && screen.contains("dispatches 46"),
        "{screen}"
    );
    insta::assert_snapshot!("sweep_vendor_outage_used_100x24", screen);
}

#[test]
fn enter_lists_a_bars_runs_and_esc_goes_back() {
    let (mut app, _) = swept(None);
    app.update(Action::Down);
    assert!(
        app.update(Action::Confirm).is_empty(),
        "listing starts nothing"
    );
    let screen = common::screen::of_app(&app, 120, 30);
    assert!(
        screen.contains("Runs of legal_analyst=off"),
        "the second bar is the second combination's: {screen}"
    );
    insta::assert_snapshot!("sweep_listing_120x30", screen);
    app.update(Action::Close);
    assert!(
        matches!(app.overlay, Some(Overlay::Sweep)),
        "back to the bars"
    );
    assert!(!common::screen::of_app(&app, 120, 30).contains("Runs of"));
    app.update(Action::Close);
    assert!(app.overlay.is_none(), "Esc again leaves the sweep");
    app.update(Action::Sweep);
    assert!(
        matches!(app.overlay, Some(Overlay::Sweep)),
        "S shows it again"
    );
}

#[tokio::test]
async fn enter_on_a_run_replays_it_and_the_replay_ends_as_the_sweep_counted() {
    let recordings = tempfile::tempdir().unwrap();
    let (mut app, sweep) = swept(Some(recordings.path().to_path_buf()));
    let mut world = common::world(Hub::new(16)).with_sweep(sweep);
    // Every combination has a bar per outcome any run had, in order; the
    // second combination's first outcome it had, and that bar's last run
    // (the highest seed).
    let (moves, expected) = {
        let tally = app.sweep().unwrap().tally();
        let outcomes: BTreeSet<&str> = (0..2)
            .flat_map(|c| tally.results(c).iter().map(|r| r.outcome.as_str()))
            .collect();
        let off = tally.results(1);
        let (at, outcome) = outcomes
            .iter()
            .enumerate()
            .find(|(_, o)| off.iter().any(|r| r.outcome == **o))
            .unwrap();
        let last = off
            .iter()
            .filter(|r| r.outcome == *outcome)
            .max_by_key(|r| r.seed)
            .unwrap();
        (outcomes.len() + at, last.clone())
    };
    for _ in 0..moves {
        app.update(Action::Down);
    }
    app.update(Action::Confirm);
    app.update(Action::Bottom);
    let effects = app.update(Action::Confirm);
    let job = Job::new(1, expected.seed, vec![("legal_analyst".into(), false)]);
    let [Effect::ReplaySweepRun { job: asked, .. }] = effects.as_slice() else {
        panic!("one run replayed: {effects:?}");
    };
    assert_eq!(asked, &job);
    assert!(app.sweep_replay_pending());

    common::carry(&mut world, &mut app, effects);
    // The run goes again on a thread of its own; the dashboard opens it
    // when it is done.
    assert!(app.sweep_replay_pending());
    let done = tokio::time::timeout(Duration::from_secs(60), world.next_done())
        .await
        .expect("the run was done in a minute")
        .unwrap();
    app.done(done);
    assert!(!app.sweep_replay_pending());
    assert!(app.overlay.is_none(), "the replay shows: {:?}", app.notice);
    let slot = app.run().expect("the replay is selected");
    assert!(slot.replay.is_some(), "a replay");
    let recording = slot.recording.clone().unwrap();
    assert!(
        recording.starts_with(recordings.path().join("sweeps")),
        "{}",
        recording.display()
    );
    let events = conclave::record::read_recording(&recording).unwrap().events;
    let Some(EventKind::RunFinished {
        status,
        stop_reason,
        result,
        ..
    }) = events.last().map(|e| e.kind.clone())
    else {
        panic!("the recording ends with the run's finish");
    };
    let status = match status {
        RunStatus::Ok => "ok",
        RunStatus::Stopped => "stopped",
    };
    let decision = result["final_decision"].as_str().unwrap_or("-");
    assert_eq!(
        format!("{status}/{stop_reason}/{decision}"),
        expected.outcome
    );
    let EventKind::RunStarted(started) = &events[0].kind else {
        panic!("the recording starts with the run's start");
    };
    assert_eq!(started.seed, expected.seed);
    assert!(
        started
            .flags
            .iter()
            .any(|f| f.name == "legal_analyst" && !f.on)
    );

    // Run again to replay a second time, it gets a file of its own beside
    // the first, which stays as it was.
    let first = std::fs::read(&recording).unwrap();
    let again = Effect::ReplaySweepRun {
        job,
        record: recording.clone(),
    };
    assert!(world.carry_out(again).is_none(), "it runs on its thread");
    let done = tokio::time::timeout(Duration::from_secs(60), world.next_done())
        .await
        .expect("the run was done in a minute")
        .unwrap();
    let conclave::tui::effect::Done::SweepRunReplayed { opened, .. } = &done else {
        panic!("{done:?}");
    };
    assert!(opened.is_ok(), "{opened:?}");
    let stem = recording.file_stem().unwrap().to_str().unwrap();
    let second = recording.with_file_name(format!("{stem}-2.jsonl"));
    assert_eq!(std::fs::read(&recording).unwrap(), first);
    let events = conclave::record::read_recording(&second).unwrap().events;
    assert_eq!(
        events.len(),
        std::str::from_utf8(&first).unwrap().lines().count()
    );
}

/// The real binary in a terminal: the sweep fills as runs finish, a bar's
/// runs list, a run replays, S returns to the sweep and q quits.
#[test]
fn conclave_sweep_opens_the_dashboard_on_the_live_sweep() {
    let home = tempfile::tempdir().unwrap();
    let mut session = common::pty::Session::start(
        &[
            "sweep",
            FILE,
            "--seeds",
            "1..30",
            "--flag",
            "legal_analyst=on,off",
        ],
        home.path(),
    );
    session.wait_text("done · 60/60 runs");
    let text = session.text();
    assert!(text.contains("legal_analyst=on · 30 runs"), "{text}");
    session.press("\r");
    session.wait_text("Runs of legal_analyst=on");
    session.press("\r");
    session.wait_text("seed 1 replayed");
    session.press("S");
    session.wait_text("done · 60/60 runs");
    session.press("q");
    let status = session.wait_exit();
    assert!(status.success(), "{status:?}");
    let replayed = home
        .path()
        .join("conclave/runs/sweeps/checkout_v2_launch-c0-s1.jsonl");
    assert!(replayed.exists(), "{}", replayed.display());
}

#[test]
fn a_sweep_from_a_point_says_where_it_forks_from() {
    let dir = tempfile::tempdir().unwrap();
    let recording = crate::sweep_from::recorded(dir.path());
    let flags = vec![("legal_analyst".into(), vec![true, false])];
    let sweep = prepare(SweepArgs {
        scenario: recording,
        at: Some("round 2".into()),
        plan: SweepPlan::new(1..=3, flags).unwrap(),
        parallel: Some(2),
        provider: ProviderChoice::default(),
        allow_real: false,
        allow_exec: false,
        answer: None,
        otlp: None,
    })
    .unwrap();
    let mut app = App::new(AppOptions::default());
    app.show_sweep(SweepState::new(&sweep));
    let never = std::sync::atomic::AtomicBool::new(false);
    let mut results = Vec::new();
    conclave::sweep::run_local_with(
        &sweep.scenario,
        Some(&sweep.source),
        sweep.plan.jobs(),
        2,
        &sweep.setup,
        &never,
        |r| results.push(r),
    )
    .unwrap();
    for result in results {
        app.sweep_result(result);
    }
    app.sweep_ended(Ended::Done);
    let screen = common::screen::of_app(&app, 140, 30);
    assert!(
        screen.contains("Sweep · checkout_v2_launch · from checkout.jsonl at round 2"),
        "{screen}"
    );
    assert!(screen.contains("done · 6/6 runs"), "{screen}");
}
