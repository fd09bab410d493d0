//! The terminal dashboard. One loop selects over terminal input, the bus and
//! a frame deadline: input becomes actions on the app, whose update returns
//! effects that the world (the engines, NATS, files) carries out, events
//! fold into run states, and the screen is drawn when something changed, at
//! most 30 times a second, and not at all while nothing changes.

pub mod app;
#[cfg(test)]
pub(crate) mod buffer_text;
pub(crate) mod catalog;
pub(crate) mod compare;
pub(crate) mod document;
pub mod effect;
mod event_loop;
pub(crate) mod export;
mod inspect;
pub mod key_words;
pub mod keymap;
pub(crate) mod launch;
pub(crate) mod layout;
pub(crate) mod options;
pub(crate) mod overlays;
pub use overlays::help::key_table;
#[cfg(test)]
mod keymap_tests;
pub(crate) mod pane_id;
pub mod panes;
pub mod patterns;
pub(crate) mod playback;
pub mod recording;
pub mod remote;
pub mod replay;
pub(crate) mod runs;
pub(crate) mod search;
pub(crate) mod selection;
pub(crate) mod slot;
mod startup;
pub mod state;
pub mod sweep;
pub(crate) mod terminal;
pub(crate) mod text;
pub mod theme;
pub(crate) mod tool_list;
pub mod view;
pub mod view_state;
pub mod watch_offscreen;
pub(crate) mod watching;
#[cfg(test)]
mod watching_steer_tests;
#[cfg(test)]
mod watching_tests;
pub(crate) mod widgets;
pub mod world;
pub(crate) mod wrap;

use crate::bus::Hub;
use crate::exit::{Exit, Signal};
use crate::nats::publish::EventLink;
use crate::output;
use crate::telemetry::Exporter;
pub use event_loop::BATCH;
pub use options::TuiOptions;
use remote::RemoteFeed;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use world::World;

/// How long quitting waits for the server to acknowledge the last events.
const LINK_CLOSE: Duration = Duration::from_secs(5);

/// Where recordings go: `$XDG_STATE_HOME/conclave/runs`, else
/// `~/.local/state/conclave/runs`.
pub(crate) fn runs_dir() -> Option<PathBuf> {
    Some(crate::state_dir::state_dir()?.join("runs"))
}

/// The dashboard from the command line's checks to the last trace sent:
/// set up, run inside its runtime, then what it sends beyond the screen
/// finished.
pub fn run(options: TuiOptions) -> Exit {
    let sweep = match startup::prepare_sweep(&options) {
        Ok(sweep) => sweep,
        Err(exit) => return exit,
    };
    let launch = match startup::load_scenario(&options) {
        Ok(launch) => launch,
        Err(exit) => return exit,
    };
    let runtime = match crate::runtime::start(
        tokio::runtime::Builder::new_multi_thread().worker_threads(2),
    ) {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    let exporter =
        match Exporter::start_or_say(options.otlp.as_ref(), crate::patterns::trace_shapes()) {
            Ok(exporter) => exporter.map(Arc::new),
            Err(exit) => return exit,
        };
    let (feed_tx, remote_feed) = tokio::sync::mpsc::unbounded_channel();
    let link = match startup::start_link(&options, &feed_tx) {
        Ok(link) => link,
        Err(exit) => return exit,
    };
    let opening = Opening {
        options: &options,
        sweep: sweep.as_ref(),
        launch,
        exporter: exporter.as_ref(),
        link: link.as_ref(),
    };
    let exit = runtime.block_on(dashboard(opening, &feed_tx, remote_feed));
    finish_sending(link, exporter, sweep.as_ref());
    exit
}

/// What the dashboard opens with, set up before its runtime started.
struct Opening<'a> {
    options: &'a TuiOptions,
    sweep: Option<&'a crate::sweep::Prepared>,
    launch: Option<startup::CommandLineScenario>,
    exporter: Option<&'a Arc<Exporter>>,
    link: Option<&'a Arc<EventLink>>,
}

/// The dashboard inside its runtime: attached, opened on what the command
/// line asked for, looping until quit or a signal, and the terminal back
/// as it was.
async fn dashboard(
    opening: Opening<'_>,
    feed_tx: &UnboundedSender<RemoteFeed>,
    remote_feed: UnboundedReceiver<RemoteFeed>,
) -> Exit {
    let options = opening.options;
    let remote = match startup::attach(options, feed_tx).await {
        Ok(remote) => remote,
        Err(exit) => return exit,
    };
    let _listing = remote
        .as_ref()
        .map(|source| AbortOnDrop(source.keep_listing()));
    // The watch's receiver is bound before the screen opens: a bad
    // address is said on the command line.
    let mut watch = match &options.watch {
        Some(settings) => match startup::start_watch(settings.clone()).await {
            Ok(started) => Some(started),
            Err(exit) => return exit,
        },
        None => None,
    };
    let hub = Hub::default();
    // Subscribed before the first launch, so every run is seen from its
    // first event.
    let bus = hub.subscribe();
    let mut app = startup::new_app(options, remote.is_some());
    let mut world = startup::new_world(hub, &opening, remote);
    let feed = match watch.as_mut() {
        Some(started) => {
            startup::show_watch(&mut app, &mut world, started);
            None
        }
        None => match startup::open_first_view(&mut app, &mut world, &opening) {
            Ok(feed) => feed,
            Err(exit) => return exit,
        },
    };
    let mut screen = match terminal::init() {
        Ok(screen) => screen,
        Err(e) => {
            output::message(&format!("conclave: cannot open the terminal: {e}"));
            world.finish().await;
            return Exit::Internal;
        }
    };
    let watch_in = watch.as_mut().map(|started| event_loop::WatchIn {
        feed: started.feed.take(),
        steering: started.steering.take(),
        receiving: &started.receiving,
        counting: event_loop::WatchIn::counting(),
    });
    let result = event_loop::run(
        &mut screen,
        &mut app,
        &mut world,
        bus,
        remote_feed,
        feed,
        watch_in,
    )
    .await;
    let exit = tear_down(&mut world, result).await;
    if let Some(started) = watch {
        started.receiving.shutdown().await;
        // The batches end with the receiver: the watch ends the runs
        // still going (incomplete when their top never came) and records
        // them before the process goes.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), started.task).await;
    }
    exit
}

/// Stops a background task when the dashboard ends.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// After the loop: every run ended and recorded, the terminal restored,
/// then what failed said and the exit chosen.
async fn tear_down(world: &mut World, result: std::io::Result<Option<Signal>>) -> Exit {
    let recordings_failed = world.finish().await;
    // Whatever a run that did not end in time started goes now.
    crate::provider::real::groups::kill_every_group();
    terminal::restore();
    for failed in &recordings_failed {
        output::message(&format!("conclave: {failed}"));
    }
    match result {
        Ok(Some(signal)) => Exit::Signalled(signal),
        Ok(None) if recordings_failed.is_empty() => Exit::Ok,
        Ok(None) => Exit::Internal,
        Err(e) => {
            output::message(&format!("conclave: {e}"));
            Exit::Internal
        }
    }
}

/// Once the screen is back: the runs' last events to the server and
/// their traces to the collector.
fn finish_sending(
    link: Option<Arc<EventLink>>,
    exporter: Option<Arc<Exporter>>,
    sweep: Option<&crate::sweep::Prepared>,
) {
    // The last events of the runs reach the server before the process ends.
    if let Some(link) = link.and_then(Arc::into_inner) {
        link.close(LINK_CLOSE);
    }
    // Every run's trace is sent before the process ends, after quit or a
    // signal alike; a failure is said once, now that the screen is back.
    let sweep_exporter = sweep.and_then(|s| s.setup.exporter.as_ref());
    for warning in [
        exporter.and_then(|e| e.finish()),
        sweep_exporter.and_then(|e| e.finish()),
    ]
    .into_iter()
    .flatten()
    {
        output::message(&warning);
    }
}
