//! The fork dialog of a replay: the gate the fork goes live at (any the
//! run passed, the one after what the replay shows to start), the
//! scenario's flags as they stood there (each can be turned for the
//! fork), the goal and the model of the calls made live, a recorded output
//! to serve changed, and the answer to the question the live part will
//! meet. Enter forks, Esc drops it.

mod draw;

use crate::bus::{FlagState, GivenAnswer, Question};
use crate::cassette::{GateTarget, OutputEdit};
use crate::sanitize::clean;
use crate::tui::replay::ForkGate;
use ratatui::style::Style;
use ratatui_textarea::TextArea;
use std::path::PathBuf;

pub(crate) use draw::draw;

/// A flag of the fork: as it stood at the gate, and as the fork sets it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ForkFlag {
    pub(crate) name: String,
    pub(crate) at_gate: bool,
    pub(crate) on: bool,
}

/// A row of the dialog, top to bottom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Row {
    Gate,
    Flag(usize),
    Goal,
    Model,
    Edit,
    Answer,
}

/// The answer the fork gives a question it meets: `None` leaves it to a
/// person (the dashboard asks), as the run would.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AnswerChoice {
    pub(crate) question: Question,
    /// The run asked it after the gate (else the scenario may ask it).
    pub(crate) recorded: bool,
    /// The option picked, by its place in the question's.
    pub(crate) picked: Option<usize>,
}

/// What a fork's answer is called where it is refused.
pub(crate) const ANSWER_FLAG: &str = "the fork's answer";

/// The fork being asked for.
pub struct ForkPrompt {
    /// The recording forked.
    pub(crate) recording: PathBuf,
    pub(crate) gate: GateTarget,
    /// The gates before it, whose steps are served.
    pub(crate) served: Vec<GateTarget>,
    /// The replay has shown the gate's step: it runs again.
    pub(crate) again: bool,
    /// Every gate the fork may go live at, and the one chosen.
    pub(crate) gates: Vec<ForkGate>,
    pub(crate) chosen: usize,
    pub(crate) flags: Vec<ForkFlag>,
    /// The parent's goal as the goal field starts with it.
    pub(crate) parent_goal: String,
    /// The row with the focus, by its place in [`ForkPrompt::rows`].
    pub(crate) row: usize,
    pub(crate) goal: TextArea<'static>,
    pub(crate) model: TextArea<'static>,
    /// A recorded output to serve changed (`review:/verdict=approve`),
    /// offered when the pane forked from names a node whose output it is.
    pub(crate) output: Option<TextArea<'static>>,
    /// Offered when the fork may meet a question: the recorded one after
    /// the gate, else one the scenario may ask.
    pub(crate) answer: Option<AnswerChoice>,
    /// The question the scenario may ask, for a gate after which the run
    /// asked none.
    pub(crate) may_ask: Option<Question>,
}

/// `text`'s lines joined by spaces.
fn one_line(text: &str) -> String {
    text.lines().collect::<Vec<_>>().join(" ")
}

/// A one-line field holding `text`, the cursor at its end.
fn field(text: &str, placeholder: &str) -> TextArea<'static> {
    let mut area = TextArea::new(vec![text.to_string()]);
    area.set_cursor_line_style(Style::default());
    area.set_placeholder_text(placeholder);
    area.move_cursor(ratatui_textarea::CursorMove::End);
    area.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
    area
}

impl ForkPrompt {
    /// The dialog at `gates[chosen]`; `may_ask` is a question the
    /// scenario may ask, offered where the run asked none after the gate.
    pub(crate) fn new(
        recording: PathBuf,
        (gates, chosen): (Vec<ForkGate>, usize),
        parent_goal: &str,
        may_ask: Option<Question>,
    ) -> Self {
        // The recording's goal, shown without what a terminal would act
        // on, and of several lines edited as one.
        let goal = one_line(&clean(parent_goal));
        let first = gates[chosen].clone();
        let mut prompt = ForkPrompt {
            recording,
            gate: first.at,
            served: first.served.clone(),
            again: first.again,
            flags: Vec::new(),
            gates,
            chosen,
            parent_goal: goal.clone(),
            // The first flag, or the goal: the gate row is above.
            row: 1,
            goal: field(&goal, "the goal of the calls made live"),
            model: field(
                "",
                "the model of the calls made live (the dashboard's if blank)",
            ),
            output: None,
            answer: None,
            may_ask,
        };
        prompt.choose(chosen);
        prompt.show_cursor();
        prompt
    }

    /// Go live at `gates[index]`: its flags as they stood there (a flag
    /// the user turned stays turned), and its question.
    fn choose(&mut self, index: usize) {
        let Some(gate) = self.gates.get(index) else {
            return;
        };
        let turned: Vec<(String, bool)> = self.changed_flags();
        self.chosen = index;
        self.gate = gate.at;
        self.served.clone_from(&gate.served);
        self.again = gate.again;
        self.flags = gate
            .flags
            .iter()
            .map(|FlagState { name, on }| ForkFlag {
                name: name.clone(),
                at_gate: *on,
                on: turned
                    .iter()
                    .find(|(turned, _)| turned == name)
                    .map_or(*on, |(_, on)| *on),
            })
            .collect();
        let picked = self.given_answer().map(|given| given.option);
        let (question, recorded) = match (&gate.question, &self.may_ask) {
            (Some(question), _) => (question.clone(), true),
            (None, Some(question)) => (question.clone(), false),
            (None, None) => {
                self.answer = None;
                return;
            }
        };
        let picked = picked.and_then(|name| question.options.iter().position(|o| o.name == name));
        self.answer = Some(AnswerChoice {
            question,
            recorded,
            picked,
        });
    }

    /// ←/→ on the gate or the answer row: the gate before or after, or
    /// the answer before or after ("a person answers" comes first).
    /// Whether the row takes the key.
    pub(crate) fn step_choice(&mut self, forward: bool) -> bool {
        match self.focused() {
            Row::Gate => {
                let next = if forward {
                    (self.chosen + 1).min(self.gates.len().saturating_sub(1))
                } else {
                    self.chosen.saturating_sub(1)
                };
                self.choose(next);
                true
            }
            Row::Answer => {
                if let Some(answer) = &mut self.answer {
                    let count = answer.question.options.len();
                    answer.picked = match (answer.picked, forward) {
                        (None, true) if count > 0 => Some(0),
                        (Some(i), true) => Some((i + 1).min(count.saturating_sub(1))),
                        (Some(0) | None, false) => None,
                        (Some(i), false) => Some(i - 1),
                        (None, true) => None,
                    };
                }
                true
            }
            _ => false,
        }
    }

    /// The dialog's rows, top to bottom.
    pub(crate) fn rows(&self) -> Vec<Row> {
        let mut rows = vec![Row::Gate];
        rows.extend((0..self.flags.len()).map(Row::Flag));
        rows.extend([Row::Goal, Row::Model]);
        if self.output.is_some() {
            rows.push(Row::Edit);
        }
        if self.answer.is_some() {
            rows.push(Row::Answer);
        }
        rows
    }

    /// The row with the focus.
    pub(crate) fn focused(&self) -> Row {
        let rows = self.rows();
        rows[self.row.min(rows.len() - 1)]
    }

    /// The dialog with an output field, holding `text` (a node's output
    /// as its pane offers it to edit: `review:/verdict="approve"`).
    pub(crate) fn with_output(mut self, text: &str) -> Self {
        self.output = Some(field(
            &one_line(&clean(text)),
            "a recorded output to serve changed: NODE:/POINTER=VALUE",
        ));
        self.show_cursor();
        self
    }

    /// The next or the previous row.
    pub(crate) fn move_by(&mut self, down: bool) {
        let last = self.rows().len() - 1;
        self.row = if down {
            (self.row + 1).min(last)
        } else {
            self.row.saturating_sub(1)
        };
        self.show_cursor();
    }

    /// The cursor shows in the field with the focus alone.
    fn show_cursor(&mut self) {
        let focused = self.focused();
        let cursor = |row: Row| {
            if row == focused {
                Style::default().add_modifier(ratatui::style::Modifier::REVERSED)
            } else {
                Style::default()
            }
        };
        self.goal.set_cursor_style(cursor(Row::Goal));
        self.model.set_cursor_style(cursor(Row::Model));
        if let Some(field) = &mut self.output {
            field.set_cursor_style(cursor(Row::Edit));
        }
    }

    /// The field with the focus, when a text row has it.
    pub(crate) fn field_mut(&mut self) -> Option<&mut TextArea<'static>> {
        match self.focused() {
            Row::Goal => Some(&mut self.goal),
            Row::Model => Some(&mut self.model),
            Row::Edit => self.output.as_mut(),
            _ => None,
        }
    }

    /// Space: turn the flag with the focus, or type a space in a field.
    pub(crate) fn toggle(&mut self) {
        if let Row::Flag(i) = self.focused() {
            self.flags[i].on = !self.flags[i].on;
        } else if let Some(field) = self.field_mut() {
            field.insert_char(' ');
        }
    }

    /// The flags the fork sets otherwise than they stood at the gate.
    pub(crate) fn changed_flags(&self) -> Vec<(String, bool)> {
        self.flags
            .iter()
            .filter(|flag| flag.on != flag.at_gate)
            .map(|flag| (flag.name.clone(), flag.on))
            .collect()
    }

    /// The goal, when it is not the parent's (nor blank).
    pub(crate) fn changed_goal(&self) -> Option<String> {
        let goal = self.goal.lines().join(" ").trim().to_string();
        (!goal.is_empty() && goal != self.parent_goal.trim()).then_some(goal)
    }

    /// The output edit typed, if any; what is wrong with it, in words.
    pub(crate) fn edits(&self) -> Result<Vec<OutputEdit>, String> {
        let Some(field) = &self.output else {
            return Ok(Vec::new());
        };
        let text = field.lines().join("").trim().to_string();
        if text.is_empty() {
            return Ok(Vec::new());
        }
        text.parse()
            .map(|edit| vec![edit])
            .map_err(|e: crate::cassette::EditError| e.to_string())
    }

    /// The answer picked for the question the fork meets, if one is.
    pub(crate) fn given_answer(&self) -> Option<GivenAnswer> {
        let answer = self.answer.as_ref()?;
        let option = answer.question.options.get(answer.picked?)?;
        Some(GivenAnswer::new(option.name.clone(), ANSWER_FLAG))
    }

    /// The model typed, if any.
    pub(crate) fn model(&self) -> Option<String> {
        let model = self.model.lines().join("").trim().to_string();
        (!model.is_empty()).then_some(model)
    }
}
