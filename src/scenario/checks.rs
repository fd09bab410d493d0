//! The cross-reference checks a schema cannot express: every name a scenario
//! uses must be declared, each section must belong to the scenario's
//! pattern, and the sim must have a script for everyone who speaks. Each
//! pattern's own section is checked in its folder (`patterns::<p>::checks`,
//! the teams' nesting in `team::checks::nested`), reached through the
//! sections' registry (`SectionChecks`); the checks here are the ones
//! every pattern shares.

mod durations;
mod provider;
pub(crate) use provider::MAX_OUTPUT_RETRIES;
mod real;
mod resilience;
mod spend;

use super::error::Problem;
use super::names;
use super::path::JsonPath;
use super::pattern_kind::PatternKind;
use super::sections::PatternSections;
use super::types::{Budget, Scenario};

/// The checks of the patterns' own sections, given with the sections'
/// registry (`impl SectionChecks for PatternSections` in
/// `patterns/declared.rs`).
pub(crate) trait SectionChecks {
    /// Check the section of `scenario`'s own pattern, pushing each problem
    /// found.
    fn check(scenario: &Scenario, problems: &mut Vec<Problem>);

    /// Check the member teams `scenario` nests, at any depth.
    fn check_member_teams(scenario: &Scenario, problems: &mut Vec<Problem>);

    /// The patterns that read the `budget` key `key` (`shared` being the
    /// keys every pattern reads), in the format's order.
    fn budget_readers(key: &str, shared: &[&str]) -> Vec<PatternKind>;

    /// The patterns that own the section `section`, in the format's order.
    fn section_owners(section: &str) -> Vec<PatternKind>;

    /// Whether `pattern` reads the section `section`, its own or another's.
    fn reads_section(pattern: PatternKind, section: &str) -> bool;
}

pub(crate) fn check(scenario: &Scenario) -> Vec<Problem> {
    let mut problems = Vec::new();
    PatternSections::check(scenario, &mut problems);
    names::check(scenario, &mut problems);
    PatternSections::check_member_teams(scenario, &mut problems);
    provider::check(scenario, &mut problems);
    check_sections(scenario, &mut problems);
    resilience::check(scenario, &mut problems);
    real::check(scenario, &mut problems);
    durations::check(scenario, &mut problems);
    spend::check(scenario, &mut problems);
    problems
}

/// Sections and budget keys that belong to another pattern than the
/// scenario's.
fn check_sections(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let root = JsonPath::root();
    let pattern = scenario.pattern;
    for (section, written) in scenario.sections_written() {
        if written && !PatternSections::reads_section(pattern, section) {
            let owners: Vec<&str> = PatternSections::section_owners(section)
                .iter()
                .map(|p| p.as_str())
                .collect();
            problems.push(Problem::at_key(
                root.key(section),
                format!(
                    "{section:?} belongs to {} scenarios; this scenario's pattern is {pattern}",
                    owners.join(" and ")
                ),
            ));
        }
    }
    if let Some(budget) = &scenario.budget {
        for key in budget.keys_set() {
            let owners = PatternSections::budget_readers(key, Budget::SHARED_KEYS);
            if !owners.contains(&pattern) {
                let owners: Vec<&str> = owners.iter().map(|p| p.as_str()).collect();
                problems.push(Problem::at_key(
                    root.key("budget").key(key),
                    format!(
                        "{key:?} is a budget of {} scenarios; this scenario's pattern is {pattern}",
                        owners.join(" and ")
                    ),
                ));
            }
        }
    }
}
