//! `y` and `w`: what to copy or write for what is on screen, and the path
//! prompt. A copy is an OSC 52 sequence and a write a file's contents,
//! both scrubbed, for the loop to write (through the terminal, or to the
//! file). The documents are `crate::tui::export`'s.

use super::App;
use crate::tui::document::{self, Document};
use crate::tui::effect::Effect;
use crate::tui::export;
use crate::tui::inspect;
use crate::tui::keymap::PaneId;
use crate::tui::tool_list;
use crate::tui::view_state::ExportPrompt;
use crate::tui::view_state::Overlay;
use serde_json::Value;
use std::path::Path;

impl App {
    /// The JSON of what the focused pane has selected: a seat's answer,
    /// task, transfer, note or tool, the newest event shown, the result.
    pub(super) fn selected_json(&self) -> Option<Value> {
        let slot = self.run()?;
        let (state, ui) = (&slot.state, &slot.ui);
        match self.focus {
            PaneId::Pattern => slot.unit.details(&state.pattern, &ui.pattern),
            PaneId::Log => ui
                .log
                .selected_event(state)
                .map(|event| serde_json::to_value(&*event).unwrap_or_default()),
            // Read for this copy alone: the run's document stays text.
            PaneId::Result => state.outcome.as_ref().map(|o| o.result.tree_copy()),
            PaneId::Resilience => tool_list::selected(&state.resilience, &ui.gateway_tools)
                .map(|tool| inspect::tool_json(tool, slot.clock_ms())),
            PaneId::Runs => None,
        }
    }

    /// `y`: the comparison or the details shown, else the answer in the
    /// result pane, else the selected item's JSON.
    pub(super) fn copy(&mut self) -> Vec<Effect> {
        let text = match &self.overlay {
            Some(Overlay::Compare { comparison, .. }) => Some(export::comparison(comparison).json),
            Some(Overlay::Details(details)) => Some(details.text()),
            _ => {
                let answer = (self.focus == PaneId::Result)
                    .then(|| self.run()?.state.outcome.as_ref()?.summary.answer.clone())
                    .flatten();
                answer.or_else(|| {
                    self.selected_json()
                        .map(|v| serde_json::to_string_pretty(&v).unwrap_or_default())
                })
            }
        };
        match text {
            Some(text) => self.copy_text(&text),
            None => {
                self.notice = Some("nothing selected to copy here".into());
                Vec::new()
            }
        }
    }

    /// Put `text` on the clipboard through the terminal, scrubbed; the
    /// footer says how much, or that it is too big.
    fn copy_text(&mut self, text: &str) -> Vec<Effect> {
        let text = document::scrubbed(text);
        match document::osc52(&text) {
            Ok(sequence) => {
                self.notice = Some(format!("copied {} bytes", text.len()));
                vec![Effect::Copy(sequence)]
            }
            Err(size) => {
                self.notice = Some(format!(
                    "too big to copy ({} KB, the terminal takes {} KB): w writes it to a file",
                    size.div_ceil(1000),
                    document::MAX_COPY / 1000
                ));
                Vec::new()
            }
        }
    }

    /// `w`: ask where to write the comparison shown, the filtered log
    /// (log pane) or the result (elsewhere).
    pub(super) fn write(&mut self) {
        let overlay = self.overlay.take();
        let (document, path) = match &overlay {
            Some(Overlay::Compare { comparison, .. }) => (
                Some(export::comparison(comparison)),
                export::comparison_path(comparison),
            ),
            _ => match self.run() {
                None => (None, String::new()),
                Some(slot) if self.focus == PaneId::Log => {
                    (Some(export::log(slot)), export::default_path(slot, "log"))
                }
                Some(slot) => (export::result(slot), export::default_path(slot, "result")),
            },
        };
        let Some(document) = document else {
            self.overlay = overlay;
            self.notice = Some(match self.run() {
                None => "no run to write".into(),
                Some(_) => {
                    "no result yet: the run has not finished (w in the log writes the log)".into()
                }
            });
            return;
        };
        self.overlay = Some(Overlay::Export(Box::new(ExportPrompt {
            path,
            document,
            under: overlay,
        })));
    }

    /// Enter in the path prompt: write there, and go back to what was open.
    pub(super) fn confirm_write(&mut self) -> Vec<Effect> {
        let Some(Overlay::Export(prompt)) = self.overlay.take() else {
            return Vec::new();
        };
        let ExportPrompt {
            path,
            document,
            under,
        } = *prompt;
        self.overlay = under;
        let path = path.trim();
        if path.is_empty() {
            self.notice = Some("type a path to write to".into());
            return Vec::new();
        }
        let contents = Document::for_path(&document, Path::new(path));
        vec![Effect::Write {
            path: path.into(),
            contents,
        }]
    }
}
