//! A watched run's handoffs, from what its spans tell: the events that
//! name one, the agents that take turns (LangGraph, AutoGen), the graph's
//! parent of an agent node, and a handoff's unnamed target found by the
//! next agent that starts.

use super::acting::Agents;
use super::read::{Reading, Readings};
use super::vocab::Kind;
use crate::span::Span;
use serde::Serialize;

/// A handoff from one agent to another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Handoff {
    pub from: String,
    pub to: String,
}

/// The handoffs a span's events tell of, at the time of its first event.
pub(super) fn event_handoffs<'a>(
    span: &Span,
    r: &'a Reading,
) -> impl Iterator<Item = (u64, Handoff)> + 'a {
    let at = span.events.first().map_or(span.start_ns, |e| e.at_ns);
    r.event_handoffs.iter().map(move |(from, to)| {
        let handoff = Handoff {
            from: from.clone(),
            to: to.clone(),
        };
        (at, handoff)
    })
}

/// The handoffs of a run that passes control by turns (LangGraph,
/// AutoGen): each change of the agent that acts, by the start of the
/// agent, model and tool spans that say so, at the start of the new
/// agent's first span. A change a handoff span already told of (between
/// the two spans) is not told twice; an agent that is no agent of the run
/// (a graph node that calls no model) takes no turn.
pub(super) fn turn_handoffs(
    by_start: &[&Span],
    readings: &Readings,
    agents_of: &Agents<'_>,
    agents: &[String],
    told: &[(u64, Handoff)],
) -> Vec<(u64, Handoff)> {
    let mut out = Vec::new();
    let mut last: Option<(String, u64)> = None;
    for span in by_start {
        let r = &readings[&span.span_id];
        if !r.turns || !matches!(r.kind(), Kind::Agent | Kind::Model | Kind::Tool) {
            continue;
        }
        let Some(actor) = agents_of
            .of(span.span_id, true)
            .filter(|a| agents.contains(a))
        else {
            continue;
        };
        let at = span.start_ns;
        if let Some((from, since)) = &last
            && *from != actor
        {
            let handoff = Handoff {
                from: from.clone(),
                to: actor.clone(),
            };
            if !told
                .iter()
                .any(|(when, h)| *h == handoff && (*since..=at).contains(when))
            {
                out.push((at, handoff));
            }
        }
        last = Some((actor, at));
    }
    out
}

/// The handoffs an agent span's graph edge tells of (OpenInference's
/// `graph.node.parent_id`: CrewAI's next task's agent, the Agents SDK's
/// agent after a handoff), at the agent's start: from the node before it
/// to the agent, when both are agents of the run and no handoff told the
/// same change before (the Agents SDK's `handoff to X` span).
pub(super) fn graph_handoffs(
    by_start: &[&Span],
    readings: &Readings,
    agents: &[String],
    told: &[(u64, Handoff)],
) -> Vec<(u64, Handoff)> {
    let mut out: Vec<(u64, Handoff)> = Vec::new();
    for span in by_start {
        let r = &readings[&span.span_id];
        let (Some(to), Some(from)) = (&r.agent, &r.graph_parent) else {
            continue;
        };
        if r.kind() != Kind::Agent || from == to || !agents.contains(from) || !agents.contains(to) {
            continue;
        }
        let handoff = Handoff {
            from: from.clone(),
            to: to.clone(),
        };
        let before = |(at, h): &(u64, Handoff)| *h == handoff && *at <= span.start_ns;
        if !told.iter().any(before) && !out.iter().any(before) {
            out.push((span.start_ns, handoff));
        }
    }
    out
}

/// A handoff that does not name its target (Traceloop's) goes to the
/// next agent that starts after it under another name.
pub(super) fn targets_of(
    open: Vec<(u64, String)>,
    by_start: &[&Span],
    readings: &Readings,
) -> Vec<(u64, Handoff)> {
    let mut out = Vec::new();
    for (at, from) in open {
        let next = by_start.iter().find_map(|s| {
            let r = &readings[&s.span_id];
            let name = r.agent.as_ref().filter(|_| r.kind() == Kind::Agent)?;
            (s.start_ns >= at && *name != from).then(|| name.clone())
        });
        if let Some(to) = next {
            out.push((at, Handoff { from, to }));
        }
    }
    out
}
