//! The run's spend: every model call's tokens, priced at the run's model's
//! price, summed for the run and for whoever made the call, and the run's
//! token and dollar budgets checked against the sum. The gateway charges
//! an answer the moment it arrives, so a call in flight when a budget runs
//! out is counted when it finishes; only the next gate or call stops.
//! Sums stop at the largest count (2^64 − 1 tokens, the largest finite
//! number of dollars) and say so (`"saturated": true`), never wrapping.
//! Tokens count as the endpoint bills them: cached tokens are a part of
//! the input and reasoning tokens a part of the output, never added on top.

use crate::bus::TokenUsage;
use crate::pricing::{self, is_held, round_dollars};
use crate::scenario::{ModelPrice, SpendLimits};
use crate::stop::StopReason;
use indexmap::IndexMap;
use serde::Serialize;
use std::sync::{Mutex, PoisonError};

/// Tokens and dollars of some calls.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Tally {
    input: u64,
    output: u64,
    cached: u64,
    reasoning: u64,
    cost_usd: f64,
}

impl Tally {
    fn add(&mut self, usage: &TokenUsage) {
        self.input = self.input.saturating_add(usage.input);
        self.output = self.output.saturating_add(usage.output);
        self.cached = self.cached.saturating_add(usage.cached);
        self.reasoning = self.reasoning.saturating_add(usage.reasoning);
        self.cost_usd = round_dollars(self.cost_usd + usage.cost_usd.unwrap_or(0.0));
    }

    fn tokens(&self) -> u64 {
        self.input.saturating_add(self.output)
    }

    /// Whether a figure stands at the most it can be, where it was held.
    fn saturated(&self, priced: bool) -> bool {
        self.input == u64::MAX || self.output == u64::MAX || (priced && is_held(self.cost_usd))
    }

    /// `{input_tokens, output_tokens, cached_tokens, reasoning_tokens,
    /// cost_usd}`, the parts only when the endpoint counted some, the cost
    /// only when the model has a price, and `saturated: true` only when a
    /// figure was held at its most.
    fn figures(&self, priced: bool) -> Figures {
        Figures {
            input_tokens: self.input,
            output_tokens: self.output,
            cached_tokens: self.cached,
            reasoning_tokens: self.reasoning,
            cost_usd: priced.then_some(self.cost_usd),
            saturated: self.saturated(priced),
        }
    }
}

/// A tally as the result writes it.
#[derive(Clone, Debug, PartialEq, Serialize)]
struct Figures {
    input_tokens: u64,
    output_tokens: u64,
    /// Of `input_tokens`, those served from the endpoint's prompt cache.
    #[serde(skip_serializing_if = "is_zero")]
    cached_tokens: u64,
    /// Of `output_tokens`, those the model spent reasoning.
    #[serde(skip_serializing_if = "is_zero")]
    reasoning_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost_usd: Option<f64>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    saturated: bool,
}

/// Whether a sum of dollars went past the largest number (held there, or
/// not a number at all).
fn overflowed(dollars: f64) -> bool {
    is_held(dollars) || !dollars.is_finite()
}

/// Whether `cost` is past a budget of `max` dollars: a cost that
/// overflowed (or is not a number) is past every budget, the largest
/// included.
fn past_budget(cost: f64, max: f64) -> bool {
    overflowed(cost) || cost > max
}

/// Counts nobody made (cached or reasoning tokens, repairs, fallbacks)
/// are left out, so that a run on the sim reads as it did before they
/// were counted.
fn is_zero(count: &u64) -> bool {
    *count == 0
}

/// The `usage` of a run's result: `{input_tokens, output_tokens,
/// cached_tokens, reasoning_tokens, cost_usd, saturated, estimated,
/// by_agent: {<who>: {input_tokens, output_tokens, cached_tokens,
/// reasoning_tokens, cost_usd, saturated}}}`, without `cached_tokens` and
/// `reasoning_tokens` when zero, without `cost_usd` when the model has no
/// price and without `saturated` unless a figure was held.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Usage {
    #[serde(flatten)]
    total: Figures,
    estimated: bool,
    /// In the order each spender first spent.
    by_agent: IndexMap<String, Figures>,
    /// The part of it served from a cassette, which cost nothing now:
    /// written when a run served some model calls and made others live
    /// (a fork), so that a run served wholly is its recording's result.
    #[serde(skip_serializing_if = "Option::is_none")]
    served: Option<Served>,
    /// Answers that failed their contract and were asked for again.
    #[serde(skip_serializing_if = "is_zero")]
    repairs: u64,
    /// Times the endpoint refused a way of asking and the run moved to the
    /// next (an output mode, a parameter).
    #[serde(skip_serializing_if = "is_zero")]
    fallbacks: u64,
}

/// The model calls served from a cassette and what they took when they
/// were recorded.
#[derive(Clone, Debug, PartialEq, Serialize)]
struct Served {
    calls: u64,
    #[serde(flatten)]
    figures: Figures,
}

#[derive(Debug, Default)]
struct Ledger {
    total: Tally,
    /// In the order each spender first spent.
    by_agent: IndexMap<String, Tally>,
    estimated: bool,
    /// Model calls answered live and served, and what the served took.
    live_calls: u64,
    served_calls: u64,
    served: Tally,
    repairs: u64,
    fallbacks: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Meter {
    price: Option<ModelPrice>,
    limits: SpendLimits,
    ledger: Mutex<Ledger>,
}

impl Meter {
    pub(crate) fn new(price: Option<ModelPrice>, limits: SpendLimits) -> Self {
        Meter {
            price,
            limits,
            ledger: Mutex::default(),
        }
    }

    fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Price `usage` (a call `spender` made) and add it to the run's spend;
    /// the usage with its cost, as `call_finished` publishes it.
    pub(crate) fn charge(&self, spender: &str, usage: Option<TokenUsage>) -> Option<TokenUsage> {
        self.ledger().live_calls += 1;
        let mut usage = usage?;
        usage.cost_usd = self.price.map(|price| pricing::cost(&usage, &price));
        self.add(spender, usage)
    }

    /// An answer failed its contract and is asked for again.
    pub(crate) fn note_repair(&self) {
        self.ledger().repairs += 1;
    }

    /// The endpoint refused a way of asking, and the run asks another way.
    pub(crate) fn note_fallback(&self) {
        self.ledger().fallbacks += 1;
    }

    /// Add a served answer's recorded `usage` to the run's spend, at the
    /// price it was recorded at (a fork may have changed the model since).
    pub(crate) fn charge_served(
        &self,
        spender: &str,
        usage: Option<TokenUsage>,
    ) -> Option<TokenUsage> {
        let mut ledger = self.ledger();
        ledger.served_calls += 1;
        let usage = usage?;
        ledger.served.add(&usage);
        drop(ledger);
        self.add(spender, usage)
    }

    fn add(&self, spender: &str, usage: TokenUsage) -> Option<TokenUsage> {
        let mut ledger = self.ledger();
        ledger.total.add(&usage);
        ledger.estimated |= usage.estimated;
        match ledger.by_agent.get_mut(spender) {
            Some(tally) => tally.add(&usage),
            None => {
                let mut tally = Tally::default();
                tally.add(&usage);
                ledger.by_agent.insert(spender.to_string(), tally);
            }
        }
        Some(usage)
    }

    /// The budget the run has gone past, if any: tokens first, then
    /// dollars. Equal to a limit is not past it.
    pub(crate) fn over(&self) -> Option<StopReason> {
        let total = self.ledger().total;
        if self
            .limits
            .max_tokens
            .is_some_and(|max| total.tokens() > max)
        {
            return Some(StopReason::MaxTokens);
        }
        if self.price.is_some()
            && self
                .limits
                .max_cost_usd
                .is_some_and(|max| past_budget(total.cost_usd, max))
        {
            return Some(StopReason::MaxCost);
        }
        None
    }

    /// Whether the run has a dollar budget and its cost went past the
    /// largest number: no budget holds such a cost, whenever it came.
    pub(crate) fn cost_overflowed(&self) -> bool {
        self.price.is_some()
            && self.limits.max_cost_usd.is_some()
            && overflowed(self.ledger().total.cost_usd)
    }

    /// The tokens (input and output) and dollars `spender` has used so
    /// far, as its entry of `usage.by_agent` says them (no price: no
    /// dollars), read from its tally alone: a runner that asks at every
    /// activation would otherwise copy a table that grows with the run.
    pub(crate) fn spent_by(&self, spender: &str) -> (u64, f64) {
        let ledger = self.ledger();
        ledger
            .by_agent
            .get(spender)
            .map_or((0, 0.0), |tally| self.spent(tally))
    }

    /// What `spender` and the spenders under it (`NODE/AGENT`,
    /// `NODE#2/AGENT`: a graph team node's agents, visit by visit) have
    /// used so far, added up as `spent_by` reads each. It reads every
    /// entry: only a team node asks it.
    pub(crate) fn spent_under(&self, spender: &str) -> (u64, f64) {
        let ledger = self.ledger();
        let under = |name: &str| {
            name.strip_prefix(spender)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '#']))
        };
        ledger
            .by_agent
            .iter()
            .filter(|(name, _)| under(name))
            .map(|(_, tally)| self.spent(tally))
            .fold((0, 0.0), |(tokens, dollars), (t, d)| {
                (tokens + t, dollars + d)
            })
    }

    /// One tally's tokens and dollars as the result's JSON holds them: a
    /// cost that is not finite is written as none, and no price, none.
    fn spent(&self, tally: &Tally) -> (u64, f64) {
        let dollars = match self.price {
            Some(_) if tally.cost_usd.is_finite() => tally.cost_usd,
            _ => 0.0,
        };
        (tally.tokens(), dollars)
    }

    /// The `usage` of the run's result, as it stands.
    pub(crate) fn usage(&self) -> Usage {
        let ledger = self.ledger();
        let priced = self.price.is_some();
        Usage {
            total: ledger.total.figures(priced),
            estimated: ledger.estimated,
            by_agent: ledger
                .by_agent
                .iter()
                .map(|(who, tally)| (who.clone(), tally.figures(priced)))
                .collect(),
            served: (ledger.served_calls > 0 && ledger.live_calls > 0).then(|| Served {
                calls: ledger.served_calls,
                figures: ledger.served.figures(priced),
            }),
            repairs: ledger.repairs,
            fallbacks: ledger.fallbacks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// The usage as the result writes it.
    fn usage_of(meter: &Meter) -> Value {
        serde_json::to_value(meter.usage()).unwrap()
    }

    fn used(input: u64, output: u64) -> Option<TokenUsage> {
        Some(TokenUsage {
            input,
            output,
            ..TokenUsage::default()
        })
    }

    const ONE_TWO: ModelPrice = ModelPrice::new(1.0, 2.0);

    #[test]
    fn each_call_is_priced_and_summed_by_who_made_it() {
        let meter = Meter::new(Some(ONE_TWO), SpendLimits::default());
        let priced = meter.charge("planner", used(1000, 500)).unwrap();
        assert_eq!(priced.cost_usd, Some(0.002));
        meter.charge("writer", used(3000, 0));
        meter.charge("planner", used(0, 250));
        meter.charge("planner", None);
        assert_eq!(
            usage_of(&meter),
            json!({
                "input_tokens": 4000, "output_tokens": 750, "cost_usd": 0.0055,
                "estimated": false,
                "by_agent": {
                    "planner": {"input_tokens": 1000, "output_tokens": 750, "cost_usd": 0.0025},
                    "writer": {"input_tokens": 3000, "output_tokens": 0, "cost_usd": 0.003}
                }
            })
        );
    }

    #[test]
    fn one_spenders_figures_are_its_entry_of_the_usage() {
        for price in [Some(ONE_TWO), None] {
            let meter = Meter::new(price, SpendLimits::default());
            assert_eq!(meter.spent_by("review"), (0, 0.0));
            meter.charge("plan", used(1000, 500));
            meter.charge("review", used(30, 7));
            meter.charge("review", used(0, 3));
            let usage = usage_of(&meter);
            for who in ["plan", "review", "nobody"] {
                let entry = &usage["by_agent"][who];
                let tokens = ["input_tokens", "output_tokens"]
                    .iter()
                    .filter_map(|k| entry[*k].as_u64())
                    .sum();
                let dollars = entry["cost_usd"].as_f64().unwrap_or(0.0);
                assert_eq!(meter.spent_by(who), (tokens, dollars), "{who}");
            }
            assert_eq!(meter.spent_by("review").0, 40);
        }
    }

    #[test]
    fn cached_and_reasoning_tokens_are_said_where_counted_and_billed_once() {
        let price = ModelPrice {
            cached_input: Some(0.25),
            ..ONE_TWO
        };
        let meter = Meter::new(
            Some(price),
            SpendLimits {
                max_tokens: Some(1_500),
                max_cost_usd: None,
            },
        );
        let counted = TokenUsage {
            cached: 800,
            reasoning: 150,
            ..used(1000, 500).unwrap()
        };
        // 200 × 1 + 800 × 0.25 + 500 × 2, per million.
        assert_eq!(
            meter.charge("planner", Some(counted)).unwrap().cost_usd,
            Some(0.0014)
        );
        meter.charge("writer", used(0, 0));
        assert_eq!(
            usage_of(&meter),
            json!({
                "input_tokens": 1000, "output_tokens": 500,
                "cached_tokens": 800, "reasoning_tokens": 150, "cost_usd": 0.0014,
                "estimated": false,
                "by_agent": {
                    "planner": {"input_tokens": 1000, "output_tokens": 500,
                                "cached_tokens": 800, "reasoning_tokens": 150, "cost_usd": 0.0014},
                    "writer": {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0}
                }
            })
        );
        assert_eq!(meter.over(), None, "1,500 billed tokens of 1,500");
        meter.charge("writer", used(1, 0));
        assert_eq!(meter.over(), Some(StopReason::MaxTokens));
    }

    #[test]
    fn sums_past_the_largest_count_are_held_and_said() {
        let meter = Meter::new(Some(ONE_TWO), SpendLimits::default());
        meter.charge("a", used(u64::MAX - 3, 1));
        meter.charge("b", used(7, 1));
        let usage = usage_of(&meter);
        assert_eq!(usage["input_tokens"], u64::MAX, "not 3: {usage}");
        assert_eq!(usage["output_tokens"], 2);
        assert_eq!(usage["saturated"], true);
        assert!(usage["by_agent"]["b"].get("saturated").is_none());
        assert!(usage["cost_usd"].as_f64().is_some_and(f64::is_finite));

        let priced_past = Meter::new(
            Some(ModelPrice::new(f64::MAX, 0.0)),
            SpendLimits {
                max_tokens: None,
                max_cost_usd: Some(1e300),
            },
        );
        let charged = priced_past.charge("a", used(u64::MAX, 0)).unwrap();
        assert_eq!(charged.cost_usd, Some(f64::MAX));
        let usage = usage_of(&priced_past);
        assert_eq!(usage["cost_usd"], f64::MAX, "a number, not null: {usage}");
        assert_eq!(usage["saturated"], true);
        assert_eq!(priced_past.over(), Some(StopReason::MaxCost));
    }

    #[test]
    fn a_cost_held_at_the_largest_number_is_past_even_the_largest_budget() {
        let meter = Meter::new(
            Some(ModelPrice::new(1e308, 0.0)),
            SpendLimits {
                max_tokens: None,
                max_cost_usd: Some(f64::MAX),
            },
        );
        meter.charge("a", used(10, 0));
        assert_eq!(meter.over(), None);
        assert!(!meter.cost_overflowed());
        meter.charge("a", used(u64::MAX, 0));
        assert_eq!(meter.over(), Some(StopReason::MaxCost));
        assert!(meter.cost_overflowed());
        assert!(
            past_budget(f64::NAN, f64::MAX),
            "not a number is past it too"
        );
    }

    #[test]
    fn without_a_price_the_cost_is_absent_not_zero() {
        let meter = Meter::new(None, SpendLimits::default());
        let usage = TokenUsage {
            estimated: true,
            ..used(40, 10).unwrap()
        };
        assert_eq!(meter.charge("a", Some(usage)).unwrap().cost_usd, None);
        assert_eq!(
            usage_of(&meter),
            json!({"input_tokens": 40, "output_tokens": 10, "estimated": true,
                   "by_agent": {"a": {"input_tokens": 40, "output_tokens": 10}}})
        );
    }

    #[test]
    fn a_budget_is_over_only_once_past_its_limit() {
        let limits = SpendLimits {
            max_tokens: Some(100),
            max_cost_usd: Some(0.001),
        };
        let meter = Meter::new(Some(ONE_TWO), limits);
        meter.charge("a", used(60, 40));
        assert_eq!(meter.over(), None, "100 tokens of 100 is not past it");
        meter.charge("a", used(1, 0));
        assert_eq!(meter.over(), Some(StopReason::MaxTokens));

        let meter = Meter::new(
            Some(ONE_TWO),
            SpendLimits {
                max_tokens: None,
                max_cost_usd: Some(0.001),
            },
        );
        meter.charge("a", used(1000, 0));
        assert_eq!(meter.over(), None, "$0.001 of $0.001");
        meter.charge("a", used(0, 1));
        assert_eq!(meter.over(), Some(StopReason::MaxCost));
    }
}
