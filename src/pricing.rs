//! What a model's tokens cost: the prices compiled in, and which price a
//! run's model gets (`--pricing FILE` over the scenario's
//! `provider.pricing` over the compiled-in list). Pricing only: the
//! gateway applies the price to each call's tokens.

use crate::bus::TokenUsage;
use crate::scenario::{ModelPrice, PriceTable};

/// The model name the simulated model's estimated tokens are priced as,
/// unless `--model` names another.
pub(crate) const SIM_MODEL: &str = "sim";

/// When the compiled-in prices were taken from the providers' public
/// price lists (standard tier, USD per million tokens).
pub const BUILT_IN_TAKEN: &str = "2026-11-23";

/// A few well-known models' list prices, USD per million input, output
/// and cached input tokens (OpenAI's "cached input", Anthropic's "cache
/// hits"); `docs/pricing.md` says where each comes from. Anthropic's
/// models are listed for when they are reached through an
/// OpenAI-compatible proxy (LiteLLM, OpenRouter-style gateways) under
/// these names. Override any of them with `provider.pricing` or
/// `--pricing`.
const BUILT_IN: &[(&str, ModelPrice)] = &[
    ("gpt-4o", listed(2.50, 10.00, 1.25)),
    ("gpt-4o-mini", listed(0.15, 0.60, 0.075)),
    ("gpt-4.1", listed(2.00, 8.00, 0.50)),
    ("gpt-4.1-mini", listed(0.40, 1.60, 0.10)),
    ("gpt-4.1-nano", listed(0.10, 0.40, 0.025)),
    ("o3-mini", listed(1.10, 4.40, 0.55)),
    ("o4-mini", listed(1.10, 4.40, 0.275)),
    ("gpt-5", listed(1.25, 10.00, 0.125)),
    ("gpt-5-mini", listed(0.25, 2.00, 0.025)),
    ("gpt-5-nano", listed(0.05, 0.40, 0.005)),
    ("claude-opus-4-1", listed(15.00, 75.00, 1.50)),
    ("claude-sonnet-4-5", listed(3.00, 15.00, 0.30)),
    ("claude-sonnet-4-0", listed(3.00, 15.00, 0.30)),
    ("claude-haiku-4-5", listed(1.00, 5.00, 0.10)),
    ("claude-3-5-haiku-latest", listed(0.80, 4.00, 0.08)),
];

const fn listed(input: f64, output: f64, cached_input: f64) -> ModelPrice {
    ModelPrice {
        input,
        output,
        cached_input: Some(cached_input),
    }
}

/// The compiled-in prices, in the order listed.
pub fn built_in() -> PriceTable {
    BUILT_IN
        .iter()
        .map(|(model, price)| (model.to_string(), *price))
        .collect()
}

/// The price of `model`: from `flag` (`--pricing FILE`), else the
/// scenario's `provider.pricing`, else the compiled-in list; `None` when
/// none of them names it (exactly as the endpoint is asked for it).
pub(crate) fn price_of(
    model: &str,
    flag: Option<&PriceTable>,
    scenario: Option<&PriceTable>,
) -> Option<ModelPrice> {
    [flag, scenario]
        .into_iter()
        .flatten()
        .find_map(|table| table.get(model).copied())
        .or_else(|| {
            BUILT_IN
                .iter()
                .find(|(name, _)| *name == model)
                .map(|(_, price)| *price)
        })
}

/// The name a dated snapshot of a model is sold under: the name without
/// its date (`gpt-4o-2024-08-06` is `gpt-4o`, OpenAI's `-YYYY-MM-DD`;
/// `claude-sonnet-4-5-20250929` is `claude-sonnet-4-5`, Anthropic's
/// `-YYYYMMDD`); `None` when the name ends in no date.
pub(crate) fn snapshot_base(model: &str) -> Option<&str> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let dated = |date: &str| {
        let parts: Vec<&str> = date.split('-').collect();
        match parts.as_slice() {
            [y, m, d] => {
                y.len() == 4 && m.len() == 2 && d.len() == 2 && parts.iter().all(|p| digits(p))
            }
            [ymd] => ymd.len() == 8 && digits(ymd),
            _ => false,
        }
    };
    // `-YYYY-MM-DD` is 11 characters at the end, `-YYYYMMDD` 9.
    [11, 9].into_iter().find_map(|len| {
        let at = model.len().checked_sub(len)?;
        let (base, date) = (model.get(..at)?, model.get(at + 1..)?);
        (model.as_bytes()[at] == b'-' && dated(date) && !base.is_empty()).then_some(base)
    })
}

/// The price a watched call is charged at, and the name it was priced as:
/// `model` as named (the model that answered), else its dated snapshot's
/// base name, else `request` (the model asked for) and its base name.
/// The flag's table (`--pricing`) comes before the compiled-in list at
/// each step. A run's own calls are priced by [`price_of`] only, exactly
/// as the endpoint is asked; this is for spans that report what answered.
pub(crate) fn price_as(
    model: &str,
    request: Option<&str>,
    flag: Option<&PriceTable>,
) -> Option<(ModelPrice, String)> {
    let names = [Some(model), snapshot_base(model)]
        .into_iter()
        .chain([request, request.and_then(snapshot_base)]);
    names
        .flatten()
        .find_map(|name| price_of(name, flag, None).map(|price| (price, name.to_string())))
}

/// The most dollars a cost reads: the largest finite number. A cost that
/// would be more (a price near 1e308 per million tokens) is held here,
/// never infinite, which JSON cannot write.
pub(crate) const MAX_DOLLARS: f64 = f64::MAX;

/// What `usage` costs at `price`, to a ten-billionth of a dollar (a whole
/// number of ten-billionths prints as the decimal it is), held at
/// [`MAX_DOLLARS`]. Cached input tokens cost the cached-input price (the
/// input price when the model has none) and the rest of the input the
/// input price; reasoning tokens are output and cost what output costs,
/// once.
pub(crate) fn cost(usage: &TokenUsage, price: &ModelPrice) -> f64 {
    let cached = usage.cached.min(usage.input);
    let (fresh, cached, output) = (
        (usage.input - cached) as f64,
        cached as f64,
        usage.output as f64,
    );
    let cached_price = price.cached_input.unwrap_or(price.input);
    let product = fresh * price.input + output * price.output;
    // Without cached tokens the sum is the one it always was, to the bit.
    let product = if cached > 0.0 {
        product + cached * cached_price
    } else {
        product
    };
    let dollars = if product.is_finite() {
        product / 1e6
    } else {
        // The product overflowed where the cost need not: the price per
        // token first. (Only then, so that every other cost is the same
        // to the last bit.)
        fresh * (price.input / 1e6) + cached * (cached_price / 1e6) + output * (price.output / 1e6)
    };
    round_dollars(dollars)
}

/// Dollars held to ten decimals, so that sums print without float dust,
/// and at [`MAX_DOLLARS`], so that a sum past it stays a number.
pub(crate) fn round_dollars(dollars: f64) -> f64 {
    let scaled = dollars * 1e10;
    if scaled.is_finite() {
        scaled.round() / 1e10
    } else if dollars.is_nan() {
        dollars
    } else {
        // Past 1e298 dollars ten decimals mean nothing anyway.
        dollars.min(MAX_DOLLARS)
    }
}

/// Whether a cost or a sum of costs was held at [`MAX_DOLLARS`].
pub(crate) fn is_held(dollars: f64) -> bool {
    dollars >= MAX_DOLLARS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(model: &str, input: f64, output: f64) -> PriceTable {
        [(model.to_string(), ModelPrice::new(input, output))]
            .into_iter()
            .collect()
    }

    #[test]
    fn the_flag_wins_over_the_scenario_which_wins_over_the_built_in_list() {
        let flag = table("gpt-4.1-mini", 1.0, 2.0);
        let scenario = table("gpt-4.1-mini", 3.0, 4.0);
        let price = |f, s| price_of("gpt-4.1-mini", f, s).map(|p| (p.input, p.output));
        assert_eq!(price(Some(&flag), Some(&scenario)), Some((1.0, 2.0)));
        assert_eq!(price(None, Some(&scenario)), Some((3.0, 4.0)));
        assert_eq!(price(None, None), Some((0.4, 1.6)));
        let other = table("another", 9.0, 9.0);
        assert_eq!(
            price(Some(&other), Some(&other)),
            Some((0.4, 1.6)),
            "a table that does not name the model leaves it to the next"
        );
    }

    #[test]
    fn a_model_nobody_prices_has_no_price() {
        assert_eq!(price_of(SIM_MODEL, None, None), None);
        assert_eq!(price_of("gpt-4.1-mini-2025-04-14", None, None), None);
        assert!(price_of("sim", None, Some(&table("sim", 1.0, 2.0))).is_some());
    }

    #[test]
    fn a_call_costs_its_tokens_at_the_price_per_million() {
        let usage = TokenUsage {
            input: 1200,
            output: 345,
            ..TokenUsage::default()
        };
        let price = ModelPrice::new(1.0, 2.0);
        assert_eq!(cost(&usage, &price), 0.00189);
        assert_eq!(cost(&usage, &ModelPrice::new(0.4, 1.6)), 0.001032);
        assert_eq!(round_dollars(0.1 + 0.2), 0.3);
    }

    #[test]
    fn cached_input_costs_the_cached_price_and_reasoning_costs_output_once() {
        // gpt-4.1-mini: 0.40 in, 0.10 cached in, 1.60 out per million.
        let price = price_of("gpt-4.1-mini", None, None).unwrap();
        assert_eq!(price.cached_input, Some(0.10));
        let usage = TokenUsage {
            input: 10_000,
            cached: 8_000,
            output: 1_000,
            reasoning: 600,
            ..TokenUsage::default()
        };
        // 2,000 × 0.40 + 8,000 × 0.10 + 1,000 × 1.60, per million.
        assert_eq!(cost(&usage, &price), 0.0032);
        let uncached = TokenUsage {
            cached: 0,
            reasoning: 0,
            ..usage
        };
        assert_eq!(cost(&uncached, &price), 0.0056, "what was overstated");
        // A model without a cached price charges its input price.
        assert_eq!(cost(&usage, &ModelPrice::new(0.40, 1.60)), 0.0056);
        // A cached count past the input (a recording's) is the input.
        let past = TokenUsage {
            cached: 50_000,
            ..usage
        };
        assert_eq!(cost(&past, &price), 0.0026);
    }

    #[test]
    fn every_compiled_in_price_has_a_cached_price_below_its_input_price() {
        for (model, price) in built_in() {
            let cached = price.cached_input.expect(&model);
            assert!(cached > 0.0 && cached < price.input, "{model}");
        }
    }

    #[test]
    fn the_pricing_page_lists_every_compiled_in_price_as_it_is() {
        let page = include_str!("../docs/pricing.md");
        assert!(page.contains(&format!("Taken on {BUILT_IN_TAKEN}")));
        // As a price list writes it: cents, or a third decimal when used.
        let figure = |dollars: f64| {
            let text = format!("{dollars:.3}");
            if text.ends_with('0') {
                format!("{dollars:.2}")
            } else {
                text
            }
        };
        let (_, table) = page.split_once("## The compiled-in prices").unwrap();
        let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| `")).collect();
        for (model, price) in built_in() {
            let row = format!(
                "| `{model}` | {} | {} | {} |",
                figure(price.input),
                figure(price.cached_input.unwrap()),
                figure(price.output)
            );
            assert!(
                rows.iter().any(|r| r.starts_with(&row)),
                "docs/pricing.md has no row {row}"
            );
        }
        assert_eq!(rows.len(), built_in().len(), "and no other model");
    }

    #[test]
    fn a_dated_snapshot_is_priced_as_its_base_name_or_the_model_asked_for() {
        assert_eq!(snapshot_base("gpt-4o-2024-08-06"), Some("gpt-4o"));
        assert_eq!(
            snapshot_base("gpt-4.1-mini-2025-04-14"),
            Some("gpt-4.1-mini")
        );
        assert_eq!(
            snapshot_base("claude-sonnet-4-5-20250929"),
            Some("claude-sonnet-4-5")
        );
        for undated in [
            "gpt-4o",
            "o4-mini",
            "gpt-4o-2024-8-06",
            "-2024-08-06",
            "x-2024-08-0a",
        ] {
            assert_eq!(snapshot_base(undated), None, "{undated}");
        }
        let named = |model, request| price_as(model, request, None).map(|(p, n)| (p.input, n));
        assert_eq!(
            named("gpt-4.1-mini", None),
            Some((0.40, "gpt-4.1-mini".into()))
        );
        assert_eq!(
            named("gpt-4o-2024-08-06", None),
            Some((2.50, "gpt-4o".into()))
        );
        assert_eq!(
            named("my-deployment", Some("gpt-4.1-mini-2025-04-14")),
            Some((0.40, "gpt-4.1-mini".into()))
        );
        assert_eq!(named("my-deployment", Some("mine")), None);
        // A table that names the snapshot prices it as named.
        let flag = table("gpt-4o-2024-08-06", 5.0, 15.0);
        let exact = price_as("gpt-4o-2024-08-06", None, Some(&flag)).unwrap();
        assert_eq!(
            (exact.0.input, exact.1.as_str()),
            (5.0, "gpt-4o-2024-08-06")
        );
        // A run's own model is still priced exactly as it is asked for.
        assert_eq!(price_of("gpt-4o-2024-08-06", None, None), None);
    }

    #[test]
    fn a_price_near_the_largest_number_gives_a_cost_not_nothing() {
        let usage = TokenUsage {
            input: 1000,
            output: 10,
            ..TokenUsage::default()
        };
        let huge = ModelPrice::new(1e308, 1e308);
        let dollars = cost(&usage, &huge);
        assert!(dollars.is_finite(), "{dollars}");
        assert!((dollars / 1.01e305 - 1.0).abs() < 1e-12, "{dollars}");
        assert!(!is_held(dollars));
        // More than the largest number: held there, and said to be.
        let endless = TokenUsage {
            input: u64::MAX,
            ..usage
        };
        assert_eq!(cost(&endless, &huge), MAX_DOLLARS);
        assert!(is_held(cost(&endless, &huge)));
        assert_eq!(round_dollars(MAX_DOLLARS + MAX_DOLLARS), MAX_DOLLARS);
    }
}
