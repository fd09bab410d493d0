//! The dashboard's state of a long run stays bounded: it keeps the latest
//! of what grows with the run (the log, the chain's links and transfers, the
//! table's rounds) and counts the rest, which the recording keeps. Measured
//! with a counting allocator while the recording of a real run (a swarm
//! handing control back and forth for 20,000 model calls, about 140,000
//! events) is folded one event at a time; and a replay of that recording
//! holds where its events are, not the events. Each test measures in a
//! process of its own (`common::alone`): the test binary's allocator
//! counts every thread of its process.

use crate::common;
use crate::counting;
use conclave::bus::{Event, Hub};
use conclave::engine::{self, LaunchOptions};
use conclave::scenario;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::replay::Replay;
use conclave::tui::state::RunState;
use conclave::tui::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::io::BufRead;
use std::sync::{Arc, Mutex};

/// Held by each test for all it does, so that no other allocates meanwhile.
static ALONE: Mutex<()> = Mutex::new(());

/// Where the long swarm's recording is, for the processes started here.
const LONG_SWARM: &str = "CONCLAVE_LONG_SWARM";

/// Whether this process measures test `name`. In the process started for
/// it, yes; otherwise `name` runs in a process of its own (the test
/// binary again, filtered to it), which is waited for, and this one does
/// nothing more. The counting allocator counts every thread of its
/// process: a process to itself is what a measurement needs, and two
/// processes measure side by side on two cores.
fn measured_here(name: &str, swarm: bool) -> bool {
    if swarm {
        common::alone::here(
            module_path!(),
            name,
            &[(LONG_SWARM, long_swarm().as_os_str())],
        )
    } else {
        common::alone::here(module_path!(), name, &[])
    }
}

const CALLS: u32 = 20_000;

/// The recording of a swarm whose two agents hand control to each other
/// until the model-call budget stops it, made once for the tests here.
fn long_swarm() -> &'static std::path::Path {
    static RECORDED: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    RECORDED.get_or_init(|| match std::env::var_os(LONG_SWARM) {
        // Recorded by the process that started this one.
        Some(path) => std::path::PathBuf::from(path),
        None => record_long_swarm(std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))),
    })
}

fn record_long_swarm(dir: &std::path::Path) -> std::path::PathBuf {
    let document = json!({
        "name": "long_pingpong", "pattern": "swarm", "goal": "Agree a plan.", "seed": 3,
        "context": {}, "entry": "planner",
        "agents": {"planner": {"description": "Drafts the plan"},
                   "critic": {"description": "Finds its gaps"}},
        "limits": {"max_handoffs": 0, "node_timeout_ms": 0,
                   "repetitive_handoff_window": 0, "repetitive_handoff_min_unique": 0},
        "budget": {"max_llm_calls": CALLS, "max_seconds": 600_000},
        "provider": {"kind": "sim", "latency_ms": 1,
                     "turns": {"planner": [{"transfer_to": "critic", "message": "Draft."}],
                               "critic": [{"transfer_to": "planner", "message": "A gap."}]}}
    });
    // Recorded under a name of this process's own (a recording is never
    // written over, and a runner that starts a process per test records
    // in several at once), then moved into place over an earlier one: the
    // same run of the sim, whichever process recorded it.
    let path = dir.join("long.jsonl");
    let own = dir.join(format!("long.jsonl.{}", std::process::id()));
    let _ = std::fs::remove_file(&own);
    let result = recorded(&document, &own);
    assert_eq!(result["stop_reason"], "max_llm_calls");
    assert_eq!(result["llm_calls"], CALLS);
    std::fs::rename(&own, &path).unwrap();
    path
}

/// Run the scenario `document` on the virtual clock, recorded to `path`;
/// its result.
fn recorded(document: &serde_json::Value, path: &std::path::Path) -> serde_json::Value {
    let scenario = Arc::new(scenario::parse(&document.to_string(), "long.json").unwrap());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    let outcome = runtime.block_on(async {
        let options = LaunchOptions {
            record: Some(path.to_path_buf()),
            ..LaunchOptions::default()
        };
        let handle = engine::launch(scenario, &Hub::default(), options).unwrap();
        handle.finish().await.unwrap()
    });
    outcome.result.value().clone()
}

#[test]
fn a_long_runs_dashboard_state_stays_within_a_fixed_ceiling() {
    if !measured_here(
        "a_long_runs_dashboard_state_stays_within_a_fixed_ceiling",
        true,
    ) {
        return;
    }
    let _alone = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let path = long_swarm();
    let lines = std::io::BufReader::new(std::fs::File::open(path).unwrap()).lines();

    let before = counting::live();
    let mut state = RunState::new(1);
    let mut held = Vec::new();
    let mut events = 0usize;
    for line in lines {
        let event: Event = serde_json::from_str(&line.unwrap()).unwrap();
        state.apply(Arc::new(event));
        events += 1;
        if events.is_multiple_of(25_000) {
            held.push(counting::live().saturating_sub(before));
        }
    }
    assert!(events > 120_000, "{events} events");
    assert!(state.outcome.is_some(), "the run's finish was folded");
    let most = *held.iter().max().unwrap();
    // The log alone holds its last 50,000 events: a few MB.
    assert!(
        most < 32 << 20,
        "the state holds {most} bytes at its largest: {held:?}"
    );
    // Past the log's fill (50,000 events), nothing more is kept: the last
    // figures are flat.
    let settled = &held[2..];
    let (low, high) = (settled.iter().min().unwrap(), settled.iter().max().unwrap());
    assert!(
        high - low < 1 << 20,
        "the state grows with the run, by {} bytes from {low}: {held:?}",
        high - low
    );
}

#[test]
fn a_long_runs_replay_holds_where_its_events_are_not_the_events() {
    if !measured_here(
        "a_long_runs_replay_holds_where_its_events_are_not_the_events",
        true,
    ) {
        return;
    }
    let _alone = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let path = long_swarm();

    let before = counting::live();
    let recording = conclave::record::read_recording(path).unwrap();
    let whole = counting::live().saturating_sub(before);
    let events = recording.events.len();
    let end = RunState::from_events(1, &recording.events);
    drop(recording);

    let before = counting::live();
    let (mut replay, _) = Replay::open_file(path).unwrap().unwrap();
    let filed = counting::live().saturating_sub(before);
    assert!(events > 120_000, "{events} events");
    // Where each event's line is (16 bytes an event), the run's start and
    // its finish (whose result lists every handoff), the state at the
    // start. Held whole, the events take over 200 bytes each.
    assert!(
        filed * 4 < whole,
        "the replay holds {filed} bytes; the events read whole, {whole}"
    );
    assert_eq!(
        replay.seek(events),
        end,
        "the end, read again from the file"
    );
}

/// Record an orchestrator run of `tasks` tasks of 1–50 ms, 256 at a time,
/// on the virtual clock; the recording's path.
fn record_orchestrator(dir: &std::path::Path, tasks: usize) -> std::path::PathBuf {
    let document = many_tasks(tasks);
    let path = dir.join("many.jsonl");
    assert_eq!(recorded(&document, &path)["stop_reason"], "success");
    path
}

#[test]
fn a_replays_checkpoints_share_the_rows_that_did_not_change() {
    if !measured_here(
        "a_replays_checkpoints_share_the_rows_that_did_not_change",
        false,
    ) {
        return;
    }
    let _alone = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let path = record_orchestrator(dir.path(), 10_000);

    // The run's last state, folded once: its rows and its log.
    let before = counting::live();
    let recording = conclave::record::read_recording(&path).unwrap();
    let events = recording.events.len();
    let end = RunState::from_events(1, &recording.events);
    drop(recording);
    let folded = counting::live().saturating_sub(before);

    // The replay at its end holds that state and a checkpoint every few
    // thousand events on the way (about ten here), each a state of
    // 10,000 rows; shared, they cost what changed between them.
    let before = counting::live();
    let (mut replay, _) = Replay::open_file(&path).unwrap().unwrap();
    let state = replay.seek(events);
    let held = counting::live().saturating_sub(before);
    assert_eq!(state, end);
    assert!(events > 50_000, "{events} events");
    assert!(
        held < 2 * folded,
        "the replay at its end holds {held} bytes; the state alone, {folded}"
    );
}

#[test]
fn a_finished_runs_screen_holds_its_result_as_text_not_as_a_tree() {
    if !measured_here(
        "a_finished_runs_screen_holds_its_result_as_text_not_as_a_tree",
        false,
    ) {
        return;
    }
    let _alone = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let path = record_orchestrator(dir.path(), 5_000);
    let recording = conclave::record::read_recording(&path).unwrap();
    let text = match &recording.events.last().unwrap().kind {
        conclave::bus::EventKind::RunFinished { result, .. } => result.text().len(),
        other => panic!("the recording ends with its finish, not {other:?}"),
    };
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&recording.events, None).unwrap();
    drop(recording);
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();

    // The finished run's screen, its result pane among it, drawn a few
    // times: what the frames keep is not the result read into a tree
    // (about ten times its text; for a 100,000-task run, 600 MB).
    let before = counting::live();
    for _ in 0..3 {
        terminal.draw(|f| view::draw(f, &app)).unwrap();
    }
    let held = counting::live().saturating_sub(before);
    assert!(text > 1 << 20, "a result of {text} bytes");
    assert!(
        held < text / 4,
        "the screen holds {held} bytes more once drawn; the result's text is {text}"
    );
}

/// The peak heap of a run of `document` on the virtual clock, over what
/// was held when it started (its scenario read), and its result's text.
fn peak_heap_of_run(document: &serde_json::Value) -> (usize, String) {
    let scenario = Arc::new(scenario::parse(&document.to_string(), "fan_out.json").unwrap());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    let before = counting::reset_peak();
    let outcome = runtime.block_on(async {
        let handle = engine::launch(scenario, &Hub::default(), LaunchOptions::default()).unwrap();
        handle.finish().await.unwrap()
    });
    let peak = counting::peak().saturating_sub(before);
    (peak, outcome.result.text().to_string())
}

/// A coordinator whose one turn calls `calls` members, four members in
/// turn, each call answered in one turn of 1–50 ms; then it answers: the
/// scale bench's `coordinator_100k`, smaller.
fn member_fan_out(calls: usize) -> serde_json::Value {
    let members = ["a0", "a1", "a2", "a3"];
    let asked: Vec<serde_json::Value> = (0..calls)
        .map(|i| json!({"member": members[i % 4], "task": format!("part {i}")}))
        .collect();
    let mut agents = json!({"lead": {"description": "Splits the report"}});
    let mut turns = json!({"lead": [{"call_members": asked}, {"reply": "Done."}]});
    for member in members {
        agents[member] = json!({"description": "Reports one part"});
        turns[member] = json!([{"reply": format!("{member} is done.")}]);
    }
    json!({
        "name": "member_fan_out", "pattern": "coordinator", "goal": "Report.", "seed": 3,
        "context": {"report_date": "2026-02-26", "region": "US"}, "entry": "lead",
        "agents": agents,
        "budget": {"max_llm_calls": calls + 10, "max_seconds": 600},
        "provider": {"kind": "sim", "latency_ms": {"min": 1, "max": 50}, "turns": turns}
    })
}

/// An orchestrator whose plan has `tasks` tasks of 1–50 ms, 256 at a time:
/// the scale bench's `orchestrator_100k`, smaller.
fn many_tasks(tasks: usize) -> serde_json::Value {
    let workers = [
        "sales_worker",
        "payments_worker",
        "inventory_worker",
        "fraud_worker",
    ];
    let plan: Vec<serde_json::Value> = (0..tasks)
        .map(|i| {
            json!({"id": format!("t{i}"), "worker": workers[i % 4],
                   "args": {"report_date": "2026-02-26", "region": "US"}, "critical": i % 10 == 0})
        })
        .collect();
    let behaviour =
        json!({"data": {"2026-02-26:US": {"value": 1}}, "latency_ms": {"min": 1, "max": 50}});
    json!({
        "name": "many_tasks", "pattern": "orchestrator", "goal": "Report.",
        "context": {"report_date": "2026-02-26", "region": "US"},
        "workers": workers.iter().map(|w| (w.to_string(), behaviour.clone())).collect::<serde_json::Map<_, _>>(),
        "provider": {"kind": "sim", "final_answer": "Done.", "plan": {"kind": "plan", "tasks": plan}},
        "budget": {"max_tasks": tasks, "max_parallel": 256, "max_dispatches": tasks,
                   "max_retries_per_task": 1, "task_timeout_seconds": 2.0, "max_seconds": 600}
    })
}

/// Member calls of one turn, and tasks of one plan, in
/// [`a_member_call_costs_about_what_a_task_costs`].
const FAN_OUT: usize = 10_000;

#[test]
fn a_member_call_costs_about_what_a_task_costs() {
    if !measured_here("a_member_call_costs_about_what_a_task_costs", false) {
        return;
    }
    let _alone = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let (tasks, result) = peak_heap_of_run(&many_tasks(FAN_OUT));
    assert!(
        result.contains("\"stop_reason\":\"success\""),
        "{result:.300}"
    );
    drop(result);
    let (members, result) = peak_heap_of_run(&member_fan_out(FAN_OUT));
    assert!(
        result.contains("\"stop_reason\":\"success\""),
        "{result:.300}"
    );
    assert_eq!(
        result.matches("\"status\":\"done\",\"latency_ms\"").count(),
        FAN_OUT,
        "every member call answered"
    );
    eprintln!("{FAN_OUT} tasks: peak heap {tasks} bytes; {FAN_OUT} member calls: {members} bytes");
    // A turn may ask for any number of calls: each holds its record, its
    // trace entry and its history entry, not JSON trees of them.
    assert!(
        members * 4 < tasks * 5,
        "{FAN_OUT} member calls peaked at {members} bytes of heap, {FAN_OUT} tasks at {tasks}"
    );
}
