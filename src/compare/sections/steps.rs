//! Each pattern's aligned steps as rows: the round table's agents by
//! round, the tasks' outcomes, the chain's turns, transfers and member
//! calls, the research steps and sources.

use super::{Cell, Row, Section, Tone, one};
use crate::bus::{CallOutcome, Stance, TurnOutcome};
use crate::compare::values::{decision_tone, words};
use crate::compare::{ChainAligned, Contribution, ResearchAligned, RoundsAligned, TasksAligned};
use crate::compare::{SourceFate, TaskFacts, TaskState};

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
    let end_cells = |pick: fn(&crate::compare::RoundEnds) -> &Option<crate::compare::RoundEnd>,
                     show: fn(&crate::compare::RoundEnd) -> Cell| {
        rounds
            .ends
            .iter()
            .map(|ends| pick(ends).as_ref().map_or(Cell::absent(), show))
            .collect::<Vec<_>>()
    };
    let conflicts = |end: &crate::compare::RoundEnd| {
        if end.conflicts.is_empty() {
            Cell::plain("none")
        } else {
            let list: Vec<&str> = end.conflicts.iter().map(|c| c.as_str()).collect();
            Cell::toned(list.join(", "), Tone::Caution)
        }
    };
    let decision = |end: &crate::compare::RoundEnd| match end.decision {
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

fn task_cells(task: &Option<TaskFacts>) -> Vec<Cell> {
    let Some(task) = task else {
        return vec![Cell::absent(), Cell::absent(), Cell::absent()];
    };
    let tone = match task.state {
        TaskState::Done => Tone::Good,
        TaskState::Failed => Tone::Bad,
        TaskState::Running | TaskState::Queued => Tone::Caution,
    };
    vec![
        Cell::toned(task.state.as_str(), tone),
        Cell::plain(task.attempts.to_string()),
        task.stop_reason
            .as_ref()
            .map_or(Cell::plain(""), |r| Cell::toned(r.to_string(), Tone::Bad)),
    ]
}

pub(super) fn task_table(tasks: &TasksAligned) -> Section {
    let rows = tasks
        .tasks
        .iter()
        .map(|row| {
            let facts = row.a.as_ref().or(row.b.as_ref());
            let worker = facts.map_or("", |f| f.worker.as_str());
            let critical = if facts.is_some_and(|f| f.critical) {
                " !"
            } else {
                ""
            };
            Row {
                label: format!("{} {worker}{critical}", row.task),
                only_in: row.only_in,
                a: task_cells(&row.a),
                b: task_cells(&row.b),
            }
        })
        .collect();
    Section {
        title: "Tasks (! critical)".into(),
        columns: vec!["state".into(), "attempts".into(), "reason".into()],
        rows,
    }
}

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
    let turn = |t: &Option<crate::compare::TurnFacts>| match t {
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
        let handoff = |h: &Option<crate::compare::Handoff>| match h {
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
        let call = |c: &Option<crate::compare::MemberCall>| match c {
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
