//! The launched program's process, which belongs to its run: started in
//! a process group of its own, its exit status read, stopped as a person
//! expects (SIGINT to the whole group, then SIGTERM after a grace, then
//! SIGKILL), and never left behind: whatever is still in its group when
//! the program ends, or when the launch is dropped (an error, a panic),
//! is killed.

use serde::Serialize;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::process::{Child, ChildStderr, ChildStdout, Command};

/// How a launched program ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Exited {
    /// The exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    /// The signal's name (`SIGKILL`) when one ended it.
    pub signal: Option<String>,
}

impl Exited {
    fn of(status: std::process::ExitStatus) -> Exited {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            Exited {
                code: status.code(),
                signal: status.signal().map(signal_name),
            }
        }
        #[cfg(not(unix))]
        Exited {
            code: status.code(),
            signal: None,
        }
    }
}

/// A signal's name as a person reads it (`SIGTERM`), its number for one
/// without a common name.
pub(crate) fn signal_name(number: i32) -> String {
    #[cfg(unix)]
    let name = match number {
        libc::SIGHUP => Some("SIGHUP"),
        libc::SIGINT => Some("SIGINT"),
        libc::SIGQUIT => Some("SIGQUIT"),
        libc::SIGILL => Some("SIGILL"),
        libc::SIGABRT => Some("SIGABRT"),
        libc::SIGBUS => Some("SIGBUS"),
        libc::SIGFPE => Some("SIGFPE"),
        libc::SIGKILL => Some("SIGKILL"),
        libc::SIGSEGV => Some("SIGSEGV"),
        libc::SIGPIPE => Some("SIGPIPE"),
        libc::SIGALRM => Some("SIGALRM"),
        libc::SIGTERM => Some("SIGTERM"),
        _ => None,
    };
    #[cfg(not(unix))]
    let name: Option<&str> = None;
    name.map_or_else(|| format!("signal {number}"), str::to_string)
}

/// A started program: its child, its group, and its output's pipes
/// until they are taken.
#[derive(Debug)]
pub(crate) struct Program {
    child: Child,
    /// The process group's id (the program's pid); 0 once nothing of the
    /// group needs ending.
    group: i32,
    pub(crate) stdout: Option<ChildStdout>,
    pub(crate) stderr: Option<ChildStderr>,
}

impl Program {
    /// Start `argv[0]` (resolved already) with `argv[1..]` in `cwd`, with
    /// `env` added, stdin closed and both output streams piped.
    pub(crate) fn start(
        program: &Path,
        args: &[String],
        cwd: &Path,
        env: &[(String, String)],
    ) -> std::io::Result<Program> {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(cwd)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn()?;
        let group = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .unwrap_or(0);
        Ok(Program {
            stdout: child.stdout.take(),
            stderr: child.stderr.take(),
            child,
            group,
        })
    }

    /// Wait for the program to end; whatever it left in its group is
    /// killed then.
    pub(crate) async fn wait(&mut self) -> std::io::Result<Exited> {
        let status = self.child.wait().await?;
        self.kill_group();
        Ok(Exited::of(status))
    }

    /// Stop the program: SIGINT to its group, SIGTERM after `grace`,
    /// SIGKILL after another; how it ended.
    pub(crate) async fn stop(&mut self, grace: Duration) -> std::io::Result<Exited> {
        for signal in [SIGINT, SIGTERM] {
            self.signal_group(signal);
            if let Ok(status) = tokio::time::timeout(grace, self.child.wait()).await {
                let status = status?;
                self.kill_group();
                return Ok(Exited::of(status));
            }
        }
        self.kill_group();
        let status = self.child.wait().await?;
        Ok(Exited::of(status))
    }

    fn signal_group(&self, signal: i32) {
        #[cfg(unix)]
        if self.group > 1 {
            // SAFETY: kill(2) only sends a signal; group > 1 rules out our
            // own group (0) and every process (-1). The group is our
            // child's, which is not reaped yet or has members left.
            unsafe {
                libc::kill(-self.group, signal);
            }
        }
        #[cfg(not(unix))]
        let _ = signal;
    }

    /// Kill everything left in the program's group.
    fn kill_group(&mut self) {
        self.signal_group(SIGKILL);
    }
}

impl Drop for Program {
    /// A launch dropped before its program ended (an error, a panic)
    /// leaves nothing running.
    fn drop(&mut self) {
        self.kill_group();
        let _ = self.child.start_kill();
    }
}

#[cfg(unix)]
const SIGINT: i32 = libc::SIGINT;
#[cfg(unix)]
const SIGTERM: i32 = libc::SIGTERM;
#[cfg(unix)]
const SIGKILL: i32 = libc::SIGKILL;
#[cfg(not(unix))]
const SIGINT: i32 = 2;
#[cfg(not(unix))]
const SIGTERM: i32 = 15;
#[cfg(not(unix))]
const SIGKILL: i32 = 9;

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Program {
        let args = ["-c".to_string(), script.to_string()];
        Program::start(Path::new("/bin/sh"), &args, Path::new("/"), &[]).unwrap()
    }

    fn alive(pid: i32) -> bool {
        // SAFETY: signal 0 only asks whether the process exists.
        unsafe { libc::kill(pid, 0) == 0 }
    }

    #[tokio::test]
    async fn exit_codes_and_signals_are_read_as_they_came() {
        assert_eq!(
            sh("exit 3").wait().await.unwrap(),
            Exited {
                code: Some(3),
                signal: None
            }
        );
        let killed = sh("kill -TERM $$").wait().await.unwrap();
        assert_eq!(killed.signal.as_deref(), Some("SIGTERM"));
    }

    #[tokio::test]
    async fn a_stop_reaches_a_child_that_ignores_sigint_and_nothing_is_left() {
        // The child ignores SIGINT and SIGTERM; the shell waits for it.
        let mut program = sh("trap '' INT TERM; sleep 1000 & echo $!; wait");
        let mut out = program.stdout.take().unwrap();
        let mut line = Vec::new();
        use tokio::io::AsyncReadExt;
        let mut byte = [0u8; 1];
        while out.read(&mut byte).await.unwrap() == 1 && byte[0] != b'\n' {
            line.push(byte[0]);
        }
        let child: i32 = String::from_utf8(line).unwrap().trim().parse().unwrap();
        assert!(alive(child));
        let ended = program.stop(Duration::from_millis(200)).await.unwrap();
        assert_eq!(ended.signal.as_deref(), Some("SIGKILL"), "{ended:?}");
        // The child was in the group: it is gone (a zombie for init at most).
        let gone = (0..100).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            !alive(child) || is_zombie(child)
        });
        assert!(gone, "the child {child} outlived the stop");
    }

    fn is_zombie(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                s.rsplit(')')
                    .next()
                    .is_some_and(|r| r.trim_start().starts_with('Z'))
            })
            .unwrap_or(true)
    }
}
