//! The steering dialogs over a watched run whose hook talks to the watch
//! (docs/steer.md): the run's flags, an approval with the agent, the tool
//! and its arguments whole, a question with its options or the answer
//! typed, a stop to confirm; and the header's line of where the run
//! waits (`PAUSED at tool lookup_invoice · Billing Agent`, what waits for
//! a person, a stop). Every text from a hook is cleaned (`fit`, `rows`)
//! before it is drawn.

use crate::span::TraceId;
use crate::tui::keymap::OverlayKind;
use crate::tui::layout::centered;
use crate::tui::text::fit;
use crate::tui::theme;
use crate::watch::steer::words::gate_words;
use crate::watch::steer::{Ask, RunView};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

/// A steering dialog over the screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SteerDialog {
    /// The run's flags, one selected.
    Flags { trace: TraceId, selected: usize },
    /// An approval or a question waiting in the run: the option chosen
    /// (approve/reject, or the question's options) and the text typed
    /// (the reason of a rejection, or a free answer).
    Decide {
        trace: TraceId,
        id: u64,
        choice: usize,
        note: String,
    },
    /// A stop, to confirm, with the reason typed.
    Stop { trace: TraceId, reason: String },
    /// The watch's breakpoints (every run's), a name being typed; `trace`
    /// the run on screen, when there is one.
    Break { trace: TraceId, name: String },
}

impl SteerDialog {
    /// The run the dialog acts on.
    pub(crate) fn trace(&self) -> TraceId {
        match self {
            SteerDialog::Flags { trace, .. }
            | SteerDialog::Decide { trace, .. }
            | SteerDialog::Stop { trace, .. }
            | SteerDialog::Break { trace, .. } => *trace,
        }
    }

    /// Where its keys are looked up.
    pub(crate) fn kind(&self) -> OverlayKind {
        match self {
            SteerDialog::Flags { .. } => OverlayKind::Flags,
            SteerDialog::Decide { .. } => OverlayKind::Decide,
            SteerDialog::Stop { .. } => OverlayKind::StopRun,
            SteerDialog::Break { .. } => OverlayKind::Break,
        }
    }

    /// A letter typed into the decision's note or the stop's reason
    /// (`None`: Backspace).
    pub(crate) fn type_note(&mut self, typed: Option<char>) {
        if let SteerDialog::Decide { note, .. }
        | SteerDialog::Stop { reason: note, .. }
        | SteerDialog::Break { name: note, .. } = self
        {
            match typed {
                Some(c) if note.chars().count() < 2000 => note.push(c),
                Some(_) => {}
                None => {
                    note.pop();
                }
            }
        }
    }
}

/// An approval's options besides plain `approve`.
pub(crate) const APPROVE_FOR_THE_RUN: &str = "approve this tool for the rest of the run";
pub(crate) const APPROVE_EDITED: &str = "approve with the arguments typed (JSON)";
pub(crate) const REJECT: &str = "reject (with the reason typed)";

/// The options a decision offers: an approval's, or the question's own
/// (none: a free answer is typed).
pub(crate) fn options_of(ask: &Ask) -> Vec<String> {
    match ask {
        Ask::Approval { .. } => ["approve", APPROVE_FOR_THE_RUN, APPROVE_EDITED, REJECT]
            .map(String::from)
            .to_vec(),
        Ask::Question { options, .. } => options.clone(),
        Ask::Gate { .. } => Vec::new(),
    }
}

/// The header's steering line, and whether it asks for the person.
pub(crate) fn steer_line(view: &RunView) -> (String, bool) {
    if let Some(reason) = &view.stopped {
        return (format!("⏹ stopped: {reason}"), true);
    }
    let person: Vec<String> = view
        .waiting
        .iter()
        .filter(|w| !matches!(w.ask, Ask::Gate { .. }))
        .map(|w| gate_words(&w.ask))
        .collect();
    let gate = view
        .waiting
        .iter()
        .find(|w| matches!(w.ask, Ask::Gate { .. }));
    let mut line = match (view.paused, gate) {
        (true, Some(gate)) => format!(
            "⏸ PAUSED at {} · s steps, space runs on",
            gate_words(&gate.ask)
        ),
        (true, None) => "⏸ PAUSED: holds at its next gate · s steps, space runs on".to_string(),
        (false, _) => format!("▶ steered · {} gates · space pauses", view.gates),
    };
    if !person.is_empty() {
        line.push_str(&format!(
            " · waits for you: {} · d decides",
            person.join(", ")
        ));
    }
    (line, view.paused || !person.is_empty())
}

/// The breakpoints dialog: those set, the name typed.
pub(crate) fn draw_breaks(frame: &mut Frame, screen: Rect, breaks: &[String], name: &str) {
    let width = screen.width.saturating_sub(4).clamp(20, 100);
    let inner_width = usize::from(width.saturating_sub(2));
    let mut lines = vec![Line::raw(fit(
        crate::watch::steer::protocol::BREAK_DIALOG,
        inner_width,
    ))];
    if breaks.is_empty() {
        lines.push(Line::styled("  (none)", theme::dim()));
    }
    for set in breaks {
        lines.push(Line::raw(fit(&format!("  ● {set}"), inner_width)));
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("name: ", theme::dim()),
        Span::raw(fit(&format!("{name}▏"), inner_width.saturating_sub(6))),
    ]));
    lines.push(Line::styled(
        fit(
            "type · Enter sets it (clears it when set) · Esc closes",
            inner_width,
        ),
        theme::dim(),
    ));
    boxed(frame, screen, width, "Breakpoints", lines);
}

fn boxed(frame: &mut Frame, screen: Rect, width: u16, title: &str, lines: Vec<Line<'static>>) {
    let inner_width = usize::from(width.saturating_sub(2));
    let most = screen.height.saturating_sub(2).max(3);
    let height = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX).min(most);
    let area = centered(screen, width, height);
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .border_style(theme::border(true))
        .title(Line::styled(fit(title, inner_width), theme::bold()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The open steering dialog over the screen, for the run `view` lists.
pub(crate) fn draw(frame: &mut Frame, screen: Rect, view: &RunView, dialog: &SteerDialog) {
    let width = screen.width.saturating_sub(4).clamp(20, 100);
    let inner_width = usize::from(width.saturating_sub(2));
    let (title, lines) = match dialog {
        SteerDialog::Break { .. } => return,
        SteerDialog::Flags { selected, .. } => flag_lines(view, *selected, inner_width),
        SteerDialog::Decide {
            id, choice, note, ..
        } => match view.waiting.iter().find(|w| w.id == *id) {
            Some(wait) => decide_lines(&wait.ask, *choice, note, inner_width),
            None => return,
        },
        SteerDialog::Stop { reason, .. } => (
            "Stop this run?".to_string(),
            vec![
                Line::raw("Its hook ends the run as its framework ends one"),
                Line::raw("(an exception, a termination); the run says"),
                Line::raw("\"stopped by a person\" and the reason typed."),
                Line::raw(""),
                Line::from(vec![
                    Span::styled("reason: ", theme::dim()),
                    Span::raw(fit(&format!("{reason}▏"), inner_width.saturating_sub(8))),
                ]),
                Line::styled("type · Enter stops it · Esc keeps it running", theme::dim()),
            ],
        ),
    };
    boxed(frame, screen, width, &title, lines);
}

fn flag_lines(view: &RunView, selected: usize, width: usize) -> (String, Vec<Line<'static>>) {
    let mut lines = Vec::new();
    for (i, flag) in view.flags.iter().enumerate() {
        let mark = if flag.on { "[x]" } else { "[ ]" };
        let default = if flag.default { "on" } else { "off" };
        let text = format!(
            "{mark} {}  {} (default {default})",
            flag.name, flag.description
        );
        let style = if i == selected {
            theme::selected()
        } else {
            Style::default()
        };
        lines.push(Line::styled(fit(&text, width), style));
    }
    lines.push(Line::styled(
        fit(
            "Enter/space toggles (the hook sees it at its next gate) · Esc closes",
            width,
        ),
        theme::dim(),
    ));
    ("Flags of this run".to_string(), lines)
}

fn decide_lines(
    ask: &Ask,
    choice: usize,
    note: &str,
    width: usize,
) -> (String, Vec<Line<'static>>) {
    let mut lines = Vec::new();
    let mut said = |label: &str, text: &str| {
        for (i, row) in rows(text, width.saturating_sub(11).max(8))
            .into_iter()
            .enumerate()
        {
            let head = if i == 0 { label } else { "" };
            lines.push(Line::from(vec![
                Span::styled(format!("{head:<10} "), theme::dim()),
                Span::raw(fit(&row, width.saturating_sub(11))),
            ]));
        }
    };
    let (title, typed) = match ask {
        Ask::Approval {
            tool,
            agent,
            arguments,
        } => {
            said("agent", agent.as_deref().unwrap_or("(not named)"));
            said("tool", tool);
            let arguments = serde_json::to_string_pretty(arguments).unwrap_or_default();
            for (i, row) in arguments.lines().enumerate() {
                let head = if i == 0 { "arguments" } else { "" };
                said(head, row);
            }
            (
                "Approve this tool call?",
                "reason to reject, or arguments (JSON)",
            )
        }
        Ask::Question {
            question, agent, ..
        } => {
            said("agent", agent.as_deref().unwrap_or("(not named)"));
            said("asks", question);
            ("A question for you", "answer")
        }
        Ask::Gate { .. } => ("A gate", "note"),
    };
    lines.push(Line::raw(""));
    for (i, option) in options_of(ask).iter().enumerate() {
        let (mark, style) = if i == choice {
            ("▶", theme::selected())
        } else {
            (" ", Style::default())
        };
        lines.push(Line::styled(fit(&format!("{mark} {option}"), width), style));
    }
    lines.push(Line::from(vec![
        Span::styled(format!("{typed}: "), theme::dim()),
        Span::raw(fit(
            &format!("{note}▏"),
            width.saturating_sub(typed.len() + 2),
        )),
    ]));
    lines.push(Line::styled(
        fit(
            "↑/↓ choose · type · Enter answers · Esc later (d reopens)",
            width,
        ),
        theme::dim(),
    ));
    (title.to_string(), lines)
}

/// `text` in rows of at most `width` characters, every character kept
/// (arguments are shown whole).
fn rows(text: &str, width: usize) -> Vec<String> {
    let chars: Vec<char> = crate::sanitize::clean(text).chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    chars
        .chunks(width.max(1))
        .map(|c| c.iter().collect())
        .collect()
}
