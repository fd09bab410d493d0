//! A run's context whose model is an endpoint on loopback, for a
//! pattern's tests that read an endpoint's answers: the gateway reads them
//! leniently and asks again (`output_retries` 1) as it does a real
//! model's. Each call is answered with what `answer` writes for the
//! request's body; the tools are the scenario's sim workers.

use crate::bus::{Bus, Hub};
use crate::clock::RunClock;
use crate::control::{Flags, channel};
use crate::gateway::Gateway;
use crate::patterns::RunContext;
use crate::provider::openai::config::{ApiKey, AskingSettings, Origin};
use crate::provider::prompts::Prompts;
use crate::provider::{OpenAiProvider, Provider, RealTools, SimWorkers, Workers};
use crate::rng::RunRng;
use crate::scenario::Scenario;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// Writes a chat completion whose content is what the answer function
/// gives for the request's body.
struct Answering<F>(F);

impl<F: Fn(&str) -> String + Send + Sync + 'static> Respond for Answering<F> {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let content = (self.0)(&String::from_utf8_lossy(&request.body));
        ResponseTemplate::new(200).set_body_json(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        }))
    }
}

/// The context of a run of `scenario` against an endpoint whose answers
/// `answer` writes, and the server (kept for the run's length).
pub(crate) async fn endpoint_run(
    scenario: Scenario,
    answer: impl Fn(&str) -> String + Send + Sync + 'static,
) -> (RunContext, MockServer) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(Answering(answer))
        .mount(&server)
        .await;
    let config = crate::provider::openai::OpenAiConfig {
        base_url: format!("{}/v1", server.uri()),
        model: "test-model".into(),
        timeout: Duration::from_secs(30),
        timeout_origin: Origin::Default,
        key: Some(ApiKey::new("sk-test-endpoint".into())),
        max_body_bytes: crate::provider::http::DEFAULT_MAX_BODY_BYTES,
        stream: false,
        asking: AskingSettings::default(),
    };
    let provider = OpenAiProvider::new(config, Prompts::default()).expect("the provider");
    let scenario = Arc::new(scenario);
    let bus = Bus::new(1, RunClock::start(), Hub::new(4096), None);
    let rng = RunRng::seeded(0);
    let real = RealTools::for_scenario(&scenario, &|_| None).expect("real tools set up");
    let sim = SimWorkers::new(scenario.workers.clone(), rng.clone());
    let workers = Arc::new(Workers::new(sim, real));
    let flags = Flags::new(Arc::clone(&scenario), &[]).expect("the flags");
    let (_controller, gate) = channel(flags, bus.clone(), false);
    let gateway = Gateway::new(
        bus.clone(),
        Arc::new(Provider::OpenAi(provider)),
        workers,
        gate.cancel_token(),
    )
    .with_resilience(scenario.resilience.clone(), gate.switches(), rng)
    .with_output_retries(1);
    let ctx = RunContext {
        scenario,
        goal: "g".into(),
        bus,
        gate,
        gateway: Arc::new(gateway),
        seed: 0,
    };
    (ctx, server)
}
