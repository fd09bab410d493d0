//! A team node's activation: the scenario's team of that name (a swarm or
//! a coordinator of `teams`) run nested, as a coordinator's member team
//! runs, asked the node's input as JSON text. Its agents are named by the
//! path `NODE/AGENT` (`NODE#V/AGENT` from the second visit on), so that
//! the chain pane's nested view, the recorder and the trace keep each
//! visit apart; its turns take the graph run's turn numbers and pass the
//! run's gate. The team's answer is the node's output. A stop of the
//! team's own (its limits, its model calls, a turn it cannot take) fails
//! the node; the run's shared stops (cancelled, time, tokens, dollars,
//! safe mode) stop the run.

use super::Desk;
use super::node::Outcome;
use super::output::{check, fields_json, fields_of};
use crate::patterns::graph::shape::{Kind, NodeId};
use crate::patterns::graph::sim::{NODE_KEY, OUTPUT_KEY};
use crate::patterns::team::agent::TeamRun;
use crate::patterns::team::events::MemberTeam;
use crate::patterns::team::part::{Nested, Part};
use crate::provider::lenient::{self, Lenient};
use crate::scenario::PatternKind;
use crate::stop::StopReason;
use serde_json::{Value, json};
use std::borrow::Cow;

/// The path the `visit`-th activation of team node `node` runs its team
/// under: the node's id, then `#VISIT` from the second visit on, as a
/// coordinator names a member team called twice in one turn.
pub(crate) fn team_path(node: &str, visit: u32) -> String {
    match visit {
        0 | 1 => node.to_string(),
        visit => format!("{node}#{visit}"),
    }
}

/// What flows into a team node, as the task its team is asked: a text as
/// itself, anything else as compact JSON.
fn task_of(input: &Value) -> String {
    match input {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

impl<'a> Desk<'a> {
    /// The team the `visit`-th activation of `node` runs, as its
    /// `node_started` announces it; `None` for other nodes.
    pub(super) fn team_of(&self, node: NodeId, visit: u32) -> Option<MemberTeam> {
        self.part_of(node, visit)?.announced()
    }

    /// The team node's team as a member team's part, at its path.
    fn part_of(&self, node: NodeId, visit: u32) -> Option<Part<'a>> {
        let Kind::Team { team } = &self.shape.nodes[node].kind else {
            return None;
        };
        let (name, spec) = self.scenario.teams.get_key_value(team)?;
        let id = &self.shape.nodes[node].id;
        Some(Part {
            pattern: spec.pattern,
            agents: &spec.agents,
            tools: &spec.tools,
            entry: spec.entry.clone(),
            limits: spec.limits.clone().unwrap_or_default(),
            nested: Some(Nested {
                name,
                path: team_path(id, visit),
                member: id.clone(),
                deadline: None,
            }),
        })
    }

    /// Run the team of `node` to its own stop, asked `input`.
    pub(super) async fn team(&self, node: NodeId, visit: u32, input: Value) -> Outcome {
        let Some(part) = self.part_of(node, visit) else {
            // Refused at load: a team node names a declared team.
            return Outcome::Failed {
                error: "the node's team is not declared in teams".into(),
            };
        };
        let name = part.team_name().unwrap_or_default().to_string();
        let pattern = part.pattern;
        let mut team = TeamRun::new(self.scenario, self.goal, self.bus, self.gateway, self.gate)
            .in_graph(part, &self.turns, self.max_seconds());
        team.goal = Cow::Owned(task_of(&input));
        let lane = team.lane;
        let ran = match pattern {
            PatternKind::Swarm => crate::patterns::swarm::run_member(team).await,
            _ => crate::patterns::coordinator::run_member(team).await,
        };
        self.turns.done(lane);
        match ran.ended {
            Ok(answer) => self.team_output(node, &name, answer).await,
            Err(reason) if self.stops_the_run(&reason) => Outcome::Stop(reason),
            Err(reason) => Outcome::Failed {
                error: format!("team {name} stopped: {reason}"),
            },
        }
    }

    /// Whether a team's `reason` stops the whole run: cancelling, the
    /// run's time, tokens or dollars, or safe mode without partial results.
    /// The team's own limits and its call budget fail the node only.
    fn stops_the_run(&self, reason: &StopReason) -> bool {
        matches!(reason, StopReason::Cancelled | StopReason::MaxSeconds)
            || reason.is_spend_budget()
            || self.turns.is_safe_mode_stop(reason)
    }

    /// The node's output from its team's `answer`: `{"answer": TEXT}`
    /// for a node that declares no `output`; otherwise the answer read as
    /// an endpoint's is (the one JSON object in it) and checked against
    /// the fields, and, when it does not fit, one model call of the node
    /// asked to put the answer into them (checked, and repaired, as an
    /// agent node's answer is).
    async fn team_output(&self, node: NodeId, team: &str, answer: String) -> Outcome {
        let spec = &self.shape.nodes[node].spec;
        if spec.output.is_empty() {
            return Outcome::Ok {
                output: json!({ "answer": answer }),
                answer: None,
            };
        }
        let fields = fields_of(spec);
        let mut read = match lenient::read(&answer) {
            Lenient::Whole => crate::pycompat::parse_model_text(answer.trim()),
            Lenient::Found(value, _) => Some(value),
            Lenient::Several | Lenient::None { .. } => None,
        }
        .unwrap_or_else(|| Value::String(answer.clone()));
        let error = match check(&fields, &mut read) {
            Ok(()) => {
                return Outcome::Ok {
                    output: read,
                    answer: None,
                };
            }
            Err(error) => error,
        };
        let id = &self.shape.nodes[node].id;
        let payload = json!({
            NODE_KEY: id, "goal": self.goal, "input": answer, "error": error,
            OUTPUT_KEY: fields_json(&fields),
        });
        self.ask_model(node, team, format!("node:{id}[repair]"), payload)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_visit_runs_under_a_path_of_its_own() {
        assert_eq!(team_path("draft", 1), "draft");
        assert_eq!(team_path("draft", 2), "draft#2");
        assert_eq!(team_path("draft", 3), "draft#3");
    }

    #[test]
    fn the_task_is_the_input_as_json_text() {
        assert_eq!(task_of(&json!("write it")), "write it");
        assert_eq!(
            task_of(&json!({"gather": {"risks": ["a"]}})),
            r#"{"gather":{"risks":["a"]}}"#
        );
    }
}
