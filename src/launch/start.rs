//! A launched program started with the launch's environment, its output's
//! readers handed the lines, and the program owned by a task that waits
//! for its end or stops its whole group when told.

use super::output::{Stream, read_lines};
use super::prepare::Prepared;
use super::process::{Exited, Program};
use super::scenario::LoadedProgram;
use crate::scenario::{JsonPath, ScenarioErrors};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// Output lines waiting for the run; more are dropped and counted.
const LINES_QUEUE: usize = 4096;

/// The program started with `env`, its output's readers and their lines.
#[allow(clippy::type_complexity)]
pub(super) fn start_program(
    loaded: &LoadedProgram,
    prepared: &Prepared,
    env: &[(String, String)],
) -> Result<
    (
        Program,
        Vec<JoinHandle<u64>>,
        mpsc::Receiver<(Stream, String)>,
    ),
    ScenarioErrors,
> {
    let mut program = Program::start(&prepared.program, &prepared.args, &prepared.cwd, env)
        .map_err(|e| {
            loaded.error_at(
                JsonPath::root().key("command").index(0),
                format!("cannot start {}: {e}", prepared.program.display()),
            )
        })?;
    let (lines_tx, lines) = mpsc::channel(LINES_QUEUE);
    let mut readers = Vec::new();
    if let Some(out) = program.stdout.take() {
        readers.push(tokio::spawn(read_lines(
            out,
            Stream::Stdout,
            lines_tx.clone(),
        )));
    }
    if let Some(err) = program.stderr.take() {
        readers.push(tokio::spawn(read_lines(err, Stream::Stderr, lines_tx)));
    }
    Ok((program, readers, lines))
}

/// The program handed to a task of its own, which waits for its end or,
/// once told, stops it: the task's handle and the way to tell it. A
/// runtime that ends drops the task, and the program's group with it.
pub(super) fn own(
    mut program: Program,
    grace: Duration,
) -> (JoinHandle<std::io::Result<Exited>>, oneshot::Sender<()>) {
    let (stop_tx, stop_rx) = oneshot::channel();
    let process = tokio::spawn(async move {
        let exited = tokio::select! {
            exited = program.wait() => Some(exited),
            _ = stop_rx => None,
        };
        match exited {
            Some(exited) => exited,
            None => program.stop(grace).await,
        }
    });
    (process, stop_tx)
}
