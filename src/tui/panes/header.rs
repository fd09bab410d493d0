//! The header: scenario, pattern, status, run clock, seed, recording, and
//! on the second row the stop reason (with PARTIAL and what failed when
//! the result lacks parts), the run's tokens and dollars with a gauge of
//! its token or dollar budget, the budget it counts, and the flags with
//! their state, in that order, so that a narrow screen loses the flags
//! first. Labels are cut between words or left out
//! whole, never cut mid-word.

use crate::bus::RunStatus;
use crate::bus::describe::clock;
use crate::figures;
use crate::scenario::SpendLimits;
use crate::tui::slot::RunView;
use crate::tui::state::Activity;
use crate::tui::text::fit;
use crate::tui::theme;
use crate::tui::widgets::{fit_words, parts};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// `steer` is a hooked watched run's steering line, and whether it asks
/// for the person (`overlays::steer::steer_line`): it leads the second
/// row, in place of the flags (the hook's are behind `f`).
pub fn draw(frame: &mut Frame, area: Rect, run: Option<&RunView>, steer: Option<(String, bool)>) {
    let Some(run) = run else {
        let line = Line::from(vec![
            brand(),
            Span::styled("  no run yet: n opens the scenario picker", theme::dim()),
        ]);
        frame.render_widget(Paragraph::new(line), area);
        return;
    };
    let width = usize::from(area.width);
    let lines = if area.height >= 2 {
        vec![first_row(run, width), second_row(run, width, steer)]
    } else {
        vec![first_row(run, width)]
    };
    frame.render_widget(Paragraph::new(lines), area);
}

fn brand() -> Span<'static> {
    Span::styled(
        " CONCLAVE ",
        Style::default()
            .fg(Color::Black)
            .bg(theme::ACCENT)
            .add_modifier(Modifier::BOLD),
    )
}

/// The brand, the status badge and the run clock, then the title, the
/// pattern, the seed and the recording as far as `width` allows.
fn first_row(run: &RunView, width: usize) -> Line<'static> {
    let state = run.state;
    let (badge, color) = status(run);
    let mut first = vec![
        brand(),
        Span::raw(" "),
        Span::styled(
            format!(" {badge} "),
            Style::default()
                .fg(Color::Black)
                .bg(color)
                .add_modifier(Modifier::BOLD),
        ),
        Span::raw(" "),
    ];
    first.push(Span::styled(
        format!("⏱ {} ", clock(run.now_ms)),
        theme::bold(),
    ));
    let title = run
        .scenario
        .title
        .clone()
        .unwrap_or_else(|| run.scenario.name.clone());
    let mut rest = Vec::new();
    // A watched run's title says what it is (`watched · <framework> ·
    // <service>`); it has neither Conclave's pattern nor a seed.
    if !state.is_watched() {
        rest.push(run.scenario.pattern.to_string());
        if let Some(info) = &state.info {
            rest.push(format!("seed {}", info.seed));
        }
    }
    let forked = state
        .info
        .as_ref()
        .and_then(|info| info.forked_from.as_ref());
    if let Some(path) = run.recording {
        let mark = if run.replay.is_some() {
            "⏵ replay of"
        } else {
            "⏺"
        };
        rest.push(format!(
            "{mark} {}",
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        ));
    }
    if let Some(from) = forked {
        rest.push(forked_from(from));
    }
    let used: usize = first.iter().map(Span::width).sum();
    let room = width.saturating_sub(used);
    let title = fit_words(&title, room.min(48));
    let mut room = room.saturating_sub(title.chars().count());
    first.push(Span::styled(title, theme::bold()));
    for part in rest {
        let part = format!(" · {part}");
        let width = part.chars().count();
        if width > room {
            break;
        }
        room -= width;
        first.push(Span::styled(part, theme::dim()));
    }
    Line::from(first)
}

/// `forked from FILE run N at GATE`, the file by its name alone as the
/// recording is.
fn forked_from(from: &crate::bus::cassette::ForkedFrom) -> String {
    let name = std::path::Path::new(&from.file)
        .file_name()
        .map_or_else(|| from.file.clone(), |n| n.to_string_lossy().into_owned());
    crate::bus::cassette::ForkedFrom {
        file: name,
        ..from.clone()
    }
    .to_string()
}

/// How the run ended, what it spent and counted, and its flags, as far as
/// `width` allows.
fn second_row(run: &RunView, width: usize, steer: Option<(String, bool)>) -> Line<'static> {
    let state = run.state;
    // What the run spent and how much of its budget: kept before the
    // flags and the counts, so a narrow header loses those first.
    let mut counts: Vec<Vec<Span<'static>>> = spend(run);
    counts.extend(endpoint(run));
    if let Some((budget, used, limit)) = state.budget {
        let name = match budget {
            crate::bus::BudgetKind::Messages => "messages",
            crate::bus::BudgetKind::Dispatches => "dispatches",
            crate::bus::BudgetKind::LlmCalls => "llm calls",
        };
        counts.push(vec![Span::styled(
            format!("{name} {used}/{limit}"),
            theme::dim(),
        )]);
    }
    // Once the run has ended, how it ended leads the row, then what it
    // cost and its budget, so a narrow header keeps them; the flags follow
    // as room allows (the flags pane and `f` show them all).
    let groups = match (&state.outcome, steer) {
        (None, Some((said, loud))) => {
            let style = if loud {
                theme::headline(theme::CAUTION)
            } else {
                theme::dim()
            };
            vec![vec![vec![Span::styled(said, style)]], counts]
        }
        // A watched run has no flags of Conclave's (a hooked run's are
        // behind `f`).
        (Some(_), _) if state.is_watched() => vec![ended(run), counts],
        (None, None) if state.is_watched() => vec![counts],
        (Some(_), _) => vec![ended(run), counts, flags(run)],
        (None, None) => vec![counts, flags(run)],
    };
    let mut second = Vec::new();
    for group in groups.into_iter().filter(|g| !g.is_empty()) {
        for (i, mut part) in group.into_iter().enumerate() {
            if i == 0 && !second.is_empty() {
                part.insert(0, Span::styled("│ ", theme::dim()));
            }
            second.push(part);
        }
    }
    let mut second_line = vec![Span::raw(" ")];
    second_line.extend(parts(second, &Span::raw("  "), width.saturating_sub(1)).spans);
    Line::from(second_line)
}

/// Every flag with its state, and the change asked for that waits for the
/// next gate or a restart.
fn flags(run: &RunView) -> Vec<Vec<Span<'static>>> {
    let state = run.state;
    let mut flags: Vec<Vec<Span<'static>>> = Vec::new();
    if state.flags.is_empty() {
        flags.push(vec![Span::styled("flags: none", theme::dim())]);
    }
    for (i, flag) in state.flags.iter().enumerate() {
        let (glyph, style) = if flag.on {
            ("●", Style::default().fg(theme::GO))
        } else {
            ("○", theme::dim())
        };
        let mut part = Vec::new();
        if i == 0 {
            part.push(Span::styled("flags: ", theme::dim()));
        }
        part.push(Span::styled(
            format!(
                "{} {glyph} {}",
                fit(&flag.name, 24),
                if flag.on { "on" } else { "off" }
            ),
            style,
        ));
        if let Some(on) = run.ui.pending_flag(&flag.name) {
            let when = if state.is_live() {
                "at the next gate"
            } else {
                "on restart"
            };
            part.push(Span::styled(
                format!(" → {} {when}", if on { "on" } else { "off" }),
                Style::default().fg(theme::CAUTION),
            ));
        }
        flags.push(part);
    }
    flags
}

/// The run's tokens and dollars (`~` before a simulated model's
/// estimates), then a gauge of its token or dollar budget, whichever is
/// closest to running out.
fn spend(run: &RunView) -> Vec<Vec<Span<'static>>> {
    let spend = &run.state.spend;
    let mut parts = Vec::new();
    let about = if spend.estimated { "~" } else { "" };
    if spend.tokens() > 0 {
        let cost = match spend.cost() {
            Some(dollars) => format!("{about}${}", figures::dollars(dollars)),
            None => "price unknown".to_string(),
        };
        parts.push(vec![Span::styled(
            format!(
                "{about}{} tok{} · {cost}",
                figures::compact(spend.tokens()),
                spend.parts()
            ),
            theme::dim(),
        )]);
    }
    let limits = SpendLimits::of(run.scenario);
    if let Some(share) = spend.budget_share(&limits) {
        parts.push(gauge(share));
    }
    parts
}

/// How the run had to ask the endpoint otherwise, and the answers it
/// asked for again: the operator sees a model that does not answer as
/// asked.
fn endpoint(run: &RunView) -> Vec<Vec<Span<'static>>> {
    let state = run.state;
    let mut parts = Vec::new();
    let caution = Style::default().fg(theme::CAUTION);
    if state.repairs.count > 0 {
        parts.push(vec![Span::styled(
            format!("↻ {}", crate::words::plural(state.repairs.count, "repair")),
            caution,
        )]);
    }
    if let Some(changed) = &state.endpoint {
        parts.push(vec![Span::styled(
            crate::sanitize::clean(&fit(changed, 48)).into_owned(),
            caution,
        )]);
    }
    parts
}

/// `budget ▓▓▓░░ 61%`: five cells, coloured as the end comes near.
fn gauge(share: f64) -> Vec<Span<'static>> {
    const CELLS: usize = 5;
    let filled = ((share * CELLS as f64).round() as usize).min(CELLS);
    let percent = (share * 100.0).round() as u64;
    let style = if share > 1.0 {
        theme::error()
    } else if share >= 0.8 {
        Style::default().fg(theme::CAUTION)
    } else {
        theme::dim()
    };
    vec![
        Span::styled("budget ", theme::dim()),
        Span::styled(
            format!(
                "{}{} {percent}%",
                "▓".repeat(filled),
                "░".repeat(CELLS - filled)
            ),
            style,
        ),
    ]
}

/// How the run ended: the stop reason, PARTIAL and what failed, then
/// where it stopped.
fn ended(run: &RunView) -> Vec<Vec<Span<'static>>> {
    let state = run.state;
    let Some(outcome) = &state.outcome else {
        return Vec::new();
    };
    let shortfall = run.unit.shortfall(&state.pattern);
    let partial = outcome.is_partial(shortfall.as_ref().is_some_and(|s| s.lacking));
    // A success with work undone is not green: it reads as partial.
    let style = match outcome.status {
        RunStatus::Ok if partial => Style::default().fg(theme::CAUTION),
        RunStatus::Ok => Style::default().fg(theme::GO),
        RunStatus::Stopped => theme::error(),
    };
    let mut stop = vec![Span::styled(
        format!(
            "stop: {}",
            fit(
                &crate::patterns::stop_word(run.scenario.pattern, &outcome.stop_reason),
                60
            )
        ),
        style,
    )];
    if partial {
        stop.push(Span::raw(" · "));
        stop.push(Span::styled("PARTIAL", theme::bold().fg(theme::CAUTION)));
    }
    if let Some(shortfall) = shortfall {
        stop.push(Span::raw(" · "));
        stop.push(Span::styled(shortfall.words, theme::error()));
    }
    let mut parts = vec![stop];
    if let Some(phase) = &outcome.phase {
        parts.push(vec![Span::styled(
            format!("at {}", fit(phase, 40)),
            theme::dim(),
        )]);
    }
    parts
}

/// The status badge and its colour.
fn status(run: &RunView) -> (String, Color) {
    if let Some(replay) = run.replay {
        let state = if replay.playing { "▶" } else { "⏸" };
        let color = match &run.state.outcome {
            Some(outcome) if outcome.status == RunStatus::Ok => theme::GO,
            Some(_) => theme::BLOCK,
            None => Color::Magenta,
        };
        return (format!("REPLAY {state}"), color);
    }
    match (&run.state.activity, &run.state.outcome) {
        (Activity::Finished, Some(outcome)) if outcome.status == RunStatus::Ok => {
            let lacking = run
                .unit
                .shortfall(&run.state.pattern)
                .is_some_and(|s| s.lacking);
            if outcome.is_partial(lacking) {
                ("PARTIAL".into(), theme::CAUTION)
            } else {
                ("FINISHED".into(), theme::GO)
            }
        }
        (Activity::Finished, _) => ("STOPPED".into(), theme::BLOCK),
        (Activity::Paused { .. }, _) if run.state.asked.as_ref().is_some_and(|e| e.waiting()) => {
            ("ASKS YOU: d ANSWERS".into(), theme::CAUTION)
        }
        (Activity::Paused { gate }, _) => (format!("PAUSED {gate}").to_uppercase(), theme::CAUTION),
        // The last gate is behind the run: it ends before any pause.
        _ if run.ui.pause_requested && !run.unit.gate_ahead(&run.state.pattern) => {
            ("NO GATE LEFT: RUNS TO ITS END".into(), theme::CAUTION)
        }
        _ if run.ui.pause_requested => ("PAUSING…".into(), theme::CAUTION),
        (Activity::Starting, _) => ("STARTING".into(), Color::Gray),
        (Activity::Running, _) => ("RUNNING".into(), theme::ACCENT),
    }
}
