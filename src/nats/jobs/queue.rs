//! The job queue's shape on the server: the work-queue stream of jobs, the
//! stream of results, their subjects, message ids and the messages that
//! travel on them. Both ends (the sweep and its workers) set the streams up
//! the same way here; nothing here runs a job or counts a result.

use super::super::{Nats, NatsError};
use crate::engine::ProviderChoice;
use crate::scenario::{PriceTable, ProviderKind, ProviderKnobs};
use crate::sweep::{Job, JobResult};
use async_nats::jetstream::{consumer, stream};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The work-queue stream: each job is delivered to one worker at a time
/// and removed once a worker acknowledges it.
pub(crate) const JOBS_STREAM: &str = "CONCLAVE_JOBS";
/// The stream of results, kept until the sweep that asked has read them,
/// so that a result published while the sweep is reconnecting is not lost.
pub(crate) const RESULTS_STREAM: &str = "CONCLAVE_RESULTS";
/// The one durable consumer every worker pulls from. A work-queue stream
/// allows one consumer per subject, and sharing it is what spreads the
/// jobs over the workers.
pub(crate) const WORKERS: &str = "conclave-workers";
/// How long an unread job or result stays: a sweep that died leaves its
/// jobs and results behind, and this bounds how long they take space.
const KEPT_FOR: Duration = Duration::from_secs(24 * 3600);

/// The subject of a sweep's jobs.
pub(crate) fn jobs_subject(sweep: &str) -> String {
    format!("conclave.jobs.{sweep}")
}

/// The subject of a sweep's results.
pub(crate) fn results_subject(sweep: &str) -> String {
    format!("conclave.results.{sweep}")
}

/// The message id of a job and of its result: JetStream drops a second
/// message with the same id inside its duplicate window, so a job
/// published again, or a result published again by a redelivered job, is
/// stored once.
pub(crate) fn message_id(sweep: &str, job: &str) -> String {
    format!("{sweep}/{job}")
}

/// A job as it travels to a worker: everything needed to run it, so that
/// a worker on any machine needs only the server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct JobMessage {
    pub(crate) sweep: String,
    pub(crate) job: Job,
    /// The scenario; for a sweep from a point, the recording to fork.
    pub(crate) scenario: ScenarioText,
    /// A sweep from a point: the job is a fork of the recording `scenario`
    /// carries, at this gate, with the job's seed and flags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fork_at: Option<String>,
    pub(crate) model: ModelSetup,
    /// The sweep's `--answer`: each run's answer to the first question it
    /// asks a person that offers it. Named `decide` on the wire, as workers
    /// of earlier versions read it.
    #[serde(default, rename = "decide", skip_serializing_if = "Option::is_none")]
    pub(crate) answer: Option<String>,
}

/// The sweep's choice of model over the scenario's (`--provider`,
/// `--model`, `--base-url`, `--pricing`, `--no-stream` and the knobs,
/// `--output`, `--temperature`, ...), applied by every
/// worker as the sweep's machine would. No key travels: a worker that
/// calls a real model reads its own `OPENAI_API_KEY`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ModelSetup {
    pub(crate) kind: Option<ProviderKind>,
    pub(crate) model: Option<String>,
    pub(crate) base_url: Option<String>,
    pub(crate) pricing: Option<PriceTable>,
    pub(crate) no_stream: bool,
    /// `--output`, `--temperature`, ...: absent when none is given, so
    /// that a job without knobs reads as before.
    #[serde(default, skip_serializing_if = "ProviderKnobs::is_empty")]
    pub(crate) knobs: ProviderKnobs,
}

impl ModelSetup {
    /// The choice as it can travel; `--prompts` names a folder on the
    /// sweep's machine, which workers elsewhere cannot read.
    pub(crate) fn of(choice: &ProviderChoice) -> Result<Self, String> {
        if let Some(folder) = &choice.prompts {
            return Err(format!(
                "--prompts {} names a folder on this machine, which workers on others cannot read; sweep without --nats, or put the prompts in the compiled-in set",
                folder.display()
            ));
        }
        Ok(ModelSetup {
            kind: choice.kind,
            model: choice.model.clone(),
            base_url: choice.base_url.clone(),
            pricing: choice.pricing.clone(),
            no_stream: choice.no_stream,
            knobs: choice.knobs.clone(),
        })
    }

    pub(crate) fn choice(&self) -> ProviderChoice {
        ProviderChoice {
            kind: self.kind,
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            prompts: None,
            pricing: self.pricing.clone(),
            no_stream: self.no_stream,
            knobs: self.knobs.clone(),
            endpoint_profile: None,
        }
    }
}

/// The scenario file's exact text and the path it was read from (relative
/// paths inside it resolve against that path's folder on the worker when
/// it exists there, else against the worker's current folder).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ScenarioText {
    pub(crate) source: String,
    pub(crate) text: String,
}

/// A worker's answer to one job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ResultMessage {
    pub(crate) sweep: String,
    /// The job's id (`Job::id`), the key results are counted by.
    pub(crate) job: String,
    /// The engine id of the worker that ran it.
    pub(crate) worker: String,
    /// Which delivery of the job this was: more than 1 when a worker
    /// before this one took it and never acknowledged it.
    pub(crate) delivery: u64,
    pub(crate) outcome: JobOutcome,
}

/// What came of a job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub(crate) enum JobOutcome {
    /// The run ended (whatever its status): its result.
    Done { result: Box<JobResult> },
    /// The worker would not run it; the sweep's user can fix that (a
    /// scenario that starts programs, sent to a worker without
    /// `--allow-exec`).
    Refused { problem: String },
    /// The run could not be carried out on that worker.
    Failed { problem: String },
}

/// Make sure both streams exist, with the settings above; an existing
/// stream is used as it is.
pub(crate) async fn ensure_streams(nats: &Nats) -> Result<(), NatsError> {
    nats.js
        .get_or_create_stream(stream::Config {
            name: JOBS_STREAM.into(),
            description: Some("Conclave sweep jobs, one message per run".into()),
            subjects: vec!["conclave.jobs.>".into()],
            retention: stream::RetentionPolicy::WorkQueue,
            max_age: KEPT_FOR,
            ..Default::default()
        })
        .await
        .map_err(|e| NatsError::server(&nats.url, "create the stream CONCLAVE_JOBS", e))?;
    nats.js
        .get_or_create_stream(stream::Config {
            name: RESULTS_STREAM.into(),
            description: Some("Conclave sweep results, one message per run".into()),
            subjects: vec!["conclave.results.>".into()],
            max_age: KEPT_FOR,
            ..Default::default()
        })
        .await
        .map_err(|e| NatsError::server(&nats.url, "create the stream CONCLAVE_RESULTS", e))?;
    Ok(())
}

/// The workers' shared consumer, created or brought to `ack_wait`: the
/// last worker started sets it for all (the server keeps one value).
pub(crate) async fn workers_consumer(
    nats: &Nats,
    ack_wait: Duration,
) -> Result<consumer::PullConsumer, NatsError> {
    let stream = nats
        .js
        .get_stream(JOBS_STREAM)
        .await
        .map_err(|e| NatsError::server(&nats.url, "open the stream CONCLAVE_JOBS", e))?;
    stream
        .create_consumer(consumer::pull::Config {
            durable_name: Some(WORKERS.into()),
            description: Some("Conclave workers".into()),
            filter_subject: "conclave.jobs.>".into(),
            ack_policy: consumer::AckPolicy::Explicit,
            ack_wait,
            ..Default::default()
        })
        .await
        .map_err(|e| NatsError::server(&nats.url, "create the workers' consumer", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_and_ids_carry_the_sweep_and_the_job() {
        assert_eq!(jobs_subject("h-1-00aa"), "conclave.jobs.h-1-00aa");
        assert_eq!(results_subject("h-1-00aa"), "conclave.results.h-1-00aa");
        assert_eq!(message_id("h-1-00aa", "c1-s17"), "h-1-00aa/c1-s17");
    }

    #[test]
    fn the_knobs_travel_with_a_job_and_a_job_without_them_reads_as_before() {
        let choice = ProviderChoice {
            no_stream: true,
            knobs: ProviderKnobs {
                output: Some(crate::scenario::OutputMode::Tool),
                temperature: Some(None),
                timeout_seconds: Some(300.0),
                ..ProviderKnobs::default()
            },
            ..ProviderChoice::default()
        };
        let setup = ModelSetup::of(&choice).unwrap();
        let text = serde_json::to_string(&setup).unwrap();
        let read: ModelSetup = serde_json::from_str(&text).unwrap();
        assert_eq!(read.choice(), choice);
        let before =
            r#"{"kind":null,"model":null,"base_url":null,"pricing":null,"no_stream":false}"#;
        let read: ModelSetup = serde_json::from_str(before).unwrap();
        assert_eq!(read.choice(), ProviderChoice::default());
        assert_eq!(serde_json::to_string(&read).unwrap(), before);
    }

    #[test]
    fn outcomes_say_their_kind() {
        let refused = JobOutcome::Refused {
            problem: "no".into(),
        };
        let text = serde_json::to_string(&refused).unwrap();
        assert_eq!(text, r#"{"kind":"refused","problem":"no"}"#);
        assert_eq!(serde_json::from_str::<JobOutcome>(&text).unwrap(), refused);
    }
}
