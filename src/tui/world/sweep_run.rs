//! A run of the sweep run again for the dashboard to replay it: on a
//! thread of its own (a run blocks on a runtime of its own, and one on the
//! real clock takes its time), recorded, and its recording read there too;
//! the loop hears when it is done.

use super::World;
use super::recording_reader;
use crate::sweep::{Job, run_job_recorded};
use crate::tui::effect::Done;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;

impl World {
    /// Run `job` of the sweep again, recorded to `record` (numbered while
    /// that name is taken); what it comes to arrives later, unless it
    /// cannot start.
    pub(super) fn replay_sweep_run(&mut self, job: Job, record: PathBuf) -> Option<Done> {
        let seed = job.seed;
        let failed = |why: String| {
            Some(Done::SweepRunReplayed {
                seed,
                opened: Err(why),
            })
        };
        let Some(sweep) = &self.sweep else {
            return failed("no sweep to run again".into());
        };
        if let Some(dir) = record.parent()
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            return failed(format!("cannot record the run: {e}"));
        }
        let mut setup = sweep.setup.clone();
        setup.record = Some(record.clone());
        // The seed's trace went out with the sweep; this is a second look.
        setup.exporter = None;
        let (scenario, source) = (Arc::clone(&sweep.scenario), sweep.source.clone());
        let done = self.later.clone();
        let spawned = std::thread::Builder::new()
            .name("conclave-sweep-replay".into())
            .spawn(move || {
                let ran = catch_unwind(AssertUnwindSafe(|| {
                    run_job_recorded(&scenario, Some(&source), &job, &setup, Vec::new())
                }));
                let opened = match ran {
                    Ok(Ok((_, recorded))) => {
                        recording_reader::open(recorded.as_deref().unwrap_or(&record)).map(Box::new)
                    }
                    Ok(Err(e)) => Err(e.to_string()),
                    Err(_) => Err("the run crashed".into()),
                };
                let _ = done.send(Done::SweepRunReplayed { seed, opened });
            });
        match spawned {
            Ok(_) => None,
            Err(e) => failed(format!("cannot run the seed again: {e}")),
        }
    }
}
