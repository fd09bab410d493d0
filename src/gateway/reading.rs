//! How the gateway treats a run's model calls and reads their answers,
//! decided once, when the gateway is built, from the provider the run
//! has: the one place that asks what kind of provider that is. An
//! endpoint's answers (live, or served from a recording of an endpoint's
//! run) are read leniently and repaired, its calls retried without a
//! resilience section and its text streamed; the sim's are read exactly
//! as the references read them. What may change during a run (an
//! endpoint's way of asking, adapted after a refusal) is asked of the
//! provider's output policy as the question comes.

use crate::bus::cassette::Feature;
use crate::provider::Provider;
use std::sync::Arc;
use std::time::Duration;

/// How an answer is read now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reading {
    /// Exactly, as the references read the sim's.
    Exact,
    /// As an endpoint's, where the gateway has already found the one JSON
    /// object in a fence or in prose and put it in the contract's form.
    /// `by_contract`: the endpoint is asked for the contract itself
    /// (`native`, `tool`), so a reply comes only through it.
    Endpoint { by_contract: bool },
}

/// The gateway's answers to every question about the kind of its
/// provider.
#[derive(Debug)]
pub(crate) struct ReadingPolicy {
    provider: Arc<Provider>,
    /// Calls go over the network, or were recorded from calls that did.
    remote: bool,
    /// How long one call may take before it counts as timed out, where
    /// the provider says (the sim's scripted timeouts).
    timeout: Option<Duration>,
    /// The words of a live endpoint's call that got no answer in time.
    timeout_words: Option<String>,
}

impl ReadingPolicy {
    /// The policy of `provider`'s run.
    pub(crate) fn of(provider: &Arc<Provider>) -> Self {
        ReadingPolicy {
            provider: Arc::clone(provider),
            remote: provider.is_remote(),
            timeout: provider.timeout(),
            timeout_words: provider.timeout_words(),
        }
    }

    /// How an answer is read now (the way of asking may have moved on
    /// during a call).
    pub(crate) fn now(&self) -> Reading {
        if self.remote {
            Reading::Endpoint {
                by_contract: self.replies_by_contract(),
            }
        } else {
            Reading::Exact
        }
    }

    /// Answers are read as an endpoint's (leniently, repaired), rather
    /// than exactly as the references read the sim's.
    pub(crate) fn reads_leniently(&self) -> bool {
        self.remote
    }

    /// Rate limits and server errors are worth a few retries even without
    /// a resilience section: the calls go over the network.
    pub(crate) fn retries_by_itself(&self) -> bool {
        self.remote
    }

    /// A model call's text may arrive before its answer: an endpoint's
    /// streams, and a cassette (`served`) plays its recorded deltas back.
    /// The sim's answer comes whole.
    pub(crate) fn streams(&self, served: bool) -> bool {
        served || self.remote
    }

    /// The endpoint is asked for each contract itself (`native` or `tool`
    /// output), so that an answer outside it is no answer.
    pub(crate) fn replies_by_contract(&self) -> bool {
        self.provider.replies_by_contract()
    }

    /// A refused `feature` is asked another way rather than failing.
    pub(crate) fn adapts(&self, feature: Feature) -> bool {
        self.provider.adapts(feature)
    }

    /// The token limit requests send, when the run set one: a live
    /// endpoint's, or the one a served run's endpoint was sent.
    pub(crate) fn limit_sent(&self) -> Option<u64> {
        self.provider.limit_sent()
    }

    /// How long one call may take, where the provider says.
    pub(crate) fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The words of a live endpoint's call that got no answer in time.
    pub(crate) fn timeout_words(&self) -> Option<&str> {
        self.timeout_words.as_deref()
    }
}
