//! What a sweep's bars count: one chart a tab, and their names.

/// What the bars count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chart {
    Outcomes,
    StopReasons,
    /// Decision, health or final agent.
    Verdicts,
    /// The measures each pattern declares it counts (rounds, waves, ...).
    Used,
    ModelCalls,
    Tokens,
    /// Tasks that failed (orchestrator).
    FailedTasks,
    /// Calls per tool.
    ToolCalls,
    /// Dollars, where the model has a price.
    Cost,
}

impl Chart {
    pub(crate) const ALL: [Chart; 9] = [
        Chart::Outcomes,
        Chart::StopReasons,
        Chart::Verdicts,
        Chart::Used,
        Chart::ModelCalls,
        Chart::Tokens,
        Chart::FailedTasks,
        Chart::ToolCalls,
        Chart::Cost,
    ];

    /// The chart's name among the tabs.
    pub(crate) fn tab(self) -> &'static str {
        match self {
            Chart::Outcomes => "outcomes",
            Chart::StopReasons => "stop reasons",
            Chart::Verdicts => "verdicts",
            Chart::Used => "used",
            Chart::ModelCalls => "model calls",
            Chart::Tokens => "tokens",
            Chart::FailedTasks => "failures",
            Chart::ToolCalls => "tools",
            Chart::Cost => "cost",
        }
    }

    /// What the chart's bars count, in words.
    pub(crate) fn title(self) -> String {
        let title = match self {
            Chart::Outcomes => "runs by status / stop reason / verdict",
            Chart::StopReasons => "runs by stop reason",
            Chart::Verdicts => "runs by decision, health or final agent",
            Chart::Used => return used_title(),
            Chart::ModelCalls => "runs by model calls",
            Chart::Tokens => "runs by tokens (input and output)",
            Chart::FailedTasks => "runs by tasks failed",
            Chart::ToolCalls => "runs by calls to each tool (failed ones in brackets)",
            Chart::Cost => "runs by what their model calls cost, in US dollars",
        };
        title.to_string()
    }

    /// The chart `by` tabs along, round the ends.
    pub(crate) fn step(self, by: isize) -> Chart {
        let at = Chart::ALL.iter().position(|c| *c == self).unwrap_or(0) as isize;
        let len = Chart::ALL.len() as isize;
        Chart::ALL[usize::try_from((at + by).rem_euclid(len)).unwrap_or(0)]
    }
}

/// "runs by rounds, waves, ... or steps used": the measures every pattern
/// declares, in their order.
fn used_title() -> String {
    let names: Vec<String> = crate::patterns::figures::swept_names()
        .into_iter()
        .map(|name| name.replace('_', " "))
        .collect();
    match names.split_last() {
        Some((last, [])) => format!("runs by {last} used"),
        Some((last, rest)) => format!("runs by {} or {last} used", rest.join(", ")),
        None => "runs by what they used".to_string(),
    }
}
