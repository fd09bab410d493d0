//! `--record-dir`'s recordings while their runs go: each run's journal
//! (`journal.rs`) is made in the folder when its first span comes and
//! written as its spans and steering decisions come; the run's whole
//! recording takes the journal's place when it finishes.

use super::journal::Journal;
use super::record;
use super::runs::Runs;
use super::steer::Steering;
use crate::span::TraceId;
use std::collections::HashMap;
use std::path::PathBuf;

/// The journals of the runs going, by run.
#[derive(Debug)]
pub(crate) struct Journals {
    dir: PathBuf,
    going: HashMap<TraceId, (PathBuf, Journal)>,
}

impl Journals {
    pub(crate) fn new(dir: PathBuf) -> Journals {
        Journals {
            dir,
            going: HashMap::new(),
        }
    }

    /// Make the journals of the runs just `opened`, then write what each
    /// run going has come to. A journal that cannot be made is not made:
    /// the run's end writes its whole recording, or says why it cannot.
    pub(crate) fn catch_up(
        &mut self,
        runs: &Runs,
        opened: &[TraceId],
        steering: Option<&Steering>,
    ) {
        for &id in opened {
            if let Ok((path, file)) = record::fresh(&self.dir, id) {
                self.going.insert(id, (path, Journal::over(file, id, None)));
            }
        }
        for (id, (_, journal)) in &mut self.going {
            journal.catch_up(runs.get(*id), steering, Vec::new());
        }
    }

    /// Run `id` finished: its journal's path, for its whole recording.
    pub(crate) fn finish(&mut self, id: TraceId) -> Option<PathBuf> {
        self.going.remove(&id).map(|(path, _)| path)
    }
}
