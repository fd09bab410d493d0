//! A recording holds one run. A second run's start in the file (two
//! writers on one file, two files joined) refuses the whole file, naming
//! both runs: read as one, their events would make a run that never was.

use super::problem::{RecordingError, RecordingProblem};
use crate::bus::{Event, EventKind, RunId};

/// The first run's start seen in a file.
#[derive(Default)]
pub(super) struct OneRun {
    first: Option<Start>,
}

#[derive(Clone, Copy)]
struct Start {
    run: RunId,
    started_at_ms: u64,
    line: usize,
}

impl OneRun {
    /// `event`, read on `line` of the file `shown`: the file refused when
    /// the event starts a second run.
    pub(super) fn check(
        &mut self,
        event: &Event,
        line: usize,
        shown: &str,
    ) -> Result<(), RecordingError> {
        self.second_run(event, line).map_err(|message| {
            let path = shown.to_string();
            let problem = RecordingProblem {
                path,
                line,
                message,
            };
            RecordingError::TwoRuns { problem }
        })
    }

    /// Why `event`, read on `line`, starts a second run. The same start
    /// written twice is one run.
    fn second_run(&mut self, event: &Event, line: usize) -> Result<(), String> {
        let EventKind::RunStarted(started) = &event.kind else {
            return Ok(());
        };
        let here = Start {
            run: event.run,
            started_at_ms: started.started_at_ms,
            line,
        };
        let Some(first) = self.first else {
            self.first = Some(here);
            return Ok(());
        };
        if (first.run, first.started_at_ms) == (here.run, here.started_at_ms) {
            return Ok(());
        }
        Err(format!(
            "a second run starts here: run {} started at {}, in a recording of run {} started at {} (line {}); a recording holds one run",
            here.run,
            shown(here.started_at_ms),
            first.run,
            shown(first.started_at_ms),
            first.line
        ))
    }
}

/// A start as people read it, to the millisecond.
fn shown(ms: u64) -> String {
    i64::try_from(ms)
        .ok()
        .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
        .map_or_else(|| format!("{ms} ms after 1970"), |at| at.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{ClockMode, RunStarted};
    use std::sync::Arc;

    fn start(run: RunId, started_at_ms: u64) -> Event {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios/checkout_v2_launch.json");
        let scenario = Arc::new(crate::scenario::load(&path).unwrap());
        Event {
            run,
            seq: 1,
            t_ms: 0,
            kind: EventKind::RunStarted(RunStarted {
                pattern: scenario.pattern,
                seed: 0,
                goal: "g".into(),
                clock: ClockMode::Virtual,
                flags: Vec::new(),
                source: None,
                started_at_ms,
                model: None,
                forked_from: None,
                scenario,
            }),
        }
    }

    #[test]
    fn a_start_written_twice_is_one_run() {
        let mut one_run = OneRun::default();
        assert_eq!(one_run.second_run(&start(1, 5), 1), Ok(()));
        assert_eq!(one_run.second_run(&start(1, 5), 2), Ok(()));
    }

    #[test]
    fn two_runs_of_one_number_are_told_apart_by_their_starts() {
        let mut one_run = OneRun::default();
        assert_eq!(one_run.second_run(&start(1, 1_772_443_800_000), 1), Ok(()));
        assert_eq!(
            one_run.second_run(&start(1, 1_772_443_800_250), 4),
            Err(
                "a second run starts here: run 1 started at 2026-03-02T09:30:00.25Z, \
                 in a recording of run 1 started at 2026-03-02T09:30:00Z (line 1); \
                 a recording holds one run"
                    .into()
            )
        );
        let mut one_run = OneRun::default();
        assert_eq!(one_run.second_run(&start(1, u64::MAX), 1), Ok(()));
        let err = one_run.second_run(&start(2, 0), 2).unwrap_err();
        assert!(
            err.contains("run 2 started at 1970-01-01T00:00:00Z")
                && err.contains(&format!("run 1 started at {} ms after 1970", u64::MAX)),
            "{err}"
        );
    }
}
