//! The round table's part of a run's trace: each round a span, each
//! contribution an `invoke_agent <agent>` span in it that holds the
//! agent's model call, the decision on the root.

use crate::patterns::collaboration::events::RoundEvent;
use crate::telemetry::names as n;
use crate::telemetry::{Attrs, ROOT, SpanNo, TraceSpans, wire};
use std::collections::HashMap;

/// The round table's own attributes, beside the shared ones in
/// `telemetry::names`: a contribution's stance and confidence, a round's
/// conflicts.
pub(crate) const STANCE: &str = "conclave.stance";
pub(crate) const CONFIDENCE: &str = "conclave.confidence";
pub(crate) const CONFLICTS: &str = "conclave.conflicts";

/// The round table's open spans.
#[derive(Debug, Default)]
pub(crate) struct RoundTableSpans {
    round: Option<SpanNo>,
    /// The current round's open contributions, by agent.
    contributions: HashMap<String, SpanNo>,
}

impl RoundTableSpans {
    /// Fold in a round table's event.
    pub(crate) fn apply(&mut self, trace: &mut TraceSpans<'_>, event: &RoundEvent, t: u64) {
        match event {
            RoundEvent::RoundStarted { round, .. } => {
                if let Some(previous) = self.round {
                    trace.end(previous, t);
                }
                let no = trace.open(ROOT, format!("round {round}"), t);
                trace.set(no, n::ROUND, *round);
                self.round = Some(no);
            }
            RoundEvent::ContributionRequested { round, agent } => {
                let no = trace.open_agent(self.round.unwrap_or(ROOT), agent, t);
                trace.set(no, n::ROUND, *round);
                self.contributions.insert(agent.clone(), no);
            }
            RoundEvent::ContributionAccepted {
                agent,
                stance,
                confidence,
                summary,
                actions,
                ..
            } => {
                if let Some(no) = self.contributions.remove(agent) {
                    trace.set(no, STANCE, wire(stance));
                    trace.set(no, CONFIDENCE, *confidence);
                    if trace.has_content() {
                        let text = std::iter::once(summary.as_str())
                            .chain(actions.iter().map(String::as_str))
                            .collect::<Vec<_>>()
                            .join("\n");
                        trace.answer(no, t, &text);
                    }
                    trace.end(no, t);
                }
            }
            RoundEvent::ContributionRejected {
                agent, reason, raw, ..
            } => {
                if let Some(no) = self.contributions.remove(agent) {
                    trace.end_rejected(no, reason, raw, t);
                }
            }
            RoundEvent::RoundFinished {
                conflicts,
                decision,
                ..
            } => {
                if let Some(no) = self.round.take() {
                    trace.set(no, CONFLICTS, conflicts.len() as u64);
                    if let Some(decision) = decision {
                        trace.set(no, n::DECISION, decision.as_str());
                    }
                    trace.end(no, t);
                }
            }
            RoundEvent::FinalizeStarted { decision } => {
                trace.set(ROOT, n::DECISION, decision.as_str());
            }
            // The run waits for a person: an event on the root, as every
            // run-wide happening is.
            RoundEvent::EscalatedToHuman { round, .. } => {
                let attrs = Attrs::default().with(n::ROUND, *round);
                trace.event(ROOT, n::EVENT_ESCALATED, t, attrs);
            }
        }
    }

    /// The contribution a model call for `agent` belongs to.
    pub(crate) fn model_parent(&self, agent: Option<&str>) -> Option<SpanNo> {
        self.contributions.get(agent?).copied()
    }

    /// Span `no` has ended.
    pub(crate) fn forget(&mut self, no: SpanNo) {
        if self.round == Some(no) {
            self.round = None;
        }
        self.contributions.retain(|_, s| *s != no);
    }
}
