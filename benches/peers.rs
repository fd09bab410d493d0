//! The peers-perf shapes side by side: Conclave against the same work in
//! plain asyncio (the floors, `benches/fan_out_floor.py` and
//! `benches/team_floor.py`), in one run, interleaved process by process,
//! and the medians of their wall time, CPU time and peak memory printed
//! with their ratios to the floor.
//!
//! - `fan_out`: the orchestrator's 100,000 tasks (1–50 ms, 256 at once),
//!   headless and recorded (`CONCLAVE_PEERS_FAN_OUT` sets the tasks);
//! - `chain`: a swarm of four agents handing control round a ring, 10,000
//!   and 40,000 handoffs, one model call of 1–5 ms a turn, and the
//!   marginal cost of a model call between the two (the slope);
//! - `round_table`: 3,000 rounds of three roles (9,000 model calls);
//! - `coordinator`: one turn calling 100,000 distinct members, one call
//!   each (`CONCLAVE_PEERS_MEMBERS` sets how many).
//!
//! All on the sim and the virtual clock. `cargo bench --bench peers --
//! chain` runs the rows whose name holds `chain`; `CONCLAVE_PEERS_RUNS`
//! sets the processes per contender (5); `CONCLAVE_PEERS_VS=/path/to/
//! conclave` runs another build of Conclave beside this one, interleaved
//! too, and prints its ratios (before and after a change, on one machine
//! at one time).

#[path = "common/measure.rs"]
mod measure;
#[path = "common/shapes.rs"]
mod shapes;

use measure::{Took, measured, medians, spread};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BINARY: &str = env!("CARGO_BIN_EXE_conclave");

/// One party to a row: its name and how to start one process of it.
struct Contender {
    name: String,
    start: Box<dyn Fn() -> Command>,
}

/// How a row's Conclave is run: which binary, with what arguments.
fn conclave(binary: &Path, args: Vec<String>) -> Box<dyn Fn() -> Command> {
    let binary = binary.to_path_buf();
    Box::new(move || {
        let mut command = Command::new(&binary);
        command.args(&args).stdout(Stdio::null());
        command
    })
}

/// The floor script `script` with `args`.
fn floor(script: &str, args: &[String]) -> Contender {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches")
        .join(script);
    let args = args.to_vec();
    Contender {
        name: "asyncio floor".into(),
        start: Box::new(move || {
            let mut command = Command::new("python3");
            command.arg(&script).args(&args).stdout(Stdio::null());
            command
        }),
    }
}

struct Bench {
    runs: usize,
    dir: PathBuf,
    /// The builds compared: this one, and `CONCLAVE_PEERS_VS` when set.
    builds: Vec<(String, PathBuf)>,
}

fn main() {
    let wanted = measure::wanted_rows();
    let number = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(default)
    };
    let temporary = tempfile::tempdir().expect("a temporary folder");
    let mut builds = vec![("conclave".to_string(), PathBuf::from(BINARY))];
    if let Some(other) = std::env::var_os("CONCLAVE_PEERS_VS") {
        builds.push(("vs".to_string(), PathBuf::from(other)));
    }
    let bench = Bench {
        runs: number("CONCLAVE_PEERS_RUNS", 5).max(1),
        dir: temporary.path().to_path_buf(),
        builds,
    };
    println!(
        "{:<38} {:>16} {:>9} {:>9} {:>9} {:>8} {:>8}",
        "row", "wall (low-high)", "", "CPU", "peak", "wall/fl", "peak/fl"
    );
    if wanted("fan_out") {
        bench.fan_out(number("CONCLAVE_PEERS_FAN_OUT", 100_000));
    }
    if wanted("chain") {
        let short = bench.chain(10_000);
        let long = bench.chain(40_000);
        slope(&short, &long, 30_000);
    }
    if wanted("round_table") {
        let rounds = 3_000;
        let file = bench.dir.join("round_table.json");
        shapes::write_round_table(&file, rounds);
        let n = rounds.to_string();
        bench.row(
            &format!("round_table_{}k_calls", rounds * 3 / 1000),
            &file,
            floor("team_floor.py", &["round_table".into(), n]),
        );
    }
    if wanted("coordinator") {
        let members = number("CONCLAVE_PEERS_MEMBERS", 100_000);
        let file = bench.dir.join("members.json");
        shapes::write_members(&file, members);
        bench.row(
            &format!("coordinator_{}k_members", members / 1000),
            &file,
            floor(
                "team_floor.py",
                &["coordinator".into(), members.to_string()],
            ),
        );
    }
}

impl Bench {
    /// The orchestrator's fan-out of `tasks`, headless and recorded.
    fn fan_out(&self, tasks: usize) {
        let plan = self.dir.join("fan_out.json");
        shapes::write_fan_out(&plan, tasks);
        let recorded = |binary: &Path, i: usize| {
            let recording = self.dir.join(format!("fan_out_{i}.jsonl"));
            let (binary, plan) = (binary.to_path_buf(), plan.clone());
            Box::new(move || {
                // A recording is never written over.
                let _ = std::fs::remove_file(&recording);
                let mut command = Command::new(&binary);
                command
                    .args(["run", "--headless", "--record"])
                    .arg(&recording)
                    .arg(&plan)
                    .stdout(Stdio::null());
                command
            }) as Box<dyn Fn() -> Command>
        };
        let mut contenders = Vec::new();
        for (i, (name, binary)) in self.builds.iter().enumerate() {
            let headless = vec!["run".into(), "--headless".into(), text(&plan)];
            contenders.push(Contender {
                name: format!("{name} headless"),
                start: conclave(binary, headless),
            });
            contenders.push(Contender {
                name: format!("{name} recorded"),
                start: recorded(binary, i),
            });
        }
        contenders.push(floor("fan_out_floor.py", &[tasks.to_string()]));
        self.compare(&format!("fan_out_{}k", tasks / 1000), contenders);
    }

    /// The handoff chain of `handoffs`: each contender's medians.
    fn chain(&self, handoffs: usize) -> Vec<(String, Took)> {
        let file = self.dir.join(format!("chain_{handoffs}.json"));
        shapes::write_chain(&file, handoffs);
        self.row(
            &format!("chain_{}k_handoffs", handoffs / 1000),
            &file,
            floor("team_floor.py", &["chain".into(), handoffs.to_string()]),
        )
    }

    /// Each build running `scenario` headless against `floor`.
    fn row(&self, name: &str, scenario: &Path, floor: Contender) -> Vec<(String, Took)> {
        let mut contenders: Vec<Contender> = self
            .builds
            .iter()
            .map(|(build, binary)| {
                let args = vec!["run".into(), "--headless".into(), text(scenario)];
                Contender {
                    name: build.clone(),
                    start: conclave(binary, args),
                }
            })
            .collect();
        contenders.push(floor);
        self.compare(name, contenders)
    }

    /// Run every contender `runs` times, interleaved, and print each one's
    /// medians and ratios to the last (the floor). Each one's medians.
    fn compare(&self, row: &str, contenders: Vec<Contender>) -> Vec<(String, Took)> {
        let mut took: Vec<Vec<Took>> = vec![Vec::new(); contenders.len()];
        for _ in 0..self.runs {
            for (contender, took) in contenders.iter().zip(&mut took) {
                took.push(measured((contender.start)(), &contender.name));
            }
        }
        let floor = medians(took.last().expect("a floor"));
        let mut all = Vec::new();
        for (contender, runs) in contenders.iter().zip(&took) {
            let median = medians(runs);
            let (low, high) = spread(runs);
            println!(
                "{:<38} {:>7.2} s {:>4.2}-{:<4.2} {:>7.2} s {:>5.0} MiB {:>7.2}x {:>7.2}x",
                format!("{row} {}", contender.name),
                median.wall.as_secs_f64(),
                low,
                high,
                median.cpu.as_secs_f64(),
                median.rss as f64 / f64::from(1 << 20),
                median.wall.as_secs_f64() / floor.wall.as_secs_f64(),
                median.rss as f64 / floor.rss as f64,
            );
            all.push((contender.name.clone(), median));
        }
        println!("  (medians of {} processes each, interleaved)", self.runs);
        all
    }
}

/// The marginal cost of one model call of each contender: the medians'
/// difference between the `short` and the `long` chain over the `calls`
/// more it made.
fn slope(short: &[(String, Took)], long: &[(String, Took)], calls: usize) {
    for ((name, a), (_, b)) in short.iter().zip(long) {
        let per = |x: std::time::Duration, y: std::time::Duration| {
            (y.as_secs_f64() - x.as_secs_f64()) * 1e6 / calls as f64
        };
        println!(
            "{:<38} {:>7.2} µs wall {:>7.2} µs CPU {:>7.0} B peak a model call",
            format!("chain slope {name}"),
            per(a.wall, b.wall),
            per(a.cpu, b.cpu),
            (b.rss as f64 - a.rss as f64) / calls as f64
        );
    }
}

fn text(path: &Path) -> String {
    path.to_str().expect("a UTF-8 temporary path").to_string()
}
