//! The round table asks a person: the conflicts and each analyst's stance
//! after the round that escalated, the four answers (go, go with caution,
//! no-go, one more round) and a note that joins the shared context. Live it
//! takes the answer; in a replay it shows the question where the run
//! waited for one.

use super::frame_box;
use crate::bus::{Conflict, HumanChoice, RunId};
use crate::sanitize::clean;
use crate::tui::layout::centered;
use crate::tui::state::escalation::Escalation;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui_textarea::TextArea;

/// The answer being given to run `run`'s table.
pub struct DecidePrompt {
    pub(crate) run: RunId,
    /// Into [`HumanChoice::ALL`]; none until the person picks one, so that
    /// a reflex Enter decides nothing.
    pub(crate) choice: Option<usize>,
    /// Enter was pressed before an answer was chosen.
    pub(crate) unchosen: bool,
    pub(crate) note: TextArea<'static>,
}

impl DecidePrompt {
    pub(crate) fn new(run: RunId) -> Self {
        let mut note = TextArea::default();
        note.set_cursor_line_style(Style::default());
        note.set_placeholder_text("a note for the table (optional)");
        note.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
        DecidePrompt {
            run,
            choice: None,
            unchosen: false,
            note,
        }
    }

    /// The answer picked, if one is.
    pub(crate) fn chosen(&self) -> Option<HumanChoice> {
        self.choice
            .map(|i| HumanChoice::ALL[i.min(HumanChoice::ALL.len() - 1)])
    }

    /// The next or the previous answer; from none, the first or the last.
    pub(crate) fn move_by(&mut self, down: bool) {
        let last = HumanChoice::ALL.len() - 1;
        self.choice = Some(match (self.choice, down) {
            (None, true) => 0,
            (None, false) => last,
            (Some(i), true) => (i + 1).min(last),
            (Some(i), false) => i.saturating_sub(1),
        });
        self.unchosen = false;
    }

    /// The note as typed; `None` when blank.
    pub(crate) fn note(&self) -> Option<String> {
        let note = self.note.lines().join("\n");
        let note = note.trim();
        (!note.is_empty()).then(|| note.to_string())
    }
}

/// The choice in words.
pub(crate) fn choice_words(choice: HumanChoice) -> &'static str {
    match choice {
        HumanChoice::Go => "go",
        HumanChoice::GoWithCaution => "go with caution",
        HumanChoice::NoGo => "no-go",
        HumanChoice::Continue => "one more round",
    }
}

fn conflict_words(conflict: Conflict) -> &'static str {
    match conflict {
        Conflict::NoContributions => "nobody contributed",
        Conflict::GoVsCaution => "go against caution",
        Conflict::BlockingVsNonBlock => "a blocking stance against the others",
        Conflict::HighDivergence => "confidence far apart",
    }
}

/// The question and the stances, as lines `width` wide.
fn question(escalation: &Escalation, width: usize) -> Vec<Line<'static>> {
    let mut lines = vec![Line::raw(fit(
        &format!(
            "After round {}, a blocking stance for {} in a row.",
            escalation.round,
            crate::words::plural(u64::from(escalation.blocking_rounds), "round"),
        ),
        width,
    ))];
    if !escalation.conflicts.is_empty() {
        let conflicts: Vec<&str> = escalation
            .conflicts
            .iter()
            .map(|c| conflict_words(*c))
            .collect();
        lines.push(Line::from(vec![
            Span::styled("Conflicts  ", theme::dim()),
            Span::raw(fit(&conflicts.join(" · "), width.saturating_sub(11))),
        ]));
    }
    for seat in &escalation.stances {
        let agent = clean(&seat.agent);
        lines.push(Line::from(vec![
            Span::styled(
                format!("{} ", theme::stance_glyph(seat.stance)),
                theme::stance(seat.stance),
            ),
            Span::raw(format!("{:<22}", fit(&agent, 22))),
            Span::styled(
                format!("{:<8}", seat.stance.as_str()),
                theme::stance(seat.stance),
            ),
            Span::styled(format!("{:.2}", seat.confidence), theme::dim()),
        ]));
    }
    lines.push(Line::raw(""));
    lines
}

/// The live question, taking `prompt`'s answer.
pub(crate) fn draw(
    frame: &mut Frame,
    screen: Rect,
    escalation: &Escalation,
    prompt: &DecidePrompt,
) {
    let rows = u16::try_from(escalation.stances.len()).unwrap_or(8).min(8);
    let area = centered(screen, 76, rows + 16);
    let inner = frame_box(
        frame,
        area,
        "The table asks you",
        "↑/↓ choose · type a note · Enter answer · Esc later (the run waits)",
    );
    let width = usize::from(inner.width);
    let mut lines = question(escalation, width);
    for (i, choice) in HumanChoice::ALL.into_iter().enumerate() {
        let picked = Some(i) == prompt.choice;
        let words = format!(
            " {} {} ",
            if picked { "▶" } else { " " },
            choice_words(choice)
        );
        lines.push(Line::styled(
            words,
            if picked {
                theme::selected().patch(theme::bold())
            } else {
                Style::default()
            },
        ));
    }
    if prompt.choice.is_none() {
        lines.push(Line::styled(
            fit(
                if prompt.unchosen {
                    "Choose an answer first: ↑/↓ (nothing is decided yet)"
                } else {
                    "No answer chosen: ↑/↓ choose one"
                },
                width,
            ),
            if prompt.unchosen {
                theme::bold().fg(theme::CAUTION)
            } else {
                theme::dim()
            },
        ));
    }
    let text_height = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    frame.render_widget(Paragraph::new(lines), inner);
    let note_area = Rect {
        y: inner.y + text_height.min(inner.height),
        height: inner.height.saturating_sub(text_height),
        ..inner
    };
    if note_area.height > 0 {
        frame.render_widget(&prompt.note, note_area);
    }
}

/// The question as a replay shows it where the run waited for a person.
pub(crate) fn draw_record(frame: &mut Frame, screen: Rect, escalation: &Escalation) {
    let rows = u16::try_from(escalation.stances.len()).unwrap_or(8).min(8);
    let area = centered(screen, 76, rows + 8);
    let inner = frame_box(frame, area, "The table asked a person", "replayed");
    let width = usize::from(inner.width);
    let mut lines = question(escalation, width);
    match &escalation.answer {
        None => lines.push(Line::styled("Waiting for a person…", theme::bold())),
        Some((choice, note)) => {
            let mut answer = format!("A person answered: {}", choice.as_str().replace('_', " "));
            if let Some(note) = note {
                answer.push_str(&format!(" · “{note}”"));
            }
            lines.push(Line::styled(fit(&answer, width * 3), theme::bold()));
        }
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
