//! The dashboard's loop: each turn either draws a frame that is due or
//! waits on a signal, terminal input, the bus, an attached engine, a
//! sweep's executor or the world's threads, whichever comes first. What
//! the app decides on input, the loop has the world carry out (the
//! terminal's part it does itself), handing the app what came of it. It
//! draws on change, never in a busy loop.

use super::app::App;
use super::effect::Effect;
use super::remote::RemoteFeed;
use super::world::World;
use super::{sweep, terminal, view};
use crate::bus::{Delivery, Subscription};
use crate::exit::Signal;
use crate::signals::Signals;
use crate::watch::consume::WatchFeed;
use crate::watch::receive::Receiving;
use crate::watch::steer::Steering;
use crossterm::event::{Event as TermEvent, EventStream, KeyEventKind};
use futures_util::StreamExt;
use ratatui::layout::{Rect, Size};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::{self, UnboundedReceiver};
use tokio::time::Instant;

/// The shortest time between two frames (30 frames a second).
const FRAME: Duration = Duration::from_millis(33);
/// How often a running run's clock is redrawn when nothing else happens.
const CLOCK_TICK: Duration = Duration::from_millis(100);
/// How many bus events to fold before looking at input again.
pub const BATCH: usize = 2048;

/// What `conclave watch` hands the loop: what the watch tells of its
/// runs, its steering's changes, and its receiver (whose counts are read
/// once a second).
pub(super) struct WatchIn<'a> {
    pub(super) feed: Option<mpsc::Receiver<WatchFeed>>,
    pub(super) steering: Option<(Arc<Steering>, tokio::sync::watch::Receiver<u64>)>,
    pub(super) receiving: &'a Receiving,
    pub(super) counting: tokio::time::Interval,
}

/// What woke the loop on the watch's side.
enum FromWatch {
    /// The watch told something (`None`: it ended).
    Told(Option<WatchFeed>),
    /// Its steering changed (`false`: it is gone).
    Steered(bool),
    /// A second passed: the receiver's counts are read again.
    Counting,
}

impl WatchIn<'_> {
    /// The receiver's counts are read once a second.
    pub(super) fn counting() -> tokio::time::Interval {
        let mut counting = tokio::time::interval(Duration::from_secs(1));
        counting.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        counting
    }

    /// What comes next from the watch; what it tells only when `told_too`.
    async fn next(&mut self, told_too: bool) -> FromWatch {
        tokio::select! {
            told = next_told(self.feed.as_mut()), if told_too => FromWatch::Told(told),
            going = steering_changed(self.steering.as_mut()) => FromWatch::Steered(going),
            _ = self.counting.tick() => FromWatch::Counting,
        }
    }

    /// Hand `from` to the app; whether the screen changed.
    fn take(&mut self, app: &mut App, from: FromWatch) -> bool {
        match from {
            FromWatch::Told(told) => match (told, self.feed.as_mut()) {
                (Some(told), Some(feed)) => take_watch_batch(app, feed, Some(told)),
                // The watch ended (`--runs N` reached): its runs stay
                // until the user quits.
                _ => self.feed = None,
            },
            FromWatch::Steered(going) => match (&self.steering, going) {
                (Some((steering, _)), true) => {
                    app.steering_globals(steering.holds_new(), steering.breaks());
                    app.steering_listed(steering.list());
                }
                _ => self.steering = None,
            },
            FromWatch::Counting => return app.watch_status(self.receiving.status()),
        }
        true
    }
}

/// What comes next from the watch, if there is one.
async fn next_from_watch(watch: Option<&mut WatchIn<'_>>, told_too: bool) -> FromWatch {
    match watch {
        Some(watch) => watch.next(told_too).await,
        None => std::future::pending().await,
    }
}

/// Run the dashboard until the user quits (`None`) or a signal ends it.
pub(super) async fn run(
    screen: &mut terminal::Screen,
    app: &mut App,
    world: &mut World,
    mut bus: Subscription,
    mut remote_feed: UnboundedReceiver<RemoteFeed>,
    mut feed: Option<sweep::Feed>,
    mut watch: Option<WatchIn<'_>>,
) -> std::io::Result<Option<Signal>> {
    let mut input = EventStream::new();
    let mut signals = Signals::new()?;
    let mut dirty = true;
    let mut last_draw = Instant::now() - FRAME;
    let mut size = screen.size()?;
    let mut ended_by = None;
    let mut quit = false;
    loop {
        if quit {
            return Ok(ended_by);
        }
        // What the app decided on the events it folded (a fork finished:
        // its recording is waited on).
        let queued = app.take_queued();
        if !queued.is_empty() {
            quit = carry_out(screen, app, world, queued)?;
            dirty = true;
            continue;
        }
        let now = Instant::now();
        let due = next_frame(app, dirty, last_draw, now);
        if now >= due {
            if let Some(feed) = watch.as_mut().and_then(|w| w.feed.as_mut()) {
                take_watch_batch(app, feed, None);
            }
            size = draw_frame(screen, app, &mut bus, now, last_draw)?;
            last_draw = Instant::now();
            dirty = false;
            continue;
        }
        tokio::select! {
            biased;
            signal = signals.next() => {
                ended_by = signal;
                quit = true;
            }
            input = input.next() => match input {
                Some(Ok(event)) => {
                    if let Some(effects) = take_input(screen, app, event, size)? {
                        quit = carry_out(screen, app, world, effects)?;
                        dirty = true;
                    }
                }
                Some(Err(e)) => return Err(e),
                None => quit = true,
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
            // What the watch tells is read as the bus is: once a frame
            // is due, when it is drawn.
            from = next_from_watch(watch.as_mut(), !dirty) => {
                if let Some(watch) = watch.as_mut() {
                    dirty |= watch.take(app, from);
                }
            }
            Some(arrived) = remote_feed.recv() => {
                take_remote_batch(app, &mut remote_feed, arrived);
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
            Some(done) = world.next_done() => {
                app.done(done);
                dirty = true;
            }
            () = tokio::time::sleep_until(due) => {}
        }
    }
}

/// When the next frame is due: a frame after the last one once something
/// changed or a replay plays, a clock tick after it while something moves,
/// and otherwise not until something happens.
fn next_frame(app: &App, dirty: bool, last_draw: Instant, now: Instant) -> Instant {
    if dirty || app.playing() {
        last_draw + FRAME
    } else if app.animating() {
        last_draw + CLOCK_TICK
    } else {
        now + Duration::from_secs(3600)
    }
}

/// Draw the screen; returns its size, which mouse clicks are placed in.
fn draw_frame(
    screen: &mut terminal::Screen,
    app: &mut App,
    bus: &mut Subscription,
    now: Instant,
    last_draw: Instant,
) -> std::io::Result<Size> {
    // What the bus gathered since the frame was due is in it.
    take_batch(app, bus);
    // Playback moves by the time since the last frame, at most a
    // tenth of a second at once.
    let elapsed = now.saturating_duration_since(last_draw).min(CLOCK_TICK);
    app.tick(elapsed.as_secs_f64() * 1000.0);
    terminal::draw(screen, |frame| view::draw(frame, app))?;
    let size = screen.size()?;
    app.screen = Rect::new(0, 0, size.width, size.height);
    Ok(size)
}

/// A key or a click to the app, or a resize followed: what the app
/// decided, or `None` when nothing changed.
fn take_input(
    screen: &mut terminal::Screen,
    app: &mut App,
    event: TermEvent,
    size: Size,
) -> std::io::Result<Option<Vec<Effect>>> {
    Ok(match event {
        TermEvent::Key(key) if key.kind != KeyEventKind::Release => Some(app.key(key)),
        TermEvent::Mouse(mouse) => {
            let areas = app.areas(Rect::new(0, 0, size.width, size.height));
            Some(app.mouse(mouse, &areas))
        }
        TermEvent::Resize(..) => {
            screen.autoresize()?;
            Some(Vec::new())
        }
        _ => None,
    })
}

/// Carry out what the app decided, in order: a copy is written through
/// the terminal here, the rest by the world, and what came of each goes
/// back to the app. Says whether the user quit.
fn carry_out(
    screen: &mut terminal::Screen,
    app: &mut App,
    world: &mut World,
    effects: Vec<Effect>,
) -> std::io::Result<bool> {
    let mut quit = false;
    for effect in effects {
        match effect {
            Effect::Quit => quit = true,
            Effect::Copy(sequence) => write_through(screen, &sequence)?,
            effect => {
                if let Some(done) = world.carry_out(effect) {
                    app.done(done);
                }
            }
        }
    }
    Ok(quit)
}

/// Write an escape sequence to the terminal itself (an OSC 52 copy), past
/// the cell filter that keeps such sequences out of the panes.
fn write_through(screen: &mut terminal::Screen, sequence: &str) -> std::io::Result<()> {
    use std::io::Write;
    let out = &mut screen.backend_mut().0;
    out.write_all(sequence.as_bytes())?;
    out.flush()
}

/// Take what arrived from an attached engine, and up to [`BATCH`] more
/// that already wait.
fn take_remote_batch(app: &mut App, feed: &mut UnboundedReceiver<RemoteFeed>, arrived: RemoteFeed) {
    app.take_remote(arrived);
    for _ in 0..BATCH {
        match feed.try_recv() {
            Ok(arrived) => app.take_remote(arrived),
            Err(_) => break,
        }
    }
}

/// What the watch tells next; never, without a watch (or once it ended).
async fn next_told(feed: Option<&mut mpsc::Receiver<WatchFeed>>) -> Option<WatchFeed> {
    match feed {
        Some(feed) => feed.recv().await,
        None => std::future::pending().await,
    }
}

/// Whether the watch's steering changed (`false`: it is gone); never,
/// without one.
async fn steering_changed(
    steering: Option<&mut (Arc<Steering>, tokio::sync::watch::Receiver<u64>)>,
) -> bool {
    match steering {
        Some((_, changes)) => changes.changed().await.is_ok(),
        None => std::future::pending().await,
    }
}

/// Take what the watch told (`told`, when the loop woke for it), and up
/// to [`BATCH`] more that already wait.
fn take_watch_batch(app: &mut App, feed: &mut mpsc::Receiver<WatchFeed>, told: Option<WatchFeed>) {
    if let Some(told) = told {
        app.take_watch(told);
    }
    for _ in 0..BATCH {
        match feed.try_recv() {
            Ok(told) => app.take_watch(told),
            Err(_) => break,
        }
    }
}

/// Fold up to [`BATCH`] events the bus already holds.
fn take_batch(app: &mut App, bus: &mut Subscription) {
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
