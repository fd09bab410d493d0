//! `conclave worker --nats URL`: pull sweep jobs from the shared consumer,
//! run each on its own thread with the sweep's own `run_job`, publish the
//! result and only then acknowledge the job. It never counts results (the
//! sweep does) and never holds a job it is not working on.

use super::endpoint::OwnEndpoint;
use super::engine::WorkerEngine;
use super::queue::{self, JobMessage, JobOutcome, ResultMessage};
use super::scenarios::Scenarios;
use crate::exit::Exit;
use crate::nats::publish::PublishTo;
use crate::nats::{self, Nats, NatsError};
use crate::output;
use crate::sweep::run_job_with;
use crate::telemetry::OtlpConfig;
use async_nats::jetstream::consumer::PullConsumer;
use async_nats::jetstream::message::{Acker, PublishMessage};
use async_nats::jetstream::{AckKind, Message};
use futures_util::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// How long one pull waits on the server for a job before asking again.
const PULL_WAIT: Duration = Duration::from_secs(10);
/// How long a slot waits after the server failed a pull.
const RETRY_AFTER: Duration = Duration::from_secs(1);
/// The default `--ack-wait`: a worker that dies is noticed this long after
/// it last said it was working on its job.
pub const DEFAULT_ACK_WAIT: Duration = Duration::from_secs(30);

/// `--ack-wait SECONDS`: at least a second (the in-progress
/// acknowledgements go every third of it), at most a week.
pub fn parse_ack_wait(text: &str) -> Result<Duration, String> {
    let expected = "a number of seconds from 1 to 604800, e.g. 30";
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("expected {expected}, found {text:?}"))?;
    if !(1.0..=crate::duration::MAX.as_secs_f64()).contains(&seconds) {
        return Err(format!("expected {expected}, found {text}"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// `conclave worker`'s settings.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The server the jobs come from.
    pub url: String,
    /// Where every job's events are published (for `conclave attach`),
    /// and the events stream's limits.
    pub events: PublishTo,
    /// `--otlp`: each job's run goes to the collector as a trace.
    pub otlp: Option<OtlpConfig>,
    /// Jobs run at once.
    pub parallel: usize,
    /// How long a job may go without word from its worker before the
    /// server gives it to another worker.
    pub ack_wait: Duration,
    /// `--allow-exec`: scenarios may start the programs they name.
    pub allow_exec: bool,
}

/// Where the worker is in stopping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    Running,
    /// A first signal: take no more jobs, finish the ones in hand.
    Draining,
    /// A second signal: hand the jobs in hand back now.
    Abandoning,
}

/// What every slot shares.
struct Shared {
    nats: Nats,
    /// Each job runs as a run of this engine's own.
    engine: Arc<WorkerEngine>,
    scenarios: Scenarios,
    /// The model endpoint its operator set up, the only one it calls.
    endpoint: OwnEndpoint,
    options: WorkerOptions,
    /// One warning for a run of pull failures, not one per slot and try.
    failing: parking_lot::Mutex<bool>,
}

/// Run jobs until a signal; the exit status says why it stopped.
pub fn worker(options: WorkerOptions) -> Exit {
    let runtime = match crate::runtime::start(&mut tokio::runtime::Builder::new_current_thread()) {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    let endpoint = match OwnEndpoint::from_env(|name| std::env::var(name).ok()) {
        Ok(endpoint) => endpoint,
        Err(problem) => {
            output::message(&format!("conclave worker: {problem}"));
            return Exit::BadInput;
        }
    };
    let engine = match WorkerEngine::start(&options.events, options.otlp.as_ref()) {
        Ok(engine) => Arc::new(engine),
        Err(exit) => return exit,
    };
    let exit = runtime.block_on(async {
        match serve(options, endpoint, Arc::clone(&engine)).await {
            Ok(exit) => exit,
            Err(e) => {
                output::message(&format!("conclave: {e}"));
                e.exit()
            }
        }
    });
    // The last jobs' events reach the server, and their traces the
    // collector, before the process ends.
    drop(runtime);
    if let Some(engine) = Arc::into_inner(engine) {
        engine.finish();
    }
    exit
}

async fn serve(
    options: WorkerOptions,
    endpoint: OwnEndpoint,
    engine: Arc<WorkerEngine>,
) -> Result<Exit, NatsError> {
    let nats = nats::connect(&options.url).await?;
    queue::ensure_streams(&nats).await?;
    let consumer = queue::workers_consumer(&nats, options.ack_wait).await?;
    // Signals are caught before the worker says it runs: a signal sent as
    // soon as it says so drains it rather than killing it.
    let signals = crate::signals::Signals::new().ok();
    output::message(&format!(
        "conclave worker {}: running sweep jobs from {}, {} at a time (a job is given to another worker {}s after this one stops answering for it)",
        engine.id(),
        nats.url,
        options.parallel,
        options.ack_wait.as_secs_f64()
    ));
    let shared = Arc::new(Shared {
        nats,
        engine,
        scenarios: Scenarios::default(),
        endpoint,
        options,
        failing: parking_lot::Mutex::new(false),
    });
    let (stop, stopping) = watch::channel(Stop::Running);
    let mut slots = tokio::task::JoinSet::new();
    for _ in 0..shared.options.parallel.max(1) {
        slots.spawn(slot(
            Arc::clone(&shared),
            consumer.clone(),
            stopping.clone(),
        ));
    }
    let mut received = None;
    {
        let listen = async {
            let Some(mut signals) = signals else {
                return std::future::pending().await;
            };
            if let Some(signal) = signals.next().await {
                received = Some(signal);
                stop.send_replace(Stop::Draining);
                output::message(
                    "conclave worker: stopping: taking no more jobs, finishing the ones in hand (signal again to hand them back now)",
                );
            }
            if signals.next().await.is_some() {
                stop.send_replace(Stop::Abandoning);
            }
            std::future::pending::<()>().await
        };
        tokio::select! {
            () = async { while slots.join_next().await.is_some() {} } => {}
            () = listen => {}
        }
    }
    // The ack of the last job is a publish: make sure it left.
    let _ = shared.nats.client.flush().await;
    Ok(received.map_or(Exit::Ok, Exit::Signalled))
}

/// One job at a time, until told to stop.
async fn slot(shared: Arc<Shared>, consumer: PullConsumer, mut stop: watch::Receiver<Stop>) {
    loop {
        if *stop.borrow() != Stop::Running {
            return;
        }
        let pulled = tokio::select! {
            _ = stop.changed() => return,
            pulled = pull_one(&consumer) => pulled,
        };
        match pulled {
            Ok(Some(message)) => {
                shared.recovered();
                handle(&shared, message, &mut stop).await;
            }
            Ok(None) => shared.recovered(),
            Err(problem) => {
                shared.warn_failing(&problem);
                tokio::select! {
                    _ = stop.changed() => return,
                    () = tokio::time::sleep(RETRY_AFTER) => {}
                }
            }
        }
    }
}

/// Ask the server for one job and wait for it at most [`PULL_WAIT`].
async fn pull_one(consumer: &PullConsumer) -> Result<Option<Message>, String> {
    let mut batch = consumer
        .batch()
        .max_messages(1)
        .expires(PULL_WAIT)
        .messages()
        .await
        .map_err(|e| e.to_string())?;
    match batch.next().await {
        None => Ok(None),
        Some(Ok(message)) => Ok(Some(message)),
        Some(Err(e)) => Err(e.to_string()),
    }
}

/// Run one job, publish its result and acknowledge it, in that order: a
/// worker that dies before the acknowledgement leaves the job to be
/// delivered again, and the result's message id keeps a second result
/// from being stored twice.
async fn handle(shared: &Shared, message: Message, stop: &mut watch::Receiver<Stop>) {
    let delivery = message
        .info()
        .map_or(1, |info| u64::try_from(info.delivered).unwrap_or(1));
    let (message, acker) = message.split();
    let job: JobMessage = match serde_json::from_slice(&message.payload) {
        Ok(job) => job,
        Err(e) => {
            output::message(&format!(
                "conclave worker: a message on {} is not a Conclave job ({e}); dropped",
                message.subject
            ));
            let _ = acker.ack_with(AckKind::Term).await;
            return;
        }
    };
    if delivery > 1 {
        output::message(&format!(
            "conclave worker: job {} of sweep {} is back (delivery {delivery}): the worker that had it stopped before finishing it",
            job.job.id, job.sweep
        ));
    }
    let Some(outcome) = run(shared, &job, &acker, stop).await else {
        return;
    };
    let result = ResultMessage {
        sweep: job.sweep.clone(),
        job: job.job.id.clone(),
        worker: shared.engine.id().to_string(),
        delivery,
        outcome,
    };
    if let Err(problem) = publish(shared, &result).await {
        output::message(&format!(
            "conclave worker: cannot publish the result of job {} ({problem}); handing the job back",
            result.job
        ));
        let _ = acker.ack_with(AckKind::Nak(None)).await;
        return;
    }
    if let Err(e) = acker.double_ack().await {
        // The job comes back after its ack wait; its result is stored once.
        output::message(&format!(
            "conclave worker: the server did not confirm job {} done ({e}); it may run again",
            result.job
        ));
    }
}

/// The job's outcome, telling the server the job is in hand until it
/// ends; `None` when the job was handed back (a second signal).
async fn run(
    shared: &Shared,
    job: &JobMessage,
    acker: &Acker,
    stop: &mut watch::Receiver<Stop>,
) -> Option<JobOutcome> {
    if let Some(problem) = super::scenarios::program_refusal(&job.scenario) {
        return Some(JobOutcome::Refused { problem });
    }
    let (scenario, fork) = match shared.scenarios.of_job(job) {
        Ok(found) => found,
        Err(problem) => return Some(JobOutcome::Failed { problem }),
    };
    if let Some(problem) = shared
        .scenarios
        .refusal(&scenario, shared.options.allow_exec)
    {
        return Some(JobOutcome::Refused { problem });
    }
    if let Some(problem) = shared.endpoint.refusal(&job.model, &scenario) {
        return Some(JobOutcome::Refused { problem });
    }
    let allow_exec = shared.options.allow_exec;
    let (setup, observers) = shared.engine.setup(job, &shared.endpoint, allow_exec, fork);
    let (done, ended) = tokio::sync::oneshot::channel();
    let source = job.scenario.source.clone();
    let sweep_job = job.job.clone();
    // A run blocks its thread on its own runtime, which a thread of this
    // runtime may not do.
    let started = std::thread::Builder::new()
        .name(format!("job {}", job.job.id))
        .spawn(move || {
            let _ = done.send(run_job_with(
                &scenario,
                Some(&source),
                &sweep_job,
                &setup,
                observers,
            ));
        });
    if let Err(e) = started {
        return Some(JobOutcome::Failed {
            problem: format!("cannot start a thread for the run: {e}"),
        });
    }
    // In-progress acknowledgements well inside the ack wait keep a long
    // run from being given to another worker while this one works on it.
    let mut progress = tokio::time::interval(shared.options.ack_wait / 3);
    progress.tick().await;
    tokio::pin!(ended);
    loop {
        tokio::select! {
            ended = &mut ended => {
                return Some(match ended {
                    Ok(Ok(result)) => JobOutcome::Done { result: Box::new(result) },
                    Ok(Err(e)) => JobOutcome::Failed { problem: e.to_string() },
                    Err(_) => JobOutcome::Failed { problem: "the run panicked".into() },
                });
            }
            _ = progress.tick() => {
                let _ = acker.ack_with(AckKind::Progress).await;
            }
            () = abandoned(stop) => {
                let _ = acker.ack_with(AckKind::Nak(None)).await;
                return None;
            }
        }
    }
}

/// Returns once the worker is told to hand its jobs back (or can no
/// longer be told anything).
async fn abandoned(stop: &mut watch::Receiver<Stop>) {
    let _ = stop.wait_for(|stop| *stop == Stop::Abandoning).await;
}

/// Publish a result and wait for the server to have stored it.
async fn publish(shared: &Shared, result: &ResultMessage) -> Result<(), String> {
    let payload = serde_json::to_vec(result).map_err(|e| e.to_string())?;
    let message = PublishMessage::build()
        .payload(payload.into())
        .message_id(queue::message_id(&result.sweep, &result.job));
    shared
        .nats
        .js
        .send_publish(queue::results_subject(&result.sweep), message)
        .await
        .map_err(|e| e.to_string())?
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

impl Shared {
    fn warn_failing(&self, problem: &str) {
        let mut failing = self.failing.lock();
        if !*failing {
            *failing = true;
            output::message(&format!(
                "conclave worker: cannot pull jobs from {} ({problem}); trying again",
                self.nats.url
            ));
        }
    }

    fn recovered(&self) {
        let mut failing = self.failing.lock();
        if *failing {
            *failing = false;
            output::message(&format!(
                "conclave worker: pulling jobs from {} again",
                self.nats.url
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ack_wait_is_a_second_to_a_week() {
        assert_eq!(parse_ack_wait("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_ack_wait("1.5"), Ok(Duration::from_millis(1500)));
        for bad in ["0", "0.5", "-3", "NaN", "inf", "1e9", "30s", ""] {
            let e = parse_ack_wait(bad).expect_err(bad);
            assert!(e.contains("a number of seconds from 1"), "{bad}: {e}");
        }
    }
}
