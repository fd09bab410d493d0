//! The dashboard of `conclave watch`: other frameworks' runs, received as
//! OpenTelemetry traces by `crate::watch`, one tab per trace. The watch
//! owns the network, the runs and their settling; this only folds what it
//! says (`state`) and draws it (`screen`, `tree_pane`). The loop here
//! draws on change at most 30 times a second, never in a busy loop.

pub(crate) mod graph;
#[cfg(test)]
mod graph_tests;
pub(crate) mod screen;
pub(crate) mod state;
#[cfg(test)]
mod tests;
pub(crate) mod tree;
pub(crate) mod tree_pane;

use crate::exit::Exit;
use crate::tui::keymap::{self, Action, Scope};
use crate::tui::terminal;
use crate::watch::consume::WatchFeed;
use crate::watch::start::{WatchSettings, start};
use crossterm::event::{Event as TermEvent, EventStream, KeyEventKind};
use futures_util::StreamExt;
use state::Watched;
use std::time::Duration;
use tokio::sync::mpsc::Receiver;
use tokio::time::Instant;

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
        let watched = Watched::new(limits, prices);
        let exit = view(&mut screen, &mut started.feed, watched, &listening).await;
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
}

impl Offscreen {
    pub fn new(limits: crate::watch::runs::Limits) -> Offscreen {
        Offscreen {
            watched: Watched::new(limits, None),
        }
    }

    /// Take one thing the watch said.
    pub fn take(&mut self, item: WatchFeed) {
        self.watched.take(item);
    }

    /// Draw the whole screen into `frame`.
    pub fn draw(&self, frame: &mut ratatui::Frame) {
        screen::draw(frame, &self.watched, 0, "a bench");
    }
}

/// What the screen remembers besides the runs: the span tree's first row.
#[derive(Debug, Default)]
pub(crate) struct WatchUi {
    pub(crate) scroll: usize,
}

/// Apply `action` to the screen; whether it asks to quit.
pub(crate) fn act(watched: &mut Watched, ui: &mut WatchUi, action: Action, page: usize) -> bool {
    let rows = watched
        .selected()
        .map_or(0, |r| tree_pane::height(&r.forest));
    let last = rows.saturating_sub(1);
    match action {
        Action::Quit => return true,
        Action::PrevRun => {
            watched.select_previous();
            ui.scroll = 0;
        }
        Action::NextRun => {
            watched.select_next();
            ui.scroll = 0;
        }
        Action::Up => ui.scroll = ui.scroll.saturating_sub(1),
        Action::Down => ui.scroll = (ui.scroll + 1).min(last),
        Action::PageUp => ui.scroll = ui.scroll.saturating_sub(page),
        Action::PageDown => ui.scroll = (ui.scroll + page).min(last),
        Action::Top => ui.scroll = 0,
        Action::Bottom => ui.scroll = last,
        _ => {}
    }
    false
}

async fn view(
    screen: &mut terminal::Screen,
    feed: &mut Receiver<WatchFeed>,
    mut watched: Watched,
    listening: &str,
) -> Exit {
    let mut input = EventStream::new();
    let mut signals = crate::signals::Signals::new().ok();
    let mut ui = WatchUi::default();
    let mut dirty = true;
    let mut feed_open = true;
    let mut last_draw = Instant::now() - FRAME;
    loop {
        if dirty && last_draw.elapsed() >= FRAME {
            let drawn = terminal::draw(screen, |frame| {
                screen::draw(frame, &watched, ui.scroll, listening);
            });
            if let Err(e) = drawn {
                terminal::restore();
                crate::output::message(&format!("conclave watch: cannot draw: {e}"));
                return Exit::BadInput;
            }
            dirty = false;
            last_draw = Instant::now();
        }
        let page = usize::from(screen.size().map_or(24, |s| s.height)).saturating_sub(14);
        let signal = async {
            match signals.as_mut() {
                Some(s) => s.next().await,
                None => std::future::pending().await,
            }
        };
        let redraw_at = async {
            if dirty {
                tokio::time::sleep_until(last_draw + FRAME).await;
            } else {
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            item = feed.recv(), if feed_open => match item {
                Some(item) => {
                    watched.take(item);
                    dirty = true;
                }
                // The watch ended (`--runs N` reached): the last frame stays
                // until a key says quit.
                None => feed_open = false,
            },
            Some(Ok(event)) = input.next() => {
                if let TermEvent::Key(key) = event
                    && key.kind != KeyEventKind::Release
                    && let Some(action) = keymap::lookup(Scope::Watch, &key)
                    && act(&mut watched, &mut ui, action, page.max(1))
                {
                    return Exit::Ok;
                }
                dirty = true;
            }
            Some(signal) = signal => return Exit::Signalled(signal),
            () = redraw_at => {}
        }
    }
}
