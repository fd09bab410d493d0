//! The system prompts of the HTTP provider. Each pattern names the prompt
//! of each of its calls (`ModelRequest::prompt`), compiled in from
//! `assets/prompts/`; a folder given with `--prompts` overrides any of them
//! by file name. `{{role}}` and `{{focus}}` (a round table's analyst),
//! `{{agent}}` and `{{description}}` (a swarm's or a coordinated team's
//! agent) are filled in from the scenario. The provider never tells
//! patterns apart: it sends the prompt it is handed.

use super::Purpose;
use crate::scenario::Scenario;
use std::path::{Path, PathBuf};

/// A prompt a pattern hands the provider: its file name under
/// `assets/prompts/` (the name `--prompts` overrides it by), the text
/// compiled in, and whether the answer must be JSON.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Prompt {
    pub(crate) file: &'static str,
    pub(crate) text: &'static str,
    pub(crate) json: bool,
}

#[cfg(test)]
impl Prompt {
    /// The prompt of a test's call to a provider that reads none (the sim).
    pub(crate) const UNUSED: Prompt = Prompt {
        file: "unused.md",
        text: "",
        json: false,
    };
}

/// The [`Prompt`] of a file in `assets/prompts/`, compiled in:
/// `compiled_in!("swarm_turn.md", json)` for one whose answer must be
/// JSON, `compiled_in!("orchestrator_brief.md", text)` for free text.
macro_rules! compiled_in {
    ($file:literal, json) => {
        $crate::provider::prompts::compiled_in!(@ $file, true)
    };
    ($file:literal, text) => {
        $crate::provider::prompts::compiled_in!(@ $file, false)
    };
    (@ $file:literal, $json:literal) => {
        $crate::provider::prompts::Prompt {
            file: $file,
            text: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/prompts/", $file)),
            json: $json,
        }
    };
}
pub(crate) use compiled_in;

#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum PromptError {
    #[error("cannot read the prompt {path}: {message}")]
    Unreadable { path: String, message: String },
}

/// Where prompts come from.
#[derive(Clone, Debug, Default)]
pub(crate) struct Prompts {
    overrides: Option<PathBuf>,
}

/// The system prompt of a call and whether the answer must be JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SystemPrompt {
    pub(crate) text: String,
    pub(crate) json: bool,
}

impl Prompts {
    pub(crate) fn new(overrides: Option<PathBuf>) -> Self {
        Prompts { overrides }
    }

    /// `prompt`, or the file of its name in the `--prompts` folder, with
    /// the speaker of `purpose` filled in from `scenario`.
    pub(crate) fn system(
        &self,
        scenario: &Scenario,
        prompt: &Prompt,
        purpose: &Purpose,
    ) -> Result<SystemPrompt, PromptError> {
        let template = self.text(prompt)?;
        let (role, focus) = match purpose {
            Purpose::Contribution { role } => (
                role.as_str(),
                scenario
                    .team
                    .as_ref()
                    .and_then(|t| t.roles.get(role))
                    .and_then(|r| r.focus.as_deref())
                    .unwrap_or("the question as a whole"),
            ),
            _ => ("", ""),
        };
        let (agent, description) = match purpose {
            // A member team's agent is told its own name, as the team
            // lifted out into a scenario of its own would tell it.
            Purpose::Turn { agent, team } => {
                let own = super::own_name(agent);
                let agents = match team {
                    None => Some(&scenario.agents),
                    Some(team) => scenario.teams.get(team).map(|t| &t.agents),
                };
                let description = agents
                    .and_then(|agents| agents.get(own))
                    .and_then(|a| a.description.as_deref());
                (own, description.unwrap_or(""))
            }
            _ => ("", ""),
        };
        Ok(SystemPrompt {
            text: template
                .replace("{{role}}", role)
                .replace("{{focus}}", focus)
                .replace("{{agent}}", agent)
                .replace("{{description}}", description),
            json: prompt.json,
        })
    }

    fn text(&self, prompt: &Prompt) -> Result<String, PromptError> {
        if let Some(dir) = &self.overrides {
            let path: &Path = &dir.join(prompt.file);
            if path.exists() {
                return std::fs::read_to_string(path).map_err(|e| PromptError::Unreadable {
                    path: path.display().to_string(),
                    message: e.to_string(),
                });
            }
        }
        Ok(prompt.text.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CONTRIBUTION: Prompt = compiled_in!("collaboration_contribution.md", json);
    const BRIEF: Prompt = compiled_in!("collaboration_brief.md", text);
    const COORDINATOR_TURN: Prompt = compiled_in!("coordinator_turn.md", json);

    fn scenario() -> Scenario {
        serde_json::from_value(json!({
            "name": "t", "pattern": "collaboration", "goal": "g", "context": {},
            "team": {"roles": {"risk_analyst": {"focus": "payments and chargebacks"}}, "sequence": ["risk_analyst"]},
            "provider": {"kind": "openai"}
        }))
        .unwrap()
    }

    fn contribution() -> Purpose {
        Purpose::Contribution {
            role: "risk_analyst".into(),
        }
    }

    #[test]
    fn contributions_get_the_role_and_its_focus_and_ask_for_json() {
        let prompt = Prompts::default()
            .system(&scenario(), &CONTRIBUTION, &contribution())
            .unwrap();
        assert!(prompt.json);
        assert!(prompt.text.contains("You are the risk_analyst"));
        assert!(prompt.text.contains("Your focus: payments and chargebacks"));
        assert!(prompt.text.contains(r#"{"agent": "risk_analyst""#));
        let brief = Prompts::default()
            .system(&scenario(), &BRIEF, &Purpose::FinalBrief)
            .unwrap();
        assert!(!brief.json);
    }

    #[test]
    fn a_folder_overrides_prompts_by_file_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("collaboration_brief.md"),
            "Write it as a haiku.",
        )
        .unwrap();
        let prompts = Prompts::new(Some(dir.path().to_path_buf()));
        assert_eq!(
            prompts
                .system(&scenario(), &BRIEF, &Purpose::FinalBrief)
                .unwrap()
                .text,
            "Write it as a haiku."
        );
        assert!(
            prompts
                .system(&scenario(), &CONTRIBUTION, &contribution())
                .unwrap()
                .text
                .starts_with("You are the risk_analyst"),
            "the others stay compiled in"
        );
    }

    #[test]
    fn a_turn_gets_its_agent_and_the_agents_description() {
        let team: Scenario = serde_json::from_value(json!({
            "name": "t", "pattern": "coordinator", "goal": "g", "context": {},
            "entry": "lead",
            "agents": {"lead": {"description": "Runs the desk."},
                       "billing": {"description": "Knows invoices."}},
            "provider": {"kind": "openai"}
        }))
        .unwrap();
        let lead = Purpose::Turn {
            agent: "lead".into(),
            team: None,
        };
        let prompt = Prompts::default()
            .system(&team, &COORDINATOR_TURN, &lead)
            .unwrap();
        assert!(prompt.json);
        assert!(prompt.text.starts_with("You are lead, the coordinator"));
        assert!(prompt.text.contains("Runs the desk."));
        assert!(!prompt.text.contains("{{"));
    }
}
