//! A stdio MCP server's process: started without a shell in a process
//! tree of its own (`provider::process_tree`), with the environment
//! `provider::program_env` gives it, its stderr drained into a short tail
//! for error messages, its exit watched, and its whole tree ended at
//! shutdown or when it is dropped, so that nothing it started outlives
//! the run.

use super::error::{McpError, quote};
use super::spec::StdioServer;
use crate::provider::process_tree;
use crate::provider::program::Unresolved;
use crate::provider::program_env::program_env;
use std::collections::VecDeque;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

/// How many of the last stderr lines are kept, and how long each may be.
const TAIL_LINES: usize = 20;
const LINE_BYTES: usize = 1000;

/// How long a server may take to exit once its stdin is closed, and again
/// after SIGTERM, before its group is killed.
const GRACE: Duration = Duration::from_millis(500);

/// A started server process. Dropping it kills its process group.
#[derive(Debug)]
pub(crate) struct ServerProcess {
    pgid: i32,
    exit: watch::Receiver<Option<String>>,
    stderr: Arc<Mutex<Tail>>,
}

/// The pipes MCP speaks over.
pub(crate) struct Pipes {
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: ChildStdout,
}

/// Start `spec`'s program for the server `name`.
pub(crate) fn spawn(
    name: &str,
    spec: &StdioServer,
    scenario_dir: &Path,
) -> Result<(ServerProcess, Pipes), McpError> {
    // A relative program path would be read from the new working
    // directory on some systems and from ours on others: make it absolute.
    let absolute = |program: PathBuf| {
        if program.components().count() > 1 {
            std::path::absolute(&program).unwrap_or(program)
        } else {
            program
        }
    };
    let program = match spec.program(scenario_dir) {
        Ok(program) => absolute(program),
        Err(why) => {
            let (program, reason) = match why {
                Unresolved::Missing(path) => (
                    absolute(path),
                    "no such program (a path in `command` is relative to the scenario file)".into(),
                ),
                Unresolved::NotOnPath(name) => {
                    (PathBuf::from(name), "no such program on PATH".into())
                }
                Unresolved::NotExecutable(path) => {
                    (absolute(path), "it is not an executable file".into())
                }
                Unresolved::NoSelf(why) => (PathBuf::from(&spec.command[0]), quote(&why)),
            };
            return Err(McpError::Start {
                server: name.to_string(),
                program: format!("`{}`", quote(&program.display().to_string())),
                reason,
            });
        }
    };
    let cwd = spec.working_dir(scenario_dir);
    let shown = format!("`{}`", quote(&program.display().to_string()));
    let fail = |reason: String| McpError::Start {
        server: name.to_string(),
        program: shown.clone(),
        reason,
    };
    if !cwd.is_dir() {
        return Err(fail(format!(
            "its working directory {} is not a directory",
            quote(&cwd.display().to_string())
        )));
    }
    let env = program_env(&spec.env, &|name| std::env::var(name).ok())
        .map_err(|unset| fail(unset.to_string()))?;
    let mut command = Command::new(&program);
    command
        .args(&spec.command[1..])
        .current_dir(&cwd)
        .env_clear()
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    process_tree::contain(&mut command);
    let mut child = command.spawn().map_err(|e| {
        fail(match e.kind() {
            ErrorKind::NotFound if program.components().count() > 1 => {
                "no such program (a path in `command` is relative to the scenario file)".into()
            }
            ErrorKind::NotFound => "no such program on PATH".into(),
            ErrorKind::PermissionDenied => "it is not an executable file".into(),
            _ => quote(&e.to_string()),
        })
    })?;
    let (Some(stdin), Some(stdout), Some(stderr), Some(pid)) = (
        child.stdin.take(),
        child.stdout.take(),
        child.stderr.take(),
        child.id(),
    ) else {
        return Err(fail("its pipes could not be opened".into()));
    };
    let tail = Arc::new(Mutex::new(Tail::default()));
    tokio::spawn(drain(stderr, Arc::clone(&tail)));
    let (report, exit) = watch::channel(None);
    // The waiter owns the child: it reaps it the moment it exits; the
    // tree ends when the process is dropped.
    tokio::spawn(async move {
        let status = child.wait().await;
        let _ = report.send(Some(describe(status)));
    });
    let process = ServerProcess {
        pgid: i32::try_from(pid).unwrap_or(i32::MAX),
        exit,
        stderr: tail,
    };
    Ok((process, Pipes { stdin, stdout }))
}

impl ServerProcess {
    /// How the process ended, once it has.
    pub(crate) fn exit_status(&self) -> Option<String> {
        self.exit.borrow().clone()
    }

    /// Wait until the process has ended; how it ended.
    pub(crate) async fn exited(&self) -> String {
        let mut exit = self.exit.clone();
        match exit.wait_for(Option::is_some).await {
            Ok(status) => status.clone().unwrap_or_default(),
            // The waiter is gone only when the runtime is shutting down.
            Err(_) => "ended".to_string(),
        }
    }

    /// The last lines the process wrote on stderr.
    pub(crate) fn stderr_tail(&self) -> Vec<String> {
        self.stderr
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .lines()
    }

    /// Once its stdin is closed, give the process a moment to exit, then
    /// end its tree (which also ends anything it started and left behind),
    /// then SIGKILL whatever is left in its group.
    pub(crate) async fn stop(&self) {
        if tokio::time::timeout(GRACE, self.exited()).await.is_err() {
            self.signal(Signal::Terminate);
            let _ = tokio::time::timeout(GRACE, self.exited()).await;
        }
        self.signal(Signal::Kill);
        let _ = tokio::time::timeout(GRACE, self.exited()).await;
    }

    fn signal(&self, signal: Signal) {
        let reaped = self.exit_status().is_some();
        match signal {
            // Its tree ends: the supervisor kills every process of it.
            Signal::Terminate => process_tree::end(self.pgid, reaped),
            // Whatever is left in its group, should the tree not have
            // ended.
            Signal::Kill => process_tree::end(self.pgid, true),
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.signal(Signal::Terminate);
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Terminate,
    Kill,
}

fn describe(status: std::io::Result<ExitStatus>) -> String {
    match status {
        Ok(status) => status.to_string(),
        Err(e) => format!("its exit could not be read: {e}"),
    }
}

/// The last [`TAIL_LINES`] lines of a stream, each cut at [`LINE_BYTES`].
#[derive(Debug, Default)]
struct Tail {
    done: VecDeque<String>,
    current: Vec<u8>,
}

impl Tail {
    fn push(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if byte == b'\n' {
                self.end_line();
            } else if self.current.len() < LINE_BYTES {
                self.current.push(byte);
            }
        }
    }

    fn end_line(&mut self) {
        let line = String::from_utf8_lossy(&self.current).into_owned();
        self.current.clear();
        if self.done.len() == TAIL_LINES {
            self.done.pop_front();
        }
        self.done.push_back(line);
    }

    fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.done.iter().cloned().collect();
        if !self.current.is_empty() {
            lines.push(String::from_utf8_lossy(&self.current).into_owned());
        }
        lines
    }
}

/// Read stderr to its end, so the process never blocks on a full pipe.
async fn drain(mut stderr: ChildStderr, tail: Arc<Mutex<Tail>>) {
    let mut buffer = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut buffer).await {
        if n == 0 {
            break;
        }
        tail.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(&buffer[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_keeps_the_last_lines_cut_short() {
        let mut tail = Tail::default();
        for n in 0..TAIL_LINES + 5 {
            tail.push(format!("line {n}\n").as_bytes());
        }
        tail.push(&[b'z'; LINE_BYTES + 50]);
        let lines = tail.lines();
        assert_eq!(lines.len(), TAIL_LINES + 1);
        assert_eq!(lines[0], "line 5");
        assert_eq!(lines[TAIL_LINES - 1], format!("line {}", TAIL_LINES + 4));
        assert_eq!(lines[TAIL_LINES].len(), LINE_BYTES);
    }
}
