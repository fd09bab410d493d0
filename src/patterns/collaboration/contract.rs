//! The round table's policy, after 000's gateway: the contribution contract
//! (checked in 000's order, so the first failing rule names the stop
//! reason), conflict detection and the round decision. Pure functions.

use super::stops::ContributionError;
use crate::patterns::collaboration::events::{Conflict, Decision, Stance};
use crate::pycompat::{py_round, py_strip};
use serde::Serialize;
use serde_json::Value;

/// A contribution that passed the contract, normalised as 000 does.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Contribution {
    pub(crate) agent: String,
    pub(crate) stance: Stance,
    pub(crate) summary: String,
    pub(crate) confidence: f64,
    pub(crate) actions: Vec<String>,
}

/// A contribution's keys, in the order the schema asks for them.
pub(super) const REQUIRED_KEYS: [&str; 5] = ["agent", "stance", "summary", "confidence", "actions"];
/// How many of a contribution's actions are kept.
pub(super) const MAX_ACTIONS: usize = 3;

/// A contribution's refusal once the flags are known: one that names a
/// seated agent the flags deny (`denied`) is that agent's rejection, as
/// [`validate_contribution`] judges the agent before the fields after it;
/// one refused before its agent was read stays as it is.
pub(crate) fn with_denied_agent(
    error: ContributionError,
    raw: &Value,
    denied: impl Fn(&str) -> bool,
) -> ContributionError {
    match error {
        ContributionError::NotObject
        | ContributionError::MissingKeys
        | ContributionError::Agent => error,
        error => match named_agent(raw).filter(|agent| denied(agent)) {
            Some(agent) => ContributionError::AgentNotAllowed {
                agent: agent.to_string(),
            },
            None => error,
        },
    }
}

/// The agent a contribution names, as [`validate_contribution`] reads
/// it: `None` where it names none.
fn named_agent(raw: &Value) -> Option<&str> {
    raw.get("agent")?
        .as_str()
        .map(py_strip)
        .filter(|a| !a.is_empty())
}

/// Check a model's contribution. `allowed` is the execution allowlist.
/// Unknown keys are ignored, as 000 tolerates chatty models.
pub(crate) fn validate_contribution(
    raw: &Value,
    allowed: impl Fn(&str) -> bool,
) -> Result<Contribution, ContributionError> {
    let Value::Object(fields) = raw else {
        return Err(ContributionError::NotObject);
    };
    if !REQUIRED_KEYS.iter().all(|k| fields.contains_key(*k)) {
        return Err(ContributionError::MissingKeys);
    }

    let agent = named_agent(raw).ok_or(ContributionError::Agent)?;
    if !allowed(agent) {
        return Err(ContributionError::AgentNotAllowed {
            agent: agent.to_string(),
        });
    }

    let stance = fields["stance"]
        .as_str()
        .and_then(|s| Stance::parse(py_strip(s)))
        .ok_or(ContributionError::Stance)?;

    let summary = fields["summary"]
        .as_str()
        .map(py_strip)
        .filter(|s| !s.is_empty())
        .ok_or(ContributionError::Summary)?;

    // A JSON bool is not a number here, as `isinstance(True, int)` is
    // excluded in 000.
    let confidence = match &fields["confidence"] {
        Value::Number(n) => n.as_f64().ok_or(ContributionError::ConfidenceType)?,
        _ => return Err(ContributionError::ConfidenceType),
    };
    if !(0.0..=1.0).contains(&confidence) {
        return Err(ContributionError::ConfidenceRange);
    }

    let items = match &fields["actions"] {
        Value::Array(items) if !items.is_empty() => items,
        _ => return Err(ContributionError::Actions),
    };
    let mut actions = Vec::with_capacity(items.len().min(MAX_ACTIONS));
    for item in items {
        let action = item
            .as_str()
            .map(py_strip)
            .filter(|a| !a.is_empty())
            .ok_or(ContributionError::ActionItem)?;
        // Every item is checked; only the first three are kept.
        if actions.len() < MAX_ACTIONS {
            actions.push(action.to_string());
        }
    }

    Ok(Contribution {
        agent: agent.to_string(),
        stance,
        summary: summary.to_string(),
        confidence: py_round(confidence, 3),
        actions,
    })
}

/// The contribution `role` was asked for: the contract, then the answer
/// must speak for `role` itself. `allowed` is the execution allowlist.
pub(crate) fn contribution_of(
    raw: &Value,
    role: &str,
    allowed: impl Fn(&str) -> bool,
) -> Result<Contribution, ContributionError> {
    validate_contribution(raw, allowed).and_then(|c| {
        if c.agent == role {
            Ok(c)
        } else {
            Err(ContributionError::AgentMismatch {
                expected: role.to_string(),
            })
        }
    })
}

/// Disagreements in a round, in 000's order.
pub(crate) fn detect_conflicts(contributions: &[Contribution]) -> Vec<Conflict> {
    if contributions.is_empty() {
        return vec![Conflict::NoContributions];
    }
    let has = |s: Stance| contributions.iter().any(|c| c.stance == s);
    let (go, caution, block) = (has(Stance::Go), has(Stance::Caution), has(Stance::Block));
    let distinct = [go, caution, block].iter().filter(|b| **b).count();
    let mut conflicts = Vec::new();
    if go && caution && !block {
        conflicts.push(Conflict::GoVsCaution);
    }
    if block && distinct > 1 {
        conflicts.push(Conflict::BlockingVsNonBlock);
    }
    if distinct == 3 {
        conflicts.push(Conflict::HighDivergence);
    }
    conflicts
}

/// The round's decision, or `None` when the table must go another round.
pub(crate) fn decide_round(contributions: &[Contribution], min_go_votes: u32) -> Option<Decision> {
    let count = |s: Stance| contributions.iter().filter(|c| c.stance == s).count();
    let (go, caution, block) = (
        count(Stance::Go),
        count(Stance::Caution),
        count(Stance::Block),
    );
    let enough_go = go >= min_go_votes as usize;
    if block >= 2 {
        Some(Decision::NoGo)
    } else if block > 0 {
        None
    } else if enough_go && caution == 0 {
        Some(Decision::Go)
    } else if enough_go {
        Some(Decision::GoWithCaution)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn valid() -> Value {
        json!({"agent": "risk_analyst", "stance": "caution", "summary": "ok",
               "confidence": 0.7, "actions": ["a"]})
    }

    fn with(key: &str, value: Value) -> Value {
        let mut raw = valid();
        raw[key] = value;
        raw
    }

    fn check(raw: &Value) -> Result<Contribution, ContributionError> {
        validate_contribution(raw, |a| a != "legal_analyst")
    }

    #[test]
    fn every_rejection_in_the_reference_order() {
        use ContributionError::*;
        let mut missing = valid();
        missing.as_object_mut().unwrap().remove("actions");
        let table = [
            (json!([valid()]), NotObject),
            (json!("text"), NotObject),
            (json!(null), NotObject),
            (missing, MissingKeys),
            (with("agent", json!("  ")), Agent),
            (with("agent", json!(7)), Agent),
            (
                with("agent", json!(" legal_analyst ")),
                AgentNotAllowed {
                    agent: "legal_analyst".into(),
                },
            ),
            (with("stance", json!("GO")), Stance),
            (with("stance", json!(1)), Stance),
            (with("summary", json!("\u{1c} \n")), Summary),
            (with("confidence", json!("0.5")), ConfidenceType),
            (with("confidence", json!(true)), ConfidenceType),
            (with("confidence", json!(1.0001)), ConfidenceRange),
            (with("confidence", json!(-0.1)), ConfidenceRange),
            (with("actions", json!([])), Actions),
            (with("actions", json!("do it")), Actions),
            (with("actions", json!(["a", "b", "c", " "])), ActionItem),
            (with("actions", json!(["a", 3])), ActionItem),
            // The first failing rule wins: stance is checked before summary.
            (with("stance", json!("maybe")).tap_summary(), Stance),
        ];
        for (raw, want) in table {
            assert_eq!(check(&raw), Err(want.clone()), "{raw}");
        }
    }

    trait TapSummary {
        fn tap_summary(self) -> Self;
    }

    impl TapSummary for Value {
        fn tap_summary(mut self) -> Self {
            self["summary"] = json!("");
            self
        }
    }

    #[test]
    fn normalises_like_the_reference() {
        let raw = json!({"agent": " risk_analyst ", "stance": " block\n", "summary": "  too risky ",
                         "confidence": 1, "actions": [" a ", "b", "c", "d"], "extra": {"ignored": true}});
        let c = check(&raw).unwrap();
        assert_eq!(c.agent, "risk_analyst");
        assert_eq!(c.stance, Stance::Block);
        assert_eq!(c.summary, "too risky");
        assert_eq!(c.confidence, 1.0);
        assert_eq!(c.actions, vec!["a", "b", "c"]);
        assert_eq!(
            check(&with("confidence", json!(0.0625)))
                .unwrap()
                .confidence,
            0.062
        );
    }

    fn stances(list: &[Stance]) -> Vec<Contribution> {
        list.iter()
            .map(|s| Contribution {
                agent: "a".into(),
                stance: *s,
                summary: "s".into(),
                confidence: 0.5,
                actions: vec!["x".into()],
            })
            .collect()
    }

    #[test]
    fn conflicts_and_decisions_follow_the_policy() {
        use Stance::*;
        let table: [(&[Stance], &[Conflict], Option<Decision>); 8] = [
            (&[], &[Conflict::NoContributions], None),
            (&[Go, Go, Go], &[], Some(Decision::Go)),
            (
                &[Go, Go, Caution],
                &[Conflict::GoVsCaution],
                Some(Decision::GoWithCaution),
            ),
            (&[Go, Caution, Caution], &[Conflict::GoVsCaution], None),
            (&[Go, Go, Block], &[Conflict::BlockingVsNonBlock], None),
            (
                &[Go, Caution, Block],
                &[Conflict::BlockingVsNonBlock, Conflict::HighDivergence],
                None,
            ),
            (
                &[Go, Block, Block],
                &[Conflict::BlockingVsNonBlock],
                Some(Decision::NoGo),
            ),
            (&[Block, Block], &[], Some(Decision::NoGo)),
        ];
        for (list, conflicts, decision) in table {
            let c = stances(list);
            assert_eq!(detect_conflicts(&c), conflicts, "{list:?}");
            assert_eq!(decide_round(&c, 2), decision, "{list:?}");
        }
        assert_eq!(decide_round(&stances(&[Go, Go]), 3), None);
        assert_eq!(
            decide_round(&[], 0),
            Some(Decision::Go),
            "no votes needed, none against"
        );
    }
}
