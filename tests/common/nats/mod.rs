//! A real `nats-server` with JetStream for the tests, on a free loopback
//! port with its store in a temporary folder, killed when dropped. The
//! server is a pinned release the tests install themselves (see
//! `install`), never whatever `nats-server` is on PATH, so that every
//! machine tests the same servers: the newest by default, the oldest
//! supported when a test asks. A server can be killed and started again
//! on the same port and store, as an operator's restart does.

pub mod install;
pub mod processes;

pub use install::Release;

use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a server may take to start listening.
const START_BOUND: Duration = Duration::from_secs(30);

/// A running server. Drop it on the thread that started it: the server is
/// also told to die with that thread, so a test killed from outside leaves
/// no server behind.
pub struct NatsServer {
    child: Option<Child>,
    release: Release,
    jetstream: bool,
    url: String,
    store: tempfile::TempDir,
}

impl NatsServer {
    /// Start the newest release with JetStream on 127.0.0.1 and a port
    /// the kernel picks; returns once it accepts connections.
    pub fn start() -> Self {
        Self::launch(Release::Newest, true)
    }

    /// The same with a given release.
    pub fn start_release(release: Release) -> Self {
        Self::launch(release, true)
    }

    /// The newest release without JetStream, as `nats-server` runs by
    /// default.
    pub fn start_without_jetstream() -> Self {
        Self::launch(Release::Newest, false)
    }

    fn launch(release: Release, jetstream: bool) -> Self {
        let store = tempfile::tempdir().expect("a temporary folder for the server");
        let mut server = NatsServer {
            child: None,
            release,
            jetstream,
            url: String::new(),
            store,
        };
        server.spawn("-1");
        server
    }

    /// Start the process on `port` ("-1": one the kernel picks) with this
    /// server's store, and wait until it listens.
    fn spawn(&mut self, port: &str) {
        let binary = install::binary(self.release);
        let ports = self.store.path().join("ports");
        let _ = std::fs::remove_dir_all(&ports);
        std::fs::create_dir(&ports).unwrap();
        let log = File::options()
            .create(true)
            .append(true)
            .open(self.store.path().join("server.log"))
            .unwrap();
        let mut command = Command::new(&binary);
        command.args(["-a", "127.0.0.1", "-p", port]);
        if self.jetstream {
            command
                .arg("-js")
                .arg("-sd")
                .arg(self.store.path().join("jetstream"));
        }
        command
            .arg("--ports_file_dir")
            .arg(&ports)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log);
        die_with_this_thread(&mut command);
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        self.child = Some(child);
        self.url = self.wait_for_port(&ports);
    }

    /// `nats://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// The release this server is.
    pub fn release(&self) -> Release {
        self.release
    }

    /// Kill the server (as a crash or a `kill -9` would), leave it down
    /// for `down`, and start it again on the same port with the same
    /// store; returns once it listens again.
    pub fn restart(&mut self, down: Duration) {
        self.kill();
        std::thread::sleep(down);
        let port = self
            .url
            .rsplit(':')
            .next()
            .expect("the URL has a port")
            .to_string();
        let before = self.url.clone();
        self.spawn(&port);
        assert_eq!(self.url, before, "the server came back on its port");
    }

    /// Kill the server for good (its store stays until the drop).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// What the server logged so far, for a failing test's message.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.store.path().join("server.log")).unwrap_or_default()
    }

    /// The server writes `<name>_<pid>.ports` with its client URL once it
    /// listens; a half-written file is read again.
    fn wait_for_port(&mut self, ports: &Path) -> String {
        let deadline = Instant::now() + START_BOUND;
        loop {
            if let Some(url) = std::fs::read_dir(ports)
                .ok()
                .and_then(|mut entries| entries.next())
                .and_then(|entry| std::fs::read_to_string(entry.ok()?.path()).ok())
                .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                .and_then(|ports| ports["nats"][0].as_str().map(str::to_string))
            {
                return url;
            }
            if let Some(Ok(Some(status))) = self.child.as_mut().map(Child::try_wait) {
                panic!("nats-server exited with {status}:\n{}", self.log());
            }
            assert!(
                Instant::now() < deadline,
                "nats-server did not listen within {START_BOUND:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(target_os = "linux")]
fn die_with_this_thread(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl is async-signal-safe and touches only the child.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_this_thread(_command: &mut Command) {}
