//! A launched run's model endpoint: the gateway's endpoint on the run's
//! own receiver, calling the scenario's `model` upstream with its key and
//! budgets, and every call it makes or refuses told to the run, which
//! counts, records and (past a budget) stops on them.

use super::scenario::ProgramScenario;
use crate::gateway::endpoint::{
    Budgets, EndpointCall, EndpointConfig, Endpoints, REPORTS_QUEUE, Report,
};
use crate::scenario::PriceTable;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// How long the run waits, once its program and receiver have ended, for
/// the reports of calls still ending (a stream whose client just went).
const REPORTS_AFTER_END: Duration = Duration::from_secs(1);

/// A budget the run went past: its name (`max_tokens`, `max_cost`,
/// `max_calls`) and what the endpoint said of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetSpent {
    pub budget: String,
    pub message: String,
}

/// What the endpoint told of a run.
#[derive(Clone, Debug, Default)]
pub struct GatewayCalls {
    /// Each call sent upstream, in the order they ended, with when (ms
    /// after the launch).
    pub(crate) calls: Vec<(u64, EndpointCall)>,
    /// Calls refused for a budget, with when and why.
    pub(crate) refused: Vec<(u64, BudgetSpent)>,
    /// The first budget the run went past.
    pub over: Option<BudgetSpent>,
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
        let endpoints = Endpoints::new(config)?.reporting(sender);
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
    fn take(&mut self, at_ms: u64, report: Report) -> bool {
        match report {
            Report::Call(call) => {
                self.calls.push((at_ms, call));
                false
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
                    self.refused.push((at_ms, spent.clone()));
                }
                let first = self.over.is_none();
                if first {
                    self.over = Some(spent);
                }
                first
            }
        }
    }
}
