//! The gateway: the one place that decides whether and how a call happens.
//! Every model call and every worker call of every pattern passes here; it
//! applies the timeouts, the retries and the run's call budgets, interrupts
//! a call when the run is cancelled and publishes one `call_started` and one
//! `call_finished` per call that reaches its tool. Pattern runners never
//! time or retry calls themselves.

mod tool;

pub use tool::{DispatchLimits, MIN_ATTEMPT_TIMEOUT, ToolCall, ToolPolicy, ToolReport};

use crate::bus::{Bus, CallOutcome, EventKind};
use crate::provider::{ModelOutput, ModelRequest, Provider, ProviderError, SimWorkers};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The tool name model calls carry in events.
pub const MODEL_TOOL: &str = "model";

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    #[error("the call timed out")]
    Timeout,
    #[error("the run was cancelled")]
    Cancelled,
    #[error("{0}")]
    Failed(String),
}

#[derive(Debug)]
pub struct Gateway {
    bus: Bus,
    provider: Arc<Provider>,
    workers: Arc<SimWorkers>,
    cancel: CancellationToken,
    next_call: AtomicU64,
}

impl Gateway {
    pub fn new(
        bus: Bus,
        provider: Arc<Provider>,
        workers: Arc<SimWorkers>,
        cancel: CancellationToken,
    ) -> Self {
        Gateway {
            bus,
            provider,
            workers,
            cancel,
            next_call: AtomicU64::new(1),
        }
    }

    fn next_call_id(&self) -> u64 {
        self.next_call.fetch_add(1, Ordering::Relaxed)
    }

    /// Call the model. `label` says what for, in the event log.
    pub async fn model(
        &self,
        label: String,
        request: ModelRequest,
    ) -> Result<ModelOutput, CallError> {
        // Without a deadline nothing cuts the call off.
        self.model_by(label, request, None)
            .await
            .unwrap_or(Err(CallError::Timeout))
    }

    /// Call the model for an agent that must be done by `deadline` on the
    /// run clock; `None` when the call was cut off at the deadline (an
    /// answer that arrives exactly at it is in time).
    pub async fn model_by(
        &self,
        label: String,
        request: ModelRequest,
        deadline: Option<Duration>,
    ) -> Option<Result<ModelOutput, CallError>> {
        let call = self.next_call_id();
        let attempt = 1;
        self.bus.publish(EventKind::CallStarted {
            call,
            tool: MODEL_TOOL.to_string(),
            attempt,
            label,
        });
        let started = self.bus.clock().elapsed();
        let answer = async {
            match self.provider.timeout() {
                Some(limit) => tokio::time::timeout(limit, self.provider.complete(&request))
                    .await
                    .unwrap_or(Err(ProviderError::Timeout)),
                None => self.provider.complete(&request).await,
            }
        };
        let cut = async {
            match deadline {
                Some(at) => self.bus.clock().sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        let result = tokio::select! {
            biased;
            () = self.cancel.cancelled() => Some(Err(CallError::Cancelled)),
            answer = answer => Some(answer.map_err(|e| match e {
                ProviderError::Timeout => CallError::Timeout,
                ProviderError::Failed(message) => CallError::Failed(message),
            })),
            () = cut => None,
        };
        let outcome = match &result {
            Some(Ok(_)) => CallOutcome::Ok,
            Some(Err(CallError::Timeout)) | None => CallOutcome::Timeout,
            Some(Err(CallError::Cancelled)) => CallOutcome::Cancelled,
            Some(Err(CallError::Failed(_))) => CallOutcome::Error,
        };
        let latency = self.bus.clock().elapsed().saturating_sub(started);
        self.bus.publish(EventKind::CallFinished {
            call,
            tool: MODEL_TOOL.to_string(),
            attempt,
            latency_ms: u64::try_from(latency.as_millis()).unwrap_or(u64::MAX),
            outcome,
        });
        result
    }
}
