//! What the translator reads off a watched run besides its spans' events:
//! how a finished run ended, the span a call still waits for (its agent's,
//! not yet arrived), and the words a span's kind and its cost's source
//! are told in.

use crate::bus::RunStatus;
use crate::span::SpanId;
use crate::stop::StopReason;
use crate::watch::acting::CostFrom;
use crate::watch::forest::Forest;
use crate::watch::read::Readings;
use crate::watch::summary::WatchSummary;
use crate::watch::vocab::Kind;

/// span never came.
pub(super) fn ending_of(summary: &WatchSummary) -> (RunStatus, StopReason) {
    // A run a steerer stopped ended stopped, whatever its spans say.
    let stopped = summary
        .steering
        .as_ref()
        .is_some_and(|s| s.stopped.is_some());
    if stopped {
        return (RunStatus::Stopped, StopReason::Cancelled);
    }
    match summary.incomplete {
        None => (RunStatus::Ok, StopReason::Success),
        Some(why) => {
            let why = serde_json::to_value(why).unwrap_or_default();
            let wire = format!("incomplete:{}", why.as_str().unwrap_or("unknown"));
            let reason = StopReason::Pattern(crate::stop::PatternStop::read(&wire));
            (RunStatus::Stopped, reason)
        }
    }
}

/// The missing span above `id` its agent waits for, if any: `None`
/// once the nearest span above it (itself, for a model call) that
/// names an agent has arrived, or every span above it has.
pub(super) fn missing_above(id: SpanId, forest: &Forest, readings: &Readings) -> Option<SpanId> {
    let reading = readings.get(&id)?;
    let with_self = match reading.kind() {
        Kind::Model => true,
        // In a run of turns an agent's span is its turn, told as it
        // comes: no agent above it wraps or calls it.
        Kind::Agent if reading.turns => return None,
        Kind::Tool | Kind::Agent | Kind::Handoff => false,
        _ => return None,
    };
    if with_self && names_its_agent(id, forest, readings) {
        return None;
    }
    for up in forest
        .ancestry(id)
        .into_iter()
        .skip(usize::from(!with_self))
    {
        let node = forest.get(up)?;
        if node.span.is_none() {
            return Some(up);
        }
        let r = readings.get(&up)?;
        if r.actor.is_some() || r.kind() == Kind::Agent {
            return None;
        }
    }
    None
}

/// Whether model call `id` names its agent itself (PydanticAI's `chat`
/// spans): told at once, as that agent's, so that the run's and the
/// agent's calls, tokens and cost count while the agent's span is open.
/// Not the Agents SDK contrib instrumentation's placeholder (`OpenAI
/// Agent`, id `agent`, on every span): its agent is the span above.
pub(super) fn names_its_agent(id: SpanId, forest: &Forest, readings: &Readings) -> bool {
    let Some(span) = forest.get(id).and_then(|n| n.span.as_ref()) else {
        return false;
    };
    let placeholder = span
        .attr("gen_ai.agent.id")
        .is_some_and(|v| v.text() == "agent");
    readings.get(&id).is_some_and(|r| r.caller.is_some()) && !placeholder
}

/// A span kind as the recordings write it (`model`, `tool` …).
pub(super) fn kind_word(kind: Kind) -> String {
    kind.word().to_string()
}

/// Where a cost came from, as the summary writes it.
pub(super) fn cost_word(from: CostFrom) -> &'static str {
    match from {
        CostFrom::Span => "span",
        CostFrom::PriceTable => "price_table",
        CostFrom::Mixed => "mixed",
    }
}
