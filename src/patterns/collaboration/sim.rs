//! The round table's calls as the sim answers them: each role's
//! contribution (scripted in `provider.responses`, by role) and the final
//! brief (`provider.final_answer`). Without a final answer the sim writes
//! a short brief from the run's history.

use crate::provider::sim::{Script, SimScript};
use crate::provider::{ModelOutput, ProviderError, Purpose};
use crate::pycompat::py_strip;
use crate::scenario::ProviderSpec;
use serde_json::Value;

/// The call for `role`'s contribution to a round; its prompt is told the
/// role and its `focus`.
pub(crate) fn contribution(role: &str, focus: &str) -> Purpose {
    Purpose::new(
        format!("contribution:{role}"),
        role,
        role,
        &ContributionScript,
    )
    .spoken_by(role)
    .filling("role", role)
    .filling("focus", focus)
}

/// The call for the final brief after the team decided.
pub(crate) fn final_brief() -> Purpose {
    Purpose::new("final_brief", "final_answer", "final_answer", &BriefScript)
}

/// `provider.responses`, by role.
#[derive(Debug)]
struct ContributionScript;

impl SimScript for ContributionScript {
    fn script<'a>(&self, spec: &'a ProviderSpec, purpose: &Purpose) -> Script<'a> {
        spec.responses
            .as_ref()
            .and_then(|responses| responses.get(purpose.script_key()))
            .map_or(Script::None, Script::Outputs)
    }

    fn unscripted(&self, purpose: &Purpose, _: &Value) -> Result<ModelOutput, ProviderError> {
        Err(ProviderError::Failed(format!(
            "the sim has no scripted output for role {:?}",
            purpose.script_key()
        )))
    }
}

/// `provider.final_answer`.
#[derive(Debug)]
struct BriefScript;

impl SimScript for BriefScript {
    fn script<'a>(&self, spec: &'a ProviderSpec, _: &Purpose) -> Script<'a> {
        spec.final_answer
            .as_ref()
            .map_or(Script::None, Script::Outputs)
    }

    fn unscripted(&self, _: &Purpose, payload: &Value) -> Result<ModelOutput, ProviderError> {
        Ok(ModelOutput::Text(brief_from_history(payload)))
    }
}

/// The sim's own final brief when the scenario scripts none: the decision,
/// the last round's stances and the first actions the team proposed.
fn brief_from_history(payload: &Value) -> String {
    let decision = payload["final_decision"].as_str().unwrap_or("no decision");
    let rounds = payload["history"].as_array().map_or(0, Vec::len);
    let last = payload["history"]
        .as_array()
        .and_then(|h| h.last())
        .and_then(|round| round["contributions"].as_array());
    let mut brief = format!(
        "Decision: {} after {}.",
        decision.replace('_', " ").to_uppercase(),
        crate::words::plural(rounds as u64, "round")
    );
    let Some(contributions) = last else {
        return brief;
    };
    let stances: Vec<String> = contributions
        .iter()
        .map(|c| {
            format!(
                "{} {} ({})",
                c["agent"].as_str().unwrap_or("?"),
                c["stance"].as_str().unwrap_or("?"),
                c["confidence"]
            )
        })
        .collect();
    if !stances.is_empty() {
        brief.push_str(&format!(" Final stances: {}.", stances.join(", ")));
    }
    let actions: Vec<&str> = contributions
        .iter()
        .filter_map(|c| c["actions"].as_array()?.first()?.as_str())
        .map(py_strip)
        .take(2)
        .collect();
    if !actions.is_empty() {
        brief.push_str(&format!(" Next: {}.", actions.join("; ")));
    }
    brief
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::prompts::Prompt;
    use crate::provider::{ModelRequest, SimProvider};
    use crate::rng::RunRng;
    use serde_json::json;
    use std::time::Duration;

    fn sim(spec: Value, seed: u64) -> SimProvider {
        SimProvider::new(serde_json::from_value(spec).unwrap(), RunRng::seeded(seed))
    }

    fn asked(role: &str) -> ModelRequest {
        ModelRequest::new(contribution(role, "f"), &Prompt::UNUSED, json!({}))
    }

    #[test]
    fn a_contribution_is_named_and_spent_by_its_role_as_recordings_have_it() {
        let purpose = contribution("risk_analyst", "payments");
        assert_eq!(purpose.key(), "contribution:risk_analyst");
        assert_eq!(purpose.agent(), Some("risk_analyst"));
        assert_eq!(purpose.spender(), "risk_analyst");
        let brief = final_brief();
        assert_eq!(brief.key(), "final_brief");
        assert_eq!(brief.spender(), "final_answer");
        assert_eq!(brief.agent(), None);
    }

    #[test]
    fn a_contributions_prompt_gets_the_role_and_its_focus_and_asks_for_json() {
        use crate::provider::prompts::{Prompts, compiled_in};
        const CONTRIBUTION: Prompt = compiled_in!("collaboration_contribution.md", json);
        let purpose = contribution("risk_analyst", "payments and chargebacks");
        let prompt = Prompts::default()
            .system(&CONTRIBUTION, purpose.fills())
            .unwrap();
        assert!(prompt.json);
        assert!(prompt.text.contains("You are the risk_analyst"));
        assert!(prompt.text.contains("Your focus: payments and chargebacks"));
        assert!(prompt.text.contains(r#"{"agent": "risk_analyst""#));
        assert!(!prompt.text.contains("{{"));
    }

    #[tokio::test(start_paused = true)]
    async fn each_roles_responses_are_consumed_in_order_and_a_role_without_any_fails() {
        let sim = sim(
            json!({"kind": "sim", "latency_ms": 200, "responses": {
                "a": ["first", {"stance": "go"}],
                "b": {"$fault": "timeout"}
            }}),
            1,
        );
        let start = tokio::time::Instant::now();
        assert_eq!(
            sim.complete(&asked("a")).await,
            Ok(ModelOutput::Text("first".into()))
        );
        assert_eq!(sim.complete(&asked("b")).await, Err(ProviderError::Timeout));
        assert_eq!(
            sim.complete(&asked("a")).await,
            Ok(ModelOutput::Json(json!({"stance": "go"})))
        );
        assert_eq!(
            sim.complete(&asked("c")).await,
            Err(ProviderError::Failed(
                "the sim has no scripted output for role \"c\"".into()
            ))
        );
        assert_eq!(start.elapsed(), Duration::from_millis(800));
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_final_answer_the_sim_writes_one() {
        let sim = sim(json!({"kind": "sim"}), 0);
        let payload = json!({"final_decision": "go_with_caution", "history": [
            {"round": 1, "contributions": [{"agent": "risk", "stance": "caution", "confidence": 0.7,
                                            "actions": ["Watch the payment failure rate"]}]}
        ]});
        let brief = sim
            .complete(&ModelRequest::new(final_brief(), &Prompt::UNUSED, payload))
            .await
            .unwrap();
        assert_eq!(
            brief,
            ModelOutput::Text(
                "Decision: GO WITH CAUTION after 1 round. Final stances: risk caution (0.7). Next: Watch the payment failure rate."
                    .into()
            )
        );
    }
}
