//! Scale: the work users run at its largest, each measured once, its wall
//! time and peak memory printed (these runs take seconds each; criterion's
//! repeated sampling would take many minutes and add nothing).
//!
//! - `orchestrator_100k`: `conclave run --headless` of 100,000 tasks of
//!   1–50 ms, 256 in parallel, on the virtual clock; then the same run
//!   recorded, which makes the recording the replay rows open.
//! - `fan_out_20k`: the orchestrator's plan at 20,000 tasks (whatever
//!   `CONCLAVE_SCALE_TASKS` says; `CONCLAVE_FAN_OUT_TASKS` sets its own),
//!   headless and recorded, and the asyncio floor of the same shape
//!   (`benches/fan_out_floor.py`), five processes each, interleaved: the
//!   medians of their wall times and peaks, the recorded run's against
//!   the headless one and the headless one's against the floor.
//!   `tests/fan_out_memory.rs` holds both runs' peaks in the unoptimised
//!   build.
//! - `dashboard_live_100k`: the same run in the dashboard on the real
//!   clock, events folded and a 200×60 frame drawn every 16 ms.
//! - `dashboard_replay_100k`: the dashboard opening that run's recording,
//!   until its first frame is drawn.
//! - `headless_replay_100k`: `conclave replay --headless` of the recording.
//! - `cassette_100k`: the same run served wholly from that recording
//!   (`run --headless --cassette`): 100,002 calls served, none made.
//! - `coordinator_100k`: a coordinator whose one turn asks for 100,000
//!   member calls (four members, each called 25,000 times, each call one
//!   turn of 1–50 ms), headless on the virtual clock: the orchestrator's
//!   100,000 tasks as a coordinator's fan-out.
//! - `graph_map`: a graph whose map node fans 100,000 model calls out
//!   (1–50 ms each, 256 at once) over a list its planner wrote, headless
//!   on the virtual clock: the orchestrator's tasks as a graph's map.
//! - `graph_chain`: a graph of as many nodes as the orchestrator has tasks
//!   (a planner, a map over a tenth as many items collected into the
//!   state, then a chain of agent nodes to the end), headless on the
//!   virtual clock, once with each chain node declaring `"reads": []` and
//!   once without (each sent the whole state): its wall time, and the
//!   input tokens its result estimates. Held against the orchestrator row
//!   (`CONCLAVE_SCALE_TASKS=10000 cargo bench --bench scale -- orchestrator
//!   graph_chain`).
//! - `swarm`: one swarm run of 2,500 to 20,000 model calls, headless.
//! - `nested_teams`: a coordinator calling 50 to 400 member teams at once,
//!   each a swarm of 40 turns: 2,002 to 16,002 model calls, headless.
//! - `validate_50mb`: `conclave validate` of a 50 MB scenario, its bulk a
//!   `context` of small objects (outside `context` a scenario may hold at
//!   most a million JSON values).
//! - `run_50mb`: `conclave run --headless` of the same scenario, a round
//!   table of seven model calls on the sim, each carrying the context in
//!   its prompt (hashed and counted at every call).
//!
//! Every row reports the peak resident memory of its process (from
//! `wait4`): the rows that run the binary, the binary's; the dashboard rows
//! run this bench again for the row alone, and also report their peak
//! heap, from a counting allocator. `cargo bench --bench scale -- swarm`
//! runs the rows whose name holds `swarm`; `CONCLAVE_SCALE_TASKS` changes
//! the 100,000; `CONCLAVE_SCALE_DIR` keeps the files the rows run on there.
//!
//! Recorded once (short tool records, the scripted plan named, a writer far
//! behind handed lines): `orchestrator_100k headless, recorded` went from
//! 863 MB RSS and a 205 MB file to 277 MB and 170 MB on the same machine;
//! `dashboard_live_100k` from 762 to 753 MB heap (its state is the run's
//! rows and the engine's, not the records).
//!
//! The finished run's result kept as text (its panes read what they show
//! of it once, at the finish, where a frame had built the 50 MB document
//! into a 620 MB tree): `dashboard_live_100k` went from 757 MB heap and
//! 972 MB RSS to 338 MB heap and 412 MB RSS on the same machine, 207 MB
//! held at its end.
//!
//! A member call's payload written once (its characters counted as its
//! prompt is hashed, for the sim's token estimate) and the team's shared
//! facts kept as compact text: `coordinator_100k` went from 4.14 s to
//! 3.97 s of CPU (user and system) against the orchestrator row's 2.86 s
//! and 2.89 s, the same run's result byte for byte, on a machine under a
//! load of 8 to 14.
//!
//! No model call's future holding its answer twice (the answer under its
//! timeout boxed, the relayed call pinned where it is made; a real
//! worker's and an endpoint's call boxed), a prompt's hash kept per prompt
//! and the payload hashed in 4 KiB pieces: a member call's future went from
//! 18,736 to 6,064 bytes and an orchestrator task's from 14,480 to 4,464.
//! Back to back at a load of 2.5, median CPU (user and system) of five
//! runs each: `coordinator_100k` went from 3.60 s to 2.99 s (0.84×) and
//! `orchestrator_100k` from 2.62 s to 2.36 s (0.90×), the one against the
//! other from 1.37× to 1.27×; both results byte for byte as before.
//!
//! Each agent's purpose and payload head built once per team run, and no
//! channel or relay set up for the text of an answer that comes whole
//! (the sim's, no cassette): `coordinator_100k` went from 2.10 s to
//! 1.89 s wall (0.88×, six pairs) while `orchestrator_100k` stayed at
//! 1.87 s (1.01×); the one against the other, run pair by pair with one
//! binary, from 1.30× to 1.00× wall and 0.98× CPU, 220 MiB against
//! 263 MiB at the peak. This bench's rows then: `coordinator_100k` 1.83 s
//! and 236 MB RSS, `orchestrator_100k` 2.00 s and 271 MB.

#[path = "common/counting.rs"]
mod counting;
#[path = "common/measure.rs"]
mod measure;
#[path = "common/shapes.rs"]
mod shapes;

use conclave::bus::{Delivery, Hub, Subscription};
use conclave::scenario;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::world::{LaunchSettings, World};
use conclave::tui::{BATCH, view};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

const BINARY: &str = env!("CARGO_BIN_EXE_conclave");
/// Set for this bench run again to measure one dashboard row alone.
const ALONE: &str = "CONCLAVE_SCALE_ALONE";
const FRAME: Duration = Duration::from_millis(16);

fn main() {
    let wanted = measure::wanted_rows();
    let tasks: usize = std::env::var("CONCLAVE_SCALE_TASKS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    // CONCLAVE_SCALE_DIR keeps the scenarios and the recording, to profile
    // a row's command by hand afterwards.
    let temporary = tempfile::tempdir().expect("a temporary folder");
    let kept = std::env::var_os("CONCLAVE_SCALE_DIR").map(std::path::PathBuf::from);
    if let Some(kept) = &kept {
        std::fs::create_dir_all(kept).expect("CONCLAVE_SCALE_DIR can be made");
    }
    let dir = kept.as_deref().unwrap_or(temporary.path());
    let plan = dir.join("tasks.json");
    let recording = dir.join("tasks.jsonl");
    let k = tasks / 1000;
    match std::env::var(ALONE).as_deref() {
        Ok("dashboard_live") => return dashboard_live(&plan, k),
        Ok("dashboard_replay") => return dashboard_replay(&recording, k),
        _ => {}
    }
    println!("{:<40} {:>10} {:>14}", "row", "wall", "peak");

    let needs_recording = ["dashboard_replay", "headless_replay", "cassette"]
        .iter()
        .any(|row| wanted(row));
    if wanted("orchestrator") || wanted("dashboard_live") || needs_recording {
        shapes::write_fan_out(&plan, tasks);
    }
    if wanted("orchestrator") {
        let (took, rss) = process(&["run", "--headless", path(&plan)]);
        row(&format!("orchestrator_{k}k headless"), took, rss, "RSS");
    }
    if wanted("orchestrator") || needs_recording {
        // A recording is never written over: one a kept folder holds from
        // an earlier run of this bench goes first.
        let _ = std::fs::remove_file(&recording);
        let (took, rss) = process(&[
            "run",
            "--headless",
            "--record",
            path(&recording),
            path(&plan),
        ]);
        let events = lines(&recording);
        let size = std::fs::metadata(&recording).map_or(0, |m| m.len());
        row(
            &format!("orchestrator_{k}k headless, recorded"),
            took,
            rss,
            "RSS",
        );
        println!(
            "{:<40} {events} events, {:.0} MB",
            "  its recording",
            size as f64 / 1e6
        );
    }
    if wanted("fan_out") {
        fan_out(dir);
    }
    if wanted("coordinator") {
        let file = dir.join("members.json");
        write_member_fan_out(&file, tasks);
        let (took, rss) = process(&["run", "--headless", path(&file)]);
        row(
            &format!("coordinator_{k}k members headless"),
            took,
            rss,
            "RSS",
        );
    }
    if wanted("graph") {
        let file = dir.join("graph_map.json");
        write_graph_map(&file, tasks);
        let (took, rss) = process(&["run", "--headless", path(&file)]);
        row(&format!("graph_map_{k}k headless"), took, rss, "RSS");
    }
    if wanted("graph_chain") {
        // The 10,000-task orchestrator's size as a graph: a chain, with a
        // map over a tenth as many items collected into the state first.
        for reads in [true, false] {
            let file = dir.join(format!("graph_chain_{reads}.json"));
            let nodes = tasks.max(100);
            write_graph_chain(&file, nodes, reads);
            let result = dir.join(format!("graph_chain_{reads}.result.json"));
            let (took, rss) = process_to(&["run", "--headless", path(&file)], &result);
            let said = if reads { "reads" } else { "no reads" };
            row(&format!("graph_chain_{k}k {said}"), took, rss, "RSS");
            let document: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&result).expect("the result"))
                    .expect("the result is JSON");
            assert_eq!(document["stop_reason"], "completed", "the chain completes");
            let usage = &document["usage"];
            println!(
                "{:<40} {} input tokens (estimated), {} output",
                "  its usage", usage["input_tokens"], usage["output_tokens"]
            );
        }
    }
    if wanted("swarm") {
        for calls in [2_500, 5_000, 10_000, 20_000] {
            let file = dir.join(format!("swarm_{calls}.json"));
            write_swarm(&file, calls);
            let (took, rss) = process(&["run", "--headless", path(&file)]);
            row(&format!("swarm_{calls}_calls headless"), took, rss, "RSS");
        }
    }
    if wanted("nested_teams") {
        for teams in [50, 100, 200, 400] {
            let file = dir.join(format!("nested_teams_{teams}.json"));
            write_team_of_teams(&file, teams);
            let (took, rss) = process(&["run", "--headless", path(&file)]);
            let calls = teams * 40 + 2;
            row(
                &format!("nested_{teams}x40_{calls}_calls headless"),
                took,
                rss,
                "RSS",
            );
        }
    }
    if wanted("validate_50mb") || wanted("run_50mb") {
        let file = dir.join("context_50mb.json");
        write_context_of_size(&file, 50 << 20);
        if wanted("validate_50mb") {
            let (took, rss) = process(&["validate", path(&file)]);
            row("validate_50mb context", took, rss, "RSS");
        }
        if wanted("run_50mb") {
            let (took, rss) = process(&["run", "--headless", path(&file)]);
            row("run_50mb context headless", took, rss, "RSS");
        }
    }
    if wanted("headless_replay") {
        let (took, rss) = process(&["replay", "--headless", path(&recording)]);
        row(&format!("headless_replay_{k}k"), took, rss, "RSS");
    }
    if wanted("cassette") {
        let (took, rss) = process(&[
            "run",
            "--headless",
            "--cassette",
            path(&recording),
            path(&plan),
        ]);
        row(&format!("cassette_{k}k served"), took, rss, "RSS");
    }
    for row in ["dashboard_live", "dashboard_replay"] {
        if wanted(row) {
            alone(row, dir);
        }
    }
}

/// Tasks of the `fan_out` rows: the size the guard test
/// (`tests/fan_out_memory.rs`) holds, whatever `CONCLAVE_SCALE_TASKS` says;
/// `CONCLAVE_FAN_OUT_TASKS` sets another (100000, the size the floor's bars
/// are set at).
const FAN_OUT: usize = 20_000;

/// Processes per `fan_out` row; the medians of their figures are printed.
const FAN_OUT_PROCESSES: usize = 5;

/// The orchestrator's plan of [`FAN_OUT`] tasks run headless and recorded,
/// and the same shape of work in plain asyncio (`benches/fan_out_floor.py`,
/// the floor), the three interleaved process by process, and the medians
/// of their wall times and peaks printed with their ratios: the figures a
/// change to the engine, the recorder, the bus, the gateway or the
/// scrubber quotes before and after.
fn fan_out(dir: &Path) {
    let tasks = std::env::var("CONCLAVE_FAN_OUT_TASKS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(FAN_OUT);
    let plan = dir.join("fan_out.json");
    shapes::write_fan_out(&plan, tasks);
    let floor_script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/fan_out_floor.py");
    let mut headless = Vec::new();
    let mut recorded = Vec::new();
    let mut floor = Vec::new();
    for _ in 0..FAN_OUT_PROCESSES {
        headless.push(process(&["run", "--headless", path(&plan)]));
        let recording = dir.join("fan_out.jsonl");
        let _ = std::fs::remove_file(&recording);
        recorded.push(process(&[
            "run",
            "--headless",
            "--record",
            path(&recording),
            path(&plan),
        ]));
        let mut python = Command::new("python3");
        python
            .arg(&floor_script)
            .arg(tasks.to_string())
            .stdout(Stdio::null());
        floor.push(measured(python, "the asyncio floor"));
    }
    let k = tasks / 1000;
    let (took, rss) = medians(&mut headless);
    row(&format!("fan_out_{k}k headless"), took, rss, "RSS");
    let (took_recorded, rss_recorded) = medians(&mut recorded);
    row(
        &format!("fan_out_{k}k headless, recorded"),
        took_recorded,
        rss_recorded,
        "RSS",
    );
    let (took_floor, rss_floor) = medians(&mut floor);
    row(
        &format!("fan_out_{k}k asyncio floor"),
        took_floor,
        rss_floor,
        "RSS",
    );
    let ratios = |what: &str, (a, a_rss): (Duration, usize), (b, b_rss): (Duration, usize)| {
        println!(
            "{what:<40} {:>8.2}x {:>8.2}x (medians of {FAN_OUT_PROCESSES}, interleaved)",
            a.as_secs_f64() / b.as_secs_f64(),
            a_rss as f64 / b_rss as f64
        );
    };
    ratios(
        "  recorded against headless",
        (took_recorded, rss_recorded),
        (took, rss),
    );
    ratios(
        "  headless against the floor",
        (took, rss),
        (took_floor, rss_floor),
    );
}

/// The median wall time and the median peak of `runs`.
fn medians(runs: &mut [(Duration, usize)]) -> (Duration, usize) {
    let middle = runs.len() / 2;
    runs.sort_by_key(|run| run.0);
    let took = runs[middle].0;
    runs.sort_by_key(|run| run.1);
    (took, runs[middle].1)
}

/// Run this bench again for the dashboard row `row` alone, on the files in
/// `dir`; it prints its own figures, and its process's peak memory here.
fn alone(row: &str, dir: &Path) {
    let mut bench = Command::new(std::env::current_exe().expect("this bench's path"));
    bench
        .env(ALONE, row)
        .env("CONCLAVE_SCALE_DIR", dir)
        .stdout(Stdio::inherit());
    let (_, rss) = measured(bench, row);
    println!("{:<40} {:>10} {:>8.0} MB RSS", "", "", rss as f64 / 1e6);
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

/// Lines of `file`, read a piece at a time so that this process stays small.
fn lines(file: &Path) -> usize {
    let Ok(file) = std::fs::File::open(file) else {
        return 0;
    };
    std::io::BufRead::split(std::io::BufReader::new(file), b'\n').count()
}

fn row(name: &str, took: Duration, bytes: usize, what: &str) {
    println!(
        "{name:<40} {:>8.2} s {:>8.0} MB {what}",
        took.as_secs_f64(),
        bytes as f64 / 1e6
    );
}

/// Run the binary with `args`, its output thrown away; its wall time and
/// peak resident memory. A run that fails stops the bench.
fn process(args: &[&str]) -> (Duration, usize) {
    let mut binary = Command::new(BINARY);
    binary.args(args).stdout(Stdio::null());
    measured(binary, &format!("conclave {args:?}"))
}

/// As [`process`], its output written to `out`.
fn process_to(args: &[&str], out: &Path) -> (Duration, usize) {
    let mut binary = Command::new(BINARY);
    let file = std::fs::File::create(out).expect("a temporary file");
    binary.args(args).stdout(file);
    measured(binary, &format!("conclave {args:?}"))
}

/// Run `command`; its wall time and peak resident memory. A run that fails
/// stops the bench, with the end of what it said.
fn measured(command: Command, what: &str) -> (Duration, usize) {
    let took = measure::measured(command, what);
    (took.wall, took.rss)
}

/// The run in the dashboard as its loop does it: events folded as they
/// come, a frame drawn every 16 ms with what the bus gathered since the
/// last, until the frame that shows the run finished. Freeing the
/// dashboard's state afterwards (which the dashboard does when the user
/// quits, not when a run ends) is timed apart.
fn dashboard_live(plan: &Path, k: usize) {
    let scenario = Arc::new(scenario::load(plan).expect("a valid scenario"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let before = counting::reset_peak();
    let start = Instant::now();
    let (frames, missed, held, shown) = runtime.block_on(async {
        let hub = Hub::default();
        let mut bus = hub.subscribe();
        let mut world = World::new(hub.clone(), LaunchSettings::default());
        let mut app = App::new(AppOptions::default());
        let mut terminal = Terminal::new(TestBackend::new(200, 60)).expect("a test terminal");
        for effect in app.launch(scenario, None) {
            if let Some(done) = world.carry_out(effect) {
                app.done(done);
            }
        }
        let (mut frames, mut missed) = (0u64, 0u64);
        let mut last_draw = Instant::now() - FRAME;
        let mut take = |app: &mut App, delivery| match delivery {
            Delivery::Event(event) => app.apply(event),
            Delivery::Missed(n) => missed += n,
            Delivery::Closed => {}
        };
        // `first`, and what the bus holds after it, up to the dashboard's
        // batch.
        let mut take_batch = |app: &mut App, bus: &mut Subscription, first: Option<Delivery>| {
            first.into_iter().for_each(|delivery| take(app, delivery));
            for _ in 0..BATCH {
                let Some(delivery) = bus.try_next() else {
                    break;
                };
                take(app, delivery);
            }
        };
        let mut dirty = true;
        while app.live_runs() {
            let due = last_draw + FRAME;
            if dirty && Instant::now() >= due {
                take_batch(&mut app, &mut bus, None);
                terminal.draw(|f| view::draw(f, &app)).expect("a frame");
                frames += 1;
                last_draw = Instant::now();
                dirty = false;
                continue;
            }
            // Once a frame is due, the bus is read when it is drawn.
            tokio::select! {
                delivery = bus.next(), if !dirty => {
                    take_batch(&mut app, &mut bus, Some(delivery));
                    dirty = true;
                }
                () = tokio::time::sleep_until(due.into()), if dirty => {}
            }
        }
        terminal.draw(|f| view::draw(f, &app)).expect("a frame");
        let shown = start.elapsed();
        let held = counting::live().saturating_sub(before);
        for handle in world.take_handles() {
            let _ = handle.finish().await;
        }
        (frames + 1, missed, held, shown)
    });
    let freed = start.elapsed() - shown;
    row(
        &format!("dashboard_live_{k}k"),
        shown,
        counting::peak() - before,
        "heap",
    );
    println!(
        "{:<40} {frames} frames, {missed} events missed, {:.0} MB held at the end, freed in {:.2} s",
        "  ",
        held as f64 / 1e6,
        freed.as_secs_f64()
    );
}

/// The dashboard opening the recording, until its first frame is drawn.
fn dashboard_replay(recording: &Path, k: usize) {
    let before = counting::reset_peak();
    let start = Instant::now();
    let mut app = App::new(AppOptions::default());
    conclave::tui::world::open_replay(&mut app, recording).expect("the recording opens");
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).expect("a test terminal");
    terminal.draw(|f| view::draw(f, &app)).expect("a frame");
    let took = start.elapsed();
    row(
        &format!("dashboard_replay_{k}k first frame"),
        took,
        counting::peak() - before,
        "heap",
    );
    let held = counting::live().saturating_sub(before);
    println!(
        "{:<40} {:.0} MB held with the replay open",
        "  ",
        held as f64 / 1e6
    );
    // The end key: every event folded, the checkpoints placed on the way.
    let start = Instant::now();
    let end = KeyEvent::new(KeyCode::Char('>'), KeyModifiers::NONE);
    app.key(end);
    terminal.draw(|f| view::draw(f, &app)).expect("a frame");
    println!(
        "{:<40} {:.2} s to the end's frame, {:.0} MB heap then",
        "  ",
        start.elapsed().as_secs_f64(),
        counting::live().saturating_sub(before) as f64 / 1e6
    );
    drop(app);
}

fn create(file: &Path) -> BufWriter<std::fs::File> {
    BufWriter::new(std::fs::File::create(file).expect("a temporary file"))
}

/// A round table whose `context` holds small objects up to `bytes`.
fn write_context_of_size(file: &Path, bytes: u64) {
    let shipped = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/checkout_v2_launch.json"
    );
    let mut document: serde_json::Value =
        serde_json::from_slice(&std::fs::read(shipped).expect("the shipped scenario"))
            .expect("JSON");
    document["context"] = serde_json::json!({"rows": "@rows@"});
    let text = serde_json::to_string_pretty(&document).expect("JSON");
    let (head, tail) = text.split_once("\"@rows@\"").expect("the placeholder");
    let mut out = create(file);
    out.write_all(head.as_bytes()).expect("written");
    out.write_all(b"[").expect("written");
    let mut written = (head.len() + tail.len()) as u64;
    let mut i = 0;
    while written < bytes {
        let item = format!(
            "{}{{\"i\": {}, \"v\": {}}}",
            if i > 0 { ",\n" } else { "" },
            i % 1000,
            i % 7
        );
        out.write_all(item.as_bytes()).expect("written");
        written += item.len() as u64;
        i += 1;
    }
    out.write_all(b"]").expect("written");
    out.write_all(tail.as_bytes()).expect("written");
    out.flush().expect("written");
}

/// A coordinator whose one turn calls `teams` member teams at once, each
/// a swarm of two agents handing control back and forth 39 times and
/// then replying; then the coordinator answers.
fn write_team_of_teams(file: &Path, teams: usize) {
    let mut agents = serde_json::Map::new();
    let mut specs = serde_json::Map::new();
    let mut turns = serde_json::Map::new();
    let mut calls = Vec::new();
    agents.insert(
        "lead".into(),
        serde_json::json!({"description": "Runs the review"}),
    );
    for i in 0..teams {
        let name = format!("t{i}");
        agents.insert(format!("m{i}"), serde_json::json!({"team": name}));
        specs.insert(
            name.clone(),
            serde_json::json!({
                "pattern": "swarm", "entry": "a", "agents": {"a": {}, "b": {}},
                "limits": {"max_handoffs": 0, "repetitive_handoff_window": 0,
                           "repetitive_handoff_min_unique": 0}
            }),
        );
        let mut b = vec![serde_json::json!({"transfer_to": "a"}); 19];
        b.push(serde_json::json!({"reply": format!("team {i} agrees")}));
        turns.insert(
            format!("{name}/a"),
            serde_json::json!(vec![serde_json::json!({"transfer_to": "b"}); 20]),
        );
        turns.insert(format!("{name}/b"), serde_json::json!(b));
        calls.push(serde_json::json!({"member": format!("m{i}"), "task": format!("part {i}")}));
    }
    turns.insert(
        "lead".into(),
        serde_json::json!([{"call_members": calls}, {"reply": "All agree."}]),
    );
    let document = serde_json::json!({
        "name": "team_of_teams", "pattern": "coordinator", "goal": "Agree a plan.", "seed": 3,
        "context": {}, "entry": "lead", "agents": agents, "teams": specs,
        "budget": {"max_llm_calls": teams * 40 + 10, "max_seconds": 600_000},
        "provider": {"kind": "sim", "latency_ms": {"min": 1, "max": 5}, "turns": turns}
    });
    let mut out = create(file);
    serde_json::to_writer(&mut out, &document).expect("written");
    out.flush().expect("written");
}

/// A coordinator whose first turn calls `calls` members, four members in
/// turn, each call answered in one turn; then the coordinator answers.
/// Written as it goes so that this process stays small.
fn write_member_fan_out(file: &Path, calls: usize) {
    let members = ["a0", "a1", "a2", "a3"];
    let mut out = create(file);
    let put = |out: &mut BufWriter<std::fs::File>, text: &str| {
        out.write_all(text.as_bytes()).expect("written");
    };
    put(
        &mut out,
        "{\"name\": \"member_fan_out\", \"pattern\": \"coordinator\", \"goal\": \"Report.\", \"seed\": 3,\n\"context\": {\"report_date\": \"2026-02-26\", \"region\": \"US\"}, \"entry\": \"lead\",\n\"agents\": {\"lead\": {\"description\": \"Splits the report\"}",
    );
    for member in members {
        put(
            &mut out,
            &format!(", \"{member}\": {{\"description\": \"Reports one part\"}}"),
        );
    }
    put(
        &mut out,
        &format!(
            "}},\n\"budget\": {{\"max_llm_calls\": {}, \"max_seconds\": 600}},\n\"provider\": {{\"kind\": \"sim\", \"latency_ms\": {{\"min\": 1, \"max\": 50}}, \"turns\": {{\n\"lead\": [{{\"call_members\": [\n",
            calls + 10
        ),
    );
    for i in 0..calls {
        let comma = if i > 0 { ",\n" } else { "" };
        let member = members[i % members.len()];
        put(
            &mut out,
            &format!("{comma}{{\"member\": \"{member}\", \"task\": \"part {i}\"}}"),
        );
    }
    put(&mut out, "]}, {\"reply\": \"Done.\"}]");
    for member in members {
        put(
            &mut out,
            &format!(",\n\"{member}\": [{{\"reply\": \"{member} is done.\"}}]"),
        );
    }
    put(&mut out, "}}}\n");
    out.flush().expect("written");
}

/// A graph whose planner lists `items` steps and whose map node asks a
/// researcher each, 256 at once, 1–50 ms a call: `items` + 1 model calls,
/// the findings collected in step order.
fn write_graph_map(file: &Path, items: usize) {
    let mut out = create(file);
    let put = |out: &mut BufWriter<std::fs::File>, text: &str| {
        out.write_all(text.as_bytes()).expect("written");
    };
    put(
        &mut out,
        "{\"name\": \"graph_map\", \"pattern\": \"graph\", \"goal\": \"Report.\", \"context\": {},\n\"agents\": {\"planner\": {\"description\": \"Lists the steps\"}, \"researcher\": {\"description\": \"Answers one step\"}},\n\"graph\": {\"entry\": \"plan\", \"state\": {\"steps\": {\"merge\": \"replace\"}, \"findings\": {\"merge\": \"append\"}},\n\"nodes\": [{\"id\": \"plan\", \"agent\": \"planner\", \"output\": {\"steps\": \"list\"}, \"write\": {\"steps\": \"/steps\"}},\n{\"id\": \"research\", \"map\": \"state.steps\", \"agent\": \"researcher\", \"max_parallel\": 256, \"collect\": \"findings\", \"output\": {\"finding\": \"string\"}},\n{\"id\": \"done\", \"end\": true}],\n\"edges\": [{\"from\": \"plan\", \"to\": \"research\"}, {\"from\": \"research\", \"to\": \"done\"}]},\n",
    );
    put(
        &mut out,
        "\"budget\": {\"max_seconds\": 600},\n\"provider\": {\"kind\": \"sim\", \"latency_ms\": {\"min\": 1, \"max\": 50}, \"turns\": {\"plan\": {\"steps\": [",
    );
    for i in 0..items {
        let comma = if i > 0 { ", " } else { "" };
        put(&mut out, &format!("{comma}\"step {i}\""));
    }
    put(&mut out, "]}}}}\n");
    out.flush().expect("written");
}

/// A swarm of two agents handing control back and forth `calls` times,
/// its loop checks off, the last turn a reply.
fn write_swarm(file: &Path, calls: usize) {
    let half = calls / 2;
    let turns = |to: &str, n: usize, reply: bool| -> Vec<serde_json::Value> {
        let mut turns: Vec<serde_json::Value> = (0..n)
            .map(|i| serde_json::json!({"transfer_to": to, "message": format!("note {i}")}))
            .collect();
        if reply {
            turns.push(serde_json::json!({"reply": "Agreed."}));
        }
        turns
    };
    let document = serde_json::json!({
        "name": "long_swarm", "pattern": "swarm", "goal": "Agree a plan.", "seed": 3,
        "context": {"feature": "search_ranking_v4"}, "entry": "planner",
        "agents": {"planner": {"description": "Drafts the plan"},
                   "critic": {"description": "Finds its gaps"}},
        "limits": {"max_handoffs": 0, "node_timeout_ms": 0,
                   "repetitive_handoff_window": 0, "repetitive_handoff_min_unique": 0},
        "budget": {"max_llm_calls": calls + 10, "max_seconds": 600_000},
        "provider": {"kind": "sim", "latency_ms": {"min": 1, "max": 5},
                     "turns": {"planner": turns("critic", half, false),
                               "critic": turns("planner", half - 1, true)}}
    });
    let mut out = create(file);
    serde_json::to_writer(&mut out, &document).expect("written");
    out.flush().expect("written");
}

/// A graph of `nodes` nodes in the shape an independent checker ran: a
/// planner that lists `nodes / 10` steps, a map that asks a researcher
/// each (256 at once) and collects the findings into the state, then a
/// chain of agent nodes to the end, each declaring `"reads": []` when
/// `reads`, else sent the whole state.
fn write_graph_chain(file: &Path, nodes: usize, reads: bool) {
    use serde_json::json;
    let items = nodes / 10;
    let chain = nodes - 3;
    let mut list = vec![
        json!({"id": "plan", "agent": "planner", "output": {"steps": "list"}, "write": {"steps": "/steps"}}),
        json!({"id": "research", "map": "state.steps", "agent": "researcher", "max_parallel": 256,
               "collect": "findings", "output": {"finding": "string"}}),
    ];
    let mut edges = vec![json!({"from": "plan", "to": "research"})];
    let mut last = "research".to_string();
    for i in 0..chain {
        let id = format!("n{i}");
        let mut node = json!({"id": id, "agent": "writer"});
        if reads {
            node["reads"] = json!([]);
        }
        list.push(node);
        edges.push(json!({"from": last, "to": id}));
        last = id;
    }
    list.push(json!({"id": "done", "end": true}));
    edges.push(json!({"from": last, "to": "done"}));
    let steps: Vec<String> = (0..items).map(|i| format!("step {i}")).collect();
    let document = json!({
        "name": "graph_chain", "pattern": "graph", "goal": "Report.", "context": {},
        "agents": {"planner": {"description": "Lists the steps"},
                   "researcher": {"description": "Answers one step"},
                   "writer": {"description": "Writes one part"}},
        "graph": {"entry": "plan", "max_steps": nodes + items + 10,
                  "state": {"steps": {"merge": "replace"}, "findings": {"merge": "append"}},
                  "nodes": list, "edges": edges},
        "budget": {"max_seconds": 600_000},
        "provider": {"kind": "sim", "latency_ms": {"min": 1, "max": 50},
                     "turns": {"plan": {"steps": steps}}}
    });
    let mut out = create(file);
    serde_json::to_writer(&mut out, &document).expect("written");
    out.flush().expect("written");
}
