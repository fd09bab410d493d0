//! The steering tests' parts: the real `conclave watch --headless` on a
//! loopback port, a steerer speaking its HTTP API, and a framework's run
//! (a script of tests/fixtures/steer in the framework's virtualenv) whose
//! doings arrive as JSON lines. Every wait is for something to happen
//! (the watch's change number, a line), bounded so a broken run fails
//! the test instead of hanging it; nothing sleeps.

use super::python::{self, Framework};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long anything may take before the test gives up on it.
pub const PATIENCE: Duration = Duration::from_secs(120);

/// Lines of a child's stream, read on a thread of their own.
fn lines(stream: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// A running `conclave watch --headless`.
pub struct Watch {
    pub child: Child,
    pub url: String,
    pub stdout: Receiver<String>,
    pub stderr: Receiver<String>,
    /// The first line said on stderr (where it listens).
    pub first: String,
    client: reqwest::blocking::Client,
}

impl Watch {
    /// Start the watch on a free loopback port with `args` besides.
    pub fn start(args: &[&str]) -> Watch {
        Watch::start_on("127.0.0.1:0", args, &[])
    }

    /// Start the watch listening on `listen`, with `args` and `env`.
    pub fn start_on(listen: &str, args: &[&str], env: &[(&str, &str)]) -> Watch {
        let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
        command
            .args(["watch", "--headless", "--listen", listen, "--no-grpc"])
            .args(["--settle-ms", "300"])
            .args(args)
            .envs(env.iter().copied());
        Watch::of(&mut command)
    }

    /// `conclave launch --headless` with `args` (options, `--`, the
    /// program): its run's receiver, steered as the watch's is, and the
    /// run's id (both from the line the launch says first).
    pub fn launch(args: &[&str], env: &[(&str, &str)]) -> (Watch, String) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
        command
            .args(["launch", "--headless"])
            .args(args)
            .envs(env.iter().copied());
        let watch = Watch::of(&mut command);
        let id = watch
            .first
            .split("run ")
            .nth(1)
            .and_then(|rest| rest.split(':').next());
        let id = id.unwrap_or_else(|| panic!("no run id in {:?}", watch.first));
        let id = id.to_string();
        (watch, id)
    }

    /// The launched run's end: its exit code and its result document.
    pub fn result(&mut self) -> (Option<i32>, Value) {
        let status = self.child.wait().expect("the launch ends");
        // Its pipe ends with it: every line is read once the channel is.
        let text: Vec<String> =
            std::iter::from_fn(|| self.stdout.recv_timeout(PATIENCE).ok()).collect();
        let said: Vec<String> = self.stderr.try_iter().collect();
        let document = serde_json::from_str(&text.join("\n"))
            .unwrap_or_else(|e| panic!("{e}: {text:?} (stderr: {said:?})"));
        (status.code(), document)
    }

    /// `command` started, its first stderr line naming where it listens.
    fn of(command: &mut Command) -> Watch {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("conclave starts");
        let stdout = lines(child.stdout.take().unwrap());
        let stderr = lines(child.stderr.take().unwrap());
        let first = stderr.recv_timeout(PATIENCE).expect("the watch says where");
        let url = first
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split("/v1/traces").next())
            .map(|addr| format!("http://{}", addr.replace("0.0.0.0", "127.0.0.1")))
            .unwrap_or_else(|| panic!("no address in {first:?}"));
        Watch {
            child,
            url,
            stdout,
            stderr,
            first,
            client: reqwest::blocking::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
        }
    }

    /// A steerer's op: the status and the answer.
    pub fn control(&self, body: Value) -> (u16, Value) {
        let response = self
            .client
            .post(format!("{}/v1/steer/control", self.url))
            .json(&body)
            .send()
            .expect("the watch answers");
        let status = response.status().as_u16();
        (status, response.json().unwrap_or(Value::Null))
    }

    /// A steerer's op that must be done.
    pub fn steer(&self, body: Value) {
        let (status, answer) = self.control(body.clone());
        assert_eq!(status, 200, "{body} was answered {answer}");
    }

    /// A raw request to a steering path: the status and the answer.
    pub fn post(&self, path: &str, body: Vec<u8>, auth: Option<&str>) -> (u16, Value) {
        let mut request = self
            .client
            .post(format!("{}{path}", self.url))
            .header("content-type", "application/json")
            .body(body);
        if let Some(token) = auth {
            request = request.bearer_auth(token);
        }
        let response = request.send().expect("the watch answers");
        let status = response.status().as_u16();
        (status, response.json().unwrap_or(Value::Null))
    }

    /// The runs steered, once `found` finds something in them: what it
    /// found. Waits on the watch's change number, not on a clock.
    pub fn wait_for<T>(&self, what: &str, mut found: impl FnMut(&[Value]) -> Option<T>) -> T {
        let deadline = Instant::now() + PATIENCE;
        let mut after: Option<u64> = None;
        loop {
            let query = match after {
                Some(n) => format!("?after={n}&wait_ms=5000"),
                None => String::new(),
            };
            let list: Value = self
                .client
                .get(format!("{}/v1/steer/runs{query}", self.url))
                .send()
                .expect("the watch answers")
                .json()
                .unwrap();
            let runs = list["runs"].as_array().cloned().unwrap_or_default();
            if let Some(it) = found(&runs) {
                return it;
            }
            assert!(Instant::now() < deadline, "never {what}: {list:#}");
            after = list["version"].as_u64();
        }
    }

    /// What waits first in the run `trace`, once something does, with the
    /// run's view.
    pub fn waiting(&self, trace: &str, ask: &str) -> (Value, Value) {
        self.wait_for(&format!("a waiting {ask} in {trace}"), |runs| {
            let run = runs.iter().find(|r| r["trace_id"] == trace)?;
            let first = run["waiting"].as_array()?.first()?;
            (first["ask"] == ask).then(|| (first.clone(), run.clone()))
        })
    }

    /// The lines of the finished runs `traces`, whatever other runs
    /// finish between them.
    pub fn finished_runs(&self, traces: &[&str]) -> Vec<Value> {
        let mut found = Vec::new();
        while found.len() < traces.len() {
            let line = self.finished();
            if traces.iter().any(|t| line["trace_id"] == *t) {
                found.push(line);
            }
        }
        found
    }

    /// The next JSON line on stdout (a finished run).
    pub fn finished(&self) -> Value {
        let line = self.stdout.recv_timeout(PATIENCE).expect("a finished run");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A framework's run under a hook.
pub struct Run {
    pub child: Child,
    pub events: Receiver<String>,
    pub stderr: Receiver<String>,
}

impl Run {
    /// `script` of tests/fixtures/steer run by `framework`'s Python,
    /// its hook pointed at `url`.
    pub fn start(framework: Framework, script: &str, url: &str) -> Run {
        Run::start_with(framework, script, url, &[])
    }

    /// As [`Run::start`], with `env` besides.
    pub fn start_with(framework: Framework, script: &str, url: &str, env: &[(&str, &str)]) -> Run {
        let root = python::root();
        let fixtures = root.join("tests/fixtures/steer");
        let path = std::env::join_paths([root.join("hooks/python"), fixtures.clone()]).unwrap();
        let child = Command::new(python::python(framework))
            .arg(fixtures.join(script))
            .current_dir(&fixtures)
            .env("CONCLAVE_STEER_URL", url)
            .env("PYTHONPATH", path)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("OPENAI_AGENTS_DISABLE_TRACING", "1")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the framework's python starts");
        Run::of(child)
    }

    /// A run started as `child`, its stdin, stdout and stderr piped.
    pub fn of(mut child: Child) -> Run {
        let events = lines(child.stdout.take().unwrap());
        let stderr = lines(child.stderr.take().unwrap());
        Run {
            child,
            events,
            stderr,
        }
    }

    /// A line on the run's stdin.
    pub fn send(&mut self, line: &str) {
        use std::io::Write;
        let stdin = self.child.stdin.as_mut().expect("the run's stdin");
        writeln!(stdin, "{line}").expect("the run reads its stdin");
    }

    /// The next event the run told, whatever it is.
    pub fn next(&self) -> Value {
        match self.events.recv_timeout(PATIENCE) {
            Ok(line) => serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}")),
            Err(RecvTimeoutError::Timeout) => panic!("the run told nothing more"),
            Err(RecvTimeoutError::Disconnected) => {
                let said: Vec<String> = self.stderr.try_iter().collect();
                panic!("the run ended: {}", said.join("\n"))
            }
        }
    }

    /// The next event, which must be `event`.
    pub fn expect(&self, event: &str) -> Value {
        let next = self.next();
        assert_eq!(next["event"], event, "expected {event}, got {next}");
        next
    }

    /// Every event told so far and not yet read, without waiting.
    pub fn told(&self) -> Vec<Value> {
        self.events
            .try_iter()
            .map(|line| serde_json::from_str(&line).unwrap())
            .collect()
    }

    /// Wait for the run to end: its exit status.
    pub fn end(mut self) -> std::process::ExitStatus {
        drop(self.child.stdin.take());
        self.child.wait().expect("the run ends")
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The events named `event` among `told`.
pub fn named<'a>(told: &'a [Value], event: &str) -> Vec<&'a Value> {
    told.iter().filter(|e| e["event"] == event).collect()
}

/// A pause of every run, new ones too.
pub fn hold_all() -> Value {
    json!({"op": "pause"})
}
