//! Where a call's answer comes from: the run's cassette when it holds the
//! call, else the live model or tool. A served call still plays the
//! sim's script (see `Provider::play_script`); a call the cassette does
//! not hold stops the run: it is cancelled, and the cassette keeps why.

use super::served::{self, Noted, Playback};
use super::{Gateway, ToolCall};
use crate::bus::cassette::{Answer, CallRecord};
use crate::cassette::{Cassette, Serve};
use crate::provider::contract::Finish;
use crate::provider::{Completion, ModelRequest, ProviderError, TextSink, WorkerError};
use serde_json::Value;
use std::time::Duration;

impl Gateway {
    /// How the cassette answers a call: `Live` without one.
    pub(super) fn serve(&self, ask: impl FnOnce(&Cassette) -> Serve) -> Serve {
        self.cassette.as_deref().map_or(Serve::Live, ask)
    }

    /// Whether a model call's text may arrive before its answer: an
    /// endpoint's streams, and a cassette plays its recorded deltas back.
    /// The sim's answer comes whole, so its call sets up no relay for its
    /// text (the scale bench's `coordinator_100k`, 100,000 of them).
    pub(super) fn streams(&self) -> bool {
        self.reading.streams(self.cassette.is_some())
    }

    /// Played-back calls wait out their recorded times on the virtual
    /// clock only.
    pub(super) fn playback(&self) -> Playback {
        Playback::new(self.bus.clock().clone())
    }

    /// A live call to `tool` would start a program nobody allowed: asked
    /// before it starts, the run stops and keeps which program and where.
    fn refuse_program(&self, tool: &str) {
        let mut refused = self
            .refused
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if refused.is_none() {
            *refused = self.workers.refusal(tool).map(str::to_string);
        }
        self.cancel.cancel();
    }

    /// A model call's answer: the cassette's, else the provider's. A
    /// call the cassette does not hold stops the run (it is cancelled,
    /// and the cassette keeps why).
    pub(super) async fn complete(
        &self,
        request: &ModelRequest,
        asked: &CallRecord,
        text: Option<TextSink>,
        noted: &Noted,
    ) -> Result<Completion, ProviderError> {
        let purpose = asked.purpose.as_deref().unwrap_or_default();
        let hash = asked.prompt_sha256.as_deref().unwrap_or_default();
        match self.serve(|cassette| cassette.serve_model(purpose, hash)) {
            Serve::Live => {
                let result = self
                    .provider
                    .complete(request, text, self.bus.clock())
                    .await;
                let answer = match &result {
                    Ok(completion)
                        if matches!(completion.finish, Finish::Stop)
                            && self.provider.is_whole_plan(&completion.output) =>
                    {
                        Some(Answer::ScriptedPlan)
                    }
                    _ => served::model_answer(&result),
                };
                noted.note(answer, false);
                result
            }
            Serve::Served(recorded) => {
                self.provider.play_script(request, self.bus.clock());
                noted.note(recorded.record.answer.clone(), true);
                noted.served_latency(recorded.latency);
                noted.served_span(recorded.record.span_ms);
                // A cassette's call streams: `text` is given (see
                // `Gateway::streams`).
                let text = text.unwrap_or_else(|| tokio::sync::mpsc::unbounded_channel().0);
                served::completion(*recorded, text, self.playback()).await
            }
            Serve::Miss => {
                self.cancel.cancel();
                std::future::pending().await
            }
        }
    }

    /// A worker or tool call's answer: the cassette's, else the
    /// worker's; `None` for a served call that never answered. A call the
    /// cassette does not hold stops the run (see `complete`).
    pub(super) async fn tool_answer(
        &self,
        call: ToolCall<'_>,
        started: Duration,
        noted: &Noted,
    ) -> Option<Result<Value, WorkerError>> {
        match self.serve(|cassette| cassette.serve_tool(call.tool, call.args)) {
            Serve::Live if self.workers.refusal(call.tool).is_some() => {
                self.refuse_program(call.tool);
                std::future::pending().await
            }
            Serve::Live => {
                let result = self
                    .workers
                    .call(call.tool, call.args, started, self.bus.clock())
                    .await;
                noted.note(Some(served::tool_answer(&result)), false);
                Some(result)
            }
            Serve::Served(recorded) => {
                self.workers
                    .play_script(call.tool, call.args, started, self.bus.clock());
                noted.note(recorded.record.answer.clone(), true);
                noted.served_latency(recorded.latency);
                served::observation(*recorded, self.playback()).await
            }
            Serve::Miss => {
                self.cancel.cancel();
                std::future::pending().await
            }
        }
    }
}
