//! The local executor: a sweep's jobs on a pool of threads, one job at a
//! time per thread, each on its own runtime (see [`run_job_with`]). It
//! hands results to the caller's thread and counts nothing itself: the
//! caller's [`super::Tally`] does, as it does for any other executor.
//! Threads are asked of the system one by one: when it refuses one, the
//! sweep goes on with those it gave, never panicking.

use super::SweepError;
use super::job::{JobResult, JobSetup, run_job_with};
use super::jobs::JobList;
use crate::scenario::Scenario;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

/// One thread per core this process may use.
pub fn default_parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// Run every job on `parallel` threads (default: all cores), calling
/// `on_result` on the caller's thread as results arrive. `Ok` carries a
/// note for the user when the system gave fewer threads than asked.
pub fn run_local(
    scenario: &Arc<Scenario>,
    source: Option<&str>,
    jobs: impl JobList,
    parallel: usize,
    on_result: impl FnMut(JobResult),
) -> Result<Option<String>, SweepError> {
    let never = AtomicBool::new(false);
    run_local_with(
        scenario,
        source,
        jobs,
        parallel,
        &JobSetup::default(),
        &never,
        on_result,
    )
}

/// [`run_local`] with the sweep's setup for every job. The first error
/// stops handing out jobs; the results of jobs already running still
/// reach `on_result`, then the error is returned. Setting `cancel` stops
/// handing out jobs too (the viewer went away): the sweep ends after the
/// jobs under way, without an error.
pub fn run_local_with(
    scenario: &Arc<Scenario>,
    source: Option<&str>,
    jobs: impl JobList,
    parallel: usize,
    setup: &JobSetup,
    cancel: &AtomicBool,
    mut on_result: impl FnMut(JobResult),
) -> Result<Option<String>, SweepError> {
    let threads = parallel.clamp(1, jobs.count().max(1));
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Result<JobResult, SweepError>>();
    let jobs = &jobs;
    std::thread::scope(|scope| {
        let mut workers = Vec::with_capacity(threads);
        let mut refused = None;
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            let worker = std::thread::Builder::new().spawn_scoped(scope, move || {
                // Jobs are taken in plan order, one at a time, so a slow
                // job never holds others back behind it.
                while !stop.load(Ordering::Relaxed) && !cancel.load(Ordering::Relaxed) {
                    let Some(job) = jobs.job(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    let result = run_job_with(scenario, source, &job, setup, Vec::new());
                    if result.is_err() {
                        stop.store(true, Ordering::Relaxed);
                    }
                    if tx.send(result).is_err() {
                        break;
                    }
                }
            });
            match worker {
                Ok(worker) => workers.push(worker),
                // The system's limit on threads (or on memory for their
                // stacks): the threads started share the jobs.
                Err(error) => {
                    refused = Some(error);
                    break;
                }
            }
        }
        drop(tx);
        let note = match refused {
            Some(error) if workers.is_empty() => return Err(SweepError::NoThread(error)),
            Some(error) => Some(format!(
                "conclave: the system gave {} of the {threads} threads asked for ({error}); the sweep runs {} at a time",
                workers.len(),
                workers.len()
            )),
            None => None,
        };
        let mut first_error = None;
        for received in rx {
            match received {
                Ok(result) => on_result(result),
                Err(error) => {
                    first_error.get_or_insert(error);
                }
            }
        }
        for worker in workers {
            // The panic's own words went to stderr through the panic hook
            // as it happened; the sweep says which thread it cost.
            if worker.join().is_err() {
                first_error.get_or_insert(SweepError::Thread);
            }
        }
        first_error.map_or(Ok(note), Err)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::{Job, SweepPlan, Tally, run_job};

    fn checkout() -> Arc<Scenario> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios/checkout_v2_launch.json");
        Arc::new(crate::scenario::load(&path).unwrap())
    }

    #[test]
    fn threads_give_every_job_once_and_the_results_of_single_runs() {
        let scenario = checkout();
        let plan =
            SweepPlan::new(1..=6, vec![("legal_analyst".into(), vec![true, false])]).unwrap();
        let mut tally = Tally::new(&plan);
        let mut seen = Vec::new();
        run_local(&scenario, None, plan.jobs(), 3, |result| {
            seen.push(result.job.clone());
            assert!(tally.add(result));
        })
        .unwrap();
        assert_eq!(tally.done(), 12);
        seen.sort();
        let mut expected: Vec<String> = plan.jobs().map(|j| j.id).collect();
        expected.sort();
        assert_eq!(seen, expected);
        for job in plan.jobs() {
            let alone = run_job(&scenario, None, &job, Vec::new()).unwrap();
            let pooled = tally
                .results(job.combination)
                .iter()
                .find(|r| r.job == job.id);
            assert_eq!(pooled, Some(&alone));
        }
    }

    #[test]
    fn the_first_error_stops_the_sweep_and_is_returned() {
        let scenario = checkout();
        let jobs = vec![Job::new(0, 1, vec![("nope".into(), true)]); 4];
        let mut results = 0;
        let error =
            run_local(&scenario, Some("checkout.json"), jobs, 2, |_| results += 1).unwrap_err();
        assert!(error.is_bad_input(), "{error}");
        assert_eq!(results, 0);
    }

    #[test]
    fn a_cancelled_sweep_hands_out_no_more_jobs() {
        let plan = SweepPlan::new(1..=50, Vec::new()).unwrap();
        let cancel = AtomicBool::new(true);
        let mut results = 0;
        let setup = JobSetup::default();
        run_local_with(&checkout(), None, plan.jobs(), 2, &setup, &cancel, |_| {
            results += 1
        })
        .unwrap();
        assert_eq!(results, 0);
    }

    #[test]
    fn no_jobs_is_a_sweep_that_ends_at_once() {
        let mut results = 0;
        run_local(&checkout(), None, Vec::<Job>::new(), 4, |_| results += 1).unwrap();
        assert_eq!(results, 0);
    }
}
