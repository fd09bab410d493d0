//! The graph pattern's own stop reasons and their sentences. Each wire
//! string names what the stop is about, so that a recording's reason reads
//! back whole: `max_visits:draft:draft>review>draft` (the node and its
//! cycle), `no_route:review:verdict="maybe"` (the node and what it routed
//! on), `stalled:merge<publish_b` (each waiting join and what it waits
//! for), `node_failed:publish`, `invalid_output:review`. A completed run
//! stops with the shared `success`. The floors carry them as opaque
//! strings (`StopReason::Pattern`).

use crate::stop::{PatternReason, StopFacts, StopKind, StopReason};
use std::fmt;

/// Why a graph run stops, beyond the reasons every pattern shares.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum GraphStop {
    /// The next activation would pass `max_steps`.
    MaxSteps,
    /// The node would run past its `max_visits`, in `cycle`
    /// (`draft>review>draft`).
    MaxVisits { node: String, cycle: String },
    /// No out-edge of the node matched and it has no default; `values`
    /// are its tests with the values found (`verdict="maybe" =="approve"`).
    NoRoute { node: String, values: String },
    /// Nothing is ready or running and no end was reached: each waiting
    /// join with what it waits for (`merge<publish_b,check`), `;` apart.
    Stalled { waiting: String },
    /// A node failed and no edge routes on its status.
    NodeFailed { node: String },
    /// An agent node's answer did not fit its `output`.
    InvalidOutput { node: String },
}

impl fmt::Display for GraphStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphStop::MaxSteps => f.write_str("max_steps"),
            GraphStop::MaxVisits { node, cycle } => write!(f, "max_visits:{node}:{cycle}"),
            GraphStop::NoRoute { node, values } => write!(f, "no_route:{node}:{values}"),
            GraphStop::Stalled { waiting } => write!(f, "stalled:{waiting}"),
            GraphStop::NodeFailed { node } => write!(f, "node_failed:{node}"),
            GraphStop::InvalidOutput { node } => write!(f, "invalid_output:{node}"),
        }
    }
}

impl PatternReason for GraphStop {
    fn kind(&self) -> StopKind {
        match self {
            GraphStop::InvalidOutput { .. } => StopKind::Contract,
            _ => StopKind::Plain,
        }
    }

    fn read(wire: &str) -> Option<Self> {
        if wire == "max_steps" {
            return Some(GraphStop::MaxSteps);
        }
        let (head, rest) = wire.split_once(':')?;
        let pair = || {
            let (node, more) = rest.split_once(':')?;
            Some((node.to_string(), more.to_string()))
        };
        Some(match head {
            "max_visits" => {
                let (node, cycle) = pair()?;
                GraphStop::MaxVisits { node, cycle }
            }
            "no_route" => {
                let (node, values) = pair()?;
                GraphStop::NoRoute { node, values }
            }
            "stalled" => GraphStop::Stalled {
                waiting: rest.into(),
            },
            "node_failed" => GraphStop::NodeFailed { node: rest.into() },
            "invalid_output" => GraphStop::InvalidOutput { node: rest.into() },
            _ => return None,
        })
    }

    fn explain(&self, _: &StopFacts) -> String {
        match self {
            GraphStop::MaxSteps => {
                "the graph made as many activations as its step bound allows".into()
            }
            GraphStop::MaxVisits { node, cycle } => format!(
                "node {node} ran as often as it may in the cycle {}",
                cycle.replace('>', " → ")
            ),
            GraphStop::NoRoute { node, values } => {
                format!("no edge out of {node} matched and it has no default ({values})")
            }
            GraphStop::Stalled { waiting } if waiting.is_empty() => {
                "the graph can go no further: nothing is left to run and no end node was reached"
                    .into()
            }
            GraphStop::Stalled { waiting } => {
                let joins: Vec<String> = waiting
                    .split(';')
                    .map(|w| match w.split_once('<') {
                        Some((join, on)) => format!("{join} waits on {}", on.replace(',', ", ")),
                        None => w.to_string(),
                    })
                    .collect();
                format!("the graph can go no further: {}", joins.join("; "))
            }
            GraphStop::NodeFailed { node } => {
                format!("node {node} failed and no edge routes on its status")
            }
            GraphStop::InvalidOutput { node } => {
                format!("node {node}'s answer did not fit its output")
            }
        }
    }
}

impl From<GraphStop> for StopReason {
    fn from(reason: GraphStop) -> Self {
        StopReason::of_pattern(&reason)
    }
}

/// The graph pattern's words for its own stops.
pub(crate) fn explain(reason: &StopReason, facts: &StopFacts) -> Option<String> {
    reason.pattern::<GraphStop>().map(|own| own.explain(facts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::stops_tests::check_reasons;

    #[test]
    fn every_reason_reads_back_and_has_its_own_sentence() {
        check_reasons(
            vec![
                GraphStop::MaxSteps,
                GraphStop::MaxVisits {
                    node: "draft".into(),
                    cycle: "draft>review>draft".into(),
                },
                GraphStop::NoRoute {
                    node: "review".into(),
                    values: "verdict=\"maybe\" ==\"approve\"".into(),
                },
                GraphStop::Stalled {
                    waiting: "merge<publish_b".into(),
                },
                GraphStop::NodeFailed {
                    node: "publish".into(),
                },
                GraphStop::InvalidOutput {
                    node: "review".into(),
                },
            ],
            explain,
        );
    }
}
