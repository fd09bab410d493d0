//! The sweep's second executor, beside the local thread pool: put one job
//! per run on the work queue, gather the workers' results and hand each
//! job's first result to the caller, once. It never runs a job itself and
//! leaves nothing of its sweep on the server when it ends.

use super::outage::{self, Outage};
use super::payload;
use super::queue::{self, JobMessage, JobOutcome, ModelSetup, ResultMessage, ScenarioText};
use super::results::Results;
pub use super::sweep_error::RemoteSweepError;
use crate::exit::Signal;
use crate::nats::{self, Nats, NatsError};
use crate::output;
use crate::scenario::Scenario;
use crate::sweep::{Job, JobResult, JobSetup};
use async_nats::connection::State;
use async_nats::jetstream::context::{PublishError, PublishErrorKind};
use async_nats::jetstream::message::PublishMessage;
use bytes::Bytes;
use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How many job publishes are in flight before their acks are awaited.
const IN_FLIGHT: usize = 256;
/// How often the caller's cancel flag and the connection are looked at.
const CHECK: Duration = Duration::from_millis(100);
/// How long after a failed try the server is tried again.
const RETRY_AFTER: Duration = Duration::from_secs(1);
/// How long taking a stopped sweep's jobs off the queue may take.
const CLEAN_UP_BOUND: Duration = Duration::from_secs(3);

/// What the sweep learned about its workers besides the results.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Gathered {
    /// Results of jobs delivered more than once: a worker took them and
    /// stopped (or was killed) before finishing them.
    pub redelivered: usize,
    /// Results that arrived for a job already counted, and were dropped.
    pub duplicates: usize,
    /// The engine ids of the workers that sent results.
    pub workers: BTreeSet<String>,
}

/// What, besides its jobs all done, ends a sweep on NATS.
#[derive(Clone, Copy, Debug)]
pub struct Until<'a> {
    /// Set when the viewer went away: the sweep ends without an error.
    pub cancel: &'a AtomicBool,
    /// How long the server may be away before the sweep stops.
    pub outage: Duration,
}

/// Run `jobs` on whatever workers serve the NATS server at `url`, with
/// the sweep's model choice, calling `on_result` on the caller's thread
/// with each job's result, once per job, in the order they arrive. Blocks
/// until every job has a result, a worker reports a job it cannot run, a
/// signal (SIGINT, SIGTERM, SIGHUP) stops it, `until.cancel` is set (the
/// viewer went away: it then ends without an error), or the server is lost
/// for longer than `until.outage` (a shorter outage, such as a restart, is
/// ridden out). However it ends, the sweep's jobs still on the queue are taken
/// off it when the server can be reached.
pub fn run_nats(
    url: &str,
    scenario: &Arc<Scenario>,
    source: Option<&str>,
    jobs: Vec<Job>,
    setup: &JobSetup,
    until: Until<'_>,
    on_result: impl FnMut(JobResult),
) -> Result<Gathered, RemoteSweepError> {
    let model = ModelSetup::of(&setup.provider).map_err(RemoteSweepError::Setup)?;
    let (text, fork_at) = payload::carried(scenario, source, setup)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| NatsError::server(url, "start the runtime", e))?;
    let what = Published {
        scenario: &text,
        fork_at: fork_at.as_deref(),
        model: &model,
        answer: setup.answer.as_deref(),
    };
    runtime.block_on(gather(
        url,
        what,
        jobs,
        until.outage,
        until.cancel,
        on_result,
    ))
}

/// What every job of a sweep carries besides itself.
#[derive(Clone, Copy)]
struct Published<'a> {
    scenario: &'a ScenarioText,
    /// A sweep from a point: `scenario` is the recording, forked here.
    fork_at: Option<&'a str>,
    model: &'a ModelSetup,
    /// `--answer`: each run's answer to the question it asks a person.
    answer: Option<&'a str>,
}

async fn gather(
    url: &str,
    what: Published<'_>,
    jobs: Vec<Job>,
    bound: Duration,
    cancel: &AtomicBool,
    mut on_result: impl FnMut(JobResult),
) -> Result<Gathered, RemoteSweepError> {
    let nats = nats::connect(url).await?;
    queue::ensure_streams(&nats).await?;
    // The sweep's id is its engine's: unique across engines.
    let sweep = nats.engine.to_string();
    // Listening starts before the first job is out, so that no result is
    // missed; the ordered consumer replays the subject from its start.
    let mut results = Results::open(&nats, &sweep)
        .await
        .map_err(|e| NatsError::server(&nats.url, "read the sweep's results", e))?;
    let wanted: HashSet<String> = jobs.iter().map(|job| job.id.clone()).collect();
    let mut outage = Outage::new(bound);
    let mut signals = crate::signals::Signals::new().ok();
    let published = tokio::select! {
        published = publish_jobs(&nats, &sweep, what, jobs, &mut outage) => published,
        signal = next_signal(&mut signals) => Err(RemoteSweepError::Interrupted(signal)),
    };
    if let Err(e) = published {
        clean_up(&nats, &sweep).await;
        return Err(e);
    }
    let mut gathered = Gathered::default();
    let mut counted: HashSet<String> = HashSet::with_capacity(wanted.len());
    let mut check = tokio::time::interval(CHECK);
    let mut rejoin = Rejoin {
        reopen: false,
        tried: tokio::time::Instant::now(),
    };
    while counted.len() < wanted.len() {
        let payload = tokio::select! {
            next = results.next() => match next {
                Ok(payload) => payload,
                Err(problem) => {
                    if outage.lost() {
                        say_lost(&nats.url, &problem, outage.bound());
                    }
                    continue;
                }
            },
            signal = next_signal(&mut signals) => {
                clean_up(&nats, &sweep).await;
                return Err(RemoteSweepError::Interrupted(signal));
            }
            _ = check.tick() => {
                if cancel.load(Ordering::Relaxed) {
                    break;
                }
                rejoin.check(&nats, &mut results, &mut outage).await;
                if outage.over() {
                    clean_up(&nats, &sweep).await;
                    return Err(RemoteSweepError::ServerLost {
                        url: nats.url.clone(),
                        waited: outage.bound(),
                    });
                }
                continue;
            }
        };
        // Anything on the subject that is not one of this sweep's results
        // is someone else's mistake, not a reason to stop.
        let Ok(result) = serde_json::from_slice::<ResultMessage>(&payload) else {
            continue;
        };
        if result.sweep != sweep || !wanted.contains(&result.job) {
            continue;
        }
        if let Err(e) = count(result, &mut counted, &mut gathered, &mut on_result) {
            clean_up(&nats, &sweep).await;
            return Err(e);
        }
    }
    clean_up(&nats, &sweep).await;
    Ok(gathered)
}

/// After the connection was lost, the results are read again through a
/// new consumer: the server's restart ended the old one.
struct Rejoin {
    reopen: bool,
    /// When the results were last reopened, so that a server still away
    /// is asked once a `RETRY_AFTER`.
    tried: tokio::time::Instant,
}

impl Rejoin {
    /// Note a dropped connection, or reopen the results once it is back.
    async fn check(&mut self, nats: &Nats, results: &mut Results, outage: &mut Outage) {
        if nats.client.connection_state() != State::Connected {
            self.reopen = true;
            if outage.lost() {
                say_lost(&nats.url, "the connection dropped", outage.bound());
            }
        } else if (self.reopen || !results.is_open()) && self.tried.elapsed() >= RETRY_AFTER {
            self.tried = tokio::time::Instant::now();
            match results.reopen(nats).await {
                Ok(()) => {
                    self.reopen = false;
                    if outage.back() {
                        output::message(&format!(
                            "conclave: the NATS server at {} is back; gathering the results again",
                            nats.url
                        ));
                    }
                }
                Err(_) => {
                    outage.lost();
                }
            }
        }
    }
}

/// Said once per outage, on stderr.
fn say_lost(url: &str, problem: &str, bound: Duration) {
    output::message(&format!(
        "conclave: lost the NATS server at {url} ({problem}); waiting up to {}s for it to come back ({})",
        bound.as_secs_f64(),
        outage::VARIABLE
    ));
}

/// Count one result: the first for its job goes to the caller, a later one
/// (a job delivered again whose first result had arrived) is dropped.
fn count(
    result: ResultMessage,
    counted: &mut HashSet<String>,
    gathered: &mut Gathered,
    on_result: &mut impl FnMut(JobResult),
) -> Result<(), RemoteSweepError> {
    if result.delivery > 1 {
        gathered.redelivered += 1;
    }
    gathered.workers.insert(result.worker.clone());
    match result.outcome {
        JobOutcome::Done { result: done } => {
            if counted.insert(result.job) {
                on_result(*done);
            } else {
                gathered.duplicates += 1;
            }
            Ok(())
        }
        JobOutcome::Refused { problem } => Err(RemoteSweepError::Refused {
            job: result.job,
            worker: result.worker,
            problem,
        }),
        JobOutcome::Failed { problem } => Err(RemoteSweepError::Failed {
            job: result.job,
            worker: result.worker,
            problem,
        }),
    }
}

/// Every job on the work queue, each with a message id so that a job
/// published again is stored once; returns when the server has them all.
/// A chunk the server did not confirm because the connection dropped is
/// published again until the outage outlasts its bound.
async fn publish_jobs(
    nats: &Nats,
    sweep: &str,
    what: Published<'_>,
    jobs: Vec<Job>,
    outage: &mut Outage,
) -> Result<(), RemoteSweepError> {
    let subject = queue::jobs_subject(sweep);
    let failed = |e: &dyn std::fmt::Display| NatsError::server(&nats.url, "publish the jobs", e);
    for chunk in jobs.chunks(IN_FLIGHT) {
        let mut payloads = Vec::with_capacity(chunk.len());
        for job in chunk {
            let message = JobMessage {
                sweep: sweep.to_string(),
                job: job.clone(),
                scenario: what.scenario.clone(),
                fork_at: what.fork_at.map(str::to_string),
                model: what.model.clone(),
                answer: what.answer.map(str::to_string),
            };
            let payload = serde_json::to_vec(&message).map_err(|e| failed(&e))?;
            payload::fits(nats, what.scenario, what.fork_at.is_some(), payload.len())?;
            payloads.push((queue::message_id(sweep, &job.id), Bytes::from(payload)));
        }
        loop {
            match publish_chunk(nats, &subject, &payloads).await {
                Ok(()) => {
                    outage.back();
                    break;
                }
                Err(e) if lost_connection(nats, &e) => {
                    if outage.lost() {
                        say_lost(&nats.url, &e.to_string(), outage.bound());
                    }
                    if outage.over() {
                        return Err(RemoteSweepError::ServerLost {
                            url: nats.url.clone(),
                            waited: outage.bound(),
                        });
                    }
                    tokio::time::sleep(RETRY_AFTER).await;
                }
                Err(e) => return Err(failed(&e).into()),
            }
        }
    }
    Ok(())
}

/// Publish one chunk and wait for the server to have stored all of it.
async fn publish_chunk(
    nats: &Nats,
    subject: &str,
    payloads: &[(String, Bytes)],
) -> Result<(), PublishError> {
    let mut acks = Vec::with_capacity(payloads.len());
    for (id, payload) in payloads {
        let publish = PublishMessage::build()
            .payload(payload.clone())
            .message_id(id);
        acks.push(nats.js.send_publish(subject.to_string(), publish).await?);
    }
    for ack in acks {
        ack.await?;
    }
    Ok(())
}

/// Whether a publish failed because the server went away (or is still
/// bringing JetStream back), rather than refusing the message.
fn lost_connection(nats: &Nats, error: &PublishError) -> bool {
    nats.client.connection_state() != State::Connected
        || matches!(
            error.kind(),
            PublishErrorKind::TimedOut
                | PublishErrorKind::BrokenPipe
                | PublishErrorKind::StreamNotFound
        )
}

/// Take the sweep's jobs off the queue (those no worker has finished: a
/// sweep that stops early must not leave work behind) and its results off
/// their stream. Best effort, for at most [`CLEAN_UP_BOUND`], and not at
/// all while the server is away: the streams' age limit removes what
/// stays.
async fn clean_up(nats: &Nats, sweep: &str) {
    if nats.client.connection_state() != State::Connected {
        return;
    }
    let purge = async {
        for (stream, subject) in [
            (queue::JOBS_STREAM, queue::jobs_subject(sweep)),
            (queue::RESULTS_STREAM, queue::results_subject(sweep)),
        ] {
            if let Ok(stream) = nats.js.get_stream(stream).await {
                let _ = stream.purge().filter(subject).await;
            }
        }
    };
    let _ = tokio::time::timeout(CLEAN_UP_BOUND, purge).await;
}

async fn next_signal(signals: &mut Option<crate::signals::Signals>) -> Signal {
    match signals {
        Some(signals) => match signals.next().await {
            Some(signal) => signal,
            None => std::future::pending().await,
        },
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Exit;

    fn result(job: &str, worker: &str, delivery: u64) -> ResultMessage {
        ResultMessage {
            sweep: "s".into(),
            job: job.into(),
            worker: worker.into(),
            delivery,
            outcome: JobOutcome::Done {
                result: Box::new(
                    serde_json::from_value(serde_json::json!({
                        "job": job, "combination": 0, "seed": 1, "outcome": "ok/goal_reached/go",
                        "status": "ok", "stop_reason": "goal_reached", "verdict": "go", "used": {},
                        "model_calls": 3, "tool_calls": 0, "input_tokens": 10, "output_tokens": 5
                    }))
                    .expect("a job result"),
                ),
            },
        }
    }

    #[test]
    fn a_job_is_counted_once_whoever_sends_its_result() {
        let (mut counted, mut gathered, mut seen) = (HashSet::new(), Gathered::default(), vec![]);
        let mut on_result = |r: JobResult| seen.push(r.job);
        for message in [
            result("c0-s1", "a", 1),
            result("c0-s1", "b", 2),
            result("c0-s2", "b", 1),
        ] {
            count(message, &mut counted, &mut gathered, &mut on_result).unwrap();
        }
        assert_eq!(seen, ["c0-s1", "c0-s2"]);
        assert_eq!(gathered.duplicates, 1);
        assert_eq!(gathered.redelivered, 1);
        assert_eq!(gathered.workers.len(), 2);
    }

    #[test]
    fn a_refusal_stops_the_sweep_as_the_users_to_fix() {
        let mut refused = result("c0-s1", "a", 1);
        refused.outcome = JobOutcome::Refused {
            problem: "needs --allow-exec".into(),
        };
        let e = count(
            refused,
            &mut HashSet::new(),
            &mut Gathered::default(),
            &mut |_| {},
        )
        .unwrap_err();
        assert_eq!(e.exit(), Exit::BadInput);
        assert!(e.to_string().contains("needs --allow-exec"), "{e}");
    }
}
