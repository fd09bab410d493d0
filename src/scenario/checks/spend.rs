//! The run's dollar budget must be a positive amount: the schema says it is
//! a number, this says which numbers a budget can be. (The token budget's
//! minimum of 1 is in the schema.)

use super::super::error::Problem;
use super::super::path::JsonPath;
use super::super::types::Scenario;

pub(super) fn check(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let Some(dollars) = scenario.budget.as_ref().and_then(|b| b.max_cost_usd) else {
        return;
    };
    if !(dollars.is_finite() && dollars > 0.0) {
        problems.push(Problem::at(
            JsonPath::root().key("budget").key("max_cost_usd"),
            format!(
                "expected US dollars above 0 (e.g. 0.5), found {}",
                serde_json::Number::from_f64(dollars)
                    .map_or_else(|| dollars.to_string(), |n| n.to_string())
            ),
        ));
    }
}
