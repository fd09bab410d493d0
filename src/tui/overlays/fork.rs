//! The fork dialog of a replay: the gate the fork goes live at, the
//! scenario's flags as they stood there (each can be turned for the
//! fork), the goal and the model of the calls made live. Enter forks,
//! Esc drops it.

use super::frame_box;
use crate::cassette::{GateTarget, OutputEdit};
use crate::sanitize::clean;
use crate::tui::layout::centered;
use crate::tui::replay::ForkGate;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui_textarea::TextArea;
use std::path::PathBuf;

/// A flag of the fork: as it stood at the gate, and as the fork sets it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ForkFlag {
    pub(crate) name: String,
    pub(crate) at_gate: bool,
    pub(crate) on: bool,
}

/// The fork being asked for.
pub struct ForkPrompt {
    /// The recording forked.
    pub(crate) recording: PathBuf,
    pub(crate) gate: GateTarget,
    /// The gates before it, whose steps are served.
    pub(crate) served: Vec<GateTarget>,
    /// The replay stands past the last gate: its step runs again.
    pub(crate) again: bool,
    pub(crate) flags: Vec<ForkFlag>,
    /// The parent's goal as the goal field starts with it.
    pub(crate) parent_goal: String,
    /// The row with the focus: a flag, then the goal, then the model.
    pub(crate) row: usize,
    pub(crate) goal: TextArea<'static>,
    pub(crate) model: TextArea<'static>,
    /// A recorded output to serve changed (`review:/verdict=approve`),
    /// offered when the pane forked from names a node whose output it is.
    pub(crate) output: Option<TextArea<'static>>,
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

/// Rows the goal field takes: a goal is prose, wrapped to be read whole.
const GOAL_ROWS: u16 = 4;

impl ForkPrompt {
    pub(crate) fn new(
        recording: PathBuf,
        gate: ForkGate,
        flags: Vec<ForkFlag>,
        parent_goal: &str,
    ) -> Self {
        // The recording's goal, shown without what a terminal would act
        // on, and of several lines edited as one.
        let goal = one_line(&clean(parent_goal));
        let mut prompt = ForkPrompt {
            recording,
            gate: gate.at,
            served: gate.served,
            again: gate.again,
            flags,
            parent_goal: goal.clone(),
            row: 0,
            goal: field(&goal, "the goal of the calls made live"),
            model: field(
                "",
                "the model of the calls made live (the dashboard's if blank)",
            ),
            output: None,
        };
        prompt.show_cursor();
        prompt
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

    fn goal_row(&self) -> usize {
        self.flags.len()
    }

    /// The next or the previous row.
    pub(crate) fn move_by(&mut self, down: bool) {
        let last = self.goal_row() + 1 + usize::from(self.output.is_some());
        self.row = if down {
            (self.row + 1).min(last)
        } else {
            self.row.saturating_sub(1)
        };
        self.show_cursor();
    }

    /// The cursor shows in the field with the focus alone.
    fn show_cursor(&mut self) {
        let (goal, model) = (self.row == self.goal_row(), self.row == self.goal_row() + 1);
        let cursor = |on: bool| {
            if on {
                Style::default().add_modifier(ratatui::style::Modifier::REVERSED)
            } else {
                Style::default()
            }
        };
        self.goal.set_cursor_style(cursor(goal));
        self.model.set_cursor_style(cursor(model));
        let output = self.row == self.goal_row() + 2;
        if let Some(field) = &mut self.output {
            field.set_cursor_style(cursor(output));
        }
    }

    /// The field with the focus, when a text row has it.
    pub(crate) fn field_mut(&mut self) -> Option<&mut TextArea<'static>> {
        match self.row.checked_sub(self.goal_row()) {
            Some(0) => Some(&mut self.goal),
            Some(1) => Some(&mut self.model),
            Some(2) => self.output.as_mut(),
            _ => None,
        }
    }

    /// Space: turn the flag with the focus, or type a space in a field.
    pub(crate) fn toggle(&mut self) {
        if let Some(flag) = self.flags.get_mut(self.row) {
            flag.on = !flag.on;
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

    /// The model typed, if any.
    pub(crate) fn model(&self) -> Option<String> {
        let model = self.model.lines().join("").trim().to_string();
        (!model.is_empty()).then_some(model)
    }
}

/// The dialog over `screen`.
pub(crate) fn draw(frame: &mut Frame, screen: Rect, prompt: &ForkPrompt) {
    // The path, what is served and what runs live, a blank, the flags (or
    // a line saying there are none), a blank, the goal and the model, in a
    // frame.
    let rows = u16::try_from(prompt.flags.len()).unwrap_or(8).clamp(1, 12);
    let output_rows = u16::from(prompt.output.is_some());
    let area = centered(screen, 90, rows + 8 + GOAL_ROWS - 1 + output_rows);
    let title = format!("Fork at {}", prompt.gate);
    let hint = "↑/↓ row · space turns a flag · type goal/model · Enter forks · Esc cancels";
    let inner = frame_box(frame, area, &title, hint);
    let width = usize::from(inner.width);
    let mut lines = vec![
        Line::raw(fit(&clean(&prompt.recording.display().to_string()), width)),
        Line::raw(fit(&served_and_live(prompt), width)),
        Line::raw(""),
    ];
    if prompt.flags.is_empty() {
        lines.push(Line::styled("  this scenario has no flags", theme::dim()));
    }
    for (i, flag) in prompt.flags.iter().enumerate() {
        lines.push(flag_line(flag, i == prompt.row, width));
    }
    lines.push(Line::raw(""));
    let text_height = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    frame.render_widget(Paragraph::new(lines), inner);
    let goal_row = prompt.goal_row();
    let mut fields = vec![
        ("goal  ", &prompt.goal, 0, GOAL_ROWS),
        ("model ", &prompt.model, GOAL_ROWS, 1),
    ];
    if let Some(output) = &prompt.output {
        fields.push(("edit  ", output, GOAL_ROWS + 1, 1));
    }
    for (offset, (label, field, below, height)) in fields.into_iter().enumerate() {
        let y = inner.y + text_height + below;
        if y >= inner.y + inner.height {
            break;
        }
        let height = height.min(inner.y + inner.height - y);
        let focused = prompt.row == goal_row + offset;
        let label_style = if focused {
            theme::selected().patch(theme::bold())
        } else {
            theme::bold()
        };
        let row = Rect { y, height, ..inner };
        frame.render_widget(Span::styled(label, label_style), row);
        let text = Rect {
            x: row.x + 6,
            width: row.width.saturating_sub(6),
            ..row
        };
        frame.render_widget(field, text);
    }
}

/// Which steps the fork serves and where it goes live: `served: rounds
/// 1–2 (as the replay shows them) · live: round 3 on`.
pub(crate) fn served_and_live(prompt: &ForkPrompt) -> String {
    let served = match prompt.served.as_slice() {
        [] => "nothing".to_string(),
        [only] => only.to_string(),
        [first, .., last] if first.kind == last.kind => {
            format!("{}s {}–{}", first.kind.as_str(), first.number, last.number)
        }
        [first, .., last] => format!("{first} to {last}"),
    };
    let shown = match (prompt.served.len(), prompt.again) {
        (0, _) | (_, true) => "",
        (1, false) => " (as the replay shows it)",
        (_, false) => " (as the replay shows them)",
    };
    let again = if prompt.again {
        ", which the replay has shown"
    } else {
        ""
    };
    format!("served: {served}{shown} · live: {} on{again}", prompt.gate)
}

/// A flag's row: its state for the fork, its name, and what it was at
/// the gate when the fork turns it.
fn flag_line(flag: &ForkFlag, selected: bool, width: usize) -> Line<'static> {
    let state = if flag.on { "[on ]" } else { "[off]" };
    let mut spans = vec![
        Span::styled(
            format!("  {state} "),
            Style::default().fg(if flag.on { theme::GO } else { theme::BLOCK }),
        ),
        Span::styled(
            fit(&clean(&flag.name), width.saturating_sub(34)),
            theme::bold(),
        ),
    ];
    if flag.on != flag.at_gate {
        let was = if flag.at_gate { "on" } else { "off" };
        spans.push(Span::styled(
            format!("  (was {was}: turned at the gate)"),
            Style::default().fg(theme::CAUTION),
        ));
    }
    let line = Line::from(spans);
    if selected {
        line.patch_style(theme::selected())
    } else {
        line
    }
}
