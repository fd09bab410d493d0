//! A run's trace and span ids, derived from its start rather than drawn at
//! random: the run's number, its wall-clock start, seed, goal, source,
//! scenario and flags. So the trace of a recorded run can be named from its
//! recording alone, and a fork's root span links to its parent's trace
//! and root span (`run_started.forked_from`). A recording exported again
//! goes out as the same trace, with the same span ids.

use super::span::SpanNo;
use super::trace::ROOT;
use crate::bus::RunStarted;
use crate::bus::cassette::ForkedFrom;
use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceId, TraceState};
use sha2::{Digest, Sha256};
use std::path::Path;

/// The trace id of run `run`, which started as `started`.
pub(super) fn trace_id(run: u32, started: &RunStarted) -> TraceId {
    let mut digest = Sha256::new();
    let flags: Vec<(&str, bool)> = started
        .flags
        .iter()
        .map(|flag| (flag.name.as_str(), flag.on))
        .collect();
    let identity = serde_json::json!([
        "conclave trace",
        run,
        started.started_at_ms,
        started.seed,
        started.pattern,
        started.goal,
        started.source,
        started.scenario.name,
        flags,
    ]);
    digest.update(identity.to_string().as_bytes());
    let bytes: [u8; 32] = digest.finalize().into();
    let mut id = [0; 16];
    id.copy_from_slice(&bytes[..16]);
    match TraceId::from_bytes(id) {
        TraceId::INVALID => TraceId::from_bytes([1; 16]),
        id => id,
    }
}

/// The id of span `no` of the trace `trace`.
pub(super) fn span_id(trace: TraceId, no: SpanNo) -> SpanId {
    let mut digest = Sha256::new();
    digest.update(trace.to_bytes());
    digest.update(no.to_le_bytes());
    let bytes: [u8; 32] = digest.finalize().into();
    let mut id = [0; 8];
    id.copy_from_slice(&bytes[..8]);
    match SpanId::from_bytes(id) {
        SpanId::INVALID => SpanId::from_bytes([1; 8]),
        id => id,
    }
}

/// The root span of the parent a fork names, for the fork's root to link
/// to; why there is none when its recording is not where the fork was
/// given it, is no recording, or does not hold that run's start.
///
/// The parent's trace id can only be computed from the parent's own start
/// (its wall-clock start above all), which the fork's events do not
/// carry: so the parent's recording, named in `forked_from`, is read here,
/// within a bound, as far as that run's start. A recording that is gone or
/// unreadable leaves the fork's trace without the link, and is no error.
pub(super) fn parent_root(from: &ForkedFrom) -> Result<SpanContext, String> {
    let started = crate::record::run_start(Path::new(&from.file), from.run)?;
    let trace = trace_id(from.run, &started);
    Ok(SpanContext::new(
        trace,
        span_id(trace, ROOT),
        TraceFlags::SAMPLED,
        true,
        TraceState::default(),
    ))
}
