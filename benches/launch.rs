//! What launching costs a program (docs/launch.md, "What a launch
//! costs"). Two rows, `cargo bench --bench launch -- start` runs one:
//! - `start`: a plain Python program (benches/launch_program.py) started
//!   directly and as a program scenario through `conclave run app.json
//!   --headless`, interleaved (each round in the reverse order of the one
//!   before). Its start is the time from the spawn of the command to the
//!   program's first statement, which prints the monotonic clock; its
//!   whole run, from the spawn to the command's exit. Medians, p25..p75,
//!   the added time (the median of each round's difference) and the
//!   spread of the medians of three groups of rounds are printed.
//!   `CONCLAVE_LAUNCH_ROUNDS` sets the rounds (60).
//! - `memory`: the same program sending 1,000 spans and printing 1,000
//!   lines, launched, against `conclave watch --headless --runs 1`
//!   receiving its spans; both recorded. Conclave's process's peak
//!   resident memory (`VmHWM`, its children apart) is read from /proc as
//!   its main thread exits, held there by ptrace. Five of each,
//!   interleaved; the medians and their difference are printed.

#[path = "common/measure.rs"]
mod measure;
#[path = "common/stats.rs"]
mod stats;

use serde_json::Value;
use stats::{group_medians, least, median, most, quartiles, verdict};
use std::io::{BufRead, BufReader, Read, Seek};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BINARY: &str = env!("CARGO_BIN_EXE_conclave");
/// The bars of issue 86.
const ADDED_START_BAR_MS: f64 = 50.0;
const ADDED_MEMORY_BAR_MIB: f64 = 50.0;
const SPANS: u64 = 1_000;
const MEMORY_ROUNDS: usize = 5;

fn main() {
    let wanted = measure::wanted_rows();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let bench = Bench::new(dir.path());
    if wanted("start") {
        bench.start_row();
    }
    if wanted("memory") {
        bench.memory_row();
    }
}

struct Bench {
    python: PathBuf,
    program: PathBuf,
    dir: PathBuf,
}

impl Bench {
    fn new(dir: &Path) -> Bench {
        // The interpreter itself, not a shim in front of it that would
        // add its own start to both sides.
        let said = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 runs");
        let python = PathBuf::from(String::from_utf8_lossy(&said.stdout).trim());
        assert!(python.is_file(), "no python3: {python:?}");
        let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/launch_program.py");
        Bench {
            python,
            program,
            dir: dir.to_path_buf(),
        }
    }

    /// A program scenario running the program with `spans` spans.
    fn scenario(&self, spans: u64) -> PathBuf {
        let path = self.dir.join(format!("launch_bench_{spans}.json"));
        let text = serde_json::json!({
            "name": "launch_bench", "pattern": "program", "max_seconds": 120,
            "command": [self.python, self.program, spans.to_string()],
        });
        std::fs::write(&path, text.to_string()).expect("the scenario is written");
        path
    }

    /// `conclave run SCENARIO --headless`, recorded in the bench's folder.
    fn launch(&self, scenario: &Path) -> Command {
        let mut command = Command::new(BINARY);
        command
            .arg("run")
            .arg(scenario)
            .arg("--headless")
            .env("XDG_STATE_HOME", self.dir.join("state"));
        command
    }

    fn start_row(&self) {
        let rounds: usize = std::env::var("CONCLAVE_LAUNCH_ROUNDS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(60)
            .max(3);
        let scenario = self.scenario(0);
        let (mut direct, mut launched) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            if round % 2 == 0 {
                direct.push(self.direct());
                launched.push(self.launched(&scenario));
            } else {
                launched.push(self.launched(&scenario));
                direct.push(self.direct());
            }
        }
        let starts = |runs: &[Times]| runs.iter().map(|t| t.start).collect::<Vec<_>>();
        let wholes = |runs: &[Times]| runs.iter().map(|t| t.whole).collect::<Vec<_>>();
        println!(
            "launch start, {rounds} rounds interleaved, a plain Python program \
             (from the spawn to its first statement):"
        );
        compare(
            &starts(&direct),
            &starts(&launched),
            Some(ADDED_START_BAR_MS),
        );
        println!("launch whole run (from the spawn to the command's exit):");
        compare(&wholes(&direct), &wholes(&launched), None);
    }

    /// The program started directly.
    fn direct(&self) -> Times {
        let at = now_ns();
        let mut child = Command::new(&self.python)
            .arg(&self.program)
            .arg("0")
            .stdout(Stdio::piped())
            .spawn()
            .expect("the program starts");
        let mut first = String::new();
        let stdout = child.stdout.take().expect("its output");
        BufReader::new(stdout)
            .read_line(&mut first)
            .expect("its first line");
        assert!(child.wait().expect("its end").success());
        Times {
            start: ms(started_of(&first) - at),
            whole: ms(now_ns() - at),
        }
    }

    /// The program launched from its scenario.
    fn launched(&self, scenario: &Path) -> Times {
        let at = now_ns();
        let out = self.launch(scenario).output().expect("conclave runs");
        let whole = now_ns() - at;
        let result = ok_result(&out.stdout, &out.stderr);
        let first = result["output"]["lines"][0]["text"]
            .as_str()
            .expect("the program's first line");
        Times {
            start: ms(started_of(first) - at),
            whole: ms(whole),
        }
    }

    fn memory_row(&self) {
        let scenario = self.scenario(SPANS);
        let (mut launched, mut watched) = (Vec::new(), Vec::new());
        for round in 0..MEMORY_ROUNDS * 2 {
            if round % 4 == 0 || round % 4 == 3 {
                launched.push(self.launched_peak(&scenario));
            } else {
                watched.push(self.watched_peak());
            }
        }
        let (launch, watch) = (median(&launched), median(&watched));
        let added = launch - watch;
        println!(
            "launch memory, {SPANS} spans and {SPANS} lines, {MEMORY_ROUNDS} of each interleaved \
             (Conclave's process's VmHWM at its exit): launched median {launch:.1} MiB \
             ({:.1}..{:.1}), watched median {watch:.1} MiB ({:.1}..{:.1}), added {added:.1} MiB; \
             bar {ADDED_MEMORY_BAR_MIB} MiB: {}",
            least(&launched),
            most(&launched),
            least(&watched),
            most(&watched),
            verdict(added <= ADDED_MEMORY_BAR_MIB),
        );
    }

    /// The launch's peak, MiB.
    fn launched_peak(&self, scenario: &Path) -> f64 {
        let (stdout, stderr) = (temp(), temp());
        #[allow(clippy::zombie_processes)] // reaped by `peak_at_exit`
        let child = self
            .launch(scenario)
            .stdout(stdout.try_clone().expect("a handle"))
            .stderr(stderr.try_clone().expect("a handle"))
            .spawn()
            .expect("conclave runs");
        let peak = peak_at_exit(pid_of(&child));
        let result = ok_result(&read(stdout), &read(stderr));
        assert_eq!(result["spans"], SPANS, "{result}");
        peak
    }

    /// The watch's peak, MiB, the program pointed at it.
    fn watched_peak(&self) -> f64 {
        let stdout = temp();
        let records = self.dir.join("watched");
        #[allow(clippy::zombie_processes)] // reaped by `peak_at_exit`
        let mut watch = Command::new(BINARY)
            .args(["watch", "--headless", "--runs", "1", "--no-grpc"])
            .args(["--listen", "127.0.0.1:0", "--settle-ms", "200"])
            .arg("--record-dir")
            .arg(&records)
            .stdout(stdout.try_clone().expect("a handle"))
            .stderr(Stdio::piped())
            .spawn()
            .expect("conclave watch runs");
        let (url_tx, url_rx) = std::sync::mpsc::channel();
        let stderr = BufReader::new(watch.stderr.take().expect("its stderr"));
        let said = std::thread::spawn(move || {
            let mut said = String::new();
            for line in stderr.lines().map_while(Result::ok) {
                if let Some(at) = line.split("listening for OTLP on ").nth(1) {
                    let url = at.split_whitespace().next().unwrap_or_default();
                    let _ = url_tx.send(url.to_string());
                }
                said.push_str(&line);
                said.push('\n');
            }
            said
        });
        let url = url_rx.recv().expect("the watch says where it listens");
        let pid = pid_of(&watch);
        let mut program = Command::new(&self.python)
            .arg(&self.program)
            .arg(SPANS.to_string())
            .env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", url)
            .stdout(Stdio::null())
            .spawn()
            .expect("the program starts");
        let peak = peak_at_exit(pid);
        assert!(program.wait().expect("its end").success());
        let said = said.join().expect("the watch's stderr");
        let line = read(stdout);
        let result: Value = serde_json::from_slice(&line)
            .unwrap_or_else(|e| panic!("the watch's line: {e}: {said}"));
        assert_eq!(result["spans"], SPANS, "{result} {said}");
        peak
    }
}

/// When a program started and ended, ms after its spawn.
#[derive(Clone, Copy)]
struct Times {
    start: f64,
    whole: f64,
}

/// Print both sides' medians and quartiles and what the launch added.
fn compare(direct: &[f64], launched: &[f64], bar: Option<f64>) {
    for (name, runs) in [("direct", direct), ("launched", launched)] {
        let (p25, p75) = quartiles(runs);
        println!(
            "  {name:<9} median {:6.1} ms (p25..p75 {p25:.1}..{p75:.1})",
            median(runs)
        );
    }
    let added: Vec<f64> = launched.iter().zip(direct).map(|(l, d)| l - d).collect();
    let groups = group_medians(&added);
    let (low, high) = (least(&groups), most(&groups));
    let said = bar.map_or_else(String::new, |bar| {
        format!("; bar {bar} ms: {}", verdict(median(&added) <= bar))
    });
    println!(
        "  added     median {:6.1} ms (each round's difference; medians of three groups \
         {low:.1}..{high:.1}, spread {:.1} ms){said}",
        median(&added),
        high - low
    );
}

/// The monotonic clock (the one Python's `time.monotonic_ns` reads), ns.
fn now_ns() -> i64 {
    // SAFETY: clock_gettime writes the timespec it is given.
    let mut now: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: as above; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    now.tv_sec * 1_000_000_000 + now.tv_nsec
}

/// The clock the program's first line says it started at.
fn started_of(line: &str) -> i64 {
    line.trim()
        .strip_prefix("started ")
        .and_then(|ns| ns.parse().ok())
        .unwrap_or_else(|| panic!("not the program's first line: {line:?}"))
}

fn ms(ns: i64) -> f64 {
    ns as f64 / 1e6
}

/// A launch's result, which must be a success.
fn ok_result(stdout: &[u8], stderr: &[u8]) -> Value {
    let said = String::from_utf8_lossy(stderr);
    let result: Value = serde_json::from_slice(stdout)
        .unwrap_or_else(|e| panic!("the launch's result: {e}: {said}"));
    assert_eq!(result["status"], "ok", "{result} {said}");
    result
}

fn temp() -> std::fs::File {
    tempfile::tempfile().expect("a temporary file")
}

fn read(mut file: std::fs::File) -> Vec<u8> {
    let mut text = Vec::new();
    file.rewind().expect("a rewind");
    file.read_to_end(&mut text).expect("the file reads");
    text
}

fn pid_of(child: &std::process::Child) -> i32 {
    i32::try_from(child.id()).expect("a pid")
}

/// Follow `pid` (this process's child) with ptrace until it ends: its
/// peak resident memory in MiB, read as its main thread exits (the
/// memory still mapped, its children's not counted). A signal it gets
/// on the way is passed on; it must exit 0.
fn peak_at_exit(pid: i32) -> f64 {
    let none = std::ptr::null_mut::<libc::c_void>();
    let options = libc::PTRACE_O_TRACEEXIT as libc::c_long;
    // SAFETY: ptrace on our own child, which it only follows.
    let seized = unsafe { libc::ptrace(libc::PTRACE_SEIZE, pid, none, options) };
    assert_eq!(seized, 0, "ptrace: {}", std::io::Error::last_os_error());
    let mut peak_kib = 0;
    loop {
        let mut status = 0;
        // SAFETY: waits for our own child into a live local.
        let got = unsafe { libc::waitpid(pid, &mut status, libc::__WALL) };
        assert_eq!(got, pid, "waitpid: {}", std::io::Error::last_os_error());
        if libc::WIFEXITED(status) || libc::WIFSIGNALED(status) {
            assert!(
                libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
                "conclave ended with {status:#x}"
            );
            return peak_kib as f64 / 1024.0;
        }
        let event = status >> 16;
        let pass = if event == libc::PTRACE_EVENT_EXIT {
            peak_kib = vm_hwm_kib(pid);
            0
        } else if event == 0 {
            libc::WSTOPSIG(status)
        } else {
            0
        };
        // SAFETY: the child is stopped under our ptrace.
        unsafe { libc::ptrace(libc::PTRACE_CONT, pid, none, pass as libc::c_long) };
    }
}

fn vm_hwm_kib(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("its status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("its VmHWM")
}
