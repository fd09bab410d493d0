//! The run as told so far, and how one span adds to it: the agents in
//! order of first activity, the agent that acts last (a run of turns
//! hands control on at each change), the handoffs told, and the model
//! calls a message may yet be matched to. The summary's rules
//! (`summary.rs`, `acting.rs`), each applied to one span as it is told.

use super::Out;
use super::calls::{ARGS, Called, RESULTS, take_one, team, words_of};
use crate::bus::TokenUsage;
use crate::patterns::events::{TeamEvent, TurnOutcome};
use crate::scenario::PriceTable;
use crate::span::{Span, SpanId};
use crate::watch::acting::{Agents, priced, tokens_of};
use crate::watch::read::MessageUsage;
use crate::watch::vocab::Kind;
use std::collections::{HashMap, HashSet};

#[derive(Default)]
pub(super) struct Chain {
    /// The run's agents told so far (a run of a thousand agents looks
    /// each up once a span).
    agents: HashSet<String>,
    /// Agents whose span holds another agent's: no agent of the run
    /// until they act themselves.
    wrappers: HashSet<String>,
    /// The agent that acted last in a run of turns (a tool call of a
    /// node that is no agent is its).
    last_turn: Option<String>,
    /// The agent of the last turn told, among the run's agents.
    acting: Option<String>,
    /// The agent the run's last handoff went to.
    handed_to: Option<String>,
    /// Agents that handed off without naming the target: the next agent
    /// told under another name is it.
    open_targets: Vec<String>,
    /// Every handoff told, and the last one.
    told: HashSet<(String, String)>,
    last_handoff: Option<(String, String)>,
    handoffs: u64,
    /// Tool spans whose callee agent was told as a handoff.
    delegations: HashSet<SpanId>,
    turn: u32,
    /// Agents told by their span alone in the batch being told, with how
    /// long the span took and whether it failed: each takes a turn of its
    /// own unless a call of theirs came in the same batch.
    quiet: Vec<(String, u64, bool)>,
    /// Messages whose model calls were told, by id.
    messages: HashSet<String>,
    /// Model calls told by a span (and messages' calls told without one),
    /// by their tokens, that nothing was matched to yet.
    unmatched_spans: HashMap<(u64, u64), u32>,
    unmatched_messages: HashMap<(u64, u64), u32>,
}

impl Chain {
    /// The agents among `ids` whose span holds another agent's span.
    pub(super) fn mark_wrappers(&mut self, ids: &[SpanId], agents: &Agents<'_>) {
        for id in ids {
            let Some(r) = agents.readings.get(id) else {
                continue;
            };
            if r.kind() == Kind::Agent
                && let Some(outer) = agents.of(*id, false)
                && r.agent.as_ref() != Some(&outer)
            {
                self.wrappers.insert(outer);
            }
        }
    }

    /// Tell `span` (model or tool call `call`, when it is one).
    pub(super) fn tell(
        &mut self,
        span: &Span,
        agents: &Agents<'_>,
        call: Option<u64>,
        prices: Option<&PriceTable>,
        t_ms: u64,
        out: &mut Out,
    ) {
        let id = span.span_id;
        let Some(r) = agents.readings.get(&id) else {
            return;
        };
        for (from, to) in &r.event_handoffs {
            self.handoff(from, to, t_ms, out);
        }
        match r.kind() {
            Kind::Agent => self.agent_span(span, agents, t_ms, out),
            Kind::Handoff => {
                let from = r.handoff_from.clone().or_else(|| agents.of(id, false));
                match (from, &r.handoff_to) {
                    (Some(from), Some(to)) => {
                        self.handoff(&from, to, t_ms, out);
                        self.handed_to = Some(to.clone());
                    }
                    (Some(from), None) => self.open_targets.push(from),
                    _ => {}
                }
            }
            Kind::Tool => {
                let agent = agents
                    .of(id, false)
                    .filter(|a| !r.turns || self.agents.contains(a))
                    .or_else(|| self.last_turn.clone().filter(|_| r.turns));
                if r.turns
                    && let Some(actor) = &agent
                {
                    self.turn_to(actor, t_ms, out);
                }
                let tool = r.tool.clone().unwrap_or_else(|| span.name.clone());
                let called = Called {
                    call: call.unwrap_or_default(),
                    ms: span.ms(),
                    error: span.error.clone(),
                };
                let (args, result) = (words_of(span, ARGS), words_of(span, RESULTS));
                self.tool_call(called, agent, tool, (args, result), t_ms, out);
            }
            Kind::Model => {
                let own = agents.of(id, true);
                if r.turns && own.is_some() {
                    self.last_turn.clone_from(&own);
                }
                if let Some(name) = &own {
                    self.add_agent(name);
                    if r.turns {
                        self.turn_to(name, t_ms, out);
                    }
                }
                // Under a placeholder after a handoff, the handoff's
                // target is surer than a name the call gives itself.
                let agent = match &self.handed_to {
                    Some(to)
                        if agents.above(id, true).is_none() && agents.waits_for_its_agent(id) =>
                    {
                        Some(to.clone())
                    }
                    _ => own,
                };
                let (input, output, cached) = tokens_of(r);
                let (cost, _) = priced(r, prices);
                let usage = TokenUsage {
                    input,
                    output,
                    cached,
                    cost_usd: cost.map(|(c, _)| c),
                    ..TokenUsage::default()
                };
                // A message told this call already: matched, not added.
                if !take_one(&mut self.unmatched_messages, (input, output)) {
                    *self.unmatched_spans.entry((input, output)).or_default() += 1;
                    let model = r.model.clone();
                    let call = Called {
                        call: call.unwrap_or_default(),
                        ms: span.ms(),
                        error: span.error.clone(),
                    };
                    self.model_call(call, agent, model, usage, t_ms, out);
                }
            }
            _ => {}
        }
    }

    /// An agent's span: the agent acts (unless it only wraps others), a
    /// tool that called it handed off to it, so did the graph node
    /// before it, and a handoff that named no target went to it.
    fn agent_span(&mut self, span: &Span, agents: &Agents<'_>, t_ms: u64, out: &mut Out) {
        let id = span.span_id;
        let Some(r) = agents.readings.get(&id) else {
            return;
        };
        let Some(name) = r.agent.clone() else {
            return;
        };
        if r.turns {
            self.last_turn = Some(name.clone());
        }
        if !self.wrappers.contains(&name) && !self.agents.contains(&name) {
            self.add_agent(&name);
            self.quiet
                .push((name.clone(), span.ms(), span.error.is_some()));
        }
        if let Some((call, from)) = agents.delegated_by(id)
            && from != name
            && self.delegations.insert(call)
        {
            self.handoff(&from, &name, t_ms, out);
        }
        if let Some(from) = &r.graph_parent
            && *from != name
            && self.agents.contains(from)
            && self.agents.contains(&name)
            && !self.told.contains(&(from.clone(), name.clone()))
        {
            self.handoff(from, &name, t_ms, out);
        }
        for from in std::mem::take(&mut self.open_targets) {
            if from == name {
                self.open_targets.push(from);
            } else {
                self.handoff(&from, &name, t_ms, out);
            }
        }
        if r.turns && self.agents.contains(&name) {
            self.turn_to(&name, t_ms, out);
        }
    }

    fn add_agent(&mut self, name: &str) {
        if !self.agents.contains(name) {
            self.agents.insert(name.to_string());
        }
    }

    /// In a run of turns, `actor` acts: a change of the agent that acts
    /// is a handoff, unless a handoff told it already.
    fn turn_to(&mut self, actor: &str, t_ms: u64, out: &mut Out) {
        if !self.agents.contains(actor) {
            return;
        }
        if let Some(from) = self.acting.clone()
            && from != actor
            && self.last_handoff.as_ref() != Some(&(from.clone(), actor.to_string()))
        {
            self.handoff(&from, actor, t_ms, out);
        }
        self.last_handoff = None;
        self.acting = Some(actor.to_string());
    }

    /// Control passed from `from` to `to`: asked for and accepted.
    fn handoff(&mut self, from: &str, to: &str, t_ms: u64, out: &mut Out) {
        self.handoffs += 1;
        let pair = (from.to_string(), to.to_string());
        self.told.insert(pair.clone());
        self.last_handoff = Some(pair);
        let requested = TeamEvent::TransferRequested {
            turn: self.turn,
            from: from.to_string(),
            to: to.to_string(),
            message: None,
        };
        out.push(t_ms, team(requested));
        let accepted = TeamEvent::HandoffAccepted {
            from: from.to_string(),
            to: to.to_string(),
            handoffs: self.handoffs,
            window: Vec::new(),
            deadline_ms: None,
        };
        out.push(t_ms, team(accepted));
    }

    /// The agents told by their span alone since the last time, and
    /// whose calls were not told with them, take a turn of their own.
    pub(super) fn quiet_turns(&mut self, t_ms: u64, out: &mut Out) {
        for (agent, ms, failed) in std::mem::take(&mut self.quiet) {
            let turn = self.turn_started(&agent, t_ms, out);
            self.turn_finished(turn, &agent, ms, failed, t_ms, out);
        }
    }

    fn turn_started(&mut self, agent: &str, t_ms: u64, out: &mut Out) -> u32 {
        self.quiet.retain(|(quiet, ..)| quiet != agent);
        self.turn += 1;
        let started = TeamEvent::TurnStarted {
            turn: self.turn,
            agent: agent.to_string(),
        };
        out.push(t_ms, team(started));
        self.turn
    }

    fn turn_finished(&self, turn: u32, agent: &str, ms: u64, failed: bool, t: u64, out: &mut Out) {
        let finished = TeamEvent::TurnFinished {
            turn,
            agent: agent.to_string(),
            outcome: if failed {
                TurnOutcome::Invalid
            } else {
                TurnOutcome::Reply
            },
            latency_ms: ms,
        };
        out.push(t, team(finished));
    }

    /// A model call: a turn of its agent, when it has one.
    fn model_call(
        &mut self,
        called: Called,
        agent: Option<String>,
        model: Option<String>,
        usage: TokenUsage,
        t_ms: u64,
        out: &mut Out,
    ) {
        let turn = agent.as_deref().map(|a| self.turn_started(a, t_ms, out));
        let label = match (&agent, &model) {
            (Some(agent), Some(model)) => format!("{agent} · {model}"),
            (Some(agent), None) => agent.clone(),
            (None, Some(model)) => model.clone(),
            (None, None) => "model".to_string(),
        };
        let failed = called.error.is_some();
        let ms = called.ms;
        called.tell("model", label, agent.clone(), Some(usage), t_ms, out);
        if let (Some(turn), Some(agent)) = (turn, &agent) {
            self.turn_finished(turn, agent, ms, failed, t_ms, out);
        }
    }

    /// A tool call, and what it asked and got when its span says.
    fn tool_call(
        &mut self,
        called: Called,
        agent: Option<String>,
        tool: String,
        (args, result): (String, String),
        t_ms: u64,
        out: &mut Out,
    ) {
        let label = match &agent {
            Some(agent) => format!("{agent} · {tool}"),
            None => tool.clone(),
        };
        let ok = called.error.is_none();
        called.tell(&tool, label, agent.clone(), None, t_ms, out);
        let used = TeamEvent::ToolUsed {
            turn: self.turn,
            agent: agent.unwrap_or_default(),
            tool,
            args,
            result,
            ok,
        };
        out.push(t_ms, team(used));
    }

    /// The model call a message tells of, as call `call`, unless the
    /// message was told before or a model span told the same call, or
    /// (`hold`) a model span may yet tell it: what became of it.
    pub(super) fn message_call(
        &mut self,
        usage: &MessageUsage,
        call: u64,
        t_ms: u64,
        out: &mut Out,
        hold: bool,
    ) -> Message {
        if self.messages.contains(&usage.id) {
            return Message::Matched;
        }
        let tokens = (usage.input_tokens, usage.output_tokens);
        if take_one(&mut self.unmatched_spans, tokens) {
            self.messages.insert(usage.id.clone());
            return Message::Matched;
        }
        if hold {
            return Message::Held;
        }
        self.messages.insert(usage.id.clone());
        *self.unmatched_messages.entry(tokens).or_default() += 1;
        let used = TokenUsage {
            input: usage.input_tokens,
            output: usage.output_tokens,
            ..TokenUsage::default()
        };
        let called = Called {
            call,
            ms: 0,
            error: None,
        };
        // The message names its sender, which is no agent of the run
        // until a span says so: the call is told as the sender's, in no
        // turn.
        let label = usage.agent.clone().unwrap_or_else(|| "model".to_string());
        called.tell("model", label, usage.agent.clone(), Some(used), t_ms, out);
        Message::Told
    }
}

/// What became of a message's model call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Message {
    /// Told as a call of its own.
    Told,
    /// Told before, or matched to a model span's call: not told again.
    Matched,
    /// Kept back: a model span may yet tell the same call.
    Held,
}
