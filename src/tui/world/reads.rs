//! The files the app asks to have read, read on the runtime's blocking
//! threads so the loop keeps drawing and taking keys: folders scanned for
//! the picker, recordings opened or compared, replays read from their
//! files moved and played, a launched run's recording read for its fork. Progress and results come back to the app as
//! [`Done`]s through the world's `later` channel, in order per reading.
//! The command line's opening, before the screen opens, reads the same
//! way on its own thread ([`read_now`], [`open_replay`]).

use super::World;
use super::{catalog_scan, recording_reader};
use crate::tui::app::App;
use crate::tui::effect::{Done, Effect};
use std::path::Path;

impl World {
    /// Read what `effect` asks on a blocking thread; its progress and its
    /// result arrive later (see [`World::next_done`]).
    pub(super) fn read(&self, effect: Effect) {
        let later = self.later.clone();
        let work = move || {
            let mut tell = |done| {
                let _ = later.send(done);
            };
            if let Some(done) = read_now(effect, &mut tell) {
                tell(done);
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn_blocking(work);
            }
            // Outside a runtime (a test of the world): here and now.
            Err(_) => work(),
        }
    }
}

/// Read what `effect` asks on this thread: its progress told to
/// `progress`, its result returned (`None` for an effect that reads
/// nothing).
pub fn read_now(effect: Effect, progress: &mut dyn FnMut(Done)) -> Option<Done> {
    Some(match effect {
        Effect::ScanCatalog {
            scenarios,
            recordings,
        } => Done::Scanned(catalog_scan::scan(&scenarios, recordings.as_deref())),
        Effect::OpenRecording { job, path } => {
            let mut report = |read, total, unit| {
                progress(Done::Progress {
                    job,
                    read,
                    total,
                    unit,
                });
            };
            let opened = recording_reader::open_reporting(&path, &mut report).map(Box::new);
            Done::Opened { job, opened }
        }
        Effect::Compare { job, a, b } => {
            let mut report = |read, total, unit| {
                progress(Done::Progress {
                    job,
                    read,
                    total,
                    unit,
                });
            };
            let comparison = recording_reader::compare(&a, &b, &mut report).map(Box::new);
            Done::Compared { job, comparison }
        }
        Effect::Seek { seeker, position } => Done::Sought {
            sought: Box::new(seeker.seek(position)),
            seeker,
            position,
        },
        Effect::ReadAhead {
            seeker,
            from,
            count,
        } => Done::ReadAhead {
            events: seeker.read_ahead(from, count).map_err(|e| e.to_string()),
            seeker,
            from,
        },
        Effect::OfferProgramFork { recording, at_ms } => Done::ProgramForkOffered {
            offer: crate::launch::fork_offer::offer(&recording),
            at_ms,
        },
        _ => return None,
    })
}

/// Open the recording at `path` as a replay in `app`, selected: the
/// command line's replay, read before the screen opens. The error says
/// why the file cannot be replayed.
pub fn open_replay(app: &mut App, path: &Path) -> Result<(), String> {
    let opened = recording_reader::open(path)?;
    app.show_replay(opened);
    Ok(())
}

/// Open two recordings as replays, A pinned and B selected, and show them
/// side by side: the command line's comparison, read before the screen
/// opens. The error names the file that cannot be opened.
pub fn open_comparison(app: &mut App, a: &Path, b: &Path) -> Result<(), String> {
    open_replay(app, a)?;
    let pinned = app.runs.selected;
    open_replay(app, b)?;
    app.runs.pin(pinned);
    for effect in app.compare_with_pinned() {
        if let Some(done) = read_now(effect, &mut |_| {}) {
            app.done(done);
        }
    }
    // Closing the comparison shows A, where the person asked from.
    app.runs.selected = pinned;
    match app.overlay {
        Some(crate::tui::view_state::Overlay::Compare { .. }) => Ok(()),
        _ => Err(app.notice.take().unwrap_or_default()),
    }
}

/// Carry out every reading in `effects` here and now and hand the app
/// what came of each, as the loop would: for tests and the command line.
pub fn settle(app: &mut App, effects: Vec<Effect>) {
    let mut effects = effects;
    while !effects.is_empty() {
        for effect in effects {
            let mut told = Vec::new();
            let done = read_now(effect, &mut |d| told.push(d));
            for d in told.into_iter().chain(done) {
                app.done(d);
            }
        }
        effects = app.take_queued();
    }
}

#[cfg(test)]
mod compare_close_tests {
    use super::*;
    use crate::tui::app::AppOptions;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    /// `q` on `conclave compare A B` closes the comparison onto A.
    #[test]
    fn q_from_the_comparison_lands_on_a() {
        let dir = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for (name, fixture) in [("a.jsonl", "pydantic_ai"), ("b.jsonl", "pydantic_ai")] {
            let (events, _) = crate::watch::translate::tests::told(fixture).remove(0);
            let text: String = events
                .iter()
                .map(|e| serde_json::to_string(e).unwrap() + "\n")
                .collect();
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            paths.push(path);
        }
        let mut app = App::new(AppOptions::default());
        open_comparison(&mut app, &paths[0], &paths[1]).unwrap();
        let _ = app.key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE));
        assert!(app.overlay.is_none(), "q closes the comparison");
        let shown = app.run().and_then(|r| r.recording.clone());
        assert_eq!(shown.as_deref(), Some(paths[0].as_path()));
    }
}
