//! The system prompts of the HTTP provider, one per pattern and purpose, in
//! Conclave's own words. They are compiled in from `assets/prompts/`; a
//! folder given with `--prompts` overrides any of them by file name.
//! `{{role}}` and `{{focus}}` (a round table's analyst), `{{agent}}` and
//! `{{description}}` (a swarm's or a coordinated team's agent) are filled in
//! from the scenario.

use super::Purpose;
use crate::scenario::{PatternKind, Scenario};
use std::path::{Path, PathBuf};

/// A prompt: its file name and the text compiled in.
struct Embedded {
    file: &'static str,
    text: &'static str,
}

macro_rules! embedded {
    ($file:literal) => {
        Embedded {
            file: $file,
            text: include_str!(concat!("../../assets/prompts/", $file)),
        }
    };
}

const COLLABORATION_CONTRIBUTION: Embedded = embedded!("collaboration_contribution.md");
const COLLABORATION_BRIEF: Embedded = embedded!("collaboration_brief.md");
const ORCHESTRATOR_PLAN: Embedded = embedded!("orchestrator_plan.md");
const ORCHESTRATOR_BRIEF: Embedded = embedded!("orchestrator_brief.md");
const SWARM_TURN: Embedded = embedded!("swarm_turn.md");
const COORDINATOR_TURN: Embedded = embedded!("coordinator_turn.md");
const COORDINATOR_MEMBER: Embedded = embedded!("coordinator_member.md");
const RESEARCH_PLAN: Embedded = embedded!("research_plan.md");
const RESEARCH_NOTES: Embedded = embedded!("research_notes.md");
const RESEARCH_SYNTHESIS: Embedded = embedded!("research_synthesis.md");

#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum PromptError {
    #[error("no prompt for the {purpose} calls of the {pattern} pattern")]
    Missing {
        pattern: PatternKind,
        purpose: String,
    },
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

    pub(crate) fn system(
        &self,
        scenario: &Scenario,
        purpose: &Purpose,
    ) -> Result<SystemPrompt, PromptError> {
        let (prompt, json) = match (scenario.pattern, purpose) {
            (PatternKind::Collaboration, Purpose::Contribution { .. }) => {
                (&COLLABORATION_CONTRIBUTION, true)
            }
            (PatternKind::Collaboration, Purpose::FinalBrief) => (&COLLABORATION_BRIEF, false),
            (PatternKind::Orchestrator, Purpose::Plan) => (&ORCHESTRATOR_PLAN, true),
            (PatternKind::Orchestrator, Purpose::FinalBrief) => (&ORCHESTRATOR_BRIEF, false),
            (PatternKind::Swarm, Purpose::Turn { .. }) => (&SWARM_TURN, true),
            (PatternKind::Coordinator, Purpose::Turn { agent }) => {
                if scenario.entry.as_ref() == Some(agent) {
                    (&COORDINATOR_TURN, true)
                } else {
                    (&COORDINATOR_MEMBER, true)
                }
            }
            (PatternKind::Research, Purpose::ResearchPlan) => (&RESEARCH_PLAN, true),
            (PatternKind::Research, Purpose::Notes) => (&RESEARCH_NOTES, true),
            (PatternKind::Research, Purpose::Synthesis) => (&RESEARCH_SYNTHESIS, true),
            (pattern, purpose) => {
                return Err(PromptError::Missing {
                    pattern,
                    purpose: purpose.script_key().to_string(),
                });
            }
        };
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
            Purpose::Turn { agent } => (
                agent.as_str(),
                scenario
                    .agents
                    .get(agent)
                    .and_then(|a| a.description.as_deref())
                    .unwrap_or(""),
            ),
            _ => ("", ""),
        };
        Ok(SystemPrompt {
            text: template
                .replace("{{role}}", role)
                .replace("{{focus}}", focus)
                .replace("{{agent}}", agent)
                .replace("{{description}}", description),
            json,
        })
    }

    fn text(&self, prompt: &Embedded) -> Result<String, PromptError> {
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

    fn scenario() -> Scenario {
        serde_json::from_value(json!({
            "name": "t", "pattern": "collaboration", "goal": "g", "context": {},
            "team": {"roles": {"risk_analyst": {"focus": "payments and chargebacks"}}, "sequence": ["risk_analyst"]},
            "provider": {"kind": "openai"}
        }))
        .unwrap()
    }

    #[test]
    fn contributions_get_the_role_and_its_focus_and_ask_for_json() {
        let prompt = Prompts::default()
            .system(
                &scenario(),
                &Purpose::Contribution {
                    role: "risk_analyst".into(),
                },
            )
            .unwrap();
        assert!(prompt.json);
        assert!(prompt.text.contains("You are the risk_analyst"));
        assert!(prompt.text.contains("Your focus: payments and chargebacks"));
        assert!(prompt.text.contains(r#"{"agent": "risk_analyst""#));
        let brief = Prompts::default()
            .system(&scenario(), &Purpose::FinalBrief)
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
                .system(&scenario(), &Purpose::FinalBrief)
                .unwrap()
                .text,
            "Write it as a haiku."
        );
        assert!(
            prompts
                .system(
                    &scenario(),
                    &Purpose::Contribution {
                        role: "risk_analyst".into()
                    }
                )
                .unwrap()
                .text
                .starts_with("You are the risk_analyst"),
            "the others stay compiled in"
        );
        let err = prompts.system(&scenario(), &Purpose::Plan).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no prompt for the plan calls of the collaboration pattern"
        );
    }

    #[test]
    fn the_coordinator_and_its_members_get_their_own_prompts() {
        let team: Scenario = serde_json::from_value(json!({
            "name": "t", "pattern": "coordinator", "goal": "g", "context": {},
            "entry": "lead",
            "agents": {"lead": {"description": "Runs the desk."},
                       "billing": {"description": "Knows invoices."}},
            "provider": {"kind": "openai"}
        }))
        .unwrap();
        let turn = |agent: &str| {
            Prompts::default()
                .system(
                    &team,
                    &Purpose::Turn {
                        agent: agent.into(),
                    },
                )
                .unwrap()
        };
        let lead = turn("lead");
        assert!(lead.json);
        assert!(lead.text.starts_with("You are lead, the coordinator"));
        assert!(lead.text.contains("Runs the desk."));
        assert!(lead.text.contains("call_members"));
        let member = turn("billing");
        assert!(
            member
                .text
                .starts_with("You are billing, a specialist member")
        );
        assert!(member.text.contains("Knows invoices."));
        assert!(!member.text.contains("call_members"));
    }

    #[test]
    fn swarm_turns_and_research_steps_ask_for_json() {
        let mut swarm = scenario();
        swarm.pattern = PatternKind::Swarm;
        let turn = Prompts::default()
            .system(
                &swarm,
                &Purpose::Turn {
                    agent: "triage".into(),
                },
            )
            .unwrap();
        assert!(turn.json && turn.text.contains(r#"{"transfer_to": "<another agent>"}"#));
        let mut research = scenario();
        research.pattern = PatternKind::Research;
        for purpose in [Purpose::ResearchPlan, Purpose::Notes, Purpose::Synthesis] {
            assert!(Prompts::default().system(&research, &purpose).unwrap().json);
        }
        assert!(
            Prompts::default()
                .system(&research, &Purpose::FinalBrief)
                .is_err()
        );
    }
}
