//! What arrives from NATS: under `conclave attach` the live runs of other
//! engines, listed into the picker, each attached run's events, folded as
//! the bus's are, and the engines' answers to commands; with `--nats` the
//! link's warnings. A refusal or a warning goes to the footer.

use super::App;
use super::carry::first_line;
use crate::control::Control;
use crate::tui::catalog;
use crate::tui::overlays::picker::PickerView;
use crate::tui::remote::RemoteFeed;
use crate::tui::view_state::Overlay;

impl App {
    /// The picker on the live runs of other engines, as last listed.
    pub(super) fn open_remote_picker(&mut self) {
        self.overlay = Some(Overlay::Picker(PickerView {
            remote: true,
            ..PickerView::new(0)
        }));
    }

    /// Take what arrived from NATS.
    pub fn take_remote(&mut self, feed: RemoteFeed) {
        match feed {
            RemoteFeed::Listed(Ok(runs)) => self.catalog = catalog::remote(runs),
            RemoteFeed::Listed(Err(e)) | RemoteFeed::Warning(e) => {
                self.notice = Some(first_line(&e));
            }
            RemoteFeed::Event(event) => self.apply(event),
            RemoteFeed::Lost { run, error } => {
                if self.runs.live_mut(run).is_some() {
                    self.notice = Some(first_line(&error));
                }
            }
            RemoteFeed::Replied { result: Ok(()), .. } => {}
            RemoteFeed::Replied {
                run,
                command,
                result: Err(error),
            } => {
                // The engine refused: what the screen expected of it is off.
                if let Some(slot) = self.runs.live_mut(run) {
                    match &command {
                        Control::Pause | Control::Step => slot.ui.pause_requested = false,
                        Control::SetFlag { name, .. } => {
                            slot.ui.pending_flags.retain(|(n, _)| n != name);
                        }
                        _ => {}
                    }
                }
                self.notice = Some(first_line(&error));
            }
        }
    }
}
