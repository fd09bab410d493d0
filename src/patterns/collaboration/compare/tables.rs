//! Two runs' the round table's agents by round, with each round's end, aligned, as the rows a comparison shows.

use super::decision_tone;
use super::{Contribution, RoundEnd, RoundEnds, RoundsAligned};
use crate::compare::sections::{Cell, Row, Section, Tone};
use crate::patterns::collaboration::events::Stance;

fn contribution(cell: &Option<Contribution>) -> Cell {
    match cell {
        None => Cell::absent(),
        Some(Contribution::Asked) => Cell::toned("asked", Tone::Caution),
        Some(Contribution::Rejected { .. }) => Cell::toned("rejected", Tone::Bad),
        Some(Contribution::Accepted { stance, confidence }) => Cell::toned(
            format!("{} {confidence:.2}", stance.as_str()),
            match stance {
                Stance::Go => Tone::Good,
                Stance::Caution => Tone::Caution,
                Stance::Block => Tone::Bad,
            },
        ),
    }
}

pub(super) fn round_table(rounds: &RoundsAligned) -> Section {
    let mut rows: Vec<Row> = rounds
        .agents
        .iter()
        .map(|agent| Row {
            label: agent.agent.clone(),
            only_in: agent.only_in,
            a: agent.a.iter().map(contribution).collect(),
            b: agent.b.iter().map(contribution).collect(),
        })
        .collect();
    let end_cells = |pick: fn(&RoundEnds) -> &Option<RoundEnd>, show: fn(&RoundEnd) -> Cell| {
        rounds
            .ends
            .iter()
            .map(|ends| pick(ends).as_ref().map_or(Cell::absent(), show))
            .collect::<Vec<_>>()
    };
    let conflicts = |end: &RoundEnd| {
        if end.conflicts.is_empty() {
            Cell::plain("none")
        } else {
            let list: Vec<&str> = end.conflicts.iter().map(|c| c.as_str()).collect();
            Cell::toned(list.join(", "), Tone::Caution)
        }
    };
    let decision = |end: &RoundEnd| match end.decision {
        Some(d) => Cell::toned(d.as_str(), decision_tone(d)),
        None => Cell::plain("none"),
    };
    rows.push(Row::new(
        "conflicts",
        end_cells(|e| &e.a, conflicts),
        end_cells(|e| &e.b, conflicts),
    ));
    rows.push(Row::new(
        "decision",
        end_cells(|e| &e.a, decision),
        end_cells(|e| &e.b, decision),
    ));
    Section {
        title: "Round table".into(),
        columns: rounds.rounds.iter().map(|r| format!("round {r}")).collect(),
        rows,
    }
}
