//! What each pattern declares to the floors below the runners: the figures
//! its runs report (its `figures.rs`), the sections of a scenario file and
//! the `budget` keys it reads, its section types and their checks (its
//! `scenario.rs` and `checks.rs`, given to the scenario as its
//! `Sections` and `SectionChecks`). One match a declaration, each with no
//! wildcard arm, so a new pattern that forgets its entry does not compile.

use super::collaboration::scenario as round_table;
use super::graph::spec as graph;
use super::orchestrator::scenario as orchestrator;
use super::research::scenario as research;
use super::team::scenario as team;
use crate::bus::figures::Figures;
use crate::provider::sim::workers::PatternTools;
use crate::rng::RunRng;
use crate::scenario::pattern_kind::PatternKind;
use crate::scenario::{PatternSections, Problem, Scenario, SectionChecks, Sections};
use strum::VariantArray;

/// Every pattern, in the order of their kinds (and of the format).
pub(crate) const PATTERNS: &[PatternKind] = PatternKind::VARIANTS;

/// The figures `pattern`'s runs report.
pub(crate) fn figures_of(pattern: PatternKind) -> &'static Figures {
    match pattern {
        PatternKind::Collaboration => &super::collaboration::figures::FIGURES,
        PatternKind::Orchestrator => &super::orchestrator::figures::FIGURES,
        PatternKind::Swarm => &super::team::figures::SWARM,
        PatternKind::Coordinator => &super::team::figures::COORDINATOR,
        PatternKind::Research => &super::research::figures::FIGURES,
        PatternKind::Graph => &super::graph::figures::FIGURES,
    }
}

/// The `budget` keys of `pattern`'s own, beside the shared ones
/// (`Budget::SHARED_KEYS`).
fn own_keys(pattern: PatternKind) -> &'static [&'static str] {
    match pattern {
        PatternKind::Collaboration => round_table::BUDGET_KEYS,
        PatternKind::Orchestrator => orchestrator::BUDGET_KEYS,
        PatternKind::Swarm | PatternKind::Coordinator => team::BUDGET_KEYS,
        PatternKind::Research => research::BUDGET_KEYS,
        // The graph's bounds are its section's own (`max_steps`,
        // `max_visits`): it reads only the shared budget keys.
        PatternKind::Graph => &[],
    }
}

/// The patterns that read the `budget` key `key`, in the format's order:
/// the scenario's checks refuse a key set on a scenario whose pattern does
/// not read it.
pub(crate) fn budget_readers(key: &str, shared: &[&str]) -> Vec<PatternKind> {
    PATTERNS
        .iter()
        .copied()
        .filter(|p| shared.contains(&key) || own_keys(*p).contains(&key))
        .collect()
}

/// The sections of a scenario file `pattern` owns: written in a scenario
/// of another pattern that does not read them, they are refused.
fn own_sections(pattern: PatternKind) -> &'static [&'static str] {
    match pattern {
        PatternKind::Collaboration => round_table::SECTIONS,
        PatternKind::Orchestrator => orchestrator::SECTIONS,
        PatternKind::Swarm => team::SWARM_SECTIONS,
        PatternKind::Coordinator => team::COORDINATOR_SECTIONS,
        PatternKind::Research => research::SECTIONS,
        PatternKind::Graph => graph::SECTIONS,
    }
}

/// The simulated tools `scenario`'s pattern brings with its own section,
/// which the simulated workers answer its calls to by name.
pub(crate) fn sim_tools(scenario: &Scenario, rng: &RunRng) -> Option<Box<dyn PatternTools>> {
    match scenario.pattern {
        PatternKind::Research => super::research::sim_tools::sim_tools(scenario, rng),
        PatternKind::Collaboration
        | PatternKind::Orchestrator
        | PatternKind::Swarm
        | PatternKind::Coordinator
        | PatternKind::Graph => None,
    }
}

/// The sections of other patterns `pattern` reads too.
fn read_sections(pattern: PatternKind) -> &'static [&'static str] {
    match pattern {
        PatternKind::Graph => graph::READS,
        PatternKind::Collaboration
        | PatternKind::Orchestrator
        | PatternKind::Swarm
        | PatternKind::Coordinator
        | PatternKind::Research => &[],
    }
}

/// The scenario's registry of the patterns' sections
/// (`scenario::Sections`): each pattern's section type, its checks and
/// its words in the schema.
impl Sections for PatternSections {
    type Team = round_table::Team;
    type HealthRule = orchestrator::HealthRule;
    type Agent = team::AgentSpec;
    type TeamLimits = team::TeamLimits;
    type MemberTeam = team::TeamSpec;
    type Sources = research::Sources;
    type Graph = graph::GraphSpec;

    const ROUND_TABLE_BUDGET_DOCS: [&'static str; 4] = round_table::BUDGET_DOCS;
    const SYNTHESIS_SCRIPT_DOC: &'static str = research::SYNTHESIS_SCRIPT;
}

/// How each pattern's section is checked (`scenario::SectionChecks`).
impl SectionChecks for PatternSections {
    fn check(scenario: &Scenario, problems: &mut Vec<Problem>) {
        match scenario.pattern {
            PatternKind::Collaboration => super::collaboration::checks::check(scenario, problems),
            PatternKind::Orchestrator => super::orchestrator::checks::check(scenario, problems),
            PatternKind::Swarm | PatternKind::Coordinator => {
                super::team::checks::check(scenario, problems)
            }
            PatternKind::Research => super::research::checks::check(scenario, problems),
            PatternKind::Graph => super::graph::checks::check(scenario, problems),
        }
    }

    fn check_member_teams(scenario: &Scenario, problems: &mut Vec<Problem>) {
        super::team::checks::nested::check(scenario, problems);
    }

    fn budget_readers(key: &str, shared: &[&str]) -> Vec<PatternKind> {
        budget_readers(key, shared)
    }

    fn section_owners(section: &str) -> Vec<PatternKind> {
        PATTERNS
            .iter()
            .copied()
            .filter(|p| own_sections(*p).contains(&section))
            .collect()
    }

    fn reads_section(pattern: PatternKind, section: &str) -> bool {
        own_sections(pattern).contains(&section) || read_sections(pattern).contains(&section)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written() -> Vec<&'static str> {
        let scenario: Scenario = serde_json::from_value(serde_json::json!({
            "name": "sections", "pattern": "swarm", "goal": "g", "context": {},
            "provider": {"kind": "sim"}
        }))
        .expect("a scenario");
        scenario.sections_written().map(|(key, _)| key).to_vec()
    }

    /// A section a pattern owns that `Scenario::sections_written` leaves
    /// out would never be refused in another pattern's scenario; one it
    /// lists that no pattern owns would be refused in every scenario.
    #[test]
    fn every_owned_section_is_one_the_scenario_writes() {
        let written = written();
        for pattern in PATTERNS {
            for section in own_sections(*pattern).iter().chain(read_sections(*pattern)) {
                assert!(written.contains(section), "{pattern}: {section}");
            }
        }
        for section in written {
            assert!(
                !PatternSections::section_owners(section).is_empty(),
                "{section} has no owner"
            );
        }
    }

    #[test]
    fn a_graph_reads_the_teams_sections_it_names_and_owns_none_of_them() {
        assert!(PatternSections::reads_section(PatternKind::Graph, "agents"));
        assert!(!PatternSections::reads_section(PatternKind::Graph, "entry"));
        assert_eq!(
            PatternSections::section_owners("teams"),
            [PatternKind::Coordinator]
        );
        assert_eq!(
            PatternSections::section_owners("agents"),
            [PatternKind::Swarm, PatternKind::Coordinator]
        );
    }
}
