//! A program scenario launched from the dashboard (docs/launch.md): the
//! launcher drives the program on a task of its own, and this turns what
//! it does into the run's events on the dashboard's bus (its start, each
//! output line, its end with the launch's result), records it, and stops
//! it on the person's word or when the dashboard quits. It decides nothing
//! the screen shows.

use super::World;
use crate::bus::{Bus, ClockMode, EventKind, FlagState, RunId, RunStarted, RunStatus};
use crate::clock::RunClock;
use crate::launch::LoadedProgram;
use crate::launch::output::{OutputLine, Stream};
use crate::launch::result::{LaunchResult, LaunchStop};
use crate::launch::run::{DEFAULT_GRACE_MS, LaunchError, LaunchSettings, Order, launch_seen};
use crate::scenario::Scenario;
use crate::stop::{PatternStop, StopReason};
use crate::tui::effect::{Done, Started};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// Output lines on their way to the bus; more wait in the launch's tail.
const SEEN_QUEUE: usize = 1024;

/// A program launched here, while its thread lasts.
pub(crate) struct Launched {
    orders: mpsc::Sender<Order>,
    /// Said (or dropped) when its thread has told the run's end.
    ended: oneshot::Receiver<()>,
    /// The wait between the steps of its stop.
    grace: Duration,
}

/// What a program's thread drives: the launch, its lines and its end
/// told on the run's bus.
struct Drive {
    bus: Bus,
    program: Arc<LoadedProgram>,
    prepared: crate::launch::prepare::Prepared,
    orders: mpsc::Receiver<Order>,
    /// The runs folder, when the dashboard records.
    recording: Option<PathBuf>,
    /// What the launch is asked besides the program: a fork's served
    /// calls and parent.
    settings: LaunchSettings,
}

impl Drive {
    /// Launch the program, tell its lines and its end; on this thread.
    fn run(self) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build();
        let runtime = match runtime {
            Ok(runtime) => runtime,
            Err(e) => {
                self.bus
                    .publish(failed(format!("cannot start the program's runtime: {e}")));
                return;
            }
        };
        let Drive {
            bus,
            program,
            prepared,
            orders,
            recording,
            settings,
        } = self;
        runtime.block_on(async move {
            let (seen, lines) = mpsc::channel(SEEN_QUEUE);
            let settings = LaunchSettings {
                record: recording.map(crate::launch::RecordAt::Folder),
                ..settings
            };
            let driven = launch_seen(
                &program,
                &prepared,
                settings,
                Some(orders),
                None,
                Some(seen),
            );
            let (finished, ()) = tokio::join!(driven, tell_lines(&bus, lines));
            bus.publish(finish(finished, &program));
        });
    }
}

impl World {
    /// Launch `program` as run `run`: its task starts, and the app is told
    /// the run started (or why it could not).
    pub(super) fn launch_program(&mut self, run: RunId, program: Arc<LoadedProgram>) -> Done {
        self.launch_program_with(run, program, LaunchSettings::default(), None)
    }

    /// [`World::launch_program`] with `settings` (a fork's), the run
    /// forked from the recording `forked_from` when it is one.
    pub(super) fn launch_program_with(
        &mut self,
        run: RunId,
        program: Arc<LoadedProgram>,
        settings: LaunchSettings,
        forked_from: Option<PathBuf>,
    ) -> Done {
        let name = program.scenario.name.clone();
        let prepared = match crate::launch::prepare::prepare(&program) {
            Ok(prepared) => prepared,
            Err(errors) => {
                return Done::NotStarted {
                    run,
                    name,
                    in_place_of: None,
                    why: errors.to_string(),
                };
            }
        };
        let file = program.file.clone();
        let source = format!("{}launch {file}", crate::watch::translate::WATCH_SOURCE);
        let scenario = Arc::new(seat(&program));
        let clock = RunClock::start_on(ClockMode::Real);
        let bus = Bus::new(run, clock.clone(), self.hub.clone(), None);
        bus.publish(EventKind::RunStarted(started(&program, &scenario, &source)));
        let (orders, orders_rx) = mpsc::channel(4);
        let recording = self.settings.runs_dir.clone();
        let grace =
            Duration::from_millis(program.scenario.stop_grace_ms.unwrap_or(DEFAULT_GRACE_MS));
        let (ended_tx, ended_rx) = oneshot::channel();
        let drive = Drive {
            bus: bus.clone(),
            program,
            prepared,
            orders: orders_rx,
            recording,
            settings,
        };
        // The launch holds what is not Send (its receiver's start): it
        // runs on a thread of its own, as a sweep's launches share one.
        let thread = std::thread::Builder::new()
            .name(format!("program-{run}"))
            .spawn(move || {
                drive.run();
                let _ = ended_tx.send(());
            });
        if let Err(e) = thread {
            let why = format!("cannot start the program's thread: {e}");
            bus.publish(failed(why.clone()));
            return Done::NotStarted {
                run,
                name,
                in_place_of: None,
                why,
            };
        }
        self.programs.insert(
            run,
            Launched {
                orders,
                ended: ended_rx,
                grace,
            },
        );
        Done::ProgramStarted(Started {
            run,
            in_place_of: None,
            scenario,
            source: Some(file),
            recording: None,
            clock,
            forked_from,
        })
    }

    /// Stop run `run`'s program: SIGINT, then SIGTERM and SIGKILL after
    /// its grace, to its whole process group.
    pub(super) fn stop_program(&mut self, run: RunId, why: &str) {
        if let Some(launched) = self.programs.get(&run) {
            let _ = launched.orders.try_send(Order::Stop(why.to_string()));
        }
    }

    /// Stop every program still running and wait for each to end (two
    /// graces at most, then a second for its end to be told).
    pub(super) async fn end_programs(&mut self) {
        let mut longest = Duration::ZERO;
        let mut ends = Vec::new();
        for (_, mut launched) in self.programs.drain() {
            if launched.ended.try_recv().is_err() {
                let _ = launched
                    .orders
                    .try_send(Order::Stop("the dashboard quit".into()));
                longest = longest.max(launched.grace * 2);
                ends.push(launched.ended);
            }
        }
        // The stop's last step (SIGKILL) comes after two graces.
        let all = futures_util::future::join_all(ends);
        let _ = tokio::time::timeout(longest + Duration::from_secs(1), all).await;
    }
}

/// Each output line the launch hands on, as the run's event, until the
/// launch lets go of the channel.
async fn tell_lines(bus: &Bus, mut lines: mpsc::Receiver<OutputLine>) {
    while let Some(line) = lines.recv().await {
        bus.publish(EventKind::ProgramOutput {
            stderr: line.stream == Stream::Stderr,
            text: crate::sanitize::clean(&line.text).into_owned(),
        });
    }
}

/// The run's last event: how the launch ended, its result whole; a
/// launch that failed ends the run stopped, saying why.
fn finish(
    finished: Result<crate::launch::run::Finished, LaunchError>,
    program: &LoadedProgram,
) -> EventKind {
    let finished = match finished {
        Ok(finished) => finished,
        Err(LaunchError::BadInput(errors)) => return failed(errors.to_string()),
        Err(LaunchError::Internal(why)) => return failed(why),
    };
    let mut result = LaunchResult::of(&finished, &program.scenario.name);
    let mut problem = None;
    if let Some(path) = &finished.recording
        && let Err(e) = crate::launch::recording::write(path, &finished, &mut result)
    {
        problem = Some(format!("cannot record the run to {}: {e}", path.display()));
    }
    let (status, reason) = match result.stop_reason {
        LaunchStop::Completed => (RunStatus::Ok, StopReason::Success),
        LaunchStop::MaxSeconds => (RunStatus::Stopped, StopReason::MaxSeconds),
        LaunchStop::Stopped | LaunchStop::Interrupted => {
            (RunStatus::Stopped, StopReason::Cancelled)
        }
        LaunchStop::ExitStatus => (RunStatus::Stopped, failed_reason("exit_status")),
        LaunchStop::Signal => (RunStatus::Stopped, failed_reason("signal")),
        LaunchStop::MaxTokens => (RunStatus::Stopped, StopReason::MaxTokens),
        LaunchStop::MaxCost => (RunStatus::Stopped, StopReason::MaxCost),
        // The launch's own word, as its headless line says it.
        LaunchStop::MaxCalls => (RunStatus::Stopped, failed_reason("max_calls")),
        LaunchStop::CassetteMiss => (RunStatus::Stopped, StopReason::CassetteMiss),
    };
    let error = result.error.clone().or(problem);
    ended(status, reason, &result.document(), error)
}

/// The end of a run whose launch failed: why, in its error.
fn failed(why: String) -> EventKind {
    let result = serde_json::json!({"status": "failed", "error": why});
    ended(
        RunStatus::Stopped,
        failed_reason("failed"),
        &result,
        Some(why),
    )
}

fn failed_reason(wire: &str) -> StopReason {
    StopReason::Pattern(PatternStop::read(wire))
}

fn ended(
    status: RunStatus,
    stop_reason: StopReason,
    result: &serde_json::Value,
    error: Option<String>,
) -> EventKind {
    EventKind::RunFinished {
        status,
        stop_reason,
        phase: None,
        result: Arc::new(crate::bus::ResultDoc::from_value(result)),
        summary: Box::new(crate::bus::RunSummary::of_result(result)),
        error: error.map(|e| crate::sanitize::clean(&e).into_owned()),
    }
}

/// The run's first event: the program's flags at their defaults.
fn started(program: &LoadedProgram, scenario: &Arc<Scenario>, source: &str) -> RunStarted {
    let flags = program
        .scenario
        .flags
        .iter()
        .map(|(name, flag)| FlagState {
            name: name.clone(),
            on: flag.default,
        })
        .collect();
    RunStarted {
        pattern: scenario.pattern,
        seed: program.scenario.seed.unwrap_or(0),
        goal: scenario.goal.clone(),
        clock: ClockMode::Real,
        flags,
        source: Some(source.to_string()),
        started_at_ms: u64::try_from(jiff::Timestamp::now().as_millisecond()).unwrap_or(0),
        model: None,
        forked_from: None,
        scenario: Arc::clone(scenario),
    }
}

/// The scenario a launched program's run is shown with: named and titled
/// as the program scenario, its command line for a goal, a team of no
/// declared agents (its spans would name them) on no model of Conclave's.
fn seat(program: &LoadedProgram) -> Scenario {
    let s = &program.scenario;
    let title = s.title.clone().unwrap_or_else(|| s.name.clone());
    let doc = serde_json::json!({
        "name": s.name,
        "title": format!("program · {}", crate::sanitize::clean(&title)),
        "pattern": "swarm",
        "goal": crate::sanitize::clean(&s.command.join(" ")),
        "context": {},
        "provider": {"kind": "sim"},
    });
    serde_json::from_value(doc).unwrap_or_else(|_| crate::watch::translate::seat_of(None))
}
