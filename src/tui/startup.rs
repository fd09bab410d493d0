//! The dashboard's set-up: what the command line asks for (a sweep, a
//! scenario, a NATS link, an attached engine, a comparison or a replay),
//! checked and started before the screen opens, so that a mistake is said
//! on the command line and the screen never opens for it.

use super::Opening;
use super::app::{App, AppOptions};
use super::effect::{Done, Effect};
use super::options::TuiOptions;
use super::remote::{RemoteFeed, RemoteSource};
use super::world::{LaunchSettings, World};
use super::{runs_dir, sweep};
use crate::bus::Hub;
use crate::exit::Exit;
use crate::nats::publish::EventLink;
use crate::output;
use crate::scenario::{self, Scenario};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;

/// The scenario the command line names, where it came from, and what its
/// launch changes of it.
pub(super) type CommandLineScenario = (Arc<Scenario>, String, super::app::Overrides);

/// A sweep is checked whole before the screen opens: bad arguments are
/// the user's to fix, on the command line.
pub(super) fn prepare_sweep(options: &TuiOptions) -> Result<Option<crate::sweep::Prepared>, Exit> {
    match options.sweep.clone().map(crate::sweep::prepare) {
        Some(Ok(prepared)) => Ok(Some(prepared)),
        Some(Err(message)) => {
            output::message(&message);
            Err(Exit::BadInput)
        }
        None => Ok(None),
    }
}

pub(super) fn load_scenario(options: &TuiOptions) -> Result<Option<CommandLineScenario>, Exit> {
    if let Some(request) = &options.fork {
        return plan_fork(request, options.overrides.clone()).map(Some);
    }
    match &options.scenario {
        Some(path) => match scenario::load(path) {
            Ok(s) => Ok(Some((
                Arc::new(s),
                path.display().to_string(),
                options.overrides.clone(),
            ))),
            Err(errors) => {
                output::message(&errors.to_string());
                Err(Exit::BadInput)
            }
        },
        None => Ok(None),
    }
}

/// `conclave fork` in the dashboard: the parent's scenario, with its
/// seed, flags and goal (or the fork's) and the cassette that serves it
/// up to the gate. A recording or a gate that cannot be forked is said on
/// the command line.
fn plan_fork(
    request: &crate::engine::ForkRequest,
    overrides: super::app::Overrides,
) -> Result<CommandLineScenario, Exit> {
    let fork = request.plan().map_err(|why| {
        output::message(&why);
        Exit::BadInput
    })?;
    for problem in &fork.problems {
        output::message(problem);
    }
    let overrides = super::app::Overrides {
        seed: Some(fork.seed),
        flags: fork.flags,
        goal: Some(fork.goal),
        cassette: Some(fork.plan),
        ..overrides
    };
    let source = request.recording.display().to_string();
    Ok((fork.scenario, source, overrides))
}

/// The link that publishes every run's events to NATS; its warnings reach
/// the loop on `feed`.
pub(super) fn start_link(
    options: &TuiOptions,
    feed: &UnboundedSender<RemoteFeed>,
) -> Result<Option<Arc<EventLink>>, Exit> {
    let Some(nats) = &options.nats else {
        return Ok(None);
    };
    let warnings = feed.clone();
    let warn: crate::nats::publish::Warn = Arc::new(move |warning| {
        let _ = warnings.send(RemoteFeed::Warning(warning));
    });
    match EventLink::start(nats, warn) {
        Ok(link) => Ok(Some(Arc::new(link))),
        Err(e) => {
            output::message(&format!("conclave: {e}"));
            Err(Exit::BadInput)
        }
    }
}

/// The engine to watch that `--attach` names, its runs reaching the loop
/// on `feed`.
pub(super) async fn attach(
    options: &TuiOptions,
    feed: &UnboundedSender<RemoteFeed>,
) -> Result<Option<RemoteSource>, Exit> {
    let Some(url) = &options.attach else {
        return Ok(None);
    };
    match crate::nats::watch::Watcher::connect(url).await {
        Ok(watcher) => Ok(Some(RemoteSource::new(watcher, feed.clone()))),
        Err(e) => {
            output::message(&format!("conclave: {e}"));
            Err(Exit::BadInput)
        }
    }
}

pub(super) fn new_app(options: &TuiOptions, attach: bool) -> App {
    App::new(AppOptions {
        recordings_dir: runs_dir(),
        scenarios_dir: PathBuf::from("scenarios"),
        theme: options.theme,
        allow_exec: options.allow_exec,
        trust: crate::trust::TrustStore::from_env(),
        attach,
    })
}

/// The world the dashboard's runs start in: engines on `hub`, launched as
/// the command line says, followers of `remote`'s runs, and the sweep.
pub(super) fn new_world(hub: Hub, opening: &Opening, remote: Option<RemoteSource>) -> World {
    let options = opening.options;
    let settings = LaunchSettings {
        runs_dir: options.record.then(runs_dir).flatten(),
        start_paused: options.start_paused,
        provider: options.provider.clone(),
        cache: options.cache.clone(),
        link: opening.link.cloned(),
        exporter: opening.exporter.cloned(),
        named_at: None,
        // The system's clock: a person watches the run.
        clock: None,
    };
    let mut world = World::new(hub, settings);
    if let Some(source) = remote {
        world = world.with_remote(source);
    }
    if let Some(sweep) = opening.sweep {
        world = world.with_sweep(sweep.clone());
    }
    world
}

/// Opens what the command line asked to see first: the sweep (whose feed
/// the loop then reads), a comparison, a replay, a launch of the program
/// scenario, a run of the scenario, or else the scenario picker.
pub(super) fn open_first_view(
    app: &mut App,
    world: &mut World,
    opening: &Opening,
) -> Result<Option<sweep::Feed>, Exit> {
    let options = opening.options;
    if let Some(prepared) = opening.sweep {
        app.show_sweep(sweep::SweepState::new(prepared));
        return match sweep::start(prepared) {
            Ok(started) => Ok(Some(started)),
            Err(e) => {
                output::message(&format!("conclave: cannot start the sweep: {e}"));
                Err(Exit::Internal)
            }
        };
    }
    if let Some((a, b)) = &options.compare {
        if let Err(e) = super::world::open_comparison(app, a, b) {
            output::message(&e);
            return Err(Exit::BadInput);
        }
    } else if let Some(path) = &options.replay {
        if let Err(e) = super::world::open_replay(app, path) {
            output::message(&e.to_string());
            return Err(Exit::BadInput);
        }
    } else if let Some(program) = &options.program {
        let effects = app.launch_program(Arc::clone(program));
        start_first_run(app, world, effects, &program.file)?;
    } else if let Some((scenario, source, overrides)) = opening.launch.clone() {
        let effects = app.launch_with(scenario, Some(source.clone()), overrides);
        start_first_run(app, world, effects, &source)?;
    } else {
        for effect in app.open_picker() {
            world.carry_out(effect);
        }
    }
    Ok(None)
}

/// `conclave watch` started: its receiver, what it tells of its runs and
/// its steering's changes (the loop reads both), where it listens and how
/// many finished runs it keeps.
pub(super) struct WatchStarted {
    pub(super) receiving: crate::watch::receive::Receiving,
    pub(super) feed: Option<tokio::sync::mpsc::Receiver<crate::watch::consume::WatchFeed>>,
    pub(super) steering: Option<(
        Arc<crate::watch::steer::Steering>,
        tokio::sync::watch::Receiver<u64>,
    )>,
    /// The watch's loop: at the dashboard's end it ends the runs still
    /// going and records them.
    pub(super) task: tokio::task::JoinHandle<()>,
    listening: String,
    keep: usize,
}

/// Bind the watch's receiver and start the watch, telling its runs as
/// events; a bad address is said on the command line (exit 2).
pub(super) async fn start_watch(
    mut settings: crate::watch::start::WatchSettings,
) -> Result<WatchStarted, Exit> {
    settings.options.tell = true;
    // The dashboard keeps finished runs on screen; the watch holds them
    // (at most as many as it holds runs) for their recordings.
    settings.options.close_finished = false;
    let keep = settings.options.limits.max_runs;
    let steering = settings.options.steering.clone();
    let started = match crate::watch::start::start(settings).await {
        Ok(started) => started,
        Err(e) => {
            output::message(&format!("conclave watch: {e}"));
            return Err(Exit::BadInput);
        }
    };
    let grpc = started
        .receiving
        .grpc_addr()
        .map_or_else(|| "gRPC off".to_string(), |a| format!("gRPC {a}"));
    let listening = format!(
        "listening on http://{}/v1/traces and {grpc}",
        started.receiving.http_addr()
    );
    Ok(WatchStarted {
        steering: steering.map(|s| {
            let changes = s.subscribe();
            (s, changes)
        }),
        receiving: started.receiving,
        feed: Some(started.feed),
        task: started.task,
        listening,
        keep,
    })
}

/// The dashboard shows the watch's runs as they come, steers them
/// through its steering, and opens on nothing else.
pub(super) fn show_watch(app: &mut App, world: &mut World, started: &WatchStarted) {
    app.watching(
        started.listening.clone(),
        started.keep,
        started.steering.is_some(),
    );
    if let Some((steering, _)) = &started.steering {
        world.steer_with(Arc::clone(steering));
    }
}

/// Start the run the command line names, unless the user is asked first
/// whether its programs may run. It must start before the screen opens: a
/// bad flag or `--record` path is the user's to fix.
fn start_first_run(
    app: &mut App,
    world: &mut World,
    effects: Vec<Effect>,
    source: &str,
) -> Result<(), Exit> {
    for effect in effects {
        let Effect::Launch { run, launch } = effect else {
            match world.carry_out(effect) {
                // A program that cannot start is said on the command line.
                Some(Done::NotStarted { why, .. }) => {
                    output::message(&why);
                    return Err(Exit::BadInput);
                }
                Some(done) => app.done(done),
                None => {}
            }
            continue;
        };
        match world.start(run, launch, None) {
            Ok(started) => app.done(Done::Started(started)),
            Err(e @ crate::engine::LaunchError::Recording(_)) => {
                output::message(&format!("conclave: {e}"));
                return Err(Exit::BadInput);
            }
            Err(e) => {
                output::message(&format!("{source}: {e}"));
                return Err(Exit::BadInput);
            }
        }
    }
    Ok(())
}
