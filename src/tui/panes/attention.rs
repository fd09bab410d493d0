//! The attention line across the top: every run other than the one shown
//! that waits on a person or stopped with an error, so a question or a
//! failure in another tab is never only a glyph. `E` jumps to the first;
//! a stopped run leaves the line once it has been shown.

use crate::bus::RunStatus;
use crate::tui::runs::Runs;
use crate::tui::slot::RunSlot;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// A run that needs a person: where it is in the run list and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Needs {
    pub(crate) index: usize,
    pub(crate) words: String,
}

/// The runs that need attention, the shown one left out (its header says
/// so), in run list order from the one after the shown one, so that `E`
/// pressed again goes on to the next.
pub(crate) fn needing(runs: &Runs) -> Vec<Needs> {
    let count = runs.len();
    let slots: Vec<&RunSlot> = runs.iter().collect();
    (1..count)
        .map(|step| (runs.selected + step) % count)
        .filter_map(|index| {
            why(slots[index]).map(|why| Needs {
                index,
                words: format!("run {} {why}", name(slots[index], index)),
            })
        })
        .collect()
}

/// Why `slot` needs a person, if it does: a question its engine waits on
/// the answer to, or a stop on an error (a failed model call, or an answer
/// that broke its contract).
fn why(slot: &RunSlot) -> Option<String> {
    if slot.replay.is_some() {
        // A replay shows what was; nothing waits on anyone.
        return None;
    }
    if slot.is_live() && slot.state.asked.as_ref().is_some_and(|e| e.waiting()) {
        return Some("asks a person".into());
    }
    if slot.ui.stop_seen {
        // Shown once since it stopped: the user knows.
        return None;
    }
    let outcome = slot.state.outcome.as_ref()?;
    let reason = &outcome.stop_reason;
    let failed = outcome.error.is_some() || reason.is_model_failure() || reason.is_answer_failure();
    if outcome.status == RunStatus::Stopped && failed {
        return Some(format!("stopped: {}", fit(&reason.to_string(), 40)));
    }
    // Finished, but work it depends on failed (a watched run's failed
    // tool span, a failed task): partial, said with what failed.
    let shortfall = slot.unit.shortfall(&slot.state.pattern)?;
    (outcome.status == RunStatus::Ok && shortfall.lacking)
        .then(|| format!("finished partial: {}", fit(&shortfall.words, 40)))
}

/// The run as the run list names it: by its tab's number, or as its
/// engine names an attached run.
fn name(slot: &RunSlot, index: usize) -> String {
    match slot.remote() {
        Some(id) => fit(&id.to_string(), 24),
        None => (index + 1).to_string(),
    }
}

/// `needs attention: run 3 asks a person · run 5 stopped: llm_auth (E to
/// jump)`, in the caution colour; first what went wrong in `conclave
/// watch` (`⚠ forward to http://…: 3 failed`), in the error colour.
pub(crate) fn draw(frame: &mut Frame, area: Rect, needs: &[Needs], warnings: &[String]) {
    if area.height == 0 || (needs.is_empty() && warnings.is_empty()) {
        return;
    }
    let mut room = usize::from(area.width);
    let mut line = Vec::new();
    if !warnings.is_empty() {
        let said = format!(" {} ", warnings.join(" · "));
        let said = fit(&said, if needs.is_empty() { room } else { room / 2 });
        room = room.saturating_sub(said.chars().count());
        line.push(Span::styled(said, theme::error()));
    }
    if !needs.is_empty() {
        let said: Vec<&str> = needs.iter().map(|n| n.words.as_str()).collect();
        line.push(Span::styled(
            " needs attention: ",
            theme::bold().fg(theme::CAUTION),
        ));
        line.push(Span::styled(
            fit(&said.join(" · "), room.saturating_sub(32)),
            theme::bold(),
        ));
        line.push(Span::styled(" (E to jump)", theme::dim()));
    }
    frame.render_widget(Paragraph::new(Line::from(line)), area);
}
