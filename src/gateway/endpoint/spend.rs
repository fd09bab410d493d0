//! A run's spend through the endpoint: its calls, tokens and dollars, and
//! its budgets checked against them. As the gateway's meter does for
//! Conclave's own runs, the call that goes past a budget finishes and is
//! counted; the next is refused, with a 429 that names the budget.

use super::{Budgets, error_body};
use crate::bus::TokenUsage;
use crate::pricing::{self, round_dollars};
use crate::scenario::PriceTable;

/// Which budget a run went past.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Budget {
    Tokens,
    Cost,
    Calls,
}

impl Budget {
    /// The run's stop reason, as Conclave's own runs name it.
    pub(crate) fn stop_name(self) -> &'static str {
        match self {
            Budget::Tokens => "max_tokens",
            Budget::Cost => "max_cost",
            Budget::Calls => "max_calls",
        }
    }

    fn flag(self) -> &'static str {
        match self {
            Budget::Tokens => "--max-tokens",
            Budget::Cost => "--max-cost",
            Budget::Calls => "--max-calls",
        }
    }
}

/// A budget the run went past: which, its limit and what was spent.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Over {
    pub(crate) budget: Budget,
    pub(crate) limit: String,
    pub(crate) spent: String,
}

impl Over {
    /// What the run's end and the refused call say.
    pub(crate) fn message(&self) -> String {
        format!(
            "Conclave stopped this run: its {} budget ({} {}) is spent ({} so far); no more model calls are made",
            self.budget.stop_name(),
            self.budget.flag(),
            self.limit,
            self.spent
        )
    }

    /// The 429 a refused call is answered with, in OpenAI's error shape
    /// (the framework raises it), its code the budget's name.
    pub(crate) fn body(&self) -> Vec<u8> {
        error_body(
            &self.message(),
            "insufficient_quota",
            Some(self.budget.stop_name()),
        )
    }
}

/// A run's spend and budgets.
#[derive(Debug, Default)]
pub(crate) struct RunSpend {
    budgets: Budgets,
    pricing: Option<PriceTable>,
    calls: u64,
    total: TokenUsage,
    cost_usd: f64,
    /// Whether any call's model had a price.
    priced: bool,
    over: Option<Over>,
}

impl RunSpend {
    pub(crate) fn new(budgets: Budgets, pricing: Option<PriceTable>) -> Self {
        RunSpend {
            budgets,
            pricing,
            ..RunSpend::default()
        }
    }

    /// Admit one call, its number in the run: refused once the run is
    /// past a budget, or when it would be one call more than `--max-calls`.
    pub(crate) fn admit(&mut self) -> Result<u64, Over> {
        if let Some(over) = &self.over {
            return Err(over.clone());
        }
        if let Some(max) = self.budgets.max_calls
            && self.calls >= max
        {
            let over = Over {
                budget: Budget::Calls,
                limit: max.to_string(),
                spent: format!("{} calls", self.calls),
            };
            self.over = Some(over.clone());
            return Err(over);
        }
        self.calls += 1;
        Ok(self.calls)
    }

    /// Add a call's `usage`, priced as `model` (what answered) or `asked`
    /// (what was asked for) is priced: the usage with its cost, and the
    /// budget the run has now gone past, if it just did.
    pub(crate) fn charge(
        &mut self,
        mut usage: TokenUsage,
        model: Option<&str>,
        asked: Option<&str>,
    ) -> (TokenUsage, Option<Over>) {
        let price = model
            .or(asked)
            .and_then(|model| pricing::price_as(model, asked, self.pricing.as_ref()));
        usage.cost_usd = price.map(|(price, _)| pricing::cost(&usage, &price));
        let over = self.add(usage);
        (usage, over)
    }

    /// Add a served call's `usage`, priced as it was when recorded: the
    /// budget the run has now gone past, if it just did.
    pub(crate) fn charge_recorded(&mut self, usage: TokenUsage) -> Option<Over> {
        self.add(usage)
    }

    fn add(&mut self, usage: TokenUsage) -> Option<Over> {
        self.priced |= usage.cost_usd.is_some();
        self.total.input = self.total.input.saturating_add(usage.input);
        self.total.output = self.total.output.saturating_add(usage.output);
        self.total.cached = self.total.cached.saturating_add(usage.cached);
        self.total.reasoning = self.total.reasoning.saturating_add(usage.reasoning);
        self.cost_usd = round_dollars(self.cost_usd + usage.cost_usd.unwrap_or(0.0));
        let newly = if self.over.is_none() {
            self.past()
        } else {
            None
        };
        if newly.is_some() {
            self.over.clone_from(&newly);
        }
        newly
    }

    /// The budget the run is past, tokens first, then dollars. Equal to a
    /// limit is not past it.
    fn past(&self) -> Option<Over> {
        let tokens = self.total.input.saturating_add(self.total.output);
        if let Some(max) = self.budgets.max_tokens
            && tokens > max
        {
            return Some(Over {
                budget: Budget::Tokens,
                limit: format!("{max} tokens"),
                spent: format!("{tokens} tokens"),
            });
        }
        match self.budgets.max_cost_usd {
            Some(max) if self.priced && self.cost_usd > max => Some(Over {
                budget: Budget::Cost,
                limit: format!("${max}"),
                spent: format!("${}", self.cost_usd),
            }),
            _ => None,
        }
    }

    /// Calls admitted, tokens and dollars (none when no call was priced).
    #[cfg(test)]
    pub(crate) fn spent(&self) -> (u64, TokenUsage) {
        let mut total = self.total;
        total.cost_usd = self.priced.then_some(self.cost_usd);
        (self.calls, total)
    }

    /// The budget the run went past, if it did.
    #[cfg(test)]
    pub(crate) fn over(&self) -> Option<&Over> {
        self.over.as_ref()
    }
}
