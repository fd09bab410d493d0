//! The orchestrator's part of a scenario file's `budget`: the keys it
//! reads. Data only: the scenario floor reads it.

/// The `budget` keys an orchestrator reads beside the shared ones.
pub(crate) const BUDGET_KEYS: &[&str] = &[
    "max_tasks",
    "max_parallel",
    "max_retries_per_task",
    "max_dispatches",
    "task_timeout_seconds",
];
