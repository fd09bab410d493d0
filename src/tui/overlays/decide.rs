//! The question dialog: any question a run asks a person, with what its
//! pattern shows above it (or the question's own prompt), its options,
//! and a note for the shared context. Live it takes the answer; in a
//! replay it shows the question where the run waited for one, then the
//! answer.

use super::frame_box;
use crate::bus::RunId;
use crate::tui::layout::centered;
use crate::tui::state::asked::Asked;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};
use ratatui_textarea::TextArea;

/// The answer being given to the question run `run` asks.
pub struct DecidePrompt {
    pub(crate) run: RunId,
    /// The names of the question's options, in the order offered.
    options: Vec<String>,
    /// Into `options`; none until the person picks one, so that a reflex
    /// Enter decides nothing.
    pub(crate) choice: Option<usize>,
    /// Enter was pressed before an answer was chosen.
    pub(crate) unchosen: bool,
    pub(crate) note: TextArea<'static>,
}

impl DecidePrompt {
    pub(crate) fn new(run: RunId, asked: &Asked) -> Self {
        let mut note = TextArea::default();
        note.set_cursor_line_style(Style::default());
        note.set_placeholder_text(format!("a note for {} (optional)", asked.question.asker));
        note.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
        DecidePrompt {
            run,
            options: asked.question.names(),
            choice: None,
            unchosen: false,
            note,
        }
    }

    /// The name of the option picked, if one is.
    pub(crate) fn chosen(&self) -> Option<&str> {
        self.choice
            .and_then(|i| self.options.get(i))
            .map(String::as_str)
    }

    /// The next or the previous option; from none, the first or the last.
    pub(crate) fn move_by(&mut self, down: bool) {
        let Some(last) = self.options.len().checked_sub(1) else {
            return;
        };
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

/// What stands above the options: the pattern's lines when it has them,
/// else the question's prompt, a line a line, and a blank.
fn above(asked: &Asked, context: Option<Vec<Line<'static>>>, width: usize) -> Vec<Line<'static>> {
    context.unwrap_or_else(|| {
        let mut lines: Vec<Line<'static>> = asked
            .question
            .prompt
            .lines()
            .map(|line| Line::raw(fit(&crate::sanitize::clean(line), width)))
            .collect();
        lines.push(Line::raw(""));
        lines
    })
}

/// How wide the inside of a dialog on `screen` is.
pub(crate) fn inner_width(screen: Rect) -> usize {
    usize::from(screen.width.min(76).saturating_sub(2))
}

/// How tall a dialog over `above` lines is with `below` more under them.
fn height(above: usize, below: usize) -> u16 {
    u16::try_from(above + below).unwrap_or(u16::MAX)
}

/// The live question, taking `prompt`'s answer; `context` is what the
/// run's pattern shows above the options.
pub(crate) fn draw(
    frame: &mut Frame,
    screen: Rect,
    asked: &Asked,
    context: Option<Vec<Line<'static>>>,
    prompt: &DecidePrompt,
) {
    let mut lines = above(asked, context, inner_width(screen));
    let options = asked.question.options.len();
    // The options, a line for a missing choice, a note of five lines and
    // the borders.
    let area = centered(screen, 76, height(lines.len(), options + 9));
    let inner = frame_box(
        frame,
        area,
        &format!("{} asks you", asked.who()),
        "↑/↓ choose · type a note · Enter answer · Esc later (the run waits)",
    );
    let width = usize::from(inner.width);
    for (i, option) in asked.question.options.iter().enumerate() {
        let picked = Some(i) == prompt.choice;
        let words = format!(
            " {} {} ",
            if picked { "▶" } else { " " },
            crate::sanitize::clean(&option.label)
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

/// The question as a replay shows it where the run waited for a person,
/// and the answer once given.
pub(crate) fn draw_record(
    frame: &mut Frame,
    screen: Rect,
    asked: &Asked,
    context: Option<Vec<Line<'static>>>,
) {
    let mut lines = above(asked, context, inner_width(screen));
    // The answer line and the borders.
    let area = centered(screen, 76, height(lines.len(), 5));
    let title = format!("{} asked a person", asked.who());
    let inner = frame_box(frame, area, &title, "replayed");
    let width = usize::from(inner.width);
    match &asked.answer {
        None => lines.push(Line::styled("Waiting for a person…", theme::bold())),
        Some((option, note)) => {
            let mut answer = format!("A person answered: {}", option.replace('_', " "));
            if let Some(note) = note {
                answer.push_str(&format!(" · “{note}”"));
            }
            lines.push(Line::styled(fit(&answer, width * 3), theme::bold()));
        }
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
