//! What became of the exporter's spans, kept for one warning: the SDK
//! reports a failed export or a dropped span only to its own logs, and
//! Conclave says it once, after the run, where the user looks (never in
//! the middle of the dashboard).

use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SpanData, SpanExporter};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The most notes kept for the end.
const MOST_ASIDES: usize = 8;

/// The spans made and sent, and the first failure until taken.
#[derive(Debug, Default)]
pub(crate) struct Delivery {
    first: Mutex<Option<String>>,
    /// What the spans lack but did not stop them (a fork without its
    /// parent's link), each said once.
    asides: Mutex<Vec<String>>,
    failed: AtomicBool,
    made: AtomicU64,
    sent: AtomicU64,
}

impl Delivery {
    fn note(&self, problem: String) {
        self.failed.store(true, Ordering::Relaxed);
        let mut first = self
            .first
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if first.is_none() {
            *first = Some(crate::secrets::scrub(&problem).into_owned());
        }
    }

    /// Something the spans lack, to say at the end; the same words once,
    /// and a few at most (every fork of a sweep may lack the same link).
    pub(crate) fn aside(&self, note: String) {
        let mut asides = self
            .asides
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let note = crate::secrets::scrub(&note).into_owned();
        if asides.len() < MOST_ASIDES && !asides.contains(&note) {
            asides.push(note);
        }
    }

    /// What [`Delivery::aside`] was given, once.
    pub(crate) fn take_asides(&self) -> Vec<String> {
        std::mem::take(
            &mut self
                .asides
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }

    /// One more span handed to the processor.
    pub(crate) fn made_one(&self) {
        self.made.fetch_add(1, Ordering::Relaxed);
    }

    /// A flush ran out of time: from then on nothing waits for the
    /// collector, as after a failure.
    pub(crate) fn stall(&self) {
        self.failed.store(true, Ordering::Relaxed);
    }

    /// Whether an export has failed or a flush ran out of time: from then
    /// on nothing waits for the collector.
    pub(crate) fn has_failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// Spans made, and spans the collector took.
    pub(crate) fn counts(&self) -> (u64, u64) {
        (
            self.made.load(Ordering::Relaxed),
            self.sent.load(Ordering::Relaxed),
        )
    }

    /// The first failure, once.
    pub(crate) fn take(&self) -> Option<String> {
        self.first
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

/// An exporter whose results are counted in a [`Delivery`].
#[derive(Debug)]
pub(crate) struct Watched<E> {
    inner: E,
    delivery: Arc<Delivery>,
}

impl<E> Watched<E> {
    pub(crate) fn new(inner: E, delivery: Arc<Delivery>) -> Self {
        Watched { inner, delivery }
    }
}

impl<E: SpanExporter> SpanExporter for Watched<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let spans = batch.len() as u64;
        let result = self.inner.export(batch).await;
        match &result {
            Ok(()) => {
                self.delivery.sent.fetch_add(spans, Ordering::Relaxed);
            }
            Err(e) => self.delivery.note(e.to_string()),
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
