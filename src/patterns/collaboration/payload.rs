//! What a role is told when it is asked for its contribution.

use super::Table;
use super::result::StanceSummary;
use crate::provider::shared_facts::SharedFacts;
use serde_json::{Value, json};

impl Table<'_> {
    /// The shared facts every role is told, with the person's notes once
    /// an escalation was answered.
    pub(super) fn shared_facts(&self) -> SharedFacts {
        SharedFacts::new("shared_context", &self.ctx.scenario.context)
            .with_notes(&self.escalation.notes)
    }

    /// What a role is told: the goal, its focus, the shared facts, the last
    /// two rounds in short and the conflicts still open.
    pub(super) fn contribution_payload(&self, role: &str) -> Value {
        let recent: Vec<Value> = self
            .history
            .iter()
            .rev()
            .take(2)
            .rev()
            .map(|round| {
                json!({
                    "round": round.round,
                    "decision": round.decision,
                    "conflicts": round.conflicts,
                    "stances": round.contributions.iter().map(StanceSummary::of).collect::<Vec<_>>(),
                })
            })
            .collect();
        let focus = self
            .team
            .roles
            .get(role)
            .and_then(|r| r.focus.clone())
            .unwrap_or_default();
        json!({
            "goal": self.ctx.goal,
            "role": role,
            "focus": focus,
            // Written in from the scenario's text as the request is sent.
            "shared_context": null,
            "recent_rounds": recent,
            "open_conflicts": self.open_conflicts,
        })
    }
}
