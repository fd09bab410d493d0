//! How the run asks its endpoint from now on, as the endpoint's answers
//! say: a feature it refused by name, and a token limit it took under
//! `max_completion_tokens` and ignored. Each change is made by the
//! provider's policy and published and counted here, once, by the call
//! that made it.

use super::{CallError, Gateway};
use crate::bus::EventKind;
use crate::provider::output::{Feature, Setting};
use crate::provider::{Completion, ProviderError};

impl Gateway {
    /// Whether the run now asks otherwise after `error`, an endpoint's
    /// refusal of a feature of the request: the change is published and
    /// counted once, by the call that made it (a call in parallel refused
    /// for the same feature asks again the new way without a word).
    pub(super) fn adapted(&self, error: &CallError) -> bool {
        let CallError::Provider(ProviderError::Unsupported { feature, said, .. }) = error else {
            return false;
        };
        self.adapt_to(*feature, said)
    }

    /// An answer longer than the token limit its request sent: an
    /// endpoint that takes `max_completion_tokens` and ignores it
    /// (llama-cpp-python does) is sent the limit as `max_tokens` from now
    /// on, published and counted as a refusal of the name is. The answer
    /// itself stands: it was paid for, and what it says is read as usual.
    pub(super) fn heed_limit(&self, completion: &Completion) {
        let (Some(limit), Some(usage)) = (self.provider.limit_sent(), completion.usage) else {
            return;
        };
        if usage.output <= limit {
            return;
        }
        let took = if usage.estimated {
            format!("ran on to {} pieces before Conclave cut it", usage.output)
        } else {
            format!("took {} tokens", usage.output)
        };
        let said = format!(
            "the answer {took}, more than the {limit} tokens max_completion_tokens asked for: the endpoint ignores that name"
        );
        self.adapt_to(Feature::MaxCompletionTokens, &said);
    }

    /// Ask without `feature` from now on, as the endpoint's words `said`
    /// make the run: whether anything changed.
    fn adapt_to(&self, feature: Feature, said: &str) -> bool {
        let Some(adapted) = self.provider.adapt(feature, said) else {
            return false;
        };
        if adapted.first {
            self.meter.note_fallback();
            self.bus.publish(match adapted.what {
                Setting::Output => EventKind::OutputModeChanged {
                    from: adapted.from,
                    to: adapted.to,
                    said: adapted.said,
                },
                Setting::Temperature | Setting::TokenLimit => EventKind::RequestAdapted {
                    parameter: match adapted.what {
                        Setting::TokenLimit => "output_limit".to_string(),
                        _ => adapted.what.as_str().to_string(),
                    },
                    from: adapted.from,
                    to: adapted.to,
                    said: adapted.said,
                },
            });
        }
        true
    }
}
