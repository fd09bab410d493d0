//! The fork dialog drawn: the recording, the gate (←/→ picks another),
//! what is served and what runs live, the flags, the goal, model and edit
//! fields, and the answer to the question the fork will meet.

use super::{ForkFlag, ForkPrompt, Row};
use crate::sanitize::clean;
use crate::tui::layout::centered;
use crate::tui::overlays::frame_box;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Rows the goal field takes: a goal is prose, wrapped to be read whole.
const GOAL_ROWS: u16 = 4;

/// The dialog over `screen`.
pub(crate) fn draw(frame: &mut Frame, screen: Rect, prompt: &ForkPrompt) {
    // The path, the gate, what is served and what runs live, a blank, the
    // flags (or a line saying there are none), a blank, the goal, the
    // model and the edit, and the answer with its question, in a frame.
    let rows = u16::try_from(prompt.flags.len()).unwrap_or(8).clamp(1, 12);
    let output_rows = u16::from(prompt.output.is_some());
    let answer_rows = 2 * u16::from(prompt.answer.is_some());
    let area = centered(
        screen,
        90,
        rows + 9 + GOAL_ROWS - 1 + output_rows + answer_rows,
    );
    let title = format!("Fork at {}", prompt.gate);
    let hint = "↑/↓ row · ←/→ gate, answer · space turns a flag · Enter forks · Esc cancels";
    let inner = frame_box(frame, area, &title, hint);
    let width = usize::from(inner.width);
    let focused = prompt.focused();
    let mut lines = vec![
        Line::raw(fit(&clean(&prompt.recording.display().to_string()), width)),
        gate_line(prompt, focused == Row::Gate, width),
        Line::raw(fit(&served_and_live(prompt), width)),
        Line::raw(""),
    ];
    if prompt.flags.is_empty() {
        lines.push(Line::styled("  this scenario has no flags", theme::dim()));
    }
    for (i, flag) in prompt.flags.iter().enumerate() {
        lines.push(flag_line(flag, focused == Row::Flag(i), width));
    }
    lines.push(Line::raw(""));
    let text_height = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    frame.render_widget(Paragraph::new(lines), inner);
    let mut fields = vec![
        ("goal  ", &prompt.goal, Row::Goal, GOAL_ROWS),
        ("model ", &prompt.model, Row::Model, 1),
    ];
    if let Some(output) = &prompt.output {
        fields.push(("edit  ", output, Row::Edit, 1));
    }
    let mut y = inner.y + text_height;
    let bottom = inner.y + inner.height;
    for (label, field, row, height) in fields {
        if y >= bottom {
            return;
        }
        let height = height.min(bottom - y);
        let area = Rect { y, height, ..inner };
        frame.render_widget(Span::styled(label, label_style(focused == row)), area);
        let text = Rect {
            x: area.x + 6,
            width: area.width.saturating_sub(6),
            ..area
        };
        frame.render_widget(field, text);
        y += height;
    }
    if y < bottom {
        let area = Rect {
            y,
            height: (bottom - y).min(2),
            ..inner
        };
        frame.render_widget(Paragraph::new(answer_lines(prompt, focused, width)), area);
    }
}

fn label_style(focused: bool) -> Style {
    if focused {
        theme::selected().patch(theme::bold())
    } else {
        theme::bold()
    }
}

/// `gate  ‹ round 2 ›  2 of 3 gates`.
fn gate_line(prompt: &ForkPrompt, focused: bool, width: usize) -> Line<'static> {
    let of = format!(
        "  {} of {} gates the run passed",
        prompt.chosen + 1,
        prompt.gates.len()
    );
    Line::from(vec![
        Span::styled("gate  ", label_style(focused)),
        Span::styled(format!("‹ {} ›", prompt.gate), theme::bold()),
        Span::styled(fit(&of, width.saturating_sub(20)), theme::dim()),
    ])
}

/// The answer row and the question's words: `answer ‹ a person answers ›`
/// then `the table asks after round 2: go, go_with_caution, no_go`.
fn answer_lines(prompt: &ForkPrompt, focused: Row, width: usize) -> Vec<Line<'static>> {
    let Some(answer) = &prompt.answer else {
        return Vec::new();
    };
    let question = &answer.question;
    let picked = answer
        .picked
        .and_then(|i| question.options.get(i))
        .map_or("a person answers (the dashboard asks)".to_string(), |o| {
            clean(&o.name).into_owned()
        });
    let options: Vec<String> = question
        .options
        .iter()
        .map(|o| clean(&o.name).into_owned())
        .collect();
    let asked = if answer.recorded {
        "asked after the gate"
    } else {
        "the scenario may ask"
    };
    let words = format!(
        "  {} · {asked} {}: {}",
        clean(&question.asker),
        clean(&question.when),
        options.join(", ")
    );
    vec![
        Line::from(vec![
            Span::styled("answer", label_style(focused == Row::Answer)),
            Span::raw(" "),
            Span::styled(
                fit(&format!("‹ {picked} ›"), width.saturating_sub(7)),
                theme::bold(),
            ),
        ]),
        Line::styled(fit(&words, width), theme::dim()),
    ]
}

/// Which steps the fork serves and where it goes live: `served: rounds
/// 1–2 (as the replay shows them) · live: round 3 on`.
fn served_and_live(prompt: &ForkPrompt) -> String {
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
