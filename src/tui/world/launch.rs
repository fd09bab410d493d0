//! Starting a run's engine for the dashboard: its recording file in the
//! runs folder (or the one the user named), its options, and, with
//! `--nats`, the link that publishes it.

use super::World;
use crate::bus::{ClockMode, RunId};
use crate::engine::{self, LaunchError, LaunchOptions, ProviderChoice};
use crate::nats::publish::EventLink;
use crate::record::RecordMode;
use crate::scenario::Scenario;
use crate::tui::effect::{Done, Started};
use crate::tui::launch::Launch;
use std::path::PathBuf;
use std::sync::Arc;

/// How runs are launched.
#[derive(Clone, Debug, Default)]
pub struct LaunchSettings {
    /// Where recordings go; `None` records nothing.
    pub runs_dir: Option<PathBuf>,
    /// Launch runs paused at their first gate.
    pub start_paused: bool,
    /// The model every launch uses, over each scenario's.
    pub provider: ProviderChoice,
    /// `--cache DIR`: where the tools' last good answers are kept.
    pub cache: Option<PathBuf>,
    /// `--nats URL`: every run publishes its events there and answers
    /// control requests from other machines.
    pub link: Option<Arc<EventLink>>,
    /// `--otlp`: every run launched is exported as a trace.
    pub exporter: Option<Arc<crate::telemetry::Exporter>>,
    /// The time recordings are named after, over the clock's: one instant
    /// for several launches, as two dashboards started in one second.
    pub named_at: Option<jiff::Timestamp>,
    /// The clock runs launched here run on: the system's (`None`, the
    /// dashboard's), or tokio's, which a test's paused runtime advances
    /// without waiting (a real clock under a paused runtime waits the
    /// run's whole time on the wall).
    pub clock: Option<ClockMode>,
}

impl World {
    /// Start `launch` as run `run` (in place of run `old`, whose engine is
    /// then cancelled); what the app is told.
    pub(super) fn launch(&mut self, run: RunId, launch: Launch, old: Option<RunId>) -> Done {
        let name = launch.scenario.name.clone();
        let launch = match planned(launch) {
            Ok(launch) => launch,
            Err(why) => {
                return Done::NotStarted {
                    run,
                    name,
                    in_place_of: old,
                    why,
                };
            }
        };
        match self.start(run, launch, old) {
            Ok(started) => Done::Started(started),
            Err(e) => Done::NotStarted {
                run,
                name,
                in_place_of: old,
                why: e.to_string(),
            },
        }
    }

    /// Start `launch` as run `run`, in place of run `old` if given; the
    /// error says why it could not start.
    pub fn start(
        &mut self,
        run: RunId,
        launch: Launch,
        old: Option<RunId>,
    ) -> Result<Started, LaunchError> {
        // A name picked here is numbered while taken; the user's is theirs.
        let (recording, record_mode) = match launch.record {
            Some(path) => (Some(path), RecordMode::New),
            None => (self.runs_file(&launch.scenario, run)?, RecordMode::Numbered),
        };
        let mut provider = self.settings.provider.clone();
        if let Some(model) = &launch.model {
            provider.model = Some(model.clone());
        }
        if let Some(plan) = &launch.cassette {
            provider = plan.provider_over(&provider);
        }
        let forked_from = launch.fork.as_ref().map(|fork| fork.recording.clone());
        let options = LaunchOptions {
            run,
            seed: Some(launch.seed),
            goal: launch.goal,
            flags: launch.flags,
            record: recording,
            record_mode,
            start_paused: self.settings.start_paused,
            clock: match self.settings.clock {
                // A run that reaches the world (programs, servers, pages)
                // keeps the clock the engine picks for it.
                Some(ClockMode::Virtual) if launch.scenario.has_real_calls() => None,
                Some(mode) => Some(mode),
                None => Some(ClockMode::Real),
            },
            source: launch.source.clone(),
            provider,
            allow_exec: launch.allow_exec,
            answer: launch.answer.clone(),
            // Someone watches: a question the run asks goes to them.
            attended: true,
            cache: self.settings.cache.clone(),
            cassette: launch.cassette.clone(),
            observers: self
                .settings
                .exporter
                .iter()
                .map(|e| e.observer())
                .collect(),
        };
        let handle = match &self.settings.link {
            Some(link) => link.launch(Arc::clone(&launch.scenario), &self.hub, options)?,
            None => engine::launch(Arc::clone(&launch.scenario), &self.hub, options)?,
        };
        let clock = handle.clock();
        let recording = handle.recording().map(std::path::Path::to_path_buf);
        self.engines.insert(run, handle);
        if let Some(replaced) = old.and_then(|old| self.engines.get(&old)) {
            replaced.controller.cancel();
        }
        Ok(Started {
            run,
            in_place_of: old,
            scenario: launch.scenario,
            source: launch.source,
            recording,
            clock,
            forked_from,
        })
    }

    /// Wait for run `run`'s engine to end and its recording to be
    /// complete on disk, then say so ([`Done::Recorded`]).
    pub(super) fn await_recording(&mut self, run: RunId) {
        let Some(handle) = self.engines.remove(&run) else {
            let _ = self.later.send(Done::Recorded { run, failed: None });
            return;
        };
        let later = self.later.clone();
        self.ending.push(tokio::spawn(async move {
            let failed = match handle.end().await {
                Ok(ended) => ended.recording_failed,
                Err(e) => Some(e),
            };
            let _ = later.send(Done::Recorded {
                run,
                failed: failed.as_ref().map(ToString::to_string),
            });
            failed
        }));
    }

    /// A name in the runs folder for `run`, creating the folder; `None`
    /// when the dashboard does not record.
    fn runs_file(&self, scenario: &Scenario, run: RunId) -> Result<Option<PathBuf>, LaunchError> {
        let Some(dir) = &self.settings.runs_dir else {
            return Ok(None);
        };
        std::fs::create_dir_all(dir).map_err(|e| crate::record::RecordPathError {
            path: dir.clone(),
            reason: format!("cannot create the runs folder: {e}"),
        })?;
        let stamp = self
            .settings
            .named_at
            .unwrap_or_else(jiff::Timestamp::now)
            .strftime("%Y%m%d-%H%M%S");
        Ok(Some(dir.join(format!(
            "{stamp}-{}-run{run}.jsonl",
            crate::tui::export::file_safe(&scenario.name)
        ))))
    }
}

/// `launch` with its fork planned, if it is one: the parent's scenario,
/// seed, flags and goal (or the fork's), served from the parent's
/// recording up to the gate; why the fork cannot be, in words.
fn planned(mut launch: Launch) -> Result<Launch, String> {
    let Some(request) = &launch.fork else {
        return Ok(launch);
    };
    let fork = request.plan()?;
    launch.scenario = fork.scenario;
    launch.seed = fork.seed;
    launch.flags = fork.flags;
    launch.goal = Some(fork.goal);
    launch.cassette = Some(fork.plan);
    Ok(launch)
}
