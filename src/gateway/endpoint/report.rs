//! What the endpoint tells the run of each call: a call the upstream was
//! asked (its API, model, status, usage priced, time, and the budget it
//! took the run past), or a call refused because a budget is spent. A
//! launch counts and records these; they never hold a key or a body.

use super::spend::Over;
use super::{Api, Route};
use crate::bus::TokenUsage;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Reports waiting for the run; a call waits for room rather than be
/// lost from the run's count and recording.
pub(crate) const REPORTS_QUEUE: usize = 1024;

/// One call sent upstream for a run (or served from a cassette).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct EndpointCall {
    /// Its number in the run (1, 2, …, in the order the endpoint took
    /// them), by which a cassette serves it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) call: Option<u64>,
    /// The run named by the call's path.
    pub(crate) run: String,
    /// `chat.completions` or `responses`.
    pub(crate) api: String,
    /// The model the request asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) model: Option<String>,
    /// The model the answer names, when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) answered_by: Option<String>,
    /// The upstream's status; `None` when it could not be reached.
    pub(crate) status: Option<u16>,
    pub(crate) stream: bool,
    /// The usage the answer reported, priced; `None` when it reported none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) usage: Option<TokenUsage>,
    /// From the request's arrival to the answer's end.
    pub(crate) ms: u64,
    /// Why the call failed: the upstream unreachable, or its stream cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// The budget this call took the run past (`max_tokens`, `max_cost`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) over: Option<String>,
    /// The request's hash (`request_hash`), as the program sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) prompt_sha256: Option<String>,
    /// The answer as the program got it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) answer: Option<RecordedAnswer>,
    /// Why the answer was not kept (too long, not text, the run's answers
    /// past their bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) answer_not_kept: Option<String>,
    /// Served from a cassette, not asked of the upstream.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) from_cassette: bool,
    /// A fork's call, answered from the file it was given (its answer
    /// is the edited one, as served).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) edited: bool,
}

/// An answer as the client got it: a whole one's body, or a stream's
/// events in order, each with its blank line.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct RecordedAnswer {
    pub(crate) content_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) body: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) events: Vec<String>,
}

impl RecordedAnswer {
    /// How many bytes it holds.
    pub(crate) fn len(&self) -> usize {
        self.body.as_ref().map_or(0, String::len)
            + self.events.iter().map(String::len).sum::<usize>()
    }
}

impl EndpointCall {
    /// Whether the upstream answered it with a success.
    pub(crate) fn served(&self) -> bool {
        self.error.is_none() && self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

/// What the endpoint tells the run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Report {
    /// A call sent upstream, once its answer has ended.
    Call(Box<EndpointCall>),
    /// The run is past a budget: a call just took it past, or a call was
    /// refused (`refused`) because it already was.
    Over {
        run: String,
        budget: &'static str,
        message: String,
        refused: bool,
    },
    /// A call the cassette does not hold (`--cassette-miss stop`): the
    /// first difference, in words.
    Missed(String),
}

/// A call on its way: what its report will say once it ends.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    pub(crate) run: String,
    pub(crate) api: Api,
    pub(crate) model: Option<String>,
    pub(crate) stream: bool,
    pub(crate) started: Instant,
    /// Its number in the run.
    pub(crate) call: u64,
    pub(crate) prompt_sha256: Option<String>,
}

impl Pending {
    pub(crate) fn of(route: Route<'_>, prepared: &super::prepare::Prepared, call: u64) -> Self {
        Pending {
            run: route.run.to_string(),
            api: route.api,
            model: prepared.model.clone(),
            stream: prepared.stream,
            started: Instant::now(),
            call,
            prompt_sha256: prepared.prompt_sha256.clone(),
        }
    }

    /// The reports of the call, ended now: the call, and the budget it
    /// took the run past when it did.
    pub(crate) fn ended(self, answer: Answered) -> Vec<Report> {
        let ms = Instant::now().saturating_duration_since(self.started);
        let over = answer
            .over
            .as_ref()
            .map(|over| over_report(&self.run, over, false));
        let call = Report::Call(Box::new(EndpointCall {
            call: Some(self.call),
            run: self.run,
            api: self.api.name().to_string(),
            model: self.model,
            answered_by: answer.answered_by,
            status: answer.status,
            stream: self.stream,
            usage: answer.usage,
            ms: u64::try_from(ms.as_millis()).unwrap_or(u64::MAX),
            error: answer.error,
            over: answer.over.map(|o| o.budget.stop_name().to_string()),
            prompt_sha256: self.prompt_sha256,
            answer: answer.answer,
            answer_not_kept: answer.answer_not_kept,
            from_cassette: answer.from_cassette,
            edited: answer.edited,
        }));
        std::iter::once(call).chain(over).collect()
    }
}

/// How a call's answer ended.
#[derive(Debug, Default)]
pub(crate) struct Answered {
    pub(crate) status: Option<u16>,
    pub(crate) answered_by: Option<String>,
    pub(crate) usage: Option<TokenUsage>,
    pub(crate) error: Option<String>,
    pub(crate) over: Option<Over>,
    pub(crate) answer: Option<RecordedAnswer>,
    pub(crate) answer_not_kept: Option<String>,
    pub(crate) from_cassette: bool,
    pub(crate) edited: bool,
}

/// `run` is past `over`; `refused` when a call was refused for it.
pub(crate) fn over_report(run: &str, over: &Over, refused: bool) -> Report {
    Report::Over {
        run: run.to_string(),
        budget: over.budget.stop_name(),
        message: over.message(),
        refused,
    }
}

/// Where reports go: nowhere for `conclave watch` (for now), a launch's
/// queue for its run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reports(Option<mpsc::Sender<Report>>);

impl Reports {
    pub(crate) fn to(sender: mpsc::Sender<Report>) -> Self {
        Reports(Some(sender))
    }

    /// Whether anyone keeps the calls (and so their requests' hashes and
    /// answers).
    pub(crate) fn kept(&self) -> bool {
        self.0.is_some()
    }

    /// Hand `reports` on, waiting for room; a run that has ended loses
    /// them.
    pub(crate) async fn send(&self, reports: impl IntoIterator<Item = Report>) {
        if let Some(sender) = &self.0 {
            for report in reports {
                let _ = sender.send(report).await;
            }
        }
    }
}
