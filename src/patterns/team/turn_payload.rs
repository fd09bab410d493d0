//! What the model is told for an agent's turn: the goal, who it is, the
//! scenario's shared facts, the tools, and what the pattern adds in its
//! context, built as a value or written as JSON text ahead (a coordinator
//! told the answers of 100,000 member calls writes them once, and no tree
//! of them is built for the call to hash, count and drop).

use super::agent::TeamRun;
use super::turn_asks::Asked;
pub(crate) use super::turn_context::TurnContext;
use super::turn_schema::TurnShape;
use crate::provider::ModelRequest;
use crate::provider::prompts::Prompt;
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// The payload's key the context stands at.
const CONTEXT: &str = "context";

impl TeamRun<'_> {
    /// The model call for the turn of the agent at `path` (`agent` in its
    /// team), asked with `prompt`, keeping the agent's turn contract.
    pub(super) fn request(
        &self,
        (path, agent): (&str, &str),
        prompt: &'static Prompt,
        context: TurnContext,
    ) -> ModelRequest {
        let asked = self.asks.of(agent, || Asked {
            contract: self.asks.contract(TurnShape::of(&self.part, agent)),
            purpose: Arc::new(super::sim::turn(
                path,
                self.part.team_name(),
                self.description(path),
            )),
            head: self.payload_head(agent),
        });
        let (context, written) = match context {
            TurnContext::Built(value) => (value, None),
            // Its place is kept; the text is written into it.
            TurnContext::Written(text) => (Value::Null, Some(text)),
        };
        let mut payload = asked.head.clone();
        payload.insert(CONTEXT.into(), context);
        let request = ModelRequest::new(Arc::clone(&asked.purpose), prompt, Value::Object(payload))
            .sharing(self.facts.clone())
            .keeping(Arc::clone(&asked.contract));
        match written {
            Some(text) => request.writing(CONTEXT, text),
            None => request,
        }
    }

    /// The description of the agent at `path`, as its team declares it.
    fn description(&self, path: &str) -> &str {
        let own = super::sim::own_name(path);
        let agent = self.part.agents.get(own);
        agent.and_then(|a| a.description.as_deref()).unwrap_or("")
    }

    /// What every turn of `agent` is told before its context, in
    /// `json!`'s key order: the goal, who it is, the shared facts' place
    /// and the tools.
    fn payload_head(&self, agent: &str) -> Map<String, Value> {
        let description = |name: &str| {
            self.part
                .agents
                .get(name)
                .and_then(|a| a.description.clone())
                .unwrap_or_default()
        };
        let tools: Vec<Value> = self
            .part
            .tools
            .iter()
            .map(|(name, spec)| {
                json!({"name": name, "description": spec.description.clone().unwrap_or_default()})
            })
            .collect();
        let mut payload = Map::new();
        payload.insert("goal".into(), self.goal.as_ref().into());
        payload.insert("agent".into(), agent.into());
        payload.insert("description".into(), description(agent).into());
        // Written in from the scenario's text as the request is sent.
        payload.insert("shared_context".into(), Value::Null);
        payload.insert("tools".into(), Value::Array(tools));
        payload
    }
}
