//! Runs of other engines: under `conclave attach` the live runs listed
//! into the picker, one chosen shown (the loop follows it), each attached
//! run's events folded as the bus's are, and the engines' answers to
//! commands; with `--nats` the link's warnings. A refusal or a warning
//! goes to the footer.

use super::App;
use super::done::first_line;
use crate::nats::watch::LiveRun;
use crate::tui::catalog;
use crate::tui::effect::Effect;
use crate::tui::keymap::PaneId;
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

    /// Show `live`, a run of another engine, selected: the loop follows it
    /// from its first event. A run shown already is selected again.
    pub(super) fn attach(&mut self, live: &LiveRun) -> Vec<Effect> {
        if !self.options.attach {
            self.notice = Some("not attached to a NATS server".into());
            return Vec::new();
        }
        self.focus = PaneId::Pattern;
        match self.runs.attach(live) {
            Some(run) => vec![Effect::Follow {
                run,
                id: live.id.clone(),
            }],
            None => Vec::new(),
        }
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
            RemoteFeed::Skipped { run, count, last } => {
                if self.runs.live_mut(run).is_some() {
                    let messages = if count == 1 { "message" } else { "messages" };
                    self.notice = Some(format!(
                        "{count} {messages} on the attached run's subject skipped, none of its events (the last: {last})"
                    ));
                }
            }
            RemoteFeed::Replied { result: Ok(()), .. } => {}
            RemoteFeed::Replied {
                run,
                command,
                result: Err(error),
            } => self.refused(run, &command, &error),
        }
    }
}
