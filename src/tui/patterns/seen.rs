//! What a pattern's pane sees of the run besides its own fold and
//! selection: the clock, the outcome, the calls in flight and what each
//! agent spent. Every pattern's drawing reads it; it knows no pattern.

use crate::scenario::MODEL_TOOL;
use crate::tui::state::calls::CallInFlight;
use crate::tui::state::outcome::Outcome;
use crate::tui::state::partial::PartialText;

/// What a pattern's pane sees of the run besides its own fold and
/// selection.
#[derive(Clone, Copy, Debug)]
pub struct Seen<'a> {
    /// The run clock now.
    pub(crate) now_ms: u64,
    /// The run has not ended.
    pub(crate) live: bool,
    pub(crate) outcome: Option<&'a Outcome>,
    pub(crate) focused: bool,
    /// The gateway calls in flight, a streamed model call's text so far
    /// with each.
    pub(crate) calling: &'a [CallInFlight],
    /// What the model calls of each agent took and cost.
    pub(crate) spent: &'a std::collections::BTreeMap<String, crate::tui::state::spend::Spend>,
}

impl<'a> Seen<'a> {
    /// `agent`'s tokens and dollars in words, once it has made a call.
    pub(crate) fn spent_by(&self, agent: &str) -> Option<String> {
        self.spent.get(agent).map(|spend| spend.words())
    }

    /// What the agents of the team at `path` (named `PATH/AGENT`, the
    /// teams under it included) took and cost together, in words.
    pub(crate) fn spent_under(&self, path: &str) -> Option<String> {
        let prefix = format!("{path}/");
        let mut agents = self.spent.range(prefix.clone()..);
        let first = *agents.next().filter(|(a, _)| a.starts_with(&prefix))?.1;
        let all = agents
            .take_while(|(agent, _)| agent.starts_with(&prefix))
            .fold(first, |sum, (_, spend)| sum.plus(spend));
        Some(all.words())
    }

    /// What the model call speaking for `agent` (`None`: for no agent, a
    /// plan or a synthesis) has written so far, while it is in flight and
    /// has written something.
    pub(crate) fn writing(&self, agent: Option<&str>) -> Option<&'a PartialText> {
        self.calling
            .iter()
            .rev()
            .find(|c| c.tool == MODEL_TOOL && c.agent.as_deref() == agent && !c.text.is_empty())
            .map(|c| &c.text)
    }
}
