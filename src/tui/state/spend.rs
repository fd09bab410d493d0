//! What a run's model calls used and cost, folded from their
//! `call_finished` usage, and how much of the run's token and dollar
//! budgets that is. A recording made before prices has calls without a
//! cost: they count as unpriced.

use crate::bus::TokenUsage;
use crate::scenario::SpendLimits;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Spend {
    pub(crate) input: u64,
    pub(crate) output: u64,
    /// Of the input, tokens the endpoint served from its prompt cache; of
    /// the output, tokens the model spent reasoning.
    pub(crate) cached: u64,
    pub(crate) reasoning: u64,
    /// Dollars of the calls that had a price.
    pub(crate) cost_usd: f64,
    /// Calls that reported tokens and a cost, and those without a cost.
    pub(crate) priced: u64,
    pub(crate) unpriced: u64,
    /// Some counts are the simulated model's estimates.
    pub(crate) estimated: bool,
}

impl Spend {
    pub(crate) fn add(&mut self, usage: &TokenUsage) {
        self.input = self.input.saturating_add(usage.input);
        self.output = self.output.saturating_add(usage.output);
        self.cached = self.cached.saturating_add(usage.cached);
        self.reasoning = self.reasoning.saturating_add(usage.reasoning);
        match usage.cost_usd {
            Some(cost) => {
                self.cost_usd += cost;
                self.priced += 1;
            }
            None => self.unpriced += 1,
        }
        self.estimated |= usage.estimated;
    }

    /// Both spends together.
    pub(crate) fn plus(self, other: &Spend) -> Spend {
        Spend {
            input: self.input.saturating_add(other.input),
            output: self.output.saturating_add(other.output),
            cached: self.cached.saturating_add(other.cached),
            reasoning: self.reasoning.saturating_add(other.reasoning),
            cost_usd: self.cost_usd + other.cost_usd,
            priced: self.priced + other.priced,
            unpriced: self.unpriced + other.unpriced,
            estimated: self.estimated || other.estimated,
        }
    }

    /// `~1.2k tok · $0.0004` (`~` for estimates; no dollars when a call
    /// had no price); `1.2k tok (800 cached · 90 reasoning) · $0.0004`
    /// when the endpoint counted those parts.
    pub(crate) fn words(&self) -> String {
        let about = if self.estimated { "~" } else { "" };
        let tokens = format!(
            "{about}{} tok{}",
            crate::figures::compact(self.tokens()),
            self.parts()
        );
        let words = match self.cost() {
            Some(dollars) => format!("{tokens} · {about}${}", crate::figures::dollars(dollars)),
            None => tokens,
        };
        if self.held() {
            format!("{words} (held: past the largest figure)")
        } else {
            words
        }
    }

    /// Whether a figure stands at the most it can be, where it was held
    /// rather than wrapped.
    fn held(&self) -> bool {
        self.tokens() == u64::MAX || self.cost().is_some_and(crate::pricing::is_held)
    }

    /// Tokens as the endpoint bills them: input and output, the cached
    /// and reasoning parts inside them.
    pub(crate) fn tokens(&self) -> u64 {
        self.input.saturating_add(self.output)
    }

    /// ` (800 cached · 90 reasoning)`, or nothing when none were counted.
    pub(crate) fn parts(&self) -> String {
        crate::figures::token_parts(self.cached, self.reasoning)
    }

    /// What the run cost, when every call that counted tokens had a price.
    pub(crate) fn cost(&self) -> Option<f64> {
        (self.unpriced == 0 && self.priced > 0)
            .then(|| crate::pricing::round_dollars(self.cost_usd))
    }

    /// The share of the budget closest to running out (1.0 is all of it),
    /// when the run has a token or dollar budget it can measure.
    pub(crate) fn budget_share(&self, limits: &SpendLimits) -> Option<f64> {
        let tokens = limits
            .max_tokens
            .map(|max| self.tokens() as f64 / max.max(1) as f64);
        let dollars = limits
            .max_cost_usd
            .filter(|max| *max > 0.0)
            .map(|max| self.cost().unwrap_or(0.0) / max);
        match (tokens, dollars) {
            (Some(t), Some(d)) => Some(t.max(d)),
            (one, other) => one.or(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64, cost_usd: Option<f64>) -> TokenUsage {
        TokenUsage {
            input,
            output,
            cost_usd,
            ..TokenUsage::default()
        }
    }

    #[test]
    fn the_cost_is_known_only_when_every_call_had_a_price() {
        let mut spend = Spend::default();
        assert_eq!(spend.cost(), None);
        spend.add(&usage(100, 20, Some(0.01)));
        spend.add(&usage(50, 10, Some(0.02)));
        assert_eq!((spend.tokens(), spend.cost()), (180, Some(0.03)));
        spend.add(&usage(1, 1, None));
        assert_eq!(spend.cost(), None);
    }

    #[test]
    fn cached_and_reasoning_tokens_are_said_within_the_total_not_added() {
        let mut spend = Spend::default();
        spend.add(&usage(100, 20, Some(0.01)));
        assert_eq!(spend.words(), "120 tok · $0.01");
        spend.add(&TokenUsage {
            cached: 1_500,
            reasoning: 40,
            ..usage(2_000, 60, Some(0.02))
        });
        assert_eq!(spend.tokens(), 2_180, "billed as input + output");
        assert_eq!(
            spend.words(),
            "2.2k tok (1.5k cached · 40 reasoning) · $0.03"
        );
        let both = spend.plus(&spend);
        assert_eq!((both.cached, both.reasoning), (3_000, 80));
    }

    #[test]
    fn a_figure_held_at_the_largest_says_so() {
        let mut spend = Spend::default();
        spend.add(&usage(u64::MAX - 1, 5, Some(f64::MAX)));
        spend.add(&usage(7, 0, Some(f64::MAX)));
        assert_eq!(spend.tokens(), u64::MAX);
        assert_eq!(spend.cost(), Some(f64::MAX), "held, not infinite");
        assert!(
            spend.words().ends_with("(held: past the largest figure)"),
            "{}",
            spend.words()
        );
        let mut small = Spend::default();
        small.add(&usage(10, 5, Some(0.01)));
        assert!(!small.words().contains("held"));
    }

    #[test]
    fn the_closest_limit_gives_the_share() {
        let mut spend = Spend::default();
        spend.add(&usage(300, 300, Some(0.2)));
        let both = SpendLimits {
            max_tokens: Some(1000),
            max_cost_usd: Some(0.25),
        };
        assert_eq!(spend.budget_share(&both), Some(0.8));
        let tokens = SpendLimits {
            max_tokens: Some(1000),
            max_cost_usd: None,
        };
        assert_eq!(spend.budget_share(&tokens), Some(0.6));
        assert_eq!(spend.budget_share(&SpendLimits::default()), None);
    }
}
