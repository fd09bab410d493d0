//! A worker or tool answered by a program: started without a shell for
//! each call, in a process tree of its own (`provider::process_tree`),
//! with the environment `provider::program_env` gives it, the args as
//! JSON on its stdin; its stdout, a JSON object, is the answer. A non-zero
//! exit fails the call with the last lines of stderr. Whatever ends the
//! call (the program's exit, a timeout or a cancelled run dropping the
//! call) ends the whole tree, so nothing the program started outlives the
//! call, and once the program has exited a process it left holding
//! stdout cannot turn its answer into a timeout.

use super::answer;
use super::groups::ProcessGroups;
use crate::provider::WorkerError;
use crate::provider::process_tree;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// How much of stderr is kept to quote its last lines.
const STDERR_KEPT: usize = 64 * 1024;

/// How long the pipes are read once the program has exited, should
/// something it started still hold them open.
const DRAIN: Duration = Duration::from_millis(500);

#[derive(Debug)]
pub(crate) struct CommandTool {
    program: PathBuf,
    args: Vec<String>,
    cwd: PathBuf,
    env: Vec<(String, String)>,
    max_output: usize,
    groups: Arc<ProcessGroups>,
}

impl CommandTool {
    pub(crate) fn new(
        program: PathBuf,
        args: Vec<String>,
        cwd: PathBuf,
        env: Vec<(String, String)>,
        max_output: usize,
        groups: Arc<ProcessGroups>,
    ) -> Self {
        CommandTool {
            program,
            args,
            cwd,
            env,
            max_output,
            groups,
        }
    }

    pub(crate) async fn call(&self, args: &Value) -> Result<Value, WorkerError> {
        let input = serde_json::to_vec(args).unwrap_or_default();
        let mut command = tokio::process::Command::new(&self.program);
        command
            .args(&self.args)
            .current_dir(&self.cwd)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        process_tree::contain(&mut command);
        let mut child = command.spawn().map_err(|e| {
            WorkerError::failed(format!("cannot start {}: {e}", self.program.display()))
        })?;
        // From here on, dropping the call (a timeout, a cancelled run)
        // ends the tree.
        let group = self.groups.enter(child.id());
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let write = async move {
            if let Some(mut stdin) = stdin {
                // A program that exits without reading its input is its
                // own business: the broken pipe is not an error.
                let _ = stdin.write_all(&input).await;
            }
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let (exited, exit_seen) = tokio::sync::oneshot::channel::<()>();
        let read = async {
            let read_out = async {
                let within = read_capped(stdout, self.max_output, &mut out).await;
                if !within {
                    // Past the cap: stop it now rather than let it write on.
                    group.kill();
                }
                within
            };
            let io =
                async { tokio::join!(write, read_out, read_tail(stderr, STDERR_KEPT, &mut err)).1 };
            // Once the program has exited, what it wrote is in the pipes:
            // whatever still holds them open gets a moment, not the call.
            let drained = async {
                let _ = exit_seen.await;
                tokio::time::sleep(DRAIN).await;
            };
            tokio::select! {
                within = io => within,
                () = drained => true,
            }
        };
        let wait = async {
            let status = child.wait().await;
            group.reaped();
            // The program is done; anything it left running goes with its
            // tree, which also closes the pipes it held.
            group.kill();
            let _ = exited.send(());
            status
        };
        let (within, status) = tokio::join!(read, wait);
        let out = within.then_some(out);
        let Some(out) = out else {
            // Killed for writing too much: what it wrote is the fault,
            // not how it ended.
            return Err(WorkerError::BadResult {
                detail: format!(
                    "its output is larger than {} bytes (raise {} to accept more)",
                    self.max_output,
                    crate::provider::http::MAX_BODY_VARIABLE
                ),
            });
        };
        let status = status.map_err(|e| WorkerError::failed(format!("cannot wait for it: {e}")))?;
        if !status.success() {
            let tail = answer::last_lines(&err);
            let how = exit_words(&status);
            return Err(WorkerError::failed(if tail.is_empty() {
                how
            } else {
                format!("{how}: {tail}")
            }));
        }
        answer::object(&out).map_err(|e| match e {
            WorkerError::BadResult { detail } => {
                let tail = answer::last_lines(&err);
                WorkerError::BadResult {
                    detail: if tail.is_empty() {
                        detail
                    } else {
                        format!("{detail}; stderr: {tail}")
                    },
                }
            }
            other => other,
        })
    }
}

/// How the program ended, in words.
fn exit_words(status: &std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("was killed by signal {signal}");
        }
    }
    "ended without an exit status".into()
}

/// All of `pipe` up to `limit` bytes into `out`; false past the limit.
async fn read_capped(
    pipe: Option<impl AsyncRead + Unpin>,
    limit: usize,
    out: &mut Vec<u8>,
) -> bool {
    let Some(mut pipe) = pipe else {
        return true;
    };
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut chunk).await {
            Ok(0) | Err(_) => return true,
            Ok(n) if n > limit - out.len() => return false,
            Ok(n) => out.extend_from_slice(&chunk[..n]),
        }
    }
}

/// The last `keep` bytes of `pipe`, into `tail`.
async fn read_tail(pipe: Option<impl AsyncRead + Unpin>, keep: usize, tail: &mut Vec<u8>) {
    let Some(mut pipe) = pipe else {
        return;
    };
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        match pipe.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                tail.extend_from_slice(&chunk[..n]);
                if tail.len() > keep {
                    tail.drain(..tail.len() - keep);
                }
            }
        }
    }
}
