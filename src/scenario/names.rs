//! The names a model is told and calls by: agents, workers and tools follow
//! `^[a-zA-Z0-9_-]+$` (002's rule for team members, and what model APIs
//! accept as a tool's name). It only reads the declared names.

use super::error::Problem;
use super::path::JsonPath;
use super::types::Scenario;
use serde_json::Value;

pub(crate) fn check(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let root = JsonPath::root();
    let sections = [
        ("agents", "an agent", names(scenario.agents.keys())),
        ("workers", "a worker", names(scenario.workers.keys())),
        ("tools", "a tool", names(scenario.tools.keys())),
    ];
    for (section, what, declared) in sections {
        for name in declared.into_iter().filter(|n| !is_valid_name(n)) {
            problems.push(Problem::at_key(
                root.key(section).key(name),
                format!(
                    "expected {what} name of letters, digits, '_' and '-' only (^[a-zA-Z0-9_-]+$), found {}",
                    Value::from(name)
                ),
            ));
        }
    }
}

fn names<'a>(keys: impl Iterator<Item = &'a String>) -> Vec<&'a str> {
    keys.map(String::as_str).collect()
}

/// Whether `name` matches `^[a-zA-Z0-9_-]+$`.
pub(crate) fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::is_valid_name;

    #[test]
    fn names_follow_the_model_apis_rule() {
        for good in ["triage", "refund_api", "tier-2", "A1"] {
            assert!(is_valid_name(good), "{good}");
        }
        for bad in ["", "refund api", "billing.v2", "é", "a/b", "x\n"] {
            assert!(!is_valid_name(bad), "{bad:?}");
        }
    }
}
