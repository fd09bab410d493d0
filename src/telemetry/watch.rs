//! The exporter's failures, kept for one warning: the SDK reports a
//! failed export only to its own logs, and Conclave says it once, after
//! the run, where the user looks (never in the middle of the dashboard).

use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SpanData, SpanExporter};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The first failure of an exporter, until taken.
#[derive(Debug, Default)]
pub(crate) struct Failure {
    first: Mutex<Option<String>>,
}

impl Failure {
    fn note(&self, problem: String) {
        let mut first = self
            .first
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if first.is_none() {
            *first = Some(crate::secrets::scrub(&problem).into_owned());
        }
    }

    /// The first failure, once.
    pub(crate) fn take(&self) -> Option<String> {
        self.first
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

/// An exporter whose failures are noted in a [`Failure`].
#[derive(Debug)]
pub(crate) struct Watched<E> {
    inner: E,
    failure: Arc<Failure>,
}

impl<E> Watched<E> {
    pub(crate) fn new(inner: E, failure: Arc<Failure>) -> Self {
        Watched { inner, failure }
    }
}

impl<E: SpanExporter> SpanExporter for Watched<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let result = self.inner.export(batch).await;
        if let Err(e) = &result {
            self.failure.note(e.to_string());
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.inner.set_resource(resource);
    }
}
