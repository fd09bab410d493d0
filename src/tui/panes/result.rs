//! The result: the outcome first, in words read at a glance (the decision
//! or health, PARTIAL and the degraded tools, what failed, counted, and
//! why the run stopped, in a sentence), then the pattern's tally, then the
//! answer whole and what follows it; while the run is live, what it is
//! doing. The text is wrapped here, so the pane knows its height: the
//! scroll stops at the last row, and a cut view says there is more.

use crate::bus::{BudgetKind, RunStatus};
use crate::sanitize::clean_lines;
use crate::stop::{StopFacts, StopReason};
use crate::tui::keymap::PaneId;
use crate::tui::slot::RunView;
use crate::tui::state::{Activity, Outcome, RunState};
use crate::tui::text::fit;
use crate::tui::theme;
use crate::tui::widgets::{block, plural};
use crate::tui::wrap::wrap;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The labels' column.
const LABEL: usize = 12;

/// The pane's text, wrapped to `width` columns.
pub(crate) fn rows(run: &RunView, width: u16) -> Vec<Line<'static>> {
    wrap(&lines(run), usize::from(width))
}

/// How tall the pane would like to be at `width` columns, its border
/// included.
pub(crate) fn wanted_height(run: &RunView, width: u16) -> u16 {
    let rows = rows(run, width.saturating_sub(2)).len();
    u16::try_from(rows + 2).unwrap_or(u16::MAX)
}

/// The furthest the pane scrolls in `area`: its last row at the bottom.
pub(crate) fn max_scroll(run: &RunView, area: Rect) -> u16 {
    let inner = block(PaneId::Result, "", false).inner(area);
    let rows = rows(run, inner.width).len();
    u16::try_from(rows.saturating_sub(usize::from(inner.height))).unwrap_or(u16::MAX)
}

/// `scroll` is how far the pane is scrolled (past the end is drawn as the
/// end).
pub fn draw(frame: &mut Frame, area: Rect, run: &RunView, scroll: u16, focused: bool) {
    let mut block = block(PaneId::Result, "Result", focused);
    let inner = block.inner(area);
    let rows = rows(run, inner.width);
    let height = usize::from(inner.height);
    let last = rows.len().saturating_sub(height);
    let top = usize::from(scroll).min(last);
    // The mark names the keys that show the rest, in as many words as the
    // border has room for.
    let room = usize::from(area.width).saturating_sub(2);
    if top + height < rows.len() {
        let below = rows.len() - top - height;
        let marks = [
            format!(
                " …more ({}): j/PgDn scroll, z zoom ",
                plural(below as u64, "row")
            ),
            format!(" …more ({below}): j/PgDn, z zoom "),
            " …more: j, z ".to_string(),
            " …more ".to_string(),
        ];
        if let Some(mark) = marks.into_iter().find(|m| m.chars().count() <= room) {
            block = block.title_bottom(
                Line::from(Span::styled(
                    mark,
                    theme::bold().add_modifier(Modifier::REVERSED),
                ))
                .right_aligned(),
            );
        }
    } else if top > 0 && room >= 13 {
        block = block
            .title_bottom(Line::from(Span::styled(" end · g top ", theme::dim())).right_aligned());
    }
    let shown: Vec<Line> = rows.into_iter().skip(top).take(height).collect();
    frame.render_widget(Paragraph::new(shown).block(block), area);
}

/// The pane's lines, before wrapping.
fn lines(run: &RunView) -> Vec<Line<'static>> {
    let (state, unit) = (run.state, run.unit);
    let fold = &state.pattern;
    let Some(outcome) = &state.outcome else {
        return unfinished(run);
    };

    let shortfall = unit.shortfall(fold);
    let mut headline = unit.headline(fold, outcome);
    if outcome.is_partial(shortfall.as_ref().is_some_and(|s| s.lacking)) {
        headline.spans.push(Span::raw(" · "));
        headline
            .spans
            .push(Span::styled("PARTIAL", theme::bold().fg(theme::CAUTION)));
    }
    let mut lines = vec![headline];
    let summary = &outcome.summary;
    if !summary.degraded.is_empty() {
        let tools: Vec<String> = summary.degraded.iter().map(|t| fit(t, 40)).collect();
        lines.push(labelled(
            "degraded",
            vec![
                Span::styled(tools.join(", "), Style::default().fg(theme::CAUTION)),
                Span::styled(" (safe mode skipped its calls)", theme::dim()),
            ],
        ));
    }
    let (label, style) = match outcome.status {
        RunStatus::Ok => ("finished", Style::default().fg(theme::GO)),
        RunStatus::Stopped => ("stopped", theme::error()),
    };
    let explained = crate::patterns::explain(
        run.scenario.pattern,
        &outcome.stop_reason,
        &facts(state, outcome),
    );
    let word = crate::patterns::stop_word(run.scenario.pattern, &outcome.stop_reason);
    let mut said = vec![Span::styled(fit(&explained, 300), style)];
    // The stop's word, where the explanation is not that word already.
    if explained != word {
        said.push(Span::styled(
            format!(" · {}", fit(&word, 200)),
            theme::dim(),
        ));
    }
    lines.push(labelled(label, said));
    // A person's notes to the table: what they decided it on.
    for note in &outcome.shown.human_notes {
        lines.push(labelled(
            "note",
            vec![
                Span::styled("a person's: ", theme::dim()),
                Span::styled(fit(&clean_lines(note), 2000), theme::bold()),
            ],
        ));
    }
    if let Some(phase) = &outcome.phase {
        lines.push(labelled("phase", vec![Span::raw(fit(phase, 200))]));
    }
    if let Some(error) = &outcome.error {
        lines.push(labelled(
            "model error",
            vec![Span::styled(fit(error, 400), theme::error())],
        ));
    }
    lines.extend(unit.tally(fold, outcome));
    if let Some(answer) = summary.answer() {
        lines.push(Line::raw(""));
        // The answer keeps its paragraphs; each is cleaned on its own.
        let answer = clean_lines(answer);
        lines.extend(
            answer
                .lines()
                .map(|paragraph| Line::raw(fit(paragraph, 20_000))),
        );
    }
    lines.extend(unit.after_answer(fold));
    lines
}

/// The pane's lines while the run has no outcome: what it is doing, its
/// goal, and what will show here. In a replay, where the cursor is: the
/// live run's keys (space, s) do not apply to a recording.
fn unfinished(run: &RunView) -> Vec<Line<'static>> {
    let (state, unit) = (run.state, run.unit);
    let waiting = state.asked.as_ref().filter(|e| e.waiting());
    let (asks, asked) = waiting
        .map(|a| (a.sentence("asks"), a.sentence("asked")))
        .unzip();
    let mut lines = Vec::new();
    let doing = match (&state.activity, run.replay) {
        (Activity::Starting, None) => "Starting…".to_string(),
        (Activity::Starting, Some(_)) => "The run was starting.".to_string(),
        (Activity::Paused { .. }, None) if waiting.is_some() => format!(
            "{}: d answers. The run waits for the answer (space and s do not pass it).",
            asks.unwrap_or_default()
        ),
        (Activity::Paused { .. }, Some(_)) if waiting.is_some() => format!(
            "{}; the answer comes later in the recording.",
            asked.unwrap_or_default()
        ),
        (Activity::Paused { gate }, None) => format!(
            "Paused {gate}. space resumes, s runs one {}.",
            unit.gate_word()
        ),
        (Activity::Paused { gate }, Some(_)) => format!("The run was paused {gate}."),
        (Activity::Running | Activity::Finished, None) => {
            unit.doing(&state.pattern, &state.calling)
        }
        // `Running: …` as it was at that event: `The run was running: …`.
        (Activity::Running | Activity::Finished, Some(_)) => {
            let doing = unit.doing(&state.pattern, &state.calling);
            let mut chars = doing.chars();
            let first = chars.next().map(|c| c.to_lowercase().to_string());
            format!(
                "The run was {}{}",
                first.unwrap_or_default(),
                chars.as_str()
            )
        }
    };
    if let Some(replay) = run.replay {
        lines.push(Line::styled(
            format!(
                "Replay at event {} of {}: > goes to the end, space plays.",
                replay.seq(),
                replay.last_seq()
            ),
            theme::bold(),
        ));
    }
    lines.push(Line::styled(doing, theme::dim()));
    // What the run was asked, whole, while it works on it (the header has
    // room for the scenario's title only).
    if let Some(info) = &state.info {
        lines.push(labelled(
            "goal",
            vec![Span::raw(fit(&crate::sanitize::clean(&info.goal), 4000))],
        ));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(unit.later(), theme::dim()));
    lines
}

/// What the stop's sentence may quote: the rounds, the budget that
/// stopped the run, the time.
pub(crate) fn facts(state: &RunState, outcome: &Outcome) -> StopFacts {
    let stopped_by = match outcome.stop_reason {
        StopReason::MaxMessages => Some(BudgetKind::Messages),
        StopReason::MaxDispatches => Some(BudgetKind::Dispatches),
        StopReason::MaxLlmCalls => Some(BudgetKind::LlmCalls),
        _ => None,
    };
    let limits = state
        .info
        .as_ref()
        .map(|info| crate::scenario::SpendLimits::of(&info.scenario))
        .unwrap_or_default();
    StopFacts {
        rounds: outcome
            .summary
            .counts
            .get(crate::patterns::collaboration::figures::ROUNDS)
            .and_then(|n| u32::try_from(n).ok()),
        budget: state
            .budget
            .filter(|(kind, _, _)| Some(*kind) == stopped_by)
            .map(|(_, used, limit)| (used, limit)),
        elapsed_ms: state.t_ms,
        tokens: limits.max_tokens.map(|limit| (state.spend.tokens(), limit)),
        dollars: limits
            .max_cost_usd
            .zip(state.spend.cost())
            .map(|(limit, spent)| (spent, limit)),
    }
}

/// A line under the headline: a dim label in its column, then `text`.
fn labelled(label: &str, text: Vec<Span<'static>>) -> Line<'static> {
    let mut spans = vec![Span::styled(format!("{label:<LABEL$}"), theme::dim())];
    spans.extend(text);
    Line::from(spans)
}
