//! A worker as an engine: the runs it makes of jobs are numbered 1, 2, 3 …
//! like any engine's, publish their events through its link to NATS (for
//! `conclave attach`), answer control requests there, and go to the OTLP
//! collector as traces when asked.

use super::endpoint::OwnEndpoint;
use super::queue::JobMessage;
use crate::bus::EventSink;
use crate::exit::Exit;
use crate::nats::publish::{EventLink, PublishTo, Warn};
use crate::output;
use crate::sweep::{JobSetup, OnLaunch, SweepFork};
use crate::telemetry::{Exporter, OtlpConfig};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// How long stopping waits for the server to acknowledge the last events.
const LINK_CLOSE: Duration = Duration::from_secs(5);

pub(super) struct WorkerEngine {
    link: Arc<EventLink>,
    exporter: Option<Arc<Exporter>>,
    /// The last run number given to a job.
    runs: AtomicU32,
}

impl WorkerEngine {
    /// Connect the link (and start the exporter); what went wrong has been
    /// said, and the exit status is the user's to fix.
    pub(super) fn start(events: &PublishTo, otlp: Option<&OtlpConfig>) -> Result<Self, Exit> {
        let exporter = Exporter::start_or_say(otlp, crate::patterns::trace_shapes())?.map(Arc::new);
        let warn: Warn =
            Arc::new(|warning: String| output::message(&format!("conclave worker: {warning}")));
        let link = EventLink::start(events, warn).map_err(|e| {
            output::message(&format!("conclave: {e}"));
            Exit::BadInput
        })?;
        Ok(WorkerEngine {
            link: Arc::new(link),
            exporter,
            runs: AtomicU32::new(0),
        })
    }

    /// This engine's id, which its runs' subjects and its results carry.
    pub(super) fn id(&self) -> &str {
        self.link.engine()
    }

    /// How `job` runs here, as a run of its own, and the viewers that
    /// publish it. Past the worker's checks; its programs run only if the
    /// worker was started with `--allow-exec`, and its model is the
    /// worker's own endpoint whatever the scenario names. A job of a sweep
    /// from a point forks the recording it carries (`fork`).
    pub(super) fn setup(
        &self,
        job: &JobMessage,
        endpoint: &OwnEndpoint,
        allow_exec: bool,
        fork: Option<Arc<SweepFork>>,
    ) -> (JobSetup, Vec<Arc<dyn EventSink>>) {
        let link = Arc::clone(&self.link);
        let mut provider = job.model.choice();
        provider.base_url = Some(endpoint.url().to_string());
        let setup = JobSetup {
            provider,
            allow_exec,
            answer: job.answer.clone(),
            record: None,
            exporter: self.exporter.clone(),
            run: Some(self.runs.fetch_add(1, Ordering::Relaxed) + 1),
            on_launch: Some(OnLaunch(Arc::new(move |run, controller| {
                link.serve(run, controller);
            }))),
            fork,
        };
        (setup, vec![self.link.observer()])
    }

    /// Send the last jobs' events to the server and their traces to the
    /// collector; a failed export is said once.
    pub(super) fn finish(self) {
        if let Some(link) = Arc::into_inner(self.link) {
            link.close(LINK_CLOSE);
        }
        if let Some(warning) = self.exporter.and_then(|e| e.finish()) {
            output::message(&warning);
        }
    }
}
