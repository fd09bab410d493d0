//! Real workers under test: a folder for scenario files and Conclave's
//! state (so allowances to run programs never touch the user's), the built
//! binary run in it, its recordings read back, and the processes a run
//! started looked for afterwards (on Linux, through /proc).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The built binary, which the toolbox's command workers run too.
pub const CONCLAVE: &str = env!("CARGO_BIN_EXE_conclave");

pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        Sandbox {
            dir: tempfile::tempdir().expect("a temporary folder"),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `XDG_STATE_HOME` of every run in the sandbox.
    pub fn state(&self) -> PathBuf {
        self.path("state")
    }

    /// Write `scenario` as `name` in the sandbox.
    pub fn write(&self, name: &str, scenario: &Value) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, serde_json::to_string_pretty(scenario).unwrap()).unwrap();
        path
    }

    /// Run `conclave` with `args` in the sandbox's folder.
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, &[])
    }

    pub fn run_with(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.command(args, env).output().expect("the binary runs")
    }

    /// Start `run SCENARIO --headless --allow-exec` without waiting, its
    /// output piped: for a test that signals or kills it.
    pub fn start_run(&self, scenario: &Path) -> std::process::Child {
        self.command(
            &[
                "run",
                scenario.to_str().unwrap(),
                "--headless",
                "--allow-exec",
            ],
            &[],
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary starts")
    }

    pub fn command(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut command = Command::new(CONCLAVE);
        command
            .args(args)
            .current_dir(self.dir.path())
            .env("XDG_STATE_HOME", self.state())
            .env_remove("CONCLAVE_MAX_BODY_BYTES");
        for (k, v) in env {
            command.env(k, v);
        }
        command
    }
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The events of a recording, as JSON.
pub fn recording(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|line| serde_json::from_str(line).expect("a recorded event is JSON"))
        .collect()
}

/// The events of `kind` in `events`.
pub fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// `argv` for the toolbox's command worker `tool` with `args`.
pub fn toolbox(tool: &[&str]) -> Value {
    let mut argv = vec![CONCLAVE.to_string(), "toolbox".to_string()];
    argv.extend(tool.iter().map(|s| s.to_string()));
    serde_json::json!(argv)
}

/// The state of process `pid` from /proc (`R`, `S`, `Z`, ...), or `None`
/// when there is no such process.
fn state_of(pid: i32) -> Option<(char, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

/// Whether process `pid` runs (a zombie no longer does).
pub fn alive(pid: i32) -> bool {
    matches!(state_of(pid), Some((state, _)) if state != 'Z' && state != 'X')
}

/// The processes of group `pgid` that still run.
pub fn group_members(pgid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| matches!(state_of(*pid), Some((s, g)) if g == pgid && s != 'Z' && s != 'X'))
        .collect()
}

/// Wait (at most `limit`) until none of `pids` runs and no process is
/// left in their groups; what still runs after that.
pub fn survivors(pids: &[i32], limit: Duration) -> Vec<i32> {
    let until = Instant::now() + limit;
    loop {
        let mut left: Vec<i32> = pids.iter().copied().filter(|p| alive(*p)).collect();
        for pid in pids {
            left.extend(group_members(*pid));
        }
        left.sort_unstable();
        left.dedup();
        if left.is_empty() || Instant::now() >= until {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The process ids a `misbehave hang --pid-file` wrote, once it wrote
/// them all (`wanted` lines).
pub fn pids_in(path: &Path, wanted: usize, limit: Duration) -> Vec<i32> {
    let until = Instant::now() + limit;
    loop {
        let pids: Vec<i32> = std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        if pids.len() >= wanted || Instant::now() >= until {
            return pids;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// An orchestrator on the sim whose one task looks SKU A-100 up with the
/// `lookup` tool of the stdio MCP server `./server.sh` in the sandbox.
pub fn lookup_through(name: &str) -> Value {
    serde_json::json!({
        "name": name, "pattern": "orchestrator",
        "goal": "Look the SKU up.",
        "context": {},
        "budget": {"max_tasks": 2, "max_dispatches": 2, "max_retries_per_task": 0},
        "workers": {"sku_worker": {"description": "SKUs", "mcp": {"server": "kb", "tool": "lookup"}}},
        "mcp_servers": {"kb": {"command": ["./server.sh"]}},
        "provider": {"kind": "sim", "plan": {"kind": "plan", "tasks": [
            {"id": "t1", "worker": "sku_worker", "args": {"key": "sku:A-100"}, "critical": true}]},
            "final_answer": "Done."}
    })
}
