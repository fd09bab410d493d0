//! Research's part of the dashboard: the six steps, the sources from
//! search to reading, the notes and the answer's citations (`state`), the
//! selected note, and the research pane (`view`).

pub(crate) mod log;
mod sections;
pub mod state;
mod view;

use super::unit::{Seen, Unit, calls_in_words};
use crate::bus::{RunStarted, RunStatus};
use crate::tui::keymap::Action;
use crate::tui::selection::{Find, ListView, Shown};
use crate::tui::state::calls::CallInFlight;
use crate::tui::state::outcome::Outcome;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::{Value, json};
use state::Research;

pub(crate) struct ResearchUnit;

impl Unit for ResearchUnit {
    type Fold = Research;
    type Selection = ListView;

    fn seat(&self, _started: &RunStarted) -> Research {
        Research::default()
    }

    fn gate_word(&self) -> &'static str {
        "step"
    }

    /// The gate is before each step: none is ahead once the synthesis,
    /// the last step, has begun.
    fn gate_ahead(&self, research: &Research) -> bool {
        research
            .current
            .is_none_or(|phase| phase != crate::patterns::events::ResearchPhase::Synthesize)
    }

    fn navigate(&self, selection: &mut ListView, action: Action, research: &Research, page: usize) {
        let rows = view::notes_rows(research, page);
        selection.navigate(action, &notes(research), rows, &[]);
    }

    fn find(
        &self,
        selection: &mut ListView,
        query: &str,
        how: Find,
        research: &Research,
        page: usize,
    ) -> bool {
        let rows = view::notes_rows(research, page);
        selection.find(query, how, &notes(research), rows, |i| {
            let note = &research.notes[i];
            format!(
                "{} {} {} {}",
                note.id, note.domain, note.published_at, note.claim
            )
        })
    }

    fn query(&self, selection: &ListView) -> Option<String> {
        selection.search.clone()
    }

    fn wanted_height(&self, research: &Research) -> u16 {
        view::wanted_height(research)
    }

    fn draw(
        &self,
        frame: &mut Frame,
        area: Rect,
        research: &Research,
        selection: &ListView,
        seen: Seen,
    ) {
        view::draw(frame, area, research, selection, seen);
    }

    /// The selected note, with its provenance and whether the answer
    /// cites it.
    fn details(&self, research: &Research, selection: &ListView) -> Option<Value> {
        let note = research.notes.get(selection.item(&notes(research))?)?;
        Some(json!({
            "id": note.id, "claim": note.claim, "quote": note.quote, "url": note.url,
            "title": note.title, "published_at": note.published_at,
            "cited": research.citations.contains(&note.id),
        }))
    }

    fn headline(&self, _research: &Research, outcome: &Outcome) -> Line<'static> {
        if outcome.status == RunStatus::Ok {
            Line::styled("GROUNDED ANSWER", theme::headline(theme::GO))
        } else {
            Line::styled("NO ANSWER", theme::headline(theme::BLOCK))
        }
    }

    /// The sources' and notes' tally.
    fn tally(&self, research: &Research, _outcome: &Outcome) -> Vec<Line<'static>> {
        let c = research.counts();
        let row = |label: &'static str, text: String| {
            Line::from(vec![Span::styled(label, theme::dim()), Span::raw(text)])
        };
        vec![
            row(
                "sources     ",
                format!(
                    "{} found, {} after dedupe, {} read, {} denied",
                    c.found, c.deduped, c.read, c.denied
                ),
            ),
            row(
                "notes       ",
                format!("{} kept, {} cited", c.notes, c.cited),
            ),
        ]
    }

    /// Each citation of the answer with the source it resolves to.
    fn after_answer(&self, research: &Research) -> Vec<Line<'static>> {
        if research.citations.is_empty() {
            return Vec::new();
        }
        let mut lines = vec![Line::raw("")];
        for id in &research.citations {
            let source = research.note(id).map_or_else(
                || "unknown note".to_string(),
                |n| format!("{} · {} · {}", n.url, n.title, n.published_at),
            );
            lines.push(Line::from(vec![
                Span::styled(
                    format!("[{}] ", fit(id, 12)),
                    Style::default().fg(theme::CAUTION),
                ),
                Span::raw(fit(&source, 300)),
            ]));
        }
        lines
    }

    fn doing(&self, research: &Research, calling: &[CallInFlight]) -> String {
        let step = research.current.map_or("starting".to_string(), |p| {
            format!("step {} ({p})", p.step())
        });
        match calls_in_words(calling) {
            Some(calls) => format!("Running {step}: {calls}."),
            None => format!("Running {step}."),
        }
    }

    fn later(&self) -> &'static str {
        "The grounded answer and its sources appear here when the run ends."
    }
}

/// The notes in the order taken, following the newest.
pub(super) fn notes(research: &Research) -> Shown {
    let len = research.notes.len();
    Shown::all(len, len.checked_sub(1))
}
