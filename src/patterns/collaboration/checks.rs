//! A round table's checks at load: its team (roles declared, the
//! speaking order and the flags naming only those), and with the sim the
//! outputs of every role that can speak.

use crate::scenario::error::Problem;
use crate::scenario::path::JsonPath;
use crate::scenario::script::check_script;
use crate::scenario::types::{ProviderKind, Scenario};
use serde_json::Value;

pub(crate) fn check(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let root = JsonPath::root();
    let Some(team) = &scenario.team else {
        problems.push(Problem::at(
            root,
            "missing field \"team\": a collaboration scenario declares its roles and their speaking order",
        ));
        return;
    };
    let roles_path = root.key("team").key("roles");
    let declared: Vec<&str> = team.roles.keys().map(String::as_str).collect();
    if declared.is_empty() {
        problems.push(Problem::at(
            roles_path.clone(),
            "expected at least one role",
        ));
    }
    let expected_role = |found: &str| {
        format!(
            "expected a role declared in team.roles ({}), found {}",
            declared.join(", "),
            Value::from(found)
        )
    };
    for (i, role) in team.sequence.iter().enumerate() {
        if !team.roles.contains_key(role) {
            problems.push(Problem::at(
                root.key("team").key("sequence").index(i),
                expected_role(role),
            ));
        }
    }
    for (name, flag) in &scenario.flags {
        let flag_path = root.key("flags").key(name);
        for (i, role) in flag.roles.iter().enumerate() {
            if !team.roles.contains_key(role) {
                problems.push(Problem::at(
                    flag_path.key("roles").index(i),
                    expected_role(role),
                ));
            }
        }
        flag.check_gates(&flag_path, (&"collaboration", "roles"), problems);
    }
    if scenario.provider.kind == ProviderKind::Sim {
        check_role_scripts(scenario, &declared, problems);
    }
}

/// Every role that can speak needs scripted outputs: the sequence, and the
/// roles of flags that join the table.
fn check_role_scripts(scenario: &Scenario, declared: &[&str], problems: &mut Vec<Problem>) {
    let Some(team) = &scenario.team else { return };
    let provider_path = JsonPath::root().key("provider");
    let responses_path = provider_path.key("responses");
    let mut speakers: Vec<(String, JsonPath)> = team
        .sequence
        .iter()
        .enumerate()
        .map(|(i, role)| {
            (
                role.clone(),
                JsonPath::root().key("team").key("sequence").index(i),
            )
        })
        .collect();
    for (name, flag) in scenario.flags.iter().filter(|(_, f)| f.joins) {
        for (i, role) in flag.roles.iter().enumerate() {
            speakers.push((
                role.clone(),
                JsonPath::root()
                    .key("flags")
                    .key(name)
                    .key("roles")
                    .index(i),
            ));
        }
    }
    let Some(responses) = &scenario.provider.responses else {
        problems.push(Problem::at(
            provider_path,
            "missing field \"responses\": the sim needs each speaking role's outputs",
        ));
        return;
    };
    let mut reported = Vec::new();
    for (role, used_at) in &speakers {
        if team.roles.contains_key(role)
            && !responses.contains_key(role)
            && !reported.contains(role)
        {
            reported.push(role.clone());
            problems.push(Problem::at(
                responses_path.clone(),
                format!(
                    "missing the outputs of role {} (it speaks at {used_at})",
                    Value::from(role.as_str())
                ),
            ));
        }
    }
    for (role, script) in responses {
        let path = responses_path.key(role);
        if !team.roles.contains_key(role) {
            problems.push(Problem::at_key(
                path.clone(),
                format!(
                    "{} is not a role declared in team.roles ({})",
                    Value::from(role.as_str()),
                    declared.join(", ")
                ),
            ));
        }
        check_script(script, &path, problems);
    }
}
