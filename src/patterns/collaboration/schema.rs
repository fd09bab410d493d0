//! The contribution contract as an endpoint is asked for it: a strict
//! schema built from the keys, stances and rules `contract` checks, so the
//! two cannot drift. One per role, built once a run: its `agent` can only
//! be the role asked.

use super::contract::{MAX_ACTIONS, REQUIRED_KEYS};
use crate::patterns::collaboration::events::Stance;
use crate::provider::contract::{Contract, wire};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// The contribution contract of `role`.
pub(crate) fn contribution_contract(role: &str) -> Contract {
    let properties = REQUIRED_KEYS
        .iter()
        .map(|key| (*key, property(key, role)))
        .collect();
    let schema = wire::object("Your contribution to this round.", properties);
    // Every key is required and none is free-form: the wire form is the
    // contract's own.
    wire::single("contribution", schema, |answer| answer)
}

fn property(key: &str, role: &str) -> Value {
    match key {
        "agent" => wire::one_of([role], "Your role, as you were asked."),
        "stance" => wire::one_of(
            Stance::ALL.map(Stance::as_str),
            "go: ready as planned; caution: go with conditions; block: must not go.",
        ),
        "summary" => wire::string("Your assessment in one or two sentences; not blank."),
        "confidence" => wire::number_in("How sure you are, from 0 to 1.", 0.0, 1.0),
        "actions" => wire::bounded(
            wire::array(
                wire::string("One action; not blank."),
                &format!(
                    "The actions you propose: at least one; the first {MAX_ACTIONS} are kept."
                ),
            ),
            1,
            None,
        ),
        other => unreachable!("the contribution key {other} has no schema"),
    }
}

/// The roles' contracts of one run, each built when the role first speaks.
#[derive(Default)]
pub(super) struct Contracts(HashMap<String, Arc<Contract>>);

impl Contracts {
    pub(super) fn of(&mut self, role: &str) -> Arc<Contract> {
        let contract = self
            .0
            .entry(role.to_string())
            .or_insert_with(|| Arc::new(contribution_contract(role)));
        Arc::clone(contract)
    }
}

#[cfg(test)]
mod tests {
    use super::super::contract::validate_contribution;
    use super::*;
    use crate::patterns::contract_checks::{json_of, outputs, shipped};
    use crate::provider::contract::strict::{check_answer, check_contract};
    use crate::scenario::PatternKind;
    use serde_json::json;

    #[test]
    fn every_accepted_sim_contribution_keeps_its_roles_contract() {
        let mut checked = 0;
        for (_, scenario) in shipped() {
            if scenario.pattern != PatternKind::Collaboration {
                continue;
            }
            let roles = scenario
                .team
                .as_ref()
                .map(|t| t.roles.clone())
                .unwrap_or_default();
            let responses = scenario.provider.responses.clone().unwrap_or_default();
            for (role, script) in &responses {
                let contract = contribution_contract(role);
                check_contract(&contract);
                for answer in outputs(script).into_iter().filter_map(json_of) {
                    let accepted = validate_contribution(&answer, |a| roles.contains_key(a))
                        .is_ok_and(|c| &c.agent == role);
                    if accepted {
                        check_answer(&contract, &answer);
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked >= 20, "only {checked} contributions checked");
    }

    #[test]
    fn the_schema_names_what_the_validation_accepts() {
        let contract = contribution_contract("risk_analyst");
        let schema = &contract.schema;
        assert_eq!(schema["required"], json!(REQUIRED_KEYS));
        assert_eq!(
            schema["properties"]["stance"]["enum"],
            json!(["go", "caution", "block"])
        );
        assert_eq!(
            schema["properties"]["agent"]["enum"],
            json!(["risk_analyst"])
        );
        let validator = jsonschema::validator_for(schema).unwrap();
        let answer = json!({"agent": "risk_analyst", "stance": "go", "summary": "Fine.",
                            "confidence": 0.8, "actions": ["Ship"]});
        assert!(validator.is_valid(&answer));
        for (key, wrong) in [
            ("agent", json!("legal")),
            ("stance", json!("maybe")),
            // What llama-server's grammar wrote when the range was only
            // in the description (issue 78).
            ("confidence", json!(1.5)),
            ("confidence", json!(-0.1)),
            ("actions", json!([])),
        ] {
            let mut bad = answer.clone();
            bad[key] = wrong;
            assert!(!validator.is_valid(&bad), "{bad}");
            assert!(validate_contribution(&bad, |a| a == "risk_analyst").is_err());
        }
        for edge in [0.0, 1.0] {
            let mut fine = answer.clone();
            fine["confidence"] = json!(edge);
            assert!(validator.is_valid(&fine), "{fine}");
        }
        assert_eq!(contract.functions[0].name, "submit_contribution");
    }

    #[test]
    fn a_roles_contract_is_built_once_a_run() {
        let mut contracts = Contracts::default();
        let first = contracts.of("risk");
        assert!(Arc::ptr_eq(&first, &contracts.of("risk")));
        assert!(!Arc::ptr_eq(&first, &contracts.of("legal")));
    }
}
