//! Running a sweep for the dashboard: the local executor on a thread of
//! its own (its runs are blocking, each on its own runtime), its results
//! sent to the dashboard's loop as they come. Dropping the feed stops
//! handing out jobs; the runs under way finish and are dropped.

use super::state::Ended;
use crate::sweep::{JobResult, Prepared, run_local_with};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::mpsc;

/// What the executor tells the dashboard.
#[derive(Debug)]
pub(crate) enum SweepMessage {
    Result(Box<JobResult>),
    Ended(Ended),
}

/// The dashboard's end of a running sweep.
#[derive(Debug)]
pub(crate) struct Feed {
    // Unbounded on purpose: the executor must never wait on the screen,
    // and it sends one message per job of a sweep whose size is known.
    rx: mpsc::UnboundedReceiver<SweepMessage>,
    cancel: Arc<AtomicBool>,
}

impl Feed {
    /// The next message; `None` once the executor is gone.
    pub(crate) async fn next(&mut self) -> Option<SweepMessage> {
        self.rx.recv().await
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// Start running `sweep`'s jobs on its threads.
pub(crate) fn start(sweep: &Prepared) -> std::io::Result<Feed> {
    let (tx, rx) = mpsc::unbounded_channel();
    let cancel = Arc::new(AtomicBool::new(false));
    let sweep = sweep.clone();
    let stop = Arc::clone(&cancel);
    std::thread::Builder::new()
        .name("conclave-sweep".into())
        .spawn(move || {
            let ran = run_local_with(
                &sweep.scenario,
                Some(&sweep.source),
                sweep.plan.jobs(),
                sweep.parallel,
                &sweep.setup,
                &stop,
                |result| {
                    if tx.send(SweepMessage::Result(Box::new(result))).is_err() {
                        stop.store(true, Ordering::Relaxed);
                    }
                },
            );
            let ended = match ran {
                Ok(_) => Ended::Done,
                Err(error) => Ended::Failed(error.to_string()),
            };
            let _ = tx.send(SweepMessage::Ended(ended));
        })?;
    Ok(Feed { rx, cancel })
}
