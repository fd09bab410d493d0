//! A launched run's model endpoint: the gateway's endpoint on the run's
//! own receiver, calling the scenario's `model` upstream with its key and
//! budgets, and every call it makes or refuses told to the run, which
//! counts, records and (past a budget, or at a cassette's miss) stops on
//! them.

pub use super::ended::BudgetSpent;
use super::ended::Ended;
use super::scenario::ProgramScenario;
use crate::gateway::endpoint::{
    Budgets, EndpointCall, EndpointCassette, EndpointConfig, Endpoints, REPORTS_QUEUE, Report,
};
use crate::scenario::PriceTable;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// How long the run waits, once its program and receiver have ended, for
/// the reports of calls still ending (a stream whose client just went).
const REPORTS_AFTER_END: Duration = Duration::from_secs(1);

/// Calls refused for a budget kept one by one (and recorded a line each);
/// past these they are counted only. Each is answered 429 at once, so a
/// program that keeps asking after its budget is spent would otherwise
/// grow the launch's memory and its recording without end.
pub(crate) const REFUSALS_KEPT: usize = 1_000;

/// The most bytes of answers a run keeps for its recording (each answer
/// is at most 8 MiB); a call past them is recorded without its answer
/// (`answer_not_kept`), so a cassette of the run serves the calls before.
pub(crate) const ANSWERS_KEPT: usize = 64 * 1024 * 1024;

/// What the endpoint told of a run.
#[derive(Clone, Debug, Default)]
pub struct GatewayCalls {
    /// Each call sent upstream, in the order they ended, with when (ms
    /// after the launch).
    pub(crate) calls: Vec<(u64, EndpointCall)>,
    /// The first [`REFUSALS_KEPT`] calls refused for a budget, with when
    /// and why.
    pub(crate) refused: Vec<(u64, BudgetSpent)>,
    /// Every call refused for a budget.
    pub(crate) refused_calls: u64,
    /// The first budget the run went past.
    pub over: Option<BudgetSpent>,
    /// The cassette's first miss, in words.
    pub missed: Option<String>,
    /// Bytes of answers kept so far.
    answers_kept: usize,
}

/// The run's endpoint and what it has told of the run so far.
#[derive(Debug)]
pub(crate) struct RunGateway {
    endpoints: Option<Arc<Endpoints>>,
    reports: mpsc::Receiver<Report>,
    pub(crate) told: GatewayCalls,
}

/// The budgets of a run of `scenario`: each flag given over the
/// scenario's `model` field.
pub(crate) fn budgets_of(scenario: &ProgramScenario, flags: Budgets) -> Budgets {
    let model = scenario.model.as_ref();
    Budgets {
        max_tokens: flags.max_tokens.or(model.and_then(|m| m.max_tokens)),
        max_cost_usd: flags.max_cost_usd.or(model.and_then(|m| m.max_cost_usd)),
        max_calls: flags.max_calls.or(model.and_then(|m| m.max_calls)),
    }
}

impl RunGateway {
    /// The endpoint of a run of `scenario`, when it names a `model`.
    pub(crate) fn start(
        scenario: &ProgramScenario,
        budgets: Budgets,
        prices: Option<PriceTable>,
        cassette: Option<Arc<EndpointCassette>>,
    ) -> Result<Option<RunGateway>, String> {
        let Some(model) = &scenario.model else {
            return Ok(None);
        };
        let config = EndpointConfig {
            upstream: model.upstream.clone(),
            key_env: model.key_env.clone().unwrap_or_default(),
            budgets: budgets_of(scenario, budgets),
            pricing: prices,
        };
        let (sender, reports) = mpsc::channel(REPORTS_QUEUE);
        let endpoints = Endpoints::new(config)?.reporting(sender).serving(cassette);
        Ok(Some(RunGateway {
            endpoints: Some(Arc::new(endpoints)),
            reports,
            told: GatewayCalls::default(),
        }))
    }

    /// The endpoint, for the receiver to serve.
    pub(crate) fn endpoints(&self) -> Option<Arc<Endpoints>> {
        self.endpoints.clone()
    }

    /// The next report; `None` once every sender has gone.
    pub(crate) async fn next(&mut self) -> Option<Report> {
        self.reports.recv().await
    }

    /// Take in `report`, `at_ms` after the launch: whether it is the
    /// first to say the run is past a budget.
    pub(crate) fn take(&mut self, at_ms: u64, report: Report) -> bool {
        self.told.take(at_ms, report)
    }

    /// After the receiver has stopped: let go of the endpoint and take
    /// the reports of calls still ending, until every sender has gone (or
    /// a bound, for a call whose upstream never ends).
    pub(crate) async fn drain(&mut self, at_ms: impl Fn() -> u64) {
        self.endpoints = None;
        let _ = tokio::time::timeout(REPORTS_AFTER_END, async {
            while let Some(report) = self.reports.recv().await {
                self.told.take(at_ms(), report);
            }
        })
        .await;
    }
}

impl GatewayCalls {
    /// How the endpoint ended the run, if it did: the first budget it
    /// went past, else the cassette's miss.
    pub(crate) fn ended(&self) -> Option<Ended> {
        match (&self.over, &self.missed) {
            (Some(over), _) => Some(Ended::Budget(over.clone())),
            (None, Some(words)) => Some(Ended::CassetteMiss(words.clone())),
            (None, None) => None,
        }
    }

    /// Take in `report`: whether it is the first to end the run.
    fn take(&mut self, at_ms: u64, report: Report) -> bool {
        match report {
            Report::Call(mut call) => {
                let size = call.answer.as_ref().map_or(0, |a| a.len());
                if size > 0 && self.answers_kept + size > ANSWERS_KEPT {
                    call.answer = None;
                    call.answer_not_kept = Some(format!(
                        "the run's answers are over the {ANSWERS_KEPT} bytes a recording keeps"
                    ));
                } else {
                    self.answers_kept += size;
                }
                self.calls.push((at_ms, *call));
                false
            }
            Report::Missed(words) => {
                let first = self.over.is_none() && self.missed.is_none();
                self.missed.get_or_insert(words);
                first
            }
            Report::Over {
                budget,
                message,
                refused,
                ..
            } => {
                let spent = BudgetSpent {
                    budget: budget.to_string(),
                    message,
                };
                if refused {
                    self.refused_calls += 1;
                    if self.refused.len() < REFUSALS_KEPT {
                        self.refused.push((at_ms, spent.clone()));
                    }
                }
                let first = self.over.is_none() && self.missed.is_none();
                if self.over.is_none() {
                    self.over = Some(spent);
                }
                first
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal() -> Report {
        Report::Over {
            run: "r".into(),
            budget: "max_tokens",
            message: "the run is past its max_tokens budget".into(),
            refused: true,
        }
    }

    fn answered(bytes: usize) -> Report {
        let answer = crate::gateway::endpoint::RecordedAnswer {
            content_type: "application/json".into(),
            body: (bytes > 0).then(|| "x".repeat(bytes)),
            events: Vec::new(),
        };
        Report::Call(Box::new(EndpointCall {
            answer: (bytes > 0).then_some(answer),
            ..EndpointCall::default()
        }))
    }

    #[test]
    fn answers_past_the_runs_bound_are_recorded_without_them() {
        let mut told = GatewayCalls::default();
        let eighth = ANSWERS_KEPT / 8;
        for at in 0..8 {
            told.take(at, answered(eighth));
        }
        told.take(8, answered(1));
        told.take(9, answered(0));
        let kept: Vec<bool> = told.calls.iter().map(|(_, c)| c.answer.is_some()).collect();
        assert_eq!(kept, [[true; 8].as_slice(), &[false, false]].concat());
        assert_eq!(told.answers_kept, ANSWERS_KEPT, "exactly the bound, kept");
        let why = told.calls[8]
            .1
            .answer_not_kept
            .as_deref()
            .unwrap_or_default();
        assert!(why.contains("over the 67108864 bytes"), "{why}");
        assert_eq!(
            told.calls[9].1.answer_not_kept, None,
            "a call with no answer is not said to have lost one"
        );
    }

    #[test]
    fn refusals_past_those_kept_are_counted_not_held() {
        let mut told = GatewayCalls::default();
        let extra = 5;
        let firsts: Vec<bool> = (0..REFUSALS_KEPT + extra)
            .map(|at| told.take(at as u64, refusal()))
            .collect();
        assert_eq!(told.refused.len(), REFUSALS_KEPT, "the first ones kept");
        assert_eq!(told.refused_calls, (REFUSALS_KEPT + extra) as u64);
        assert_eq!(
            told.refused.last().map(|(at, _)| *at),
            Some(REFUSALS_KEPT as u64 - 1)
        );
        assert_eq!(
            firsts.iter().filter(|first| **first).count(),
            1,
            "only the first says the run is past its budget"
        );
        assert_eq!(told.over.map(|o| o.budget).as_deref(), Some("max_tokens"));
    }
}
