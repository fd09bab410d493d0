//! What `y` copies and `w` writes: the selected item's JSON or the
//! answer, a run's result, its filtered log or a comparison, as JSON or as
//! Markdown, every secret scrubbed. Building a document reads the run and
//! changes nothing; the app's update asks for one and the loop writes it
//! (to the terminal's clipboard with OSC 52, or to a file).

use super::document::Document;
use super::slot::RunSlot;
use crate::bus::describe::{describe, kind_name};
use crate::compare::{Comparison, markdown};
use crate::patterns::events::{Decision, Health};
use crate::sanitize::clean_lines;
use std::path::Path;

/// A file name in the current directory for `what` of `slot`'s run.
pub(crate) fn default_path(slot: &RunSlot, what: &str) -> String {
    format!(
        "conclave-{}-run{}-{what}.json",
        file_safe(&slot.scenario.name),
        slot.state.run
    )
}

/// A file name in the current directory for a comparison.
pub(crate) fn comparison_path(comparison: &Comparison) -> String {
    let stem = |label: &str| {
        let name = Path::new(label)
            .file_stem()
            .map_or(label.to_string(), |s| s.to_string_lossy().into_owned());
        file_safe(&name)
    };
    format!(
        "conclave-compare-{}-vs-{}.json",
        stem(&comparison.a.recording),
        stem(&comparison.b.recording)
    )
}

/// A name made safe for a file name: ASCII letters, digits, `-` and `_`
/// kept, anything else `_`, at most 60 characters.
pub(crate) fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect()
}

/// A run's result document and, in Markdown, its outcome and answer
/// first; `None` before the run finished.
pub(crate) fn result(slot: &RunSlot) -> Option<Document> {
    let outcome = slot.state.outcome.as_ref()?;
    let json = serde_json::to_string_pretty(&outcome.result.tree_copy()).unwrap_or_default();
    let summary = &outcome.summary;
    let mut md = format!(
        "# {} · run {}\n\n",
        markdown::inline(&slot.scenario.name),
        slot.state.run
    );
    let status = serde_json::to_value(outcome.status).unwrap_or_default();
    md.push_str(&format!(
        "- status: {} · stop reason: `{}`\n",
        crate::compare::short(&status),
        outcome.stop_reason
    ));
    if let Some(decision) = summary.read::<Decision>("decision") {
        md.push_str(&format!("- decision: {}\n", decision.as_str()));
    }
    if let Some(health) = summary.read::<Health>("health") {
        md.push_str(&format!("- health: {}\n", health.as_str()));
    }
    if let Some(agent) = summary.text("final_agent") {
        md.push_str(&format!("- final agent: {}\n", markdown::inline(agent)));
    }
    if summary.partial {
        md.push_str(&format!(
            "- PARTIAL: degraded {}\n",
            markdown::inline(&summary.degraded.join(", "))
        ));
    }
    if let Some(answer) = summary.answer() {
        md.push_str(&format!("\n## Answer\n\n{}\n", clean_lines(answer)));
    }
    md.push_str(&format!("\n## Result document\n\n```json\n{json}\n```\n"));
    Some(Document {
        what: "result",
        json,
        markdown: md,
    })
}

/// The events the log shows (all of them, or those its filter matches), as
/// a JSON list and as a Markdown table.
pub(crate) fn log(slot: &RunSlot) -> Document {
    let (state, view) = (&slot.state, &slot.ui.log);
    let events: Vec<_> = view
        .window(state, view.count(state))
        .into_iter()
        .filter_map(|i| state.log.events.get(i))
        .collect();
    let json = serde_json::to_string_pretty(&events).unwrap_or_default();
    let mut md = format!(
        "# Event log · {} · run {}\n\n",
        markdown::inline(&slot.scenario.name),
        state.run
    );
    if let Some(filter) = &view.filter {
        md.push_str(&format!("Filter: `{}`\n\n", markdown::inline(filter)));
    }
    md.push_str("| seq | t (ms) | kind | what |\n|---|---|---|---|\n");
    for event in &events {
        md.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            event.seq,
            event.t_ms,
            kind_name(&event.kind),
            markdown::inline(&describe(&event.kind))
        ));
    }
    Document {
        what: "log",
        json,
        markdown: md,
    }
}

/// A comparison, as `compare --headless` prints it and as Markdown.
pub(crate) fn comparison(comparison: &Comparison) -> Document {
    Document {
        what: "compare",
        json: serde_json::to_string_pretty(comparison).unwrap_or_default(),
        markdown: markdown::comparison(comparison),
    }
}
