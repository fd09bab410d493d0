//! The real binary as the tests start it on NATS: `conclave worker`
//! processes and sweeps in the background, each with bounded waits.

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a sweep of 400 runs may take on a loaded machine.
pub const SWEEP_BOUND: Duration = Duration::from_secs(300);
/// How long a condition on the server or a worker may take to hold.
pub const BOUND: Duration = Duration::from_secs(60);
/// Short, so that a killed worker's jobs come back within the test.
pub const ACK_WAIT: &str = "2";

pub fn conclave() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

/// A `conclave worker` process, its stderr in a file; killed on drop.
pub struct Worker {
    pub child: Child,
    stderr: PathBuf,
    _dir: tempfile::TempDir,
}

impl Worker {
    pub fn start(url: &str, parallel: usize) -> Worker {
        Worker::start_with(url, parallel, &[])
    }

    /// With more options; its own state folder, so that no allowance of
    /// another process applies to it.
    pub fn start_with(url: &str, parallel: usize, options: &[&str]) -> Worker {
        Worker::start_env(url, parallel, options, &[])
    }

    /// With environment variables over the test's (`XDG_STATE_HOME`
    /// among them replaces its own state folder).
    pub fn start_env(
        url: &str,
        parallel: usize,
        options: &[&str],
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Worker {
        let dir = tempfile::tempdir().unwrap();
        let stderr = dir.path().join("stderr");
        let child = conclave()
            .args(["worker", "--nats", url, "--ack-wait", ACK_WAIT])
            .args(["--parallel", &parallel.to_string()])
            .args(options)
            .env("XDG_STATE_HOME", dir.path())
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let worker = Worker {
            child,
            stderr,
            _dir: dir,
        };
        worker.wait_for("running sweep jobs");
        worker
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    pub fn wait_for(&self, text: &str) {
        poll(&format!("the worker to say {text:?}"), || {
            self.stderr().contains(text)
        });
    }

    pub fn signal(&self, signal: i32) {
        // SAFETY: signalling this test's own child.
        let status = unsafe { libc::kill(i32::try_from(self.child.id()).unwrap(), signal) };
        assert_eq!(status, 0, "cannot signal the worker");
    }

    /// How many jobs it ran again after another worker had them.
    pub fn redeliveries(&self) -> usize {
        self.stderr().matches("is back (delivery").count()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A sweep running in the background; `finish` waits for it.
pub struct Sweep(mpsc::Receiver<Output>);

impl Sweep {
    pub fn start_with(args: Vec<String>, state: Option<&std::path::Path>) -> Sweep {
        let env: Vec<(&str, &std::ffi::OsStr)> = state
            .map(|state| ("XDG_STATE_HOME", state.as_os_str()))
            .into_iter()
            .collect();
        Sweep::start_env(args, &env)
    }

    /// With environment variables over the test's.
    pub fn start_env(args: Vec<String>, env: &[(&str, &std::ffi::OsStr)]) -> Sweep {
        let mut command = conclave();
        command.envs(env.iter().copied());
        let child = command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (done, finished) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(child.wait_with_output().unwrap());
        });
        Sweep(finished)
    }

    /// The sweep's output once it ended within `bound`.
    pub fn finish_within(self, bound: Duration) -> Output {
        self.0
            .recv_timeout(bound)
            .unwrap_or_else(|_| panic!("the sweep did not end within {bound:?}"))
    }

    pub fn finish(self) -> Output {
        self.0
            .recv_timeout(SWEEP_BOUND)
            .unwrap_or_else(|_| panic!("the sweep did not end within {SWEEP_BOUND:?}"))
    }
}

pub fn poll(what: &str, mut holds: impl FnMut() -> bool) {
    let deadline = Instant::now() + BOUND;
    while !holds() {
        assert!(Instant::now() < deadline, "waited {BOUND:?} for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
