//! One call to the endpoint, start to end: the route's run admitted by its
//! budgets, the request sent upstream with the upstream's key and retried
//! as a remote model's calls are (`Retrier::remote`: a rate limit, a
//! server error or no connection, after a jittered wait), the answer
//! passed back as it came, whole or piece by piece (`answer`), and its
//! usage charged to the run when it ends. With a cassette, a call it
//! holds is answered from it instead, and one it does not is a miss.

use super::answer::{Ending, stream, whole};
use super::cassette::{Asked, EndpointCassette, Serve, answer_of, miss_answer};
use super::edited::EditedAnswer;
use super::forwarded::Forwarded;
use super::prepare::Prepared;
use super::report::{self, Answered, EndpointCall, Pending, Report, Reports};
use super::served::{Served, lock};
use super::{Api, EndpointConfig, Refused, Route, RunSpend, StreamMeter, prepare_hashed};
use crate::gateway::retry::{Failure, Next, Retrier};
use crate::rng::RunRng;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// The largest request body the endpoint takes: 16 MiB, far above any
/// prompt a model takes.
pub(crate) const MAX_REQUEST: usize = 16 * 1024 * 1024;
/// Runs the endpoint keeps spend for; a new run name past it is refused.
const MAX_RUNS: usize = 4096;

/// The endpoint of every run it serves.
#[derive(Debug)]
pub(crate) struct Endpoints {
    config: EndpointConfig,
    client: reqwest::Client,
    runs: Mutex<HashMap<String, Arc<Mutex<RunSpend>>>>,
    reports: Reports,
    cassette: Option<Arc<EndpointCassette>>,
}

impl Endpoints {
    /// The endpoint for `config`; an error says why no HTTP client could
    /// be made.
    pub(crate) fn new(config: EndpointConfig) -> Result<Self, String> {
        crate::provider::http::install_crypto();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| format!("no HTTP client for the upstream: {e}"))?;
        if let Some(key) = config.key() {
            // Masked in every answer a run keeps, should the upstream echo it.
            crate::secrets::register(&key.0);
        }
        Ok(Endpoints {
            config,
            client,
            runs: Mutex::default(),
            reports: Reports::default(),
            cassette: None,
        })
    }

    /// This endpoint, telling `sender` of every call it makes or refuses
    /// for a budget (a launch's run counts and records them).
    pub(crate) fn reporting(mut self, sender: mpsc::Sender<Report>) -> Self {
        self.reports = Reports::to(sender);
        self
    }

    /// This endpoint, serving the calls `cassette` holds from it.
    pub(crate) fn serving(mut self, cassette: Option<Arc<EndpointCassette>>) -> Self {
        self.cassette = cassette;
        self
    }

    /// Calls, tokens and cost of `run` so far, and the budget it went
    /// past. (Read by the tests for now: the run's end does not yet say
    /// them.)
    #[cfg(test)]
    pub(crate) fn spent(
        &self,
        run: &str,
    ) -> Option<(u64, crate::bus::TokenUsage, Option<super::Over>)> {
        let spend = lock(&self.runs).get(run).cloned()?;
        let spend = lock(&spend);
        let (calls, usage) = spend.spent();
        Some((calls, usage, spend.over().cloned()))
    }

    fn spend_of(&self, run: &str) -> Option<Arc<Mutex<RunSpend>>> {
        let mut runs = lock(&self.runs);
        if let Some(spend) = runs.get(run) {
            return Some(Arc::clone(spend));
        }
        if runs.len() >= MAX_RUNS {
            return None;
        }
        let spend = RunSpend::new(self.config.budgets, self.config.pricing.clone());
        let spend = Arc::new(Mutex::new(spend));
        runs.insert(run.to_string(), Arc::clone(&spend));
        Some(spend)
    }

    /// Answer one call to `route` with `body`, its `forwarded` headers
    /// going upstream with it.
    pub(crate) async fn call(
        &self,
        route: Route<'_>,
        body: &[u8],
        forwarded: &Forwarded,
    ) -> Served {
        if route.api == Api::Models {
            if let Some(cassette) = &self.cassette {
                return super::cassette::models_of(cassette);
            }
            return match self.send(Api::Models, None, forwarded).await {
                Ok(answer) => whole(answer, Api::Models, false).await.0,
                Err(refused) => Served::refusal(&refused),
            };
        }
        let keep = self.reports.kept() || self.cassette.is_some();
        let prepared = match prepare_hashed(route.api, body, keep) {
            Ok(prepared) => prepared,
            Err(refused) => return Served::refusal(&refused),
        };
        let Some(spend) = self.spend_of(route.run) else {
            let message = format!(
                "the endpoint serves at most {MAX_RUNS} runs; {:?} is one more",
                route.run
            );
            return Served::refusal(&Refused::new(429, message));
        };
        let admitted = lock(&spend).admit();
        let number = match admitted {
            Ok(number) => number,
            Err(over) => {
                self.reports
                    .send([report::over_report(route.run, &over, true)])
                    .await;
                return Served::over(&over);
            }
        };
        let pending = Pending::of(route, &prepared, number);
        if let Some(cassette) = &self.cassette {
            let asked = Asked {
                number,
                api: route.api,
                model: prepared.model.as_deref(),
                stream: prepared.stream,
                prompt_sha256: prepared.prompt_sha256.as_deref().unwrap_or_default(),
            };
            match cassette.serve(&asked) {
                Serve::Served(call) => return self.served(call, &spend, pending).await,
                Serve::Edited(edited) => {
                    return self.edited(edited, &spend, pending, &prepared).await;
                }
                Serve::Miss { words, first } => {
                    if first {
                        self.reports.send([Report::Missed(words.clone())]).await;
                    }
                    return miss_answer(&words);
                }
                Serve::Live => {}
            }
        }
        let answer = match self.send(route.api, Some(prepared.body), forwarded).await {
            Ok(answer) => answer,
            Err(refused) => {
                let error = Some(refused.message.clone());
                let answered = Answered {
                    error,
                    ..Answered::default()
                };
                self.reports.send(pending.ended(answered)).await;
                return Served::refusal(&refused);
            }
        };
        let asked = prepared.model;
        let streamed = answer.status().is_success()
            && answer
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("text/event-stream"));
        if !streamed {
            let (served, mut answered) = whole(answer, route.api, self.reports.kept()).await;
            if let Some(usage) = answered.usage {
                let model = answered.answered_by.as_deref();
                let (priced, over) = lock(&spend).charge(usage, model, asked.as_deref());
                answered.usage = Some(priced);
                answered.over = over;
            }
            self.reports.send(pending.ended(answered)).await;
            return served;
        }
        let meter = StreamMeter::new(route.api, prepared.strip_usage);
        let ending = Ending {
            spend,
            asked,
            pending,
            reports: self.reports.clone(),
        };
        stream(answer, meter, ending)
    }

    /// Answer a call with the recorded `call`, its recorded usage (priced
    /// as it was) charged to the run.
    async fn served(
        &self,
        call: &EndpointCall,
        spend: &Mutex<RunSpend>,
        pending: Pending,
    ) -> Served {
        let over = call
            .usage
            .and_then(|usage| lock(spend).charge_recorded(usage));
        let answered = Answered {
            status: call.status,
            answered_by: call.answered_by.clone(),
            usage: call.usage,
            error: call.error.clone(),
            over,
            answer: call.answer.clone(),
            answer_not_kept: None,
            from_cassette: true,
            edited: false,
        };
        self.reports.send(pending.ended(answered)).await;
        answer_of(call)
    }

    /// Answer a fork's call with its edited answer, as the call asks for
    /// it (a stream when it streams), the tokens the answer says charged.
    async fn edited(
        &self,
        edited: &EditedAnswer,
        spend: &Mutex<RunSpend>,
        pending: Pending,
        prepared: &Prepared,
    ) -> Served {
        let with_usage = prepared.stream && !prepared.strip_usage;
        let (served, answer) = edited.served(prepared.stream, with_usage);
        let mut answered = Answered {
            status: Some(200),
            answered_by: edited.model(),
            answer: Some(answer),
            edited: true,
            ..Answered::default()
        };
        if let Some(usage) = edited.usage() {
            let model = answered.answered_by.as_deref();
            let (priced, over) = lock(spend).charge(usage, model, prepared.model.as_deref());
            answered.usage = Some(priced);
            answered.over = over;
        }
        self.reports.send(pending.ended(answered)).await;
        served
    }

    /// Send a call upstream, tried again as a remote model's call is: the
    /// upstream's answer (a refusal among them once the tries are spent),
    /// or a 502 saying why none came.
    async fn send(
        &self,
        api: Api,
        body: Option<Vec<u8>>,
        forwarded: &Forwarded,
    ) -> Result<reqwest::Response, Refused> {
        let url = format!(
            "{}{}",
            self.config.upstream.trim_end_matches('/'),
            api.upstream_path()
        );
        let mut retrier = Retrier::remote();
        let rng = RunRng::seeded(0);
        let mut attempt = 1;
        loop {
            let mut request = match &body {
                Some(body) => self
                    .client
                    .post(&url)
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(body.clone()),
                None => self.client.get(&url),
            };
            request = forwarded.onto(request);
            if let Some(key) = self.config.key() {
                request = request.header(reqwest::header::AUTHORIZATION, key.bearer());
            }
            let failure = match request.send().await {
                Ok(answer) if !retryable(answer.status().as_u16()) => return Ok(answer),
                Ok(answer) => {
                    let retry_after = crate::provider::http::retry_after(
                        answer.headers(),
                        std::time::SystemTime::now(),
                    );
                    let failure = Failure::Unavailable { retry_after };
                    match retrier.next(attempt, failure, None, &rng) {
                        Next::Retry(delay) => delay,
                        _ => return Ok(answer),
                    }
                }
                Err(error) => {
                    let failure = Failure::Unavailable { retry_after: None };
                    match retrier.next(attempt, failure, None, &rng) {
                        Next::Retry(delay) => delay,
                        _ => {
                            let message = format!(
                                "Conclave could not reach the upstream model endpoint ({}): {}",
                                self.config.upstream,
                                crate::provider::openai::transport_cause(&error)
                            );
                            return Err(Refused::new(502, message));
                        }
                    }
                }
            };
            tokio::time::sleep(failure).await;
            attempt += 1;
        }
    }
}

/// A rate limit or a server error: worth another try.
fn retryable(status: u16) -> bool {
    status == 429 || (500..600).contains(&status)
}
