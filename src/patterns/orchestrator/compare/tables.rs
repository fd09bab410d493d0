//! Two runs' the tasks' outcomes, aligned, as the rows a comparison shows.

use super::{TaskFacts, TaskState, TasksAligned};
use crate::compare::sections::{Cell, Row, Section, Tone};

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
