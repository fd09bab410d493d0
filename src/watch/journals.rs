//! `--record-dir`'s recordings while their runs go: each run's journal
//! (`journal.rs`) is made in the folder when its first span comes and
//! written as its spans and steering decisions come; the run's whole
//! recording takes the journal's place when it finishes.

use super::journal::{Journal, replace_whole};
use super::record;
use super::runs::{Run, Runs};
use super::steer::Steering;
use super::summary::WatchSummary;
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

    /// Write finished run `run` with its `summary` in the place of its
    /// journal, copying the journal's span lines when they are all the
    /// run's; the path written. `None` when the run has no journal.
    pub(crate) fn write(
        &mut self,
        run: &Run,
        summary: &WatchSummary,
    ) -> Option<std::io::Result<PathBuf>> {
        let (path, journal) = self.going.remove(&run.trace_id)?;
        let spans = journal
            .spans_from()
            .filter(|&(_, n)| n == run.arrivals.len())
            .map(|(at, _)| (path.as_path(), at));
        drop(journal);
        let written = replace_whole(&path, |file| {
            record::write_whole(file, run, summary, (&path, spans))
        });
        Some(written.map(|()| path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::spans_of;
    use crate::watch::fixture_tests::{decoded, requests};
    use crate::watch::runs::Limits;
    use crate::watch::summary::summarise;

    /// A run's whole recording copies its span lines from the journal:
    /// the file is byte for byte the one written from the run alone.
    #[test]
    fn the_whole_recording_from_the_journal_is_the_one_written_from_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let mut runs = Runs::new(Limits::default());
        runs.keep_arrivals = true;
        let mut journals = Journals::new(dir.path().to_path_buf());
        let now = tokio::time::Instant::now();
        let sent = requests("openai_agents_openinference");
        assert!(sent.len() > 1, "the run comes in several batches");
        for request in sent {
            let opened = runs.accept_read(spans_of(&decoded(&request)), now, None);
            journals.catch_up(&runs, &opened, None);
        }
        let id = runs.ids().next().unwrap();
        let run = runs.get(id).unwrap();
        assert!(run.arrivals.len() > 2);
        let summary = summarise(id, &run.forest, None);
        // Copied from, not written again: the journal holds the run's
        // spans, every one, and nothing else.
        let (_, journal) = &journals.going[&id];
        let spans = journal.spans_from().map(|(_, n)| n);
        assert_eq!(spans, Some(run.arrivals.len()));
        let path = journals.write(run, &summary).unwrap().unwrap();
        assert!(
            journals.write(run, &summary).is_none(),
            "its journal is done"
        );
        let copied = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let again = record::write(dir.path(), run, &summary).unwrap();
        assert_eq!(again, path);
        assert_eq!(
            String::from_utf8(std::fs::read(&again).unwrap()).unwrap(),
            String::from_utf8(copied).unwrap()
        );
    }
}
