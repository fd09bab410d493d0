//! A tool's traffic over the whole run, for the charts: calls, failures,
//! latencies and its breaker's state in buckets of equal run time. There
//! are never more than `BUCKETS`: when the run outgrows them, neighbours
//! merge and a bucket covers twice the time, so a run of hours costs what
//! a run of seconds does. Recording a call is O(1).

use super::latencies::Latencies;
use crate::bus::BreakerState;

/// The most buckets a history holds.
const BUCKETS: usize = 128;
/// How much run time a bucket covers until the run outgrows them.
const FIRST_BUCKET_MS: u64 = 500;

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct History {
    bucket_ms: u64,
    /// From the run's start, one per `bucket_ms`, up to the last call.
    buckets: Vec<Bucket>,
    /// The breaker's state before the first bucket (`None`: no breaker,
    /// or switched off).
    breaker: Option<BreakerState>,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Bucket {
    /// Attempts: those that reached the tool and those its breaker or
    /// bulkhead refused.
    calls: u32,
    /// Attempts that ended (a refusal ends at once).
    ended: u32,
    /// Of those, the failed: timed out, errored or refused.
    failed: u32,
    latencies: Latencies,
    /// The breaker's worst state in the bucket, and its state at its end.
    worst: Option<BreakerState>,
    last: Option<BreakerState>,
    /// The states the breaker moved to in the bucket, one bit each.
    moved: u8,
}

/// What one column of a chart shows: the buckets it covers, summed.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Period {
    /// Run time the column covers, in milliseconds.
    pub(crate) covered_ms: u64,
    pub(crate) calls: u32,
    pub(crate) ended: u32,
    pub(crate) failed: u32,
    pub(crate) latencies: Latencies,
    pub(crate) worst: Option<BreakerState>,
    pub(crate) moved: u8,
}

/// How bad a breaker state is: open worst.
pub(crate) fn severity(state: Option<BreakerState>) -> u8 {
    match state {
        None => 0,
        Some(BreakerState::Closed) => 1,
        Some(BreakerState::HalfOpen) => 2,
        Some(BreakerState::Open) => 3,
    }
}

/// The bit of `Period::moved` for a move to `state`.
pub(crate) fn moved_bit(state: BreakerState) -> u8 {
    1 << severity(Some(state))
}

fn worse(a: Option<BreakerState>, b: Option<BreakerState>) -> Option<BreakerState> {
    if severity(b) > severity(a) { b } else { a }
}

impl Period {
    /// Calls a second over the time covered.
    pub(crate) fn calls_per_second(&self) -> f64 {
        if self.covered_ms == 0 {
            0.0
        } else {
            f64::from(self.calls) * 1000.0 / self.covered_ms as f64
        }
    }

    /// The share of ended calls that failed; `None` without any.
    pub(crate) fn error_rate(&self) -> Option<f64> {
        (self.ended > 0).then(|| f64::from(self.failed) / f64::from(self.ended))
    }

    /// Add a bucket; `moves` marks its breaker's moves here (a bucket
    /// wider than a column marks them in its first column only).
    fn add(&mut self, bucket: &Bucket, covered_ms: u64, moves: bool) {
        self.covered_ms += covered_ms;
        self.calls += bucket.calls;
        self.ended += bucket.ended;
        self.failed += bucket.failed;
        self.latencies.merge(&bucket.latencies);
        self.worst = worse(self.worst, bucket.worst);
        if moves {
            self.moved |= bucket.moved;
        }
    }
}

impl History {
    pub(crate) fn new(breaker: Option<BreakerState>) -> Self {
        History {
            bucket_ms: FIRST_BUCKET_MS,
            buckets: Vec::new(),
            breaker,
        }
    }

    #[cfg(test)]
    fn bucket_ms(&self) -> u64 {
        self.bucket_ms
    }

    /// The bucket of run time `t_ms`, made (and older ones merged) as
    /// needed. Buckets between the last and this one carry the breaker's
    /// state over.
    fn at(&mut self, t_ms: u64) -> &mut Bucket {
        // Most events fall in the last bucket: no division for them.
        let made = self.buckets.len() as u64;
        let width = self.bucket_ms;
        if made > 0 && t_ms < made.saturating_mul(width) && t_ms >= (made - 1) * width {
            let last = self.buckets.len() - 1;
            return &mut self.buckets[last];
        }
        let mut index = t_ms / self.bucket_ms;
        while index >= BUCKETS as u64 {
            self.halve();
            index = t_ms / self.bucket_ms;
        }
        let index = index as usize;
        let state = self.buckets.last().map_or(self.breaker, |b| b.last);
        while self.buckets.len() <= index {
            self.buckets.push(Bucket {
                worst: state,
                last: state,
                ..Bucket::default()
            });
        }
        // A late event (earlier than the last bucket) lands where it fits.
        &mut self.buckets[index]
    }

    /// Merge neighbours: half as many buckets, each twice as long.
    fn halve(&mut self) {
        let merged = self
            .buckets
            .chunks(2)
            .map(|pair| {
                let mut bucket = pair[0].clone();
                if let Some(second) = pair.get(1) {
                    bucket.calls += second.calls;
                    bucket.ended += second.ended;
                    bucket.failed += second.failed;
                    bucket.latencies.merge(&second.latencies);
                    bucket.worst = worse(bucket.worst, second.worst);
                    bucket.last = second.last;
                    bucket.moved |= second.moved;
                }
                bucket
            })
            .collect();
        self.buckets = merged;
        self.bucket_ms *= 2;
    }

    /// An attempt reached the tool.
    pub(crate) fn started(&mut self, t_ms: u64) {
        self.at(t_ms).calls += 1;
    }

    /// An attempt ended after `latency_ms`.
    pub(crate) fn finished(&mut self, t_ms: u64, failed: bool, latency_ms: u64) {
        let bucket = self.at(t_ms);
        bucket.ended += 1;
        bucket.failed += u32::from(failed);
        bucket.latencies.add(latency_ms);
    }

    /// The tool's shield refused an attempt: a call that failed at once.
    pub(crate) fn refused(&mut self, t_ms: u64) {
        let bucket = self.at(t_ms);
        bucket.calls += 1;
        bucket.ended += 1;
        bucket.failed += 1;
    }

    /// The breaker moved to `state`.
    pub(crate) fn breaker(&mut self, t_ms: u64, state: BreakerState) {
        self.switch(t_ms, Some(state));
        self.at(t_ms).moved |= moved_bit(state);
    }

    /// The breaker is in `state` from `t_ms` on without having moved:
    /// switched off (`None`) or on again (closed) by a flag.
    pub(crate) fn switch(&mut self, t_ms: u64, state: Option<BreakerState>) {
        if self.buckets.is_empty() && t_ms < self.bucket_ms {
            self.breaker = state;
            return;
        }
        let bucket = self.at(t_ms);
        bucket.last = state;
        bucket.worst = worse(bucket.worst, state);
    }

    /// The run from its start to `span_ms` cut into `columns` equal
    /// columns, each summing the buckets that start in it (or, when the
    /// buckets are the wider, showing the one it lies in). Time after the
    /// last bucket counts as quiet, the breaker as it was.
    pub(crate) fn columns(&self, span_ms: u64, columns: usize) -> Vec<Period> {
        let span_ms = span_ms.max(1);
        let width = self.bucket_ms;
        let after = self.buckets.last().map_or(self.breaker, |b| b.last);
        // In u128: a recording's clock may be anything.
        let edge = |c: usize| (c as u128 * span_ms as u128 / columns as u128) as u64;
        (0..columns)
            .map(|c| {
                let from = edge(c);
                let to = edge(c + 1).max(from.saturating_add(1));
                let (first, end) = (from.div_ceil(width), to.div_ceil(width));
                let starts_here = first < end;
                let indexes = if starts_here {
                    first..end
                } else {
                    from / width..from / width + 1
                };
                let mut span = Period::default();
                for index in indexes {
                    let covered = (index + 1)
                        .saturating_mul(width)
                        .min(span_ms)
                        .saturating_sub(index.saturating_mul(width));
                    match self.buckets.get(index as usize) {
                        Some(bucket) => span.add(bucket, covered, starts_here),
                        None => {
                            span.covered_ms += covered;
                            span.worst = worse(span.worst, after);
                        }
                    }
                }
                span
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(spans: &[Period]) -> (u32, u32, u32) {
        spans.iter().fold((0, 0, 0), |(c, e, f), s| {
            (c + s.calls, e + s.ended, f + s.failed)
        })
    }

    #[test]
    fn columns_sum_the_buckets_and_rate_calls_over_their_time() {
        let mut history = History::new(None);
        // Ten calls in the first second, 100 ms each, the last two failed;
        // then one a second for three seconds.
        for i in 0..10 {
            history.started(i * 100);
            history.finished(i * 100 + 100, i >= 8, 100);
        }
        for s in 1..4 {
            history.started(s * 1000 + 500);
            history.finished(s * 1000 + 600, false, 2000);
        }
        let columns = history.columns(4000, 4);
        assert_eq!(totals(&columns), (13, 13, 2));
        assert_eq!(columns[0].calls_per_second(), 10.0);
        assert_eq!(columns[1].calls_per_second(), 1.0);
        assert_eq!(columns[0].error_rate(), Some(1.0 / 9.0));
        assert_eq!(columns[1].error_rate(), Some(0.5), "1 of 2");
        assert_eq!(columns[3].latencies.percentile(95), Some(2000));
        assert_eq!(columns[0].latencies.percentile(95), Some(100));

        // Columns narrower than the buckets show the bucket they lie in.
        let fine = history.columns(1000, 10);
        assert!(fine.iter().all(|c| c.covered_ms == FIRST_BUCKET_MS));
        assert_eq!(fine[0].calls, 5, "0 to 400 ms fall in the first bucket");
        assert_eq!(fine[3].calls_per_second(), 10.0, "300 ms: the same bucket");
        assert_eq!(fine[9].calls, 5, "the second bucket, 500 to 900 ms");
    }

    #[test]
    fn a_long_run_merges_buckets_and_keeps_every_call() {
        let mut history = History::new(Some(BreakerState::Closed));
        // Ten hours, one call a second, a tenth failing.
        let seconds = 10 * 3600;
        for s in 0..seconds {
            history.started(s * 1000);
            history.finished(s * 1000 + 300, s % 10 == 0, 300 + s % 7);
            assert!(history.buckets.len() <= BUCKETS);
        }
        assert!(history.bucket_ms() >= seconds * 1000 / BUCKETS as u64);
        let columns = history.columns(seconds * 1000, 50);
        assert_eq!(
            totals(&columns),
            (seconds as u32, seconds as u32, seconds as u32 / 10)
        );
        let rate: f64 = columns.iter().map(Period::calls_per_second).sum::<f64>() / 50.0;
        assert!((rate - 1.0).abs() < 0.02, "about a call a second: {rate}");
        let p95 = columns[25].latencies.percentile(95).unwrap();
        assert!((300..=306).contains(&p95), "{p95}");
    }

    #[test]
    fn any_clock_a_recording_holds_is_taken() {
        let mut history = History::new(Some(BreakerState::Closed));
        for t in [0, u64::MAX / 3, u64::MAX - 1, u64::MAX, 5] {
            history.started(t);
            history.finished(t, true, u64::MAX);
            history.breaker(t, BreakerState::Open);
        }
        assert!(history.buckets.len() <= BUCKETS);
        let columns = history.columns(u64::MAX, 7);
        assert_eq!(totals(&columns), (5, 5, 5));
        assert_eq!(history.columns(0, 3).len(), 3);
    }

    #[test]
    fn the_breaker_state_carries_over_quiet_time_and_merges_to_the_worst() {
        let mut history = History::new(Some(BreakerState::Closed));
        history.started(200);
        history.breaker(1000, BreakerState::Open);
        history.refused(1100);
        history.breaker(2900, BreakerState::HalfOpen);
        history.breaker(3010, BreakerState::Closed);
        let columns = history.columns(5000, 5);
        let worst: Vec<_> = columns.iter().map(|c| c.worst).collect();
        use BreakerState::*;
        assert_eq!(
            worst,
            vec![
                Some(Closed),
                Some(Open),
                Some(Open),
                Some(HalfOpen),
                Some(Closed)
            ],
            "open through the quiet second, closed after the run's last event"
        );
        assert_eq!(columns[1].moved, moved_bit(Open));
        assert_eq!(columns[2].moved, moved_bit(HalfOpen));
        assert_eq!(columns[3].moved, moved_bit(Closed));
        assert_eq!(
            columns[1].error_rate(),
            Some(1.0),
            "a refusal is a failed call"
        );
        // Narrow columns: the state spans the bucket, its move one column.
        let fine = history.columns(5000, 50);
        assert!(fine[10..15].iter().all(|c| c.worst == Some(Open)));
        let marked: Vec<usize> = (0..50).filter(|c| fine[*c].moved != 0).collect();
        assert_eq!(marked, vec![10, 25, 30], "open, half-open, closed");
        // Merged into one column, the run's worst shows.
        assert_eq!(history.columns(5000, 1)[0].worst, Some(Open));
        let unshielded = History::new(None);
        assert_eq!(unshielded.columns(1000, 2)[1].worst, None);
    }
}
