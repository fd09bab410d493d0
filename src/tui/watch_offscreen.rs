//! The dashboard of `conclave watch` drawn into frames its caller owns:
//! the bench draws it while a million spans arrive.

use super::app::{App, AppOptions};
use crate::watch::consume::WatchFeed;

/// The dashboard of `conclave watch` without a terminal of its own: what
/// it folds of the watch and draws, for a caller that owns the frames
/// (the bench draws it while a million spans arrive).
pub struct WatchOffscreen {
    app: App,
}

impl WatchOffscreen {
    pub fn new(limits: crate::watch::runs::Limits) -> WatchOffscreen {
        let mut app = App::new(AppOptions::default());
        app.watching("offscreen".into(), limits.max_runs, false);
        WatchOffscreen { app }
    }

    /// Take one thing the watch said.
    pub fn take(&mut self, item: WatchFeed) {
        self.app.take_watch(item);
    }

    /// Draw the whole screen into `frame`, as the dashboard does.
    pub fn draw(&mut self, frame: &mut ratatui::Frame) {
        self.app.screen = frame.area();
        crate::tui::view::draw(frame, &self.app);
    }
}
