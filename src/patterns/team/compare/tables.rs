//! Two runs' the chain's turns, transfers and member calls, aligned, as the rows a comparison shows.

use super::{ChainAligned, Handoff, MemberCall, TurnFacts};
use crate::bus::CallOutcome;
use crate::compare::sections::{Cell, Row, Section, Tone, one};
use crate::compare::values::words;
use crate::patterns::team::events::TurnOutcome;

fn turn_tone(outcome: Option<TurnOutcome>) -> Tone {
    match outcome {
        Some(
            TurnOutcome::Reply
            | TurnOutcome::Transfer
            | TurnOutcome::ToolCall
            | TurnOutcome::CallMembers,
        ) => Tone::Good,
        Some(_) => Tone::Bad,
        None => Tone::Caution,
    }
}

pub(super) fn chain_tables(chain: &ChainAligned) -> Vec<Section> {
    let mut sections = vec![Section {
        title: "Chain".into(),
        columns: vec![String::new()],
        rows: vec![Row::new(
            "held control",
            one(chain.chain_a.join(" → ")),
            one(chain.chain_b.join(" → ")),
        )],
    }];
    let turn = |t: &Option<TurnFacts>| match t {
        None => vec![Cell::absent(), Cell::absent()],
        Some(t) => vec![
            Cell::plain(&t.agent),
            Cell::toned(
                t.outcome.map_or("running", |o| o.as_str()),
                turn_tone(t.outcome),
            ),
        ],
    };
    sections.push(Section {
        title: "Turns".into(),
        columns: vec!["agent".into(), "outcome".into()],
        rows: chain
            .turns
            .iter()
            .map(|r| Row::new(format!("turn {}", r.turn), turn(&r.a), turn(&r.b)))
            .collect(),
    });
    if !chain.handoffs.is_empty() {
        let handoff = |h: &Option<Handoff>| match h {
            None => vec![Cell::absent(), Cell::absent()],
            Some(h) => vec![
                Cell::plain(format!("{} → {}", h.from, h.to)),
                match &h.reason {
                    None => Cell::toned("accepted", Tone::Good),
                    Some(reason) => Cell::toned(reason.clone(), Tone::Bad),
                },
            ],
        };
        sections.push(Section {
            title: "Transfers".into(),
            columns: vec!["transfer".into(), "result".into()],
            rows: chain
                .handoffs
                .iter()
                .map(|r| Row::new(format!("#{}", r.n), handoff(&r.a), handoff(&r.b)))
                .collect(),
        });
    }
    if !chain.members.is_empty() {
        let call = |c: &Option<MemberCall>| match c {
            None => vec![Cell::absent()],
            Some(c) => vec![match (c.outcome, &c.reason) {
                (None, _) => Cell::toned("running", Tone::Caution),
                (Some(CallOutcome::Ok), _) => Cell::toned("ok", Tone::Good),
                (Some(_), Some(reason)) => Cell::toned(reason.to_string(), Tone::Bad),
                (Some(outcome), None) => Cell::toned(words(&outcome), Tone::Bad),
            }],
        };
        sections.push(Section {
            title: "Member calls".into(),
            columns: vec!["outcome".into()],
            rows: chain
                .members
                .iter()
                .map(|r| {
                    Row::new(
                        format!("turn {} · {}", r.turn, r.member),
                        call(&r.a),
                        call(&r.b),
                    )
                })
                .collect(),
        });
    }
    sections
}
