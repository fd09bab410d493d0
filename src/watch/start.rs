//! Starting a watch: the receiver bound, the loop running, and what it
//! finds handed to a viewer. [`start`] is the dashboard's entry point
//! (it reads the [`WatchFeed`]); [`headless`] prints one JSON line per
//! finished run (`conclave watch --headless`).

use super::consume::{WatchFeed, WatchOptions, watch};
use super::receive::{ReceiveConfig, Receiving, serve, serve_steered};
use super::summary::WatchSummary;
use crate::exit::Exit;
use std::borrow::Cow;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Batches waiting for the watch; a full queue makes the receiver answer
/// 429 / `RESOURCE_EXHAUSTED`.
pub const QUEUE: usize = 64;

/// What the watch has told a viewer and the viewer has not yet read. A
/// viewer that falls behind holds the watch, whose batch queue then
/// fills and the receiver answers 429: memory stays bounded, and nothing
/// is dropped unseen.
pub const FEED: usize = 1024;

/// Everything `conclave watch`'s flags say.
#[derive(Clone, Debug, Default)]
pub struct WatchSettings {
    pub receive: ReceiveConfig,
    pub options: WatchOptions,
}

/// A started watch: the receiver (its addresses and counters), what the
/// watch finds, and the loop's task (it ends after `--runs N` runs, or
/// when the feed's reader goes away).
#[derive(Debug)]
pub struct Started {
    pub receiving: Receiving,
    pub feed: mpsc::Receiver<WatchFeed>,
    pub task: tokio::task::JoinHandle<()>,
}

/// Bind the receiver and start the watch on the current runtime.
pub async fn start(settings: WatchSettings) -> Result<Started, super::receive::ReceiveError> {
    let (sink, batches) = mpsc::channel(QUEUE);
    let receiving = match &settings.options.steering {
        Some(steering) => serve_steered(settings.receive, sink, Arc::clone(steering)).await?,
        None => serve(settings.receive, sink).await?,
    };
    let (tx, feed) = mpsc::channel(FEED);
    let options = settings.options;
    let task = tokio::spawn(async move {
        watch(batches, options, tx).await;
    });
    Ok(Started {
        receiving,
        feed,
        task,
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
                Some(signal) = signal => {
                    started.receiving.shutdown().await;
                    dropped.flush();
                    return Exit::Signalled(signal);
                }
            }
        }
        started.receiving.shutdown().await;
        dropped.flush();
        Exit::Ok
    })
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
        | WatchFeed::Arrived { .. }
        | WatchFeed::Dropped(_)
        | WatchFeed::Late(_) => {}
    }
}

/// The summary as `--headless`'s JSON line: every text cleaned as a
/// pane shows it (no escape sequence, control or bidi character).
pub fn line(summary: &WatchSummary) -> String {
    let mut value = serde_json::to_value(summary).unwrap_or(serde_json::Value::Null);
    clean_json(&mut value);
    value.to_string()
}

fn clean_json(value: &mut serde_json::Value) {
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
