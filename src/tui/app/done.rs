//! What came of the effects the update returned, as the loop tells it: a
//! run started is shown and selected, a command its engine refused takes
//! back what the screen expected of it, a recording read opens as a
//! replay, a reading tells its progress; whatever failed becomes the
//! footer's notice.

use super::App;
use crate::bus::RunId;
use crate::control::Control;
use crate::tui::effect::Done;
use crate::tui::keymap::PaneId;
use crate::tui::view_state::Overlay;

impl App {
    /// Take what came of an effect.
    pub fn done(&mut self, done: Done) {
        match done {
            Done::Started(started) => {
                // A new run opens on its pattern; a restart keeps the pane.
                if started.in_place_of.is_none() {
                    self.focus = PaneId::Pattern;
                }
                self.fork_started(&started);
                self.runs.started(started);
            }
            Done::ProgramForkOffered { offer, at_ms } => self.program_fork_offered(offer, at_ms),
            Done::ProgramStarted(started) => {
                // Its output is the log's: the log has the focus.
                self.focus = PaneId::Log;
                self.runs.started_program(started);
            }
            Done::NotStarted {
                name,
                in_place_of,
                why,
                ..
            } => {
                self.notice = Some(match in_place_of {
                    Some(_) => format!("cannot restart: {why}"),
                    None => format!("cannot launch {name}: {why}"),
                });
            }
            Done::Refused { run, command, why } => self.refused(run, &command, &why),
            Done::NotSteered(why) => self.notice = Some(first_line(&why)),
            Done::Scanned(entries) => self.scanned(entries),
            Done::Progress {
                job,
                read,
                total,
                unit,
            } => self.progress(job, read, total, unit),
            Done::Opened { job, opened } => {
                if !self.awaited(job, true) {
                    return;
                }
                match opened {
                    Ok(opened) => {
                        self.show_replay(*opened);
                        self.overlay = None;
                    }
                    Err(why) => self.notice = Some(first_line(&why)),
                }
            }
            Done::Compared { job, comparison } => self.compared(job, comparison),
            Done::Sought {
                seeker,
                position,
                sought,
            } => self.sought(&seeker, position, *sought),
            Done::ReadAhead {
                seeker,
                from,
                events,
            } => self.read_ahead(&seeker, from, events),
            Done::Wrote { path, bytes } => {
                self.notice = Some(format!("wrote {bytes} bytes to {}", path.display()));
            }
            Done::NotWritten { path, why } => {
                self.notice = Some(format!("cannot write {}: {why}", path.display()));
            }
            Done::NotRemembered(why) => {
                self.notice = Some(format!(
                    "allowed for this launch only (cannot remember it: {why})"
                ));
            }
            Done::SweepRunReplayed { seed, opened } => self.sweep_run_replayed(seed, opened),
            Done::Recorded { run, failed } => self.recorded(run, failed),
        }
    }

    /// Run `run`'s engine did not take `command`: what the screen expected
    /// of it is off, and the footer says why.
    pub(super) fn refused(&mut self, run: RunId, command: &Control, why: &str) {
        if let Some(slot) = self.runs.live_mut(run) {
            match command {
                Control::Pause | Control::Step => slot.ui.pause_requested = false,
                Control::SetFlag { name, .. } => {
                    slot.ui.pending_flags.retain(|(n, _)| n != name);
                }
                _ => {}
            }
        }
        self.notice = Some(first_line(why));
    }

    /// The sweep's run of `seed` ran again: shown as a replay over the
    /// sweep's screen, or the footer says why not.
    fn sweep_run_replayed(
        &mut self,
        seed: u64,
        opened: Result<Box<crate::tui::recording::Opened>, String>,
    ) {
        self.sweep_replay = None;
        match opened {
            Ok(opened) => {
                self.show_replay(*opened);
                if matches!(self.overlay, Some(Overlay::Sweep)) {
                    self.overlay = None;
                }
                self.notice = Some(format!("seed {seed} replayed: S returns to the sweep"));
            }
            Err(why) => self.notice = Some(first_line(&why)),
        }
    }
}

/// The first line of an error, for the footer.
pub(super) fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}
