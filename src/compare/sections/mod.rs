//! A comparison laid out for reading: sections of rows, each row a label
//! and the same columns for run A and run B, each cell a short text and a
//! tone. The dashboard draws these and the Markdown export writes them, so
//! neither needs to know the pattern; each pattern's rules turn its
//! alignment into rows.

mod facts;

use super::values::short;
pub(crate) use super::values::{Cell, Tone};
use super::{Comparison, Which};

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Row {
    pub(crate) label: String,
    /// The run the row belongs to, when it belongs to one only.
    pub(crate) only_in: Option<Which>,
    pub(crate) a: Vec<Cell>,
    pub(crate) b: Vec<Cell>,
}

impl Row {
    pub(crate) fn new(label: impl Into<String>, a: Vec<Cell>, b: Vec<Cell>) -> Row {
        Row {
            label: label.into(),
            only_in: None,
            a,
            b,
        }
    }

    /// Whether the two runs' cells say different things.
    pub(crate) fn differs(&self) -> bool {
        self.a.len() != self.b.len() || self.a.iter().zip(&self.b).any(|(x, y)| x.text != y.text)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Section {
    pub(crate) title: String,
    /// Column headings, the same under A and under B.
    pub(crate) columns: Vec<String>,
    pub(crate) rows: Vec<Row>,
}

impl Comparison {
    /// The comparison as sections: the runs' facts, their pattern's steps
    /// side by side, then every difference.
    pub(crate) fn sections(&self) -> Vec<Section> {
        let mut sections = vec![facts::section(&self.a, &self.b)];
        if let Some(alignment) = &self.alignment {
            sections.extend(alignment.sections());
        }
        sections.push(Section {
            title: format!("Differences ({})", self.differences.len()),
            columns: vec![String::new()],
            rows: self
                .differences
                .iter()
                .map(|d| {
                    Row::new(
                        &d.what,
                        vec![Cell::plain(short(&d.a))],
                        vec![Cell::plain(short(&d.b))],
                    )
                })
                .collect(),
        });
        sections
    }
}

/// A row's single cell.
pub(crate) fn one(text: impl Into<String>) -> Vec<Cell> {
    vec![Cell::plain(text)]
}
