//! Two runs' the research steps and the sources' fates, aligned, as the rows a comparison shows.

use super::{ResearchAligned, SourceFate};
use crate::compare::sections::{Cell, Row, Section, Tone, one};

fn fate(fate: &Option<SourceFate>) -> Vec<Cell> {
    vec![match fate {
        None => Cell::absent(),
        Some(f @ SourceFate::Read) => Cell::toned(f.words(), Tone::Good),
        Some(f @ SourceFate::Denied { .. }) => Cell::toned(f.words(), Tone::Bad),
        Some(f) => Cell::toned(f.words(), Tone::Caution),
    }]
}

pub(super) fn research_tables(research: &ResearchAligned) -> Vec<Section> {
    let count = |n: Option<u64>| vec![n.map_or(Cell::absent(), |n| Cell::plain(n.to_string()))];
    let steps = Section {
        title: "Research steps".into(),
        columns: vec!["count".into()],
        rows: research
            .steps
            .iter()
            .map(|r| {
                Row::new(
                    format!("{} {}", r.phase.step(), r.phase),
                    count(r.a),
                    count(r.b),
                )
            })
            .collect(),
    };
    let mut rows: Vec<Row> = research
        .sources
        .iter()
        .map(|r| Row::new(&r.url, fate(&r.a), fate(&r.b)))
        .collect();
    let notes = |n: &[String]| {
        one(if n.is_empty() {
            "none".into()
        } else {
            n.join(", ")
        })
    };
    rows.push(Row::new(
        "notes",
        notes(&research.notes_a),
        notes(&research.notes_b),
    ));
    vec![
        steps,
        Section {
            title: "Sources".into(),
            columns: vec!["fate".into()],
            rows,
        },
    ]
}
