//! Every pattern's part of a run's trace, as the exporter asks for it: each
//! group of events goes to its pattern's spans, and a call belongs to the
//! innermost pattern span that holds it. The swarm and the coordinator
//! share the team's.

use super::collaboration::trace::RoundTableSpans;
use super::orchestrator::trace::OrchestrationSpans;
use super::research::trace::ResearchSpans;
use super::team::spans::TeamSpans;
use crate::patterns::events::PatternEvent;
use crate::telemetry::{Shapes, SpanNo, TraceSpans};

/// One run's pattern spans.
#[derive(Debug, Default)]
pub(super) struct PatternSpans {
    round_table: RoundTableSpans,
    orchestration: OrchestrationSpans,
    team: TeamSpans,
    research: ResearchSpans,
}

impl PatternSpans {
    pub(super) fn for_run() -> Box<dyn Shapes> {
        Box::<PatternSpans>::default()
    }
}

impl Shapes for PatternSpans {
    fn apply(&mut self, trace: &mut TraceSpans<'_>, event: &PatternEvent, t: u64) {
        match event {
            PatternEvent::Round(event) => self.round_table.apply(trace, event, t),
            PatternEvent::Tasks(event) => self.orchestration.apply(trace, event, t),
            PatternEvent::Team(event) => self.team.apply(trace, event, t),
            PatternEvent::Research(event) => self.research.apply(trace, event, t),
        }
    }

    /// A model call belongs to its agent's contribution, the turn that
    /// made it, the planner or the research step, in that order.
    fn model_parent(
        &mut self,
        trace: &mut TraceSpans<'_>,
        agent: Option<&str>,
        label: &str,
        t: u64,
    ) -> Option<SpanNo> {
        self.round_table
            .model_parent(agent)
            .or_else(|| self.team.call_parent(label))
            .or_else(|| self.orchestration.model_parent(trace, label, t))
            .or_else(|| self.research.step())
    }

    /// A tool call belongs to its task's wave, the turn that asked for it
    /// or the research step, in that order.
    fn tool_parent(&self, task: &str) -> Option<SpanNo> {
        self.orchestration
            .tool_parent(task)
            .or_else(|| self.team.call_parent(task))
            .or_else(|| self.research.step())
    }

    fn forget(&mut self, no: SpanNo) {
        self.round_table.forget(no);
        self.orchestration.forget(no);
        self.team.forget(no);
        self.research.forget(no);
    }
}
