//! The result: the final decision (or health, or grounded answer), the stop
//! reason and phase, the rounds, tasks or sources used, and the brief or
//! answer with its citations; while the run is live, what it is doing.

use super::block;
use crate::bus::{Decision, Health, RunStatus};
use crate::scenario::PatternKind;
use crate::tui::keymap::PaneId;
use crate::tui::panes::timeline::unit_word;
use crate::tui::runs::RunSlot;
use crate::tui::state::{Activity, MemberState, RunState, TaskState};
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

pub fn draw(frame: &mut Frame, area: Rect, slot: &RunSlot, focused: bool) {
    let state = &slot.state;
    let block = block(PaneId::Result, "Result", focused);
    let lines = match &state.outcome {
        Some(outcome) => {
            let mut lines = Vec::new();
            let summary = &outcome.summary;
            match (summary.decision, summary.health, &summary.final_agent) {
                (Some(decision), _, _) => lines.push(Line::styled(
                    fit(&decision.as_str().replace('_', " ").to_uppercase(), 40),
                    theme::decision(decision),
                )),
                _ if is_research(state) => lines.push(if outcome.status == RunStatus::Ok {
                    Line::styled("GROUNDED ANSWER", theme::decision(Decision::Go))
                } else {
                    Line::styled("NO ANSWER", theme::decision(Decision::NoGo))
                }),
                (None, Some(health), _) => lines.push(Line::styled(
                    format!("HEALTH {}", health.as_str().to_uppercase()),
                    theme::decision(match health {
                        Health::Green => Decision::Go,
                        Health::Yellow => Decision::GoWithCaution,
                        Health::Red => Decision::NoGo,
                    }),
                )),
                (None, None, Some(agent)) => {
                    let (words, style) = match outcome.status {
                        RunStatus::Ok => ("ANSWERED BY", theme::decision(Decision::Go)),
                        RunStatus::Stopped => ("STOPPED WITH", theme::decision(Decision::NoGo)),
                    };
                    lines.push(Line::styled(format!("{words} {}", fit(agent, 30)), style));
                }
                (None, None, None) => lines.push(Line::styled(
                    "NO DECISION",
                    if outcome.status == RunStatus::Ok {
                        theme::bold()
                    } else {
                        theme::error().patch(theme::bold())
                    },
                )),
            }
            let reason_style = match outcome.status {
                RunStatus::Ok => Style::default().fg(theme::GO),
                RunStatus::Stopped => theme::error(),
            };
            lines.push(Line::from(vec![
                Span::styled("stop reason ", theme::dim()),
                Span::styled(fit(&outcome.stop_reason.to_string(), 200), reason_style),
            ]));
            if let Some(phase) = &outcome.phase {
                lines.push(Line::from(vec![
                    Span::styled("phase       ", theme::dim()),
                    Span::raw(fit(phase, 200)),
                ]));
            }
            if let Some(error) = &outcome.error {
                lines.push(Line::from(vec![
                    Span::styled("model error ", theme::dim()),
                    Span::styled(fit(error, 400), theme::error()),
                ]));
            }
            if let Some(info) = state
                .info
                .as_ref()
                .filter(|i| matches!(i.pattern, PatternKind::Swarm | PatternKind::Coordinator))
            {
                lines.extend(team_lines(state, info.pattern));
            } else if is_research(state) {
                lines.extend(research_lines(state));
            } else if state.workers.tasks.is_empty() {
                let rounds = outcome
                    .summary
                    .counts
                    .rounds
                    .map_or_else(|| state.table.rounds.len().to_string(), |n| n.to_string());
                lines.push(Line::from(vec![
                    Span::styled("rounds      ", theme::dim()),
                    Span::raw(rounds),
                ]));
            } else {
                lines.extend(task_lines(state));
            }
            if let Some(answer) = &outcome.summary.answer {
                lines.push(Line::raw(""));
                lines.push(Line::raw(fit(answer, 20_000)));
            }
            if is_research(state) {
                lines.extend(citation_lines(state));
            }
            lines
        }
        None => {
            let doing = match &state.activity {
                Activity::Starting => "Starting…".to_string(),
                Activity::Paused { gate } => {
                    let unit = state.info.as_ref().map_or("gate", |i| unit_word(i.pattern));
                    format!("Paused {gate}. space resumes, s runs one {unit}.")
                }
                Activity::Running | Activity::Finished if is_research(state) => {
                    let step = state.research.current.map_or("starting".to_string(), |p| {
                        format!("step {} ({p})", p.step())
                    });
                    match &state.calling {
                        Some(label) => format!("Running {step}: calling {}.", fit(label, 60)),
                        None => format!("Running {step}."),
                    }
                }
                Activity::Running | Activity::Finished => match &state.calling {
                    Some(label) => format!("Running: asking the model ({}).", fit(label, 60)),
                    None => "Running.".to_string(),
                },
            };
            let later = if is_research(state) {
                "The grounded answer and its sources appear here when the run ends."
            } else {
                "The decision and the brief appear here when the run ends."
            };
            vec![
                Line::styled(doing, theme::dim()),
                Line::raw(""),
                Line::styled(later, theme::dim()),
            ]
        }
    };
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((slot.ui.result_scroll, 0)),
        area,
    );
}

/// The chain, the transfers and the model calls of a swarm; the member
/// calls of a coordinator.
fn team_lines(state: &RunState, pattern: PatternKind) -> Vec<Line<'static>> {
    let chain = &state.chain;
    let mut lines = Vec::new();
    if pattern == PatternKind::Swarm {
        let refused = chain
            .handoffs
            .iter()
            .filter(|h| h.rejected.is_some())
            .count();
        let agents: Vec<&str> = chain.links.iter().map(|l| l.agent.as_str()).collect();
        lines.push(Line::from(vec![
            Span::styled("chain       ", theme::dim()),
            Span::raw(fit(&agents.join(" → "), 200)),
        ]));
        lines.push(Line::from(vec![
            Span::styled("handoffs    ", theme::dim()),
            Span::raw(format!(
                "{} asked, {} accepted, {refused} refused",
                chain.handoffs.len(),
                chain.handoffs.len() - refused
            )),
        ]));
    } else {
        let done = chain
            .members
            .iter()
            .filter(|m| matches!(m.state, MemberState::Done { .. }))
            .count();
        lines.push(Line::from(vec![
            Span::styled("members     ", theme::dim()),
            Span::raw(format!(
                "{} calls, {done} answered, {} failed",
                chain.members.len(),
                chain.members.len() - done
            )),
        ]));
    }
    lines.push(Line::from(vec![
        Span::styled("llm calls   ", theme::dim()),
        Span::raw(format!("{}", chain.llm_calls)),
    ]));
    lines
}

fn is_research(state: &RunState) -> bool {
    state
        .info
        .as_ref()
        .is_some_and(|i| i.pattern == PatternKind::Research)
}

/// The sources' and notes' tally, for a research run.
fn research_lines(state: &RunState) -> Vec<Line<'static>> {
    let c = state.research.counts();
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
fn citation_lines(state: &RunState) -> Vec<Line<'static>> {
    let research = &state.research;
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

/// The tasks' tally and the failed ones, for an orchestrator run.
fn task_lines(state: &RunState) -> Vec<Line<'static>> {
    let (_, _, _, done, failed) = state.workers.counts();
    let mut lines = vec![Line::from(vec![
        Span::styled("tasks       ", theme::dim()),
        Span::raw(format!(
            "{done} done, {failed} failed, {} retries",
            state.workers.retries
        )),
    ])];
    for task in &state.workers.tasks {
        if let TaskState::Failed { reason } = &task.state {
            let reason = reason
                .as_ref()
                .map_or("did not finish".into(), ToString::to_string);
            lines.push(Line::styled(
                format!("  ✗ {} {}", fit(&task.id, 24), fit(&reason, 60)),
                theme::error(),
            ));
        }
    }
    lines
}
