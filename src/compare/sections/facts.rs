//! The runs' facts as rows: scenario and seed, each flag, the outcome and
//! result, what the runs used of their budgets, each tool's calls, tokens,
//! run time and events.

use super::{Cell, Row, Section, Tone, one};
use crate::bus::figures::{FAILED_TASKS, TASKS};
use crate::compare::RunFacts;
use crate::compare::facts::{compared_counts, union};
use crate::compare::values::{status_tone, words};

pub(super) fn section(a: &RunFacts, b: &RunFacts) -> Section {
    // The recordings are named in the view's title: their names always differ.
    // A watched run is another framework's: no pattern of Conclave's and
    // no seed to name.
    let kind = |f: &RunFacts| match f.watched {
        true => format!("{} (watched)", f.scenario),
        false => format!("{} ({})", f.scenario, f.pattern),
    };
    let mut rows = vec![Row::new("scenario", one(kind(a)), one(kind(b)))];
    if !(a.watched && b.watched) {
        let seed = |f: &RunFacts| match f.watched {
            true => Cell::absent(),
            false => Cell::plain(f.seed.to_string()),
        };
        rows.push(Row::new("seed", vec![seed(a)], vec![seed(b)]));
    }
    if a.forked_from.is_some() || b.forked_from.is_some() {
        let forked = |f: &RunFacts| {
            f.forked_from.as_ref().map_or(Cell::absent(), |from| {
                Cell::plain(format!("{} run {} at {}", from.file, from.run, from.gate))
            })
        };
        rows.push(Row::new("forked from", vec![forked(a)], vec![forked(b)]));
    }
    if a.goal != b.goal {
        rows.push(Row::new("goal", one(&a.goal), one(&b.goal)));
    }
    for name in union(a.flags.keys(), b.flags.keys()) {
        let flag = |f: &RunFacts| {
            f.flags.get(name).map_or(Cell::absent(), |on| {
                Cell::plain(if *on { "on" } else { "off" })
            })
        };
        rows.push(Row::new(
            format!("flag {name}"),
            vec![flag(a)],
            vec![flag(b)],
        ));
    }
    if !a.flag_changes.is_empty() || !b.flag_changes.is_empty() {
        rows.push(Row::new("flags turned", flag_changes(a), flag_changes(b)));
    }
    rows.push(Row::new("outcome", outcome(a), outcome(b)));
    rows.push(Row::new("result", result(a), result(b)));
    for name in compared_counts(a, b) {
        let (x, y) = (count(a, name), count(b, name));
        if x.is_some() || y.is_some() {
            let cell = |n: Option<u64>| n.map_or(Cell::absent(), |n| Cell::plain(n.to_string()));
            let label = name.replace('_', " ");
            rows.push(Row::new(label, vec![cell(x)], vec![cell(y)]));
        }
    }
    for tool in union(a.tools.keys(), b.tools.keys()) {
        let (ta, tb) = (
            a.tools.get(tool).copied().unwrap_or_default(),
            b.tools.get(tool).copied().unwrap_or_default(),
        );
        rows.push(Row::new(
            format!("tool {tool}"),
            tool_calls(ta),
            tool_calls(tb),
        ));
    }
    rows.push(Row::new("tokens", tokens(a), tokens(b)));
    let duration = |f: &RunFacts| one(format!("{:.1}s", f.duration_ms as f64 / 1000.0));
    rows.push(Row::new("run time", duration(a), duration(b)));
    rows.push(Row::new(
        "events",
        one(a.events.to_string()),
        one(b.events.to_string()),
    ));
    Section {
        title: "Runs".into(),
        columns: vec![String::new()],
        rows,
    }
}

/// The flags turned while the run ran, where and how.
fn flag_changes(f: &RunFacts) -> Vec<Cell> {
    let list: Vec<String> = f
        .flag_changes
        .iter()
        .map(|c| {
            format!(
                "{} {} at #{}",
                c.name,
                if c.on { "on" } else { "off" },
                c.seq
            )
        })
        .collect();
    one(if list.is_empty() {
        "none".into()
    } else {
        list.join(", ")
    })
}

/// How the run ended: its status and stop reason, as its own result
/// writes it (a graph's finished run `completed`).
fn outcome(f: &RunFacts) -> Vec<Cell> {
    match (&f.status, &f.stop_reason) {
        (Some(status), Some(reason)) => vec![Cell::toned(
            format!("{} · {reason}", words(status)),
            status_tone(*status),
        )],
        _ => vec![Cell::toned("no finish", Tone::Caution)],
    }
}

/// What the run came to, in its pattern's words (a decision, a health,
/// the agent that answered) or as answered, and PARTIAL.
fn result(f: &RunFacts) -> Vec<Cell> {
    let Some(summary) = &f.summary else {
        return vec![Cell::absent()];
    };

    let mut cell = match &f.came_to {
        Some(came_to) => came_to.clone(),
        None if summary.answer().is_some() => Cell::plain("answered"),
        None => Cell::toned("no decision", Tone::Caution),
    };
    if f.partial {
        cell.text
            .push_str(&format!(" · PARTIAL ({})", lacking(summary)));
        cell.tone = Tone::Caution;
    }
    vec![cell]
}

/// What a partial run lacks: the tools safe mode skipped, else its
/// failed tasks.
fn lacking(summary: &crate::bus::RunSummary) -> String {
    if summary.degraded.is_empty() {
        let failed = summary.counts.get(FAILED_TASKS).unwrap_or(0);
        format!(
            "{failed} of {} tasks failed",
            summary.counts.get(TASKS).unwrap_or(failed)
        )
    } else {
        summary.degraded.join(", ")
    }
}

/// A tool's calls, with those that failed, were refused or retried.
fn tool_calls(t: crate::compare::ToolCounts) -> Vec<Cell> {
    let mut text = format!("{} calls", t.calls);
    for (n, word) in [
        (t.failures, "failed"),
        (t.rejected, "rejected"),
        (t.retries, "retries"),
    ] {
        if n > 0 {
            text.push_str(&format!(" · {n} {word}"));
        }
    }
    let tone = if t.failures + t.rejected > 0 {
        Tone::Caution
    } else {
        Tone::Plain
    };
    vec![Cell::toned(text, tone)]
}

/// The run's tokens in and out, the cached part of the input and the
/// reasoning part of the output where the endpoint said them, and their
/// cost when priced: `2000 in (1500 cached) · 400 out (250 reasoning)`.
fn tokens(f: &RunFacts) -> Vec<Cell> {
    let about = if f.tokens.estimated { "~" } else { "" };
    let cost = f.tokens.cost_usd.map_or_else(String::new, |dollars| {
        format!(" · {about}${}", crate::figures::dollars(dollars))
    });
    let part = |n: u64, what: &str| {
        if n > 0 {
            format!(" ({n} {what})")
        } else {
            String::new()
        }
    };
    one(format!(
        "{about}{} in{} · {about}{} out{}{cost}",
        f.tokens.input,
        part(f.tokens.cached, "cached"),
        f.tokens.output,
        part(f.tokens.reasoning, "reasoning"),
    ))
}

/// What a run used of a budget its pattern counts, by the count's name.
fn count(facts: &RunFacts, name: &str) -> Option<u64> {
    facts.summary.as_ref()?.counts.get(name)
}
