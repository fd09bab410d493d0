//! The terminal dashboard. One loop selects over terminal input, the bus and
//! a frame deadline: input becomes actions on the app, events fold into run
//! states, and the screen is drawn when something changed, at most 30 times
//! a second, and not at all while nothing changes.

pub mod app;
pub(crate) mod catalog;
pub(crate) mod compare;
pub(crate) mod document;
pub mod effect;
pub(crate) mod export;
mod inspect;
pub mod keymap;
pub(crate) mod launch;
pub(crate) mod layout;
pub(crate) mod options;
pub(crate) mod overlays;
pub use overlays::help::key_table;
pub(crate) mod pane_id;
pub mod panes;
pub mod patterns;
pub(crate) mod playback;
pub mod remote;
pub mod replay;
pub(crate) mod runs;
pub(crate) mod search;
pub(crate) mod selection;
pub(crate) mod slot;
pub mod state;
pub mod sweep;
pub(crate) mod terminal;
pub(crate) mod text;
pub mod theme;
pub(crate) mod tool_list;
pub mod view;
pub mod view_state;
pub(crate) mod widgets;
pub(crate) mod wrap;

use crate::bus::{Delivery, Hub};
use crate::exit::{Exit, Signal};
use crate::output;
use crate::scenario;
use crate::signals::Signals;
use crate::telemetry::Exporter;
use app::{App, AppOptions};
use crossterm::event::{Event as TermEvent, EventStream, KeyEventKind};
use futures_util::StreamExt;
pub use options::TuiOptions;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The shortest time between two frames (30 frames a second).
const FRAME: Duration = Duration::from_millis(33);
/// How often a running run's clock is redrawn when nothing else happens.
const CLOCK_TICK: Duration = Duration::from_millis(100);
/// How many bus events to fold before looking at input again.
pub const BATCH: usize = 2048;

/// How long quitting waits for the server to acknowledge the last events.
const LINK_CLOSE: Duration = Duration::from_secs(5);

/// Where recordings go: `$XDG_STATE_HOME/conclave/runs`, else
/// `~/.local/state/conclave/runs`.
pub(crate) fn runs_dir() -> Option<PathBuf> {
    Some(crate::state_dir::state_dir()?.join("runs"))
}

pub fn run(options: TuiOptions) -> Exit {
    // A sweep is checked whole before the screen opens: bad arguments are
    // the user's to fix, on the command line.
    let sweep = match options.sweep.clone().map(crate::sweep::prepare) {
        Some(Ok(prepared)) => Some(prepared),
        Some(Err(message)) => {
            output::message(&message);
            return Exit::BadInput;
        }
        None => None,
    };
    let launch = match &options.scenario {
        Some(path) => match scenario::load(path) {
            Ok(s) => Some((Arc::new(s), path.display().to_string())),
            Err(errors) => {
                output::message(&errors.to_string());
                return Exit::BadInput;
            }
        },
        None => None,
    };
    let runtime =
        match crate::exit::runtime(tokio::runtime::Builder::new_multi_thread().worker_threads(2)) {
            Ok(runtime) => runtime,
            Err(exit) => return exit,
        };
    let exporter = match Exporter::start_or_say(options.otlp.as_ref()) {
        Ok(exporter) => exporter.map(Arc::new),
        Err(exit) => return exit,
    };
    let (feed_tx, remote_feed) = tokio::sync::mpsc::unbounded_channel();
    let link = match &options.nats {
        Some(nats) => {
            let warnings = feed_tx.clone();
            let warn: crate::nats::publish::Warn = Arc::new(move |warning| {
                let _ = warnings.send(remote::RemoteFeed::Warning(warning));
            });
            match crate::nats::publish::EventLink::start(nats, warn) {
                Ok(link) => Some(Arc::new(link)),
                Err(e) => {
                    output::message(&format!("conclave: {e}"));
                    return Exit::BadInput;
                }
            }
        }
        None => None,
    };
    let exit = runtime.block_on(async {
        let remote = match &options.attach {
            Some(url) => match crate::nats::watch::Watcher::connect(url).await {
                Ok(watcher) => Some(remote::RemoteSource::new(watcher, feed_tx.clone())),
                Err(e) => {
                    output::message(&format!("conclave: {e}"));
                    return Exit::BadInput;
                }
            },
            None => None,
        };
        let _listing = remote
            .as_ref()
            .map(|source| AbortOnDrop(source.keep_listing()));
        let hub = Hub::default();
        // Subscribed before the first launch, so every run is seen from its
        // first event.
        let bus = hub.subscribe();
        let mut app = App::new(
            hub.clone(),
            AppOptions {
                runs_dir: options.record.then(runs_dir).flatten(),
                recordings_dir: runs_dir(),
                scenarios_dir: PathBuf::from("scenarios"),
                start_paused: options.start_paused,
                provider: options.provider.clone(),
                theme: options.theme,
                allow_exec: options.allow_exec,
                trust: crate::trust::TrustStore::from_env(),
                cache: options.cache.clone(),
                link: link.clone(),
                remote,
            },
        );
        if let Some(exporter) = &exporter {
            app.export_runs(Arc::clone(exporter));
        }
        let mut feed = None;
        if let Some(prepared) = &sweep {
            app.show_sweep(sweep::SweepState::new(prepared));
            match sweep::start(prepared) {
                Ok(started) => feed = Some(started),
                Err(e) => {
                    output::message(&format!("conclave: cannot start the sweep: {e}"));
                    return Exit::Internal;
                }
            }
        } else if let Some((a, b)) = &options.compare {
            if let Err(e) = app.open_comparison(a, b) {
                output::message(&e);
                return Exit::BadInput;
            }
        } else if let Some(path) = &options.replay {
            if let Err(e) = app.open_replay(path) {
                output::message(&e.to_string());
                return Exit::BadInput;
            }
        } else if let Some((scenario, source)) = launch {
            // What the command line asked for must start, before the screen
            // opens: a bad flag or --record path is the user's to fix.
            match app.launch_with(scenario, Some(source.clone()), options.overrides.clone()) {
                Ok(()) => {}
                Err(e @ crate::engine::LaunchError::Recording(_)) => {
                    output::message(&format!("conclave: {e}"));
                    return Exit::BadInput;
                }
                Err(e) => {
                    output::message(&format!("{source}: {e}"));
                    return Exit::BadInput;
                }
            }
        } else {
            app.open_picker();
        }
        let mut screen = match terminal::init() {
            Ok(screen) => screen,
            Err(e) => {
                output::message(&format!("conclave: cannot open the terminal: {e}"));
                finish_runs(&mut app).await;
                return Exit::Internal;
            }
        };
        let result = event_loop(&mut screen, &mut app, bus, remote_feed, feed).await;
        let recordings_failed = finish_runs(&mut app).await;
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
    });
    // The last events of the runs reach the server before the process ends.
    if let Some(link) = link.and_then(Arc::into_inner) {
        link.close(LINK_CLOSE);
    }
    // Every run's trace is sent before the process ends, after quit or a
    // signal alike; a failure is said once, now that the screen is back.
    let sweep_exporter = sweep.as_ref().and_then(|s| s.setup.exporter.as_ref());
    for warning in [
        exporter.and_then(|e| e.finish()),
        sweep_exporter.and_then(|e| e.finish()),
    ]
    .into_iter()
    .flatten()
    {
        output::message(&warning);
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

/// Run the dashboard until the user quits (`None`) or a signal ends it.
async fn event_loop(
    screen: &mut terminal::Screen,
    app: &mut App,
    mut bus: crate::bus::Subscription,
    mut remote_feed: tokio::sync::mpsc::UnboundedReceiver<remote::RemoteFeed>,
    mut feed: Option<sweep::Feed>,
) -> std::io::Result<Option<Signal>> {
    let mut input = EventStream::new();
    let mut signals = Signals::new()?;
    let mut dirty = true;
    let mut last_draw = Instant::now() - FRAME;
    let mut size = screen.size()?;
    let mut ended_by = None;
    loop {
        if app.quitting {
            return Ok(ended_by);
        }
        let now = Instant::now();
        let due = if dirty || app.playing() {
            last_draw + FRAME
        } else if app.animating() {
            last_draw + CLOCK_TICK
        } else {
            now + Duration::from_secs(3600)
        };
        if now >= due {
            // What the bus gathered since the frame was due is in it.
            take_batch(app, &mut bus);
            // Playback moves by the time since the last frame, at most a
            // tenth of a second at once.
            let elapsed = now.saturating_duration_since(last_draw).min(CLOCK_TICK);
            app.tick(elapsed.as_secs_f64() * 1000.0);
            terminal::draw(screen, |frame| view::draw(frame, app))?;
            size = screen.size()?;
            app.screen = ratatui::layout::Rect::new(0, 0, size.width, size.height);
            last_draw = Instant::now();
            dirty = false;
            continue;
        }
        tokio::select! {
            biased;
            signal = signals.next() => {
                ended_by = signal;
                app.quitting = true;
            }
            input = input.next() => match input {
                Some(Ok(TermEvent::Key(key))) if key.kind != KeyEventKind::Release => {
                    let effects = app.key(key);
                    app.carry_out(effects);
                    write_through(screen, app)?;
                    dirty = true;
                }
                Some(Ok(TermEvent::Mouse(mouse))) => {
                    let areas = app.areas(ratatui::layout::Rect::new(0, 0, size.width, size.height));
                    let effects = app.mouse(mouse, &areas);
                    app.carry_out(effects);
                    dirty = true;
                }
                Some(Ok(TermEvent::Resize(..))) => {
                    screen.autoresize()?;
                    dirty = true;
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e),
                None => app.quitting = true,
            },
            // Once a frame is due, the bus is read when it is drawn, not
            // event by event: a run publishing 10,000 events a second
            // would otherwise wake this loop (a futex call under the bus's
            // lock) for each one.
            delivery = bus.next(), if !dirty => {
                take(app, delivery);
                take_batch(app, &mut bus);
                dirty = true;
            }
            Some(arrived) = remote_feed.recv() => {
                app.take_remote(arrived);
                for _ in 0..BATCH {
                    match remote_feed.try_recv() {
                        Ok(arrived) => app.take_remote(arrived),
                        Err(_) => break,
                    }
                }
                dirty = true;
            }
            message = async {
                match feed.as_mut() {
                    Some(feed) => feed.next().await,
                    None => std::future::pending().await,
                }
            }, if feed.is_some() => {
                match message {
                    Some(message) => app.sweep_message(message),
                    // The executor is gone (its last word was its end).
                    None => feed = None,
                }
                dirty = true;
            }
            () = tokio::time::sleep_until(due) => {}
        }
    }
}

/// Write what the app asked to send the terminal itself (an OSC 52 copy),
/// past the cell filter that keeps such sequences out of the panes.
fn write_through(screen: &mut terminal::Screen, app: &mut App) -> std::io::Result<()> {
    use std::io::Write;
    if app.to_terminal.is_empty() {
        return Ok(());
    }
    let out = &mut screen.backend_mut().0;
    for sequence in app.to_terminal.drain(..) {
        out.write_all(sequence.as_bytes())?;
    }
    out.flush()
}

/// Fold up to [`BATCH`] events the bus already holds.
fn take_batch(app: &mut App, bus: &mut crate::bus::Subscription) {
    for _ in 0..BATCH {
        match bus.try_next() {
            Some(delivery) => take(app, delivery),
            None => break,
        }
    }
}

fn take(app: &mut App, delivery: Delivery) {
    match delivery {
        Delivery::Event(event) => app.apply(event),
        Delivery::Missed(n) => app.missed(n),
        Delivery::Closed => {}
    }
}

/// Cancel what still runs and wait (briefly) for every recording to be
/// complete on disk; returns why recordings are incomplete.
async fn finish_runs(app: &mut App) -> Vec<crate::engine::EngineError> {
    let handles = app.take_handles();
    let all = futures_util::future::join_all(handles.into_iter().map(|h| h.end()));
    match tokio::time::timeout(Duration::from_secs(5), all).await {
        Ok(ended) => ended
            .into_iter()
            .filter_map(|ended| ended.ok()?.recording_failed)
            .collect(),
        Err(_) => Vec::new(),
    }
}
