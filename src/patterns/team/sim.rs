//! A team's turns as the sim answers them: each agent's outputs scripted
//! in `provider.turns` by its name (a member team's agent as
//! `TEAM/AGENT`), one per model call; an object turn may carry its own
//! `latency_ms`.

use crate::provider::sim::{Script, SimScript};
use crate::provider::{ModelOutput, ProviderError, Purpose};
use crate::scenario::ProviderSpec;
use serde_json::Value;

/// The call for one turn of the agent at `path` (`launch/research_team/
/// analyst` in a member team, its name at the top); `team` is the member
/// team's name in the scenario's `teams`. Its prompt is told the agent's
/// own name, as the team lifted out into a scenario of its own would tell
/// it, and the agent's `description`.
pub(crate) fn turn(path: &str, team: Option<&str>, description: &str) -> Purpose {
    let own = own_name(path);
    let script_key = match team {
        None => path.to_string(),
        Some(team) => format!("{team}/{own}"),
    };
    Purpose::new(format!("turn:{path}"), script_key, path, &TurnScript)
        .spoken_by(path)
        .filling("agent", own)
        .filling("description", description)
}

/// An agent's own name, the last part of its path.
pub(crate) fn own_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `provider.turns`, by the purpose's script key.
#[derive(Debug)]
struct TurnScript;

impl SimScript for TurnScript {
    fn script<'a>(&self, spec: &'a ProviderSpec, purpose: &Purpose) -> Script<'a> {
        spec.turns
            .as_ref()
            .and_then(|turns| turns.get(purpose.script_key()))
            .map_or(Script::None, Script::TimedOutputs)
    }

    fn unscripted(&self, purpose: &Purpose, _: &Value) -> Result<ModelOutput, ProviderError> {
        Err(ProviderError::Failed(format!(
            "the sim has no scripted turns for agent {:?}",
            purpose.agent().unwrap_or_default()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::prompts::{Prompt, Prompts, compiled_in};

    #[test]
    fn a_member_teams_agent_is_scripted_as_team_slash_agent_and_named_by_its_path() {
        let top = turn("lead", None, "Runs the desk.");
        assert_eq!(top.key(), "turn:lead");
        assert_eq!(top.script_key(), "lead");
        let member = turn("lead/research_team/analyst", Some("research_team"), "");
        assert_eq!(member.key(), "turn:lead/research_team/analyst");
        assert_eq!(member.script_key(), "research_team/analyst");
        assert_eq!(member.agent(), Some("lead/research_team/analyst"));
        assert_eq!(member.spender(), "lead/research_team/analyst");
    }

    #[test]
    fn a_turn_gets_its_agent_and_the_agents_description() {
        const COORDINATOR_TURN: Prompt = compiled_in!("coordinator_turn.md", json);
        let prompt = Prompts::default()
            .system(
                &COORDINATOR_TURN,
                turn("lead", None, "Runs the desk.").fills(),
            )
            .unwrap();
        assert!(prompt.json);
        assert!(prompt.text.starts_with("You are lead, the coordinator"));
        assert!(prompt.text.contains("Runs the desk."));
        assert!(!prompt.text.contains("{{"));
    }
}
