//! The run's token and dollar limits, read from its budget.

use super::types::Scenario;

/// The run's token and dollar limits (`budget.max_tokens`,
/// `budget.max_cost_usd`), every pattern's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SpendLimits {
    pub(crate) max_tokens: Option<u64>,
    pub(crate) max_cost_usd: Option<f64>,
}

impl SpendLimits {
    pub(crate) fn of(scenario: &Scenario) -> Self {
        scenario
            .budget
            .as_ref()
            .map(|b| SpendLimits {
                max_tokens: b.max_tokens,
                max_cost_usd: b.max_cost_usd,
            })
            .unwrap_or_default()
    }
}
