//! A comparison laid out for reading: sections of rows, each row a label
//! and the same columns for run A and run B, each cell a short text and a
//! tone. The dashboard draws these and the Markdown export writes them, so
//! neither needs to know the pattern; only this file turns each pattern's
//! alignment into rows.

use super::values::{decision_tone, short, status_tone, words};
use super::{Alignment, Comparison, RunFacts, Which};
use crate::bus::{CallOutcome, Stance, TurnOutcome};
use crate::compare::facts::union;
use crate::compare::{ChainAligned, Contribution, ResearchAligned, RoundsAligned, TasksAligned};
use crate::compare::{SourceFate, TaskFacts, TaskState};

/// How a cell reads at a glance; the dashboard gives each a colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Good,
    Caution,
    Bad,
    /// The run has nothing here.
    Absent,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub text: String,
    pub tone: Tone,
}

impl Cell {
    pub fn plain(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            tone: Tone::Plain,
        }
    }

    fn toned(text: impl Into<String>, tone: Tone) -> Cell {
        Cell {
            text: text.into(),
            tone,
        }
    }

    pub fn absent() -> Cell {
        Cell::toned("—", Tone::Absent)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub label: String,
    /// The run the row belongs to, when it belongs to one only.
    pub only_in: Option<Which>,
    pub a: Vec<Cell>,
    pub b: Vec<Cell>,
}

impl Row {
    fn new(label: impl Into<String>, a: Vec<Cell>, b: Vec<Cell>) -> Row {
        Row {
            label: label.into(),
            only_in: None,
            a,
            b,
        }
    }

    /// Whether the two runs' cells say different things.
    pub fn differs(&self) -> bool {
        self.a.len() != self.b.len() || self.a.iter().zip(&self.b).any(|(x, y)| x.text != y.text)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub title: String,
    /// Column headings, the same under A and under B.
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
}

impl Comparison {
    /// The comparison as sections: the runs' facts, their pattern's steps
    /// side by side, then every difference.
    pub fn sections(&self) -> Vec<Section> {
        let mut sections = vec![facts_section(&self.a, &self.b)];
        match &self.alignment {
            Some(Alignment::Rounds(rounds)) => sections.push(round_table(rounds)),
            Some(Alignment::Tasks(tasks)) => sections.push(task_table(tasks)),
            Some(Alignment::Chain(chain)) => sections.extend(chain_tables(chain)),
            Some(Alignment::Research(research)) => sections.extend(research_tables(research)),
            None => {}
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

fn one(text: impl Into<String>) -> Vec<Cell> {
    vec![Cell::plain(text)]
}

fn facts_section(a: &RunFacts, b: &RunFacts) -> Section {
    // The recordings are named in the view's title: their names always differ.
    let mut rows = vec![
        Row::new(
            "scenario",
            one(format!("{} ({})", a.scenario, a.pattern)),
            one(format!("{} ({})", b.scenario, b.pattern)),
        ),
        Row::new("seed", one(a.seed.to_string()), one(b.seed.to_string())),
    ];
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
        let changes = |f: &RunFacts| {
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
        };
        rows.push(Row::new("flags turned", changes(a), changes(b)));
    }
    let outcome = |f: &RunFacts| match (&f.status, &f.stop_reason) {
        (Some(status), Some(reason)) => vec![Cell::toned(
            format!("{} · {reason}", words(status)),
            status_tone(*status),
        )],
        _ => vec![Cell::toned("no finish", Tone::Caution)],
    };
    rows.push(Row::new("outcome", outcome(a), outcome(b)));
    let result = |f: &RunFacts| {
        let Some(summary) = &f.summary else {
            return vec![Cell::absent()];
        };
        let mut cell = match (summary.decision, summary.health, &summary.final_agent) {
            (Some(d), _, _) => Cell::toned(
                d.as_str().replace('_', " ").to_uppercase(),
                decision_tone(d),
            ),
            (_, Some(h), _) => Cell::toned(
                format!("HEALTH {}", h.as_str().to_uppercase()),
                match h {
                    crate::bus::Health::Green => Tone::Good,
                    crate::bus::Health::Yellow => Tone::Caution,
                    crate::bus::Health::Red => Tone::Bad,
                },
            ),
            (_, _, Some(agent)) => Cell::plain(format!("answered by {agent}")),
            _ if summary.answer.is_some() => Cell::plain("answered"),
            _ => Cell::toned("no decision", Tone::Caution),
        };
        if summary.partial {
            cell.text
                .push_str(&format!(" · PARTIAL ({})", summary.degraded.join(", ")));
            cell.tone = Tone::Caution;
        }
        vec![cell]
    };
    rows.push(Row::new("result", result(a), result(b)));
    let (ca, cb) = (counts(a), counts(b));
    for ((label, x), (_, y)) in ca.into_iter().zip(cb) {
        if x.is_some() || y.is_some() {
            let cell = |n: Option<u64>| n.map_or(Cell::absent(), |n| Cell::plain(n.to_string()));
            rows.push(Row::new(label, vec![cell(x)], vec![cell(y)]));
        }
    }
    for tool in union(a.tools.keys(), b.tools.keys()) {
        let (ta, tb) = (
            a.tools.get(tool).copied().unwrap_or_default(),
            b.tools.get(tool).copied().unwrap_or_default(),
        );
        let line = |t: crate::compare::ToolCounts| {
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
        };
        rows.push(Row::new(format!("tool {tool}"), line(ta), line(tb)));
    }
    let tokens = |f: &RunFacts| one(format!("{} in · {} out", f.tokens.input, f.tokens.output));
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

/// What a run used of the budgets its pattern counts.
fn counts(facts: &RunFacts) -> [(&'static str, Option<u64>); 5] {
    let counts = facts.summary.as_ref().map(|s| s.counts).unwrap_or_default();
    [
        ("rounds", counts.rounds.map(u64::from)),
        ("dispatches", counts.dispatches),
        ("handoffs", counts.handoffs),
        ("llm calls", counts.llm_calls),
        ("member calls", counts.member_calls),
    ]
}

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

fn round_table(rounds: &RoundsAligned) -> Section {
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

fn task_table(tasks: &TasksAligned) -> Section {
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

fn chain_tables(chain: &ChainAligned) -> Vec<Section> {
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

fn research_tables(research: &ResearchAligned) -> Vec<Section> {
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
