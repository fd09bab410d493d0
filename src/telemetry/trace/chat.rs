//! Model calls as `chat <model>` spans: opened at a call's first attempt,
//! or at its refusal, under whatever asked for it (a retry joins the call
//! waiting for it); closed by the answer, with its usage and text.

use super::calls::{Attempt, Call, Ended, What};
use super::{TraceBuilder, error_type, wire};
use crate::bus::{CallOutcome, RunStarted};
use crate::gateway::MODEL_TOOL;
use crate::stop::StopReason;
use crate::telemetry::names as n;
use crate::telemetry::span::SpanNo;

/// Who answered the calls a fork serves, and which model, when its
/// `forked_from` says it was not the fork's own.
pub(super) fn served_by(started: &RunStarted) -> Option<(String, String)> {
    let model = started.forked_from.as_ref()?.model.as_ref()?;
    Some((
        super::provider_name(model.provider).to_string(),
        model.name.clone(),
    ))
}

impl TraceBuilder {
    /// Attempt `attempt` of a model call starts: a retry of the call
    /// waiting for it, or a call of its own.
    pub(super) fn start_model_call(
        &mut self,
        call: u64,
        attempt: u32,
        label: &str,
        agent: Option<&str>,
        t: u64,
    ) {
        let same = |w: &What| matches!(w, What::Model { label: l } if l == label);
        let started = Attempt {
            n: attempt,
            call: Some(call),
            start: t,
            ..Attempt::default()
        };
        if attempt > 1
            && let Some(open) = self.calls.retried(same, attempt)
        {
            open.waiting = false;
            open.attempts.push(started);
            return;
        }
        let parent = self.model_parent(agent, label, t);
        let span = self.chat_span(parent, label, t);
        self.calls.open.push(Call {
            span,
            what: What::Model {
                label: label.to_string(),
            },
            attempts: vec![started],
            waiting: false,
        });
    }

    /// The model call whose span is `span` answered with `text`: its
    /// usage, the model that answered and the text on its span, which ends.
    pub(super) fn model_answered(&mut self, span: SpanNo, ended: Ended, text: &str, t: u64) {
        let (provider, model) = if ended.served {
            self.served_chat(span)
        } else {
            (self.provider.clone(), self.model.clone())
        };
        if let Some(usage) = ended.usage {
            // A served answer's tokens are named apart, so that no backend
            // prices them again: they cost nothing now.
            let [input, output, cached, reasoning] = if ended.served {
                [
                    n::SERVED_INPUT_TOKENS,
                    n::SERVED_OUTPUT_TOKENS,
                    n::SERVED_CACHE_READ_INPUT_TOKENS,
                    n::SERVED_REASONING_OUTPUT_TOKENS,
                ]
            } else {
                [
                    n::USAGE_INPUT_TOKENS,
                    n::USAGE_OUTPUT_TOKENS,
                    n::USAGE_CACHE_READ_INPUT_TOKENS,
                    n::USAGE_REASONING_OUTPUT_TOKENS,
                ]
            };
            let attrs = &mut self.span(span).attrs;
            attrs.set(input, usage.input);
            attrs.set(output, usage.output);
            // Parts of the two counts, where the endpoint said them.
            if usage.cached > 0 {
                attrs.set(cached, usage.cached);
            }
            if usage.reasoning > 0 {
                attrs.set(reasoning, usage.reasoning);
            }
            // What the call cost the run, as the run priced it (its
            // scenario's and `--pricing`'s prices), so that a viewer
            // shows the run's own figure rather than pricing it again.
            if !ended.served
                && let Some(cost) = usage.cost_usd
            {
                attrs.set(n::COST_USD, cost);
            }
        }
        // Only the simulated model is known to answer as the
        // model asked for; an endpoint's own name for the model
        // that answered is not in the events.
        if provider.as_deref() == Some(super::SIM_PROVIDER)
            && let Some(model) = model
        {
            self.span(span).attrs.set(n::RESPONSE_MODEL, model);
        }
        if self.content && !text.is_empty() {
            self.content_event(span, t, n::OUTPUT_MESSAGES, "assistant", text);
        }
        self.close_call(span, t);
    }

    /// The span of a call served from the recording: marked as served at
    /// no cost, and named for the model that answered it when it was
    /// recorded (a fork's parent's, when not the fork's own). That
    /// provider and model.
    pub(super) fn served_chat(&mut self, span: SpanNo) -> (Option<String>, Option<String>) {
        let (provider, model) = match self.served_by.clone() {
            Some((provider, model)) => (Some(provider), Some(model)),
            None => (self.provider.clone(), self.model.clone()),
        };
        let name = model.clone().unwrap_or_else(|| MODEL_TOOL.to_string());
        let open = self.span(span);
        open.name = format!("{} {name}", n::OP_CHAT);
        if let (Some(provider), Some(model)) = (&provider, &model) {
            open.attrs.set(n::PROVIDER_NAME, provider.as_str());
            open.attrs.set(n::REQUEST_MODEL, model.as_str());
        }
        open.attrs.set(n::SERVED, true);
        open.attrs.set(n::COST_USD, 0.0);
        (provider, model)
    }

    /// A `chat <model>` span under `parent`.
    fn chat_span(&mut self, parent: SpanNo, label: &str, t: u64) -> SpanNo {
        let model = self.model.clone().unwrap_or_else(|| MODEL_TOOL.to_string());
        let span = self.open_span(Some(parent), format!("{} {model}", n::OP_CHAT), t);
        let provider = self.provider.clone();
        let attrs = &mut self.span(span).attrs;
        attrs.set(n::OPERATION_NAME, n::OP_CHAT);
        if let Some(provider) = provider {
            attrs.set(n::PROVIDER_NAME, provider);
            attrs.set(n::REQUEST_MODEL, model);
        }
        attrs.set(n::LABEL, label);
        span
    }

    /// The gateway refused attempt `attempt` of a model call before it
    /// reached the model: a retry of a waiting call, or a call of its own
    /// that never started.
    pub(super) fn model_refused(&mut self, attempt: u32, reason: &StopReason, t: u64) {
        let refused = Attempt {
            n: attempt,
            start: t,
            end: Some(t),
            outcome: Some(wire(&CallOutcome::Refused)),
            error: Some(error_type(reason)),
            ..Attempt::default()
        };
        if attempt > 1
            && let Some(open) = self
                .calls
                .retried(|w| matches!(w, What::Model { .. }), attempt)
        {
            open.attempts.push(refused);
            return;
        }
        let parent = self.model_parent(None, "", t);
        let span = self.chat_span(parent, "", t);
        self.calls.open.push(Call {
            span,
            what: What::Model {
                label: String::new(),
            },
            attempts: vec![refused],
            waiting: true,
        });
    }
}
