//! The dashboard of `conclave watch`: other frameworks' runs, received as
//! OpenTelemetry traces by `crate::watch`, one tab per trace. The watch
//! owns the network, the runs and their settling; this only folds what it
//! says (`state`, each span once), keeps the keys' state (`ui`) and draws
//! it (`screen`, `panes`, `tree_pane`). The watch's recordings open in
//! the dashboard's own replay and comparison (`crate::watch::translate`
//! tells their spans as a run's events). The loop here draws on change at most 30 times a second, never in a busy
//! loop.

mod chain;
pub(crate) mod graph;
#[cfg(test)]
mod graph_tests;
mod panes;
pub(crate) mod screen;
pub(crate) mod spend;
pub(crate) mod state;
pub(crate) mod steer;
mod steer_draw;
pub(crate) mod steered;
#[cfg(test)]
mod tests;
pub(crate) mod ui;

use crate::exit::Exit;
use crate::tui::keymap::{self, Action, OverlayKind, Scope};
use crate::tui::terminal;
use crate::watch::consume::WatchFeed;
use crate::watch::receive::Receiving;
use crate::watch::start::{WatchSettings, start};
use crossterm::event::{
    Event as TermEvent, EventStream, KeyCode, KeyEvent, KeyEventKind, KeyModifiers,
};
use futures_util::StreamExt;
use state::Watched;
use std::time::Duration;
use tokio::sync::mpsc::Receiver;
use tokio::time::Instant;
use ui::{WatchUi, act};

/// The shortest time between two frames.
const FRAME: Duration = Duration::from_millis(33);

/// `conclave watch` without `--headless`: the receiver bound (a bad
/// address is said on the command line, exit 2, before the screen
/// opens), then the dashboard until `q` or a signal.
pub fn watch(settings: WatchSettings) -> Exit {
    let runtime = match crate::runtime::start(&mut tokio::runtime::Builder::new_multi_thread()) {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    runtime.block_on(async move {
        let limits = settings.options.limits;
        let prices = settings.options.prices.clone();
        let forward = settings.receive.forward.clone();
        let steering = settings.options.steering.clone();
        let mut started = match start(settings).await {
            Ok(started) => started,
            Err(e) => {
                crate::output::message(&format!("conclave watch: {e}"));
                return Exit::BadInput;
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
        let mut screen = match terminal::init() {
            Ok(screen) => screen,
            Err(e) => {
                crate::output::message(&format!("conclave watch: cannot open the terminal: {e}"));
                return Exit::BadInput;
            }
        };
        let mut watched = Watched::new(limits, prices);
        watched.source = listening;
        watched.forward = forward;
        watched.steer = steering.map(steered::Steered::new);
        let exit = view(
            &mut screen,
            Some(&mut started.feed),
            watched,
            Some(&started.receiving),
        )
        .await;
        terminal::restore();
        started.receiving.shutdown().await;
        exit
    })
}

/// The watched runs' screen without a terminal of its own: what `conclave
/// watch` folds and draws, for a caller that owns the frames (the bench
/// draws it while a million spans arrive).
#[derive(Debug)]
pub struct Offscreen {
    watched: Watched,
    ui: WatchUi,
}

impl Offscreen {
    pub fn new(limits: crate::watch::runs::Limits) -> Offscreen {
        Offscreen {
            watched: Watched::new(limits, None),
            ui: WatchUi::default(),
        }
    }

    /// Take one thing the watch said.
    pub fn take(&mut self, item: WatchFeed) {
        self.watched.take(item);
    }

    /// Draw the whole screen into `frame`, the run on screen read again
    /// first when its share of the time allows, as the dashboard does.
    pub fn draw(&mut self, frame: &mut ratatui::Frame) {
        self.watched.read_selected(Instant::now());
        screen::draw(frame, &self.watched, &self.ui);
    }
}

/// The screen until `q` or a signal: what `feed` says folded in (a
/// recording's runs are in `watched` already, and no feed comes), the
/// receiver's counts read once a second, a frame drawn on change at most
/// every [`FRAME`], and the run on screen read again when due.
async fn view(
    screen: &mut terminal::Screen,
    mut feed: Option<&mut Receiver<WatchFeed>>,
    mut watched: Watched,
    receiving: Option<&Receiving>,
) -> Exit {
    let mut input = EventStream::new();
    let mut signals = crate::signals::Signals::new().ok();
    let mut ui = WatchUi::default();
    let mut dirty = true;
    let mut last_draw = Instant::now() - FRAME;
    let mut counting = tokio::time::interval(Duration::from_secs(1));
    let mut steer_changes = watched.steer.as_ref().map(|s| s.steering.subscribe());
    loop {
        let now = Instant::now();
        if dirty && now >= last_draw + FRAME {
            watched.read_selected(now);
            watched.counts = receiving.map(Receiving::counts);
            let drawn = terminal::draw(screen, |frame| screen::draw(frame, &watched, &ui));
            if let Err(e) = drawn {
                terminal::restore();
                crate::output::message(&format!("conclave watch: cannot draw: {e}"));
                return Exit::BadInput;
            }
            dirty = false;
            last_draw = Instant::now();
        }
        // A frame when one is wanted, or when the run on screen is due
        // to be read again.
        let wake = if dirty {
            Some(last_draw + FRAME)
        } else {
            watched.read_due(now).map(|at| at.max(last_draw + FRAME))
        };
        let signal = async {
            match signals.as_mut() {
                Some(s) => s.next().await,
                None => std::future::pending().await,
            }
        };
        let item = async {
            match feed.as_mut() {
                Some(feed) => feed.recv().await,
                None => std::future::pending().await,
            }
        };
        let steered = async {
            match steer_changes.as_mut() {
                Some(changes) => changes.changed().await.is_ok(),
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            true = steered => {
                watched.steering_changed();
                ui.steer.offer_decision(&watched, ui.help);
                dirty = true;
            }
            item = item => match item {
                Some(item) => {
                    watched.take(item);
                    dirty = true;
                }
                // The watch ended (`--runs N` reached): the last frame stays
                // until a key says quit.
                None => feed = None,
            },
            Some(Ok(event)) = input.next() => {
                if let TermEvent::Key(key) = event
                    && key.kind != KeyEventKind::Release
                    && let Some(action) = action_of(&watched, &mut ui, &key)
                    && act(&mut watched, &mut ui, action)
                {
                    return Exit::Ok;
                }
                dirty = true;
            }
            _ = counting.tick(), if receiving.is_some() => {
                dirty |= receiving.map(Receiving::counts) != watched.counts;
            }
            Some(signal) = signal => return Exit::Signalled(signal),
            () = sleep_until(wake) => dirty = true,
        }
    }
}

/// What `key` asks of the screen where it stands: help, a steering
/// dialog (letters typed into a decision's note; any key but `y` keeps a
/// run from stopping), or the screen's keys (a hooked run's steering keys
/// besides).
fn action_of(watched: &Watched, ui: &mut WatchUi, key: &KeyEvent) -> Option<Action> {
    let scope = ui.scope();
    if scope == Scope::Watch {
        let steer = watched.steered_view().is_some();
        let scopes: &[Scope] = if steer {
            &[Scope::Watch, Scope::WatchSteer]
        } else {
            &[Scope::Watch]
        };
        return keymap::lookup_in(scopes, key);
    }
    let action = keymap::lookup(scope, key);
    match scope {
        Scope::Overlay(OverlayKind::Decide) if action.is_none() => {
            match key.code {
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    ui.type_note(Some(c));
                }
                KeyCode::Backspace => ui.type_note(None),
                _ => {}
            }
            None
        }
        Scope::Overlay(OverlayKind::StopRun) => Some(action.unwrap_or(Action::Close)),
        _ => action,
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
