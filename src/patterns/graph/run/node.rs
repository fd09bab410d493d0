//! One activation of a node, as a future the driver runs beside the
//! others: an agent's model call with its output checked, a tool through
//! the gateway, a map's items answered at most `max_parallel` at once and
//! collected in item order, a person's answer at a human node's gate, a
//! team run nested (`team.rs`), a join's or an end's input passed on.
//! Each says how it ended and what its model calls used.

use super::output::check;
use super::{Desk, NODE_PROMPT};
use crate::bus::GatePoint;
use crate::gateway::{CallError, Check, ToolCall};
use crate::patterns::events::PatternEvent;
use crate::patterns::graph::events::GraphEvent;
use crate::patterns::graph::shape::{Kind, NodeId};
use crate::patterns::graph::sim::{GraphSim, NODE_KEY, OUTPUT_KEY};
use crate::patterns::in_flight::InFlight;
use crate::provider::{ModelRequest, Purpose};
use crate::stop::StopReason;
use serde_json::{Value, json};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// How an activation ended.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Outcome {
    Ok {
        output: Value,
        answer: Option<String>,
    },
    /// The node failed (a tool's error, a map item's); the graph may route
    /// on it.
    Failed { error: String },
    /// The model's answer did not fit the node's `output`.
    Invalid { error: String, output: Value },
    /// The run stops: cancelled, or a shared stop of a model call.
    Stop(StopReason),
}

/// The payload's key the scenario's `context` stands at, as a team's
/// agents are given it.
pub(super) const SHARED: &str = "shared_context";

pub(super) type Activation<'a> = Pin<Box<dyn Future<Output = Outcome> + Send + 'a>>;

impl Desk<'_> {
    /// The activation of `node`, its `step`-th of the run and its own
    /// `visit`-th, with `input` and the shared state as it stood when it
    /// started.
    pub(super) fn activate<'s>(
        &'s self,
        node: NodeId,
        (step, visit): (u32, u32),
        input: Value,
        state: Value,
    ) -> Activation<'s> {
        match &self.shape.nodes[node].kind {
            Kind::Agent { agent } => Box::pin(self.agent(node, agent, input, state)),
            Kind::Tool { tool } => Box::pin(self.tool(node, tool, input)),
            Kind::Map { over, agent } => Box::pin(self.map(node, over, agent, state)),
            Kind::Human { question, options } => {
                Box::pin(self.human(node, step, question, options))
            }
            Kind::Team { .. } => Box::pin(self.team(node, visit, input)),
            // A join and an end pass their input on.
            Kind::Join { .. } | Kind::End => Box::pin(std::future::ready(Outcome::Ok {
                output: input,
                answer: None,
            })),
        }
    }

    /// One model call of `agent` for `node`, its answer checked against
    /// the node's `output`; `label` names the call.
    pub(super) async fn ask_model(
        &self,
        node: NodeId,
        agent: &str,
        label: String,
        payload: Value,
    ) -> Outcome {
        let call = &self.calls[node];
        let fields = &call.fields;
        let description = self
            .scenario
            .agents
            .get(agent)
            .and_then(|a| a.description.clone())
            .unwrap_or_default();
        let id = &self.shape.nodes[node].id;
        let purpose = Purpose::new(label.clone(), id.clone(), id.clone(), &GraphSim)
            .spoken_by(agent)
            .filling("agent", agent)
            .filling("description", description);
        // The scenario's shared facts, as every other pattern's agents are
        // told them, written in from its text as the request is sent.
        let request = ModelRequest::new(purpose, &NODE_PROMPT, payload)
            .sharing(self.shared.clone())
            .keeping(Arc::clone(&call.contract));
        // The answer is read once, by the gateway's check: the output the
        // fields were checked on, or what is wrong with it.
        let read = |output: crate::provider::ModelOutput| {
            let mut answer = output.into_json(Value::String);
            match check(fields, &mut answer) {
                Ok(()) => Ok(answer),
                Err(error) => Err((error, answer)),
            }
        };
        let checked = Check {
            read: &read,
            problem: &|(error, _): &(String, Value)| error.clone(),
            before_repair: &|| Ok(()),
        };
        let (answer, _) = self
            .gateway
            .model_checked(label, request, None, &checked)
            .await;
        match answer.unwrap_or(Err(CallError::Timeout)) {
            Ok(Ok(output)) => Outcome::Ok {
                output,
                answer: None,
            },
            Ok(Err((error, output))) => Outcome::Invalid { error, output },
            Err(error) => Outcome::Stop(error.stop_reason()),
        }
    }

    async fn agent(&self, node: NodeId, agent: &str, input: Value, state: Value) -> Outcome {
        let id = &self.shape.nodes[node].id;
        let payload = json!({
            NODE_KEY: id, "goal": self.goal, SHARED: null, "input": input, "state": state,
            OUTPUT_KEY: self.calls[node].shown.clone(),
        });
        self.ask_model(node, agent, format!("node:{id}"), payload)
            .await
    }

    async fn tool(&self, node: NodeId, tool: &str, input: Value) -> Outcome {
        let id = &self.shape.nodes[node].id;
        let args = if input.is_object() {
            input
        } else {
            json!({"input": input})
        };
        let call = ToolCall {
            task: id,
            tool,
            args: &args,
            critical: true,
        };
        let report = self
            .gateway
            .call_tool(call, &self.policy, &self.dispatch, self.gate)
            .await;
        match report.outcome {
            Ok(output) => Outcome::Ok {
                output,
                answer: None,
            },
            Err(StopReason::Cancelled) => Outcome::Stop(StopReason::Cancelled),
            Err(reason) => Outcome::Failed {
                error: reason.to_string(),
            },
        }
    }

    /// Each item of the list at `over` (`state.KEY`) answered by `agent`,
    /// at most `max_parallel` at once; the answers in item order.
    async fn map(&self, node: NodeId, over: &str, agent: &str, state: Value) -> Outcome {
        let id = &self.shape.nodes[node].id;
        let key = over.strip_prefix("state.").unwrap_or(over);
        let items: Vec<Value> = match &state[key] {
            Value::Array(items) => items.clone(),
            Value::Null => Vec::new(),
            other => vec![other.clone()],
        };
        let of = u32::try_from(items.len()).unwrap_or(u32::MAX);
        let parallel = self.shape.nodes[node].spec.max_parallel;
        let parallel = parallel.unwrap_or(crate::patterns::graph::spec::DEFAULT_MAX_PARALLEL);
        let parallel = usize::try_from(parallel.max(1)).unwrap_or(usize::MAX);
        let fields = &self.calls[node].shown;
        let mut running = InFlight::new(items.len());
        let mut results: Vec<Option<Value>> = vec![None; items.len()];
        let (mut next, mut done, mut failed) = (0, 0u32, 0u32);
        while done + failed < of {
            while running.len() < parallel && next < items.len() {
                let payload = json!({
                    NODE_KEY: id, "goal": self.goal, SHARED: null, "item": items[next], "index": next,
                    OUTPUT_KEY: fields,
                });
                let label = format!("node:{id}[{next}]");
                running.push(next, Box::pin(self.ask_model(node, agent, label, payload)));
                next += 1;
            }
            for (index, outcome) in running.next_batch().await {
                match outcome {
                    Outcome::Ok { output, .. } => {
                        results[index] = Some(output);
                        done += 1;
                    }
                    Outcome::Stop(reason) => return Outcome::Stop(reason),
                    Outcome::Failed { .. } | Outcome::Invalid { .. } => failed += 1,
                }
                self.publish(GraphEvent::MapProgress {
                    node: id.clone(),
                    done,
                    failed,
                    running: u32::try_from(running.len()).unwrap_or(u32::MAX),
                    of,
                });
            }
        }
        if failed > 0 {
            return Outcome::Failed {
                error: format!("{failed} of {of} items failed"),
            };
        }
        Outcome::Ok {
            output: Value::Array(results.into_iter().flatten().collect()),
            answer: None,
        }
    }

    /// The node's question at its gate; the answer (a person's, one given
    /// in advance, or the last option when nobody answers).
    async fn human(&self, node: NodeId, step: u32, question: &str, options: &[String]) -> Outcome {
        let id = self.shape.nodes[node].id.clone();
        self.publish(GraphEvent::HumanAsked {
            node: id.clone(),
            step,
            question: question.to_string(),
            options: options.to_vec(),
        });
        let asked = super::super::human::question(&id, step, question, options);
        let at = GatePoint::Activation { step, node: id };
        match self.gate.ask(at, &asked).await {
            Ok(Some(answer)) => Outcome::Ok {
                output: json!({"answer": answer.option}),
                answer: Some(answer.option),
            },
            Ok(None) => Outcome::Failed {
                error: "nobody answered".into(),
            },
            Err(_) => Outcome::Stop(StopReason::Cancelled),
        }
    }

    pub(super) fn publish(&self, event: GraphEvent) {
        self.bus
            .publish(crate::bus::EventKind::Pattern(PatternEvent::Graph(event)));
    }
}
