//! The orchestrator's sections of a scenario file: the rules that rate the
//! run's health (`health_rules`) and the `budget` keys it reads; its
//! `workers` are the floor's `WorkerSpec`, which a team's tools share.
//! Data only: the scenario floor reads and checks them, so this file
//! imports nothing above it and nothing of the orchestrator's runner.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The sections of a scenario file an orchestrator owns.
pub(crate) const SECTIONS: &[&str] = &["workers", "health_rules"];

/// The `budget` keys an orchestrator reads beside the shared ones.
pub(crate) const BUDGET_KEYS: &[&str] = &[
    "max_tasks",
    "max_parallel",
    "max_retries_per_task",
    "max_dispatches",
    "task_timeout_seconds",
];

/// A rule that rates the run's health from one worker's result. Red wins
/// over yellow; with no rule firing, health is green. Without
/// `health_rules`, 001's rules apply (payments `failed_payment_rate` ≥ 0.03
/// or any inventory `out_of_stock_skus`: yellow; a payments
/// `gateway_incident` other than "none": red).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HealthRule {
    /// The declared worker whose result the rule reads.
    pub(crate) worker: String,
    /// A top-level field of that result.
    pub(crate) field: String,
    pub(crate) op: HealthOp,
    /// What the field is compared with: a number for `>=`, `>`, `<=`, `<`;
    /// any value for `==` and `!=`; a list for `not_in`; nothing for
    /// `non_empty`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) value: Option<Value>,
    /// The health the run gets when the rule fires.
    pub(crate) level: HealthLevel,
}

/// How a health rule tests its field. Comparisons fire only on a number (a
/// boolean counts as 0 or 1, as in Python); `non_empty` fires on a field
/// that is present and not empty, zero, false or null; `not_in` fires when
/// the field equals none of the listed values. For `==`, `!=` and `not_in` a
/// missing field reads as null.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub(crate) enum HealthOp {
    #[serde(rename = ">=")]
    AtLeast,
    #[serde(rename = ">")]
    Above,
    #[serde(rename = "<=")]
    AtMost,
    #[serde(rename = "<")]
    Below,
    #[serde(rename = "==")]
    Equals,
    #[serde(rename = "!=")]
    Differs,
    #[serde(rename = "non_empty")]
    NonEmpty,
    #[serde(rename = "not_in")]
    NotIn,
}

impl HealthOp {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            HealthOp::AtLeast => ">=",
            HealthOp::Above => ">",
            HealthOp::AtMost => "<=",
            HealthOp::Below => "<",
            HealthOp::Equals => "==",
            HealthOp::Differs => "!=",
            HealthOp::NonEmpty => "non_empty",
            HealthOp::NotIn => "not_in",
        }
    }

    pub(crate) fn is_comparison(self) -> bool {
        matches!(
            self,
            HealthOp::AtLeast | HealthOp::Above | HealthOp::AtMost | HealthOp::Below
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum HealthLevel {
    Yellow,
    Red,
}
