//! THE ONE PLACE that keeps nested teams from running (issue 34). A
//! scenario whose coordinator has a team as a member (`{"team": NAME}`)
//! is checked in full by the loader, but the engine does not run member
//! teams yet: such a launch is refused before anything starts, rather than
//! run half-way. The session that teaches the engine to run member teams
//! deletes this file, its call in `refuse_unlaunchable` and
//! `LaunchError::NestedTeams`.

use super::LaunchError;
use crate::scenario::{JsonPath, Scenario};

/// The words of the refusal, after the place of the first team member.
pub(crate) const NOT_YET_RUN: &str = "nested teams are validated but not yet run: this member is a team, and this version of Conclave cannot run a team as a coordinator's member; `conclave validate` checks the file, and a team lifted out into a scenario of its own runs";

/// Refuse a scenario that uses a team as a member, naming the first one.
pub(super) fn refuse(scenario: &Scenario) -> Result<(), LaunchError> {
    let first = scenario
        .agents
        .iter()
        .find_map(|(name, agent)| agent.team.as_ref().map(|_| name));
    match first {
        None => Ok(()),
        Some(name) => {
            let path = JsonPath::root().key("agents").key(name).key("team");
            Err(LaunchError::NestedTeams(
                scenario.errors_at(vec![(path, NOT_YET_RUN.to_string())]),
            ))
        }
    }
}
