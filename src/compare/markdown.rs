//! A comparison as Markdown, for a file a person reads or pastes into a
//! ticket: the notes, the first divergence, then each section as a table
//! with A's columns and B's side by side, rows that differ marked.

use super::sections::Section;
use super::{Comparison, DivergentEvent, Which};
use crate::sanitize::clean;

/// `comparison` as a Markdown document.
pub(crate) fn comparison(comparison: &Comparison) -> String {
    let mut out = format!(
        "# Comparison: {} vs {}\n\n",
        inline(&comparison.a.recording),
        inline(&comparison.b.recording)
    );
    out.push_str(&format!(
        "A is `{}`, B is `{}`.\n\n",
        inline(&comparison.a.recording),
        inline(&comparison.b.recording)
    ));
    for note in &comparison.notes {
        out.push_str(&format!("> {}\n\n", inline(note)));
    }
    if comparison.identical {
        out.push_str("The runs are identical but for their times.\n\n");
    }
    out.push_str("## First divergence\n\n");
    match &comparison.first_divergence {
        Some(divergence) => {
            out.push_str(&divergent("A", divergence.a.as_ref()));
            out.push_str(&divergent("B", divergence.b.as_ref()));
            out.push('\n');
        }
        None if comparison.aligned => {
            out.push_str("None: the runs did the same things in the same order (times aside).\n\n")
        }
        None => out.push_str("Not looked for: the runs are of different scenarios.\n\n"),
    }
    if !comparison.control.is_empty() {
        out.push_str("## Control (not divergences)\n\n");
        out.push_str("How a person paused, stepped or switched flags in each run.\n\n");
        for (side, events) in [("A", &comparison.control.a), ("B", &comparison.control.b)] {
            if events.is_empty() {
                out.push_str(&format!("- {side}: none\n"));
            }
            for event in events {
                out.push_str(&divergent(side, Some(event)));
            }
        }
        out.push('\n');
    }
    for section in comparison.sections() {
        out.push_str(&table(&section));
    }
    out
}

fn divergent(side: &str, event: Option<&DivergentEvent>) -> String {
    match event {
        Some(e) => format!(
            "- {side}: seq {} at {} ms, `{}`: {}\n",
            e.seq,
            e.t_ms,
            e.kind,
            inline(&e.description)
        ),
        None => format!("- {side}: no more events (the run ended here)\n"),
    }
}

/// One section as a table: the label, A's columns, B's columns, and `≠`
/// where the runs differ.
fn table(section: &Section) -> String {
    let mut out = format!("## {}\n\n", inline(&section.title));
    let heading = |side: &str, column: &str| {
        if column.is_empty() {
            side.to_string()
        } else {
            format!("{side} {}", inline(column))
        }
    };
    let mut header = vec![String::new()];
    header.extend(section.columns.iter().map(|c| heading("A", c)));
    header.extend(section.columns.iter().map(|c| heading("B", c)));
    header.push(String::new());
    out.push_str(&format!("| {} |\n", header.join(" | ")));
    out.push_str(&format!("|{}\n", "---|".repeat(header.len())));
    for row in &section.rows {
        let mut cells = vec![match row.only_in {
            Some(Which::A) => format!("{} (A only)", inline(&row.label)),
            Some(Which::B) => format!("{} (B only)", inline(&row.label)),
            None => inline(&row.label),
        }];
        cells.extend(row.a.iter().chain(&row.b).map(|c| inline(&c.text)));
        cells.push(if row.differs() {
            "≠".into()
        } else {
            String::new()
        });
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out.push('\n');
    out
}

/// Text made safe inside a Markdown table cell: control characters and
/// escape sequences removed, line breaks as spaces, pipes escaped.
pub(crate) fn inline(text: &str) -> String {
    clean(&text.replace(['\n', '\r'], " ")).replace('|', "\\|")
}
