//! A run whose model calls went through Conclave's endpoint counts them
//! from the endpoint, not from its spans: each call the upstream answered
//! is one model call, with the tokens it reported and their price. The
//! spans still say the agents, handoffs and tools.

use super::summary::{CostFrom, GatewayTally, WatchSummary};
use crate::gateway::endpoint::EndpointCall;

/// `summary`'s model calls, tokens and cost, counted from `calls` (the
/// endpoint's, in order) instead of the spans; `refused` calls were
/// answered 429 for a budget.
pub(crate) fn count_from_gateway<'a>(
    summary: &mut WatchSummary,
    calls: impl IntoIterator<Item = &'a EndpointCall>,
    refused: u64,
) {
    summary.model_calls = 0;
    summary.input_tokens = 0;
    summary.output_tokens = 0;
    summary.cached_input_tokens = 0;
    summary.cost_usd = None;
    summary.cost_from = None;
    summary.priced_as.clear();
    summary.unpriced_calls = 0;
    let mut tally = GatewayTally {
        refused,
        ..GatewayTally::default()
    };
    for call in calls {
        if call.status.is_some() {
            summary.model_calls += 1;
        }
        if !call.served() {
            tally.failed += 1;
        }
        let Some(usage) = call.usage else {
            if call.status.is_some() {
                summary.unpriced_calls += 1;
            }
            continue;
        };
        summary.input_tokens = summary.input_tokens.saturating_add(usage.input);
        summary.output_tokens = summary.output_tokens.saturating_add(usage.output);
        summary.cached_input_tokens = summary.cached_input_tokens.saturating_add(usage.cached);
        match usage.cost_usd {
            Some(cost) => {
                let sum = summary.cost_usd.unwrap_or(0.0) + cost;
                summary.cost_usd = Some(crate::pricing::round_dollars(sum));
                summary.cost_from = Some(CostFrom::PriceTable);
            }
            None => summary.unpriced_calls += 1,
        }
    }
    summary.gateway = Some(tally);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::TokenUsage;
    use crate::watch::forest::Forest;
    use crate::watch::summary::summarise;

    fn call(status: Option<u16>, usage: Option<(u64, u64, Option<f64>)>) -> EndpointCall {
        EndpointCall {
            run: "r".into(),
            api: "chat.completions".into(),
            model: Some("gpt-4o".into()),
            status,
            usage: usage.map(|(input, output, cost_usd)| TokenUsage {
                input,
                output,
                cost_usd,
                ..TokenUsage::default()
            }),
            ms: 1,
            ..EndpointCall::default()
        }
    }

    #[test]
    fn the_endpoints_calls_replace_the_spans_counts() {
        let mut summary = summarise(1, &Forest::new(1), None);
        summary.model_calls = 9;
        summary.input_tokens = 900;
        let calls = [
            call(Some(200), Some((100, 20, Some(0.001)))),
            call(Some(200), Some((50, 5, Some(0.0005)))),
            call(Some(500), None),
            call(None, None),
        ];
        count_from_gateway(&mut summary, &calls, 2);
        assert_eq!(
            summary.model_calls, 3,
            "the unreachable call reached nothing"
        );
        assert_eq!((summary.input_tokens, summary.output_tokens), (150, 25));
        assert_eq!(summary.cost_usd, Some(0.0015));
        assert_eq!(summary.cost_from, Some(CostFrom::PriceTable));
        assert_eq!(summary.unpriced_calls, 1);
        assert_eq!(
            summary.gateway,
            Some(GatewayTally {
                failed: 2,
                refused: 2
            })
        );
    }
}
