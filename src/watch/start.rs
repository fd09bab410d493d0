//! Starting a watch: the receiver bound, the loop running, and what it
//! finds handed to a viewer. [`start`] is the dashboard's entry point
//! (it reads the [`WatchFeed`]); [`headless`] prints one JSON line per
//! finished run (`conclave watch --headless`).

use super::consume::{WatchFeed, WatchOptions, watch};
use super::receive::{
    ReceiveConfig, ReceiverStatus, Receiving, serve, serve_steered, serve_with_gateway,
};
use super::summary::WatchSummary;
use crate::exit::Exit;
pub use crate::gateway::endpoint::{Budgets, EndpointConfig};
use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;

/// Batches waiting for the watch; a full queue makes the receiver answer
/// 429 / `RESOURCE_EXHAUSTED`.
pub(crate) const QUEUE: usize = 64;

/// What the watch has told a viewer and the viewer has not yet read. A
/// viewer that falls behind holds the watch, whose batch queue then
/// fills and the receiver answers 429: memory stays bounded, and nothing
/// is dropped unseen.
pub(crate) const FEED: usize = 1024;

/// How long a stopping watch waits for its loop to end the runs still
/// going and record them.
const STOPPING: Duration = Duration::from_secs(5);

/// Everything `conclave watch`'s flags say.
#[derive(Clone, Debug, Default)]
pub struct WatchSettings {
    pub receive: ReceiveConfig,
    pub options: WatchOptions,
    /// `--upstream` and its budgets: the model endpoint other frameworks'
    /// programs call (docs/gateway.md), served on the HTTP listener.
    pub gateway: Option<EndpointConfig>,
}

/// A started watch: the receiver (its addresses and counters), what the
/// watch finds, and the loop's task (it ends after `--runs N` runs, or
/// when the feed's reader goes away).
#[derive(Debug)]
pub struct Started {
    pub receiving: Receiving,
    pub feed: mpsc::Receiver<WatchFeed>,
    pub task: tokio::task::JoinHandle<()>,
    /// Spans that came for a run already finished (not kept): written
    /// when the loop ends, so known once `task` has.
    pub late: Arc<AtomicU64>,
}

/// Bind the receiver and start the watch on the current runtime.
pub async fn start(settings: WatchSettings) -> Result<Started, super::receive::ReceiveError> {
    let (sink, batches) = mpsc::channel(QUEUE);
    let steering = settings.options.steering.as_ref().map(Arc::clone);
    let receiving = match (settings.gateway, steering) {
        (Some(config), steering) => {
            let upstream = config.upstream.clone();
            let endpoints = crate::gateway::endpoint::Endpoints::new(config)
                .map_err(|why| super::receive::ReceiveError::BadUpstream { url: upstream, why })?;
            serve_with_gateway(settings.receive, sink, steering, Arc::new(endpoints)).await?
        }
        (None, Some(steering)) => serve_steered(settings.receive, sink, steering).await?,
        (None, None) => serve(settings.receive, sink).await?,
    };
    let (tx, feed) = mpsc::channel(FEED);
    let options = settings.options;
    let late = Arc::new(AtomicU64::new(0));
    let told = Arc::clone(&late);
    let task = tokio::spawn(async move {
        let state = watch(batches, options, tx).await;
        told.store(state.runs.late_spans, Ordering::Relaxed);
    });
    Ok(Started {
        receiving,
        feed,
        task,
        late,
    })
}

/// `conclave watch --headless`: one JSON line per finished run on
/// stdout, problems on stderr, until `--runs N` runs have finished or a
/// signal comes.
pub fn headless(settings: WatchSettings) -> Exit {
    let runtime = match crate::runtime::start(&mut tokio::runtime::Builder::new_multi_thread()) {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    let steered = settings.options.steering.is_some();
    runtime.block_on(async move {
        let mut started = match start(settings).await {
            Ok(started) => started,
            Err(e) => {
                crate::output::message(&format!("conclave watch: {e}"));
                return Exit::BadInput;
            }
        };
        let grpc = started
            .receiving
            .grpc_addr()
            .map_or_else(|| "off".to_string(), |a| a.to_string());
        crate::output::message(&format!(
            "conclave watch: listening for OTLP on http://{addr}/v1/traces and gRPC {grpc}{steer}",
            addr = started.receiving.http_addr(),
            steer = if steered {
                format!(
                    "; steering on http://{}/v1/steer/",
                    started.receiving.http_addr()
                )
            } else {
                String::new()
            }
        ));
        let mut signals = crate::signals::Signals::new().ok();
        let mut dropped = Dropped::default();
        // Nothing is said until something is counted.
        let mut counts = Counts {
            said: started.receiving.status(),
        };
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let signal = async {
                match signals.as_mut() {
                    Some(s) => s.next().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                item = started.feed.recv() => match item {
                    Some(WatchFeed::Dropped(total)) => dropped.saw(total),
                    Some(item) => print(&item),
                    None => break,
                },
                _ = tick.tick() => {
                    if let Some(said) = counts.saw(started.receiving.status()) {
                        crate::output::message(&said);
                    }
                }
                Some(signal) = signal => {
                    dropped.flush();
                    stop(started, counts).await;
                    return Exit::Signalled(signal);
                }
            }
        }
        dropped.flush();
        stop(started, counts).await;
        Exit::Ok
    })
}

/// Stop the receiver, let the watch's loop end (every run still going
/// ends then, whole or incomplete, and is printed and recorded), and say
/// the counts in all.
async fn stop(mut started: Started, counts: Counts) {
    let status = started.receiving.status();
    started.receiving.shutdown().await;
    // With the receiver stopped the batches end and the loop with them:
    // what it tells until then is printed, and its late count is known
    // once it has ended.
    let told = async {
        while let Some(item) = started.feed.recv().await {
            if !matches!(item, WatchFeed::Dropped(_)) {
                print(&item);
            }
        }
    };
    let _ = tokio::time::timeout(STOPPING, told).await;
    let ended = tokio::time::timeout(STOPPING, &mut started.task)
        .await
        .is_ok();
    let late = ended.then(|| started.late.load(Ordering::Relaxed));
    crate::output::message(&counts.total(&status, late));
}

/// The receiver's counts on stderr (`--headless`): when they changed since
/// they were last said, asked at most once a second, and in all at the end.
#[derive(Default)]
struct Counts {
    said: ReceiverStatus,
}

impl Counts {
    /// The line to say for `now`, if anything changed since the last.
    fn saw(&mut self, now: ReceiverStatus) -> Option<String> {
        if now == self.said {
            return None;
        }
        let line = format!("conclave watch: {}", receiver_words(&now));
        self.said = now;
        Some(line)
    }

    /// The counts in all, and the late spans when the loop's end told them.
    fn total(&self, status: &ReceiverStatus, late: Option<u64>) -> String {
        let late = match late {
            Some(n) => format!("; {n} late spans (came after their run had finished; not kept)"),
            None => String::new(),
        };
        format!("conclave watch: in all: {}{late}", receiver_words(status))
    }
}

/// The receiver's counts in words: requests and spans taken, answers by
/// status, and each forward target's sent, dropped and failed, with why
/// its last failed one failed.
pub(crate) fn receiver_words(status: &ReceiverStatus) -> String {
    let c = &status.counts;
    let mut words = format!(
        "{} requests accepted, {} spans ({} rejected for invalid ids, {} refused for a full queue)",
        c.requests_accepted, c.spans_accepted, c.spans_rejected, c.spans_refused
    );
    let answers: Vec<String> = c
        .answers()
        .iter()
        .map(|(status, n)| format!("{status} ×{n}"))
        .collect();
    if !answers.is_empty() {
        words.push_str(&format!("; answers {}", answers.join(", ")));
    }
    for f in &status.forwards {
        words.push_str(&format!(
            "; forward to {}: {} sent, {} dropped (queue full), {} failed",
            f.target, f.sent, f.dropped, f.failed
        ));
        if let Some(why) = &f.last_failure {
            words.push_str(&format!(" (last: {why})"));
        }
    }
    words
}

/// The dropped count on stderr: at once the first time, then at most
/// once a second while it grows, and the total at the end.
#[derive(Default)]
struct Dropped {
    total: u64,
    said: u64,
    said_at: Option<tokio::time::Instant>,
}

impl Dropped {
    fn saw(&mut self, total: u64) {
        self.total = total;
        let now = tokio::time::Instant::now();
        if self
            .said_at
            .is_none_or(|at| now.duration_since(at) >= std::time::Duration::from_secs(1))
        {
            self.flush();
            self.said_at = Some(now);
        }
    }

    fn flush(&mut self) {
        if self.total > self.said {
            crate::output::message(&format!(
                "conclave watch: {} spans dropped so far: every run held was live and waiting \
                 for its root, so no new trace could be held",
                self.total
            ));
            self.said = self.total;
        }
    }
}

fn print(item: &WatchFeed) {
    match item {
        WatchFeed::Finished(summary) => crate::output::line(&line(summary)),
        WatchFeed::Problem(problem) => {
            crate::output::message(&format!("conclave watch: {problem}"))
        }
        WatchFeed::Opened(_)
        | WatchFeed::Told { .. }
        | WatchFeed::Dropped(_)
        | WatchFeed::Late(_) => {}
    }
}

/// The summary as `--headless`'s JSON line: every text cleaned as a
/// pane shows it (no escape sequence, control or bidi character).
pub(crate) fn line(summary: &WatchSummary) -> String {
    let mut value = serde_json::to_value(summary).unwrap_or(serde_json::Value::Null);
    clean_json(&mut value);
    value.to_string()
}

pub(crate) fn clean_json(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) => {
            if let Cow::Owned(clean) = crate::sanitize::clean(text) {
                *text = clean;
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(clean_json),
        serde_json::Value::Object(map) => map.values_mut().for_each(clean_json),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watch::receive::ForwardCounts;

    #[test]
    fn the_counts_are_said_when_they_change_and_in_all_at_the_end() {
        let mut counts = Counts::default();
        assert_eq!(counts.saw(ReceiverStatus::default()), None, "nothing yet");
        let mut now = ReceiverStatus::default();
        now.counts.requests_accepted = 2;
        now.counts.spans_accepted = 9;
        now.forwards.push(ForwardCounts {
            target: "http://127.0.0.1:9".into(),
            failed: 2,
            last_failure: Some("Connection refused (os error 111)".into()),
            ..ForwardCounts::default()
        });
        let said = counts.saw(now.clone()).unwrap();
        assert_eq!(
            said,
            "conclave watch: 2 requests accepted, 9 spans (0 rejected for invalid ids, \
             0 refused for a full queue); answers 200 ×2; forward to http://127.0.0.1:9: \
             0 sent, 0 dropped (queue full), 2 failed (last: Connection refused (os error 111))"
        );
        assert_eq!(counts.saw(now.clone()), None, "said once until they change");
        let total = counts.total(&now, Some(3));
        assert!(
            total.starts_with("conclave watch: in all: 2 requests"),
            "{total}"
        );
        assert!(total.ends_with("; 3 late spans (came after their run had finished; not kept)"));
        assert!(!counts.total(&now, None).contains("late"));
    }
}
