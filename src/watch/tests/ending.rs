//! Runs that always end: a top span whose parent is remote finishes its
//! run; a run whose top never comes ends as incomplete after the idle
//! bound, to make room, and when the watch stops, each summed up, printed
//! and recorded; a new trace is never dropped to keep one that will not end.

use super::{Proto, batch, in_trace, proto};
use crate::watch::consume::{Watch, WatchFeed, WatchOptions, watch};
use crate::watch::runs::{Incomplete, Limits};
use crate::watch::start::line;
use crate::watch::summary::WatchSummary;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::{Instant, advance};

/// `span` sent as OTLP says a span whose parent is in another process is
/// (SpanFlags: `HAS_IS_REMOTE` and `IS_REMOTE`, beside the W3C sampled bit).
fn remote(mut span: Proto) -> Proto {
    span.flags = 0x100 | 0x200 | 0x01;
    span
}

fn agent(id: u64, parent: u64) -> Proto {
    proto(
        id,
        Some(parent),
        "invoke_agent helper",
        &[("gen_ai.operation.name", "invoke_agent")],
    )
}

fn recording(dir: &tempfile::TempDir) -> WatchOptions {
    WatchOptions {
        record_dir: Some(dir.path().to_path_buf()),
        ..WatchOptions::default()
    }
}

/// The runs `feed` finished, in order.
fn finished(feed: &[WatchFeed]) -> Vec<&WatchSummary> {
    feed.iter()
        .filter_map(|f| match f {
            WatchFeed::Finished(s) => Some(&**s),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_top_span_whose_parent_is_remote_finishes_its_run_and_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let mut watch = Watch::new(recording(&dir));
    // A service continuing its caller's trace: its top span's parent is
    // the caller's span, in another process, and never comes here.
    watch.take(&batch(vec![
        agent(2, 1),
        remote(proto(1, Some(99), "POST /chat", &[])),
    ]));
    advance(Duration::from_millis(crate::watch::runs::DEFAULT_SETTLE_MS)).await;
    let done = watch.settle(Instant::now());
    let [summary] = finished(&done)[..] else {
        panic!("the run settles like any other: {done:?}")
    };
    assert_eq!((summary.incomplete, summary.spans), (None, 2));
    assert_eq!(summary.agents, ["helper"]);
    let path = std::path::PathBuf::from(summary.recording.as_deref().unwrap());
    let back = crate::watch::record::read(&path).unwrap();
    let top = &back.spans[1].1;
    assert_eq!(
        (top.parent, top.remote_parent),
        (None, Some(99)),
        "kept as sent"
    );
    assert_eq!(back.incomplete(), None);
}

#[tokio::test(start_paused = true)]
async fn a_parent_known_to_be_local_is_waited_for() {
    let mut watch = Watch::new(WatchOptions::default());
    // Bit 8 alone: the parent's remoteness is known, and it is local.
    let mut child = proto(1, Some(99), "POST /chat", &[]);
    child.flags = 0x100;
    watch.take(&batch(vec![child]));
    advance(Duration::from_secs(60)).await;
    assert!(
        watch.settle(Instant::now()).is_empty(),
        "waits for its root"
    );
}

#[tokio::test(start_paused = true)]
async fn a_run_whose_root_never_comes_ends_incomplete_after_the_idle_bound() {
    let dir = tempfile::tempdir().unwrap();
    let mut watch = Watch::new(recording(&dir));
    let idle = Duration::from_secs(crate::watch::runs::DEFAULT_IDLE_SECS);
    watch.take(&batch(vec![agent(2, 1)]));
    advance(idle / 2).await;
    watch.take(&batch(vec![agent(3, 1)]));
    // Idle counts from the last span, not the first.
    advance(idle - Duration::from_millis(1)).await;
    assert!(watch.settle(Instant::now()).is_empty(), "not idle yet");
    assert_eq!(
        watch.runs.next_settle(),
        Some(Instant::now() + Duration::from_millis(1))
    );
    advance(Duration::from_millis(1)).await;
    let done = watch.settle(Instant::now());
    let [summary] = finished(&done)[..] else {
        panic!("{done:?}")
    };
    assert_eq!(summary.incomplete, Some(Incomplete::Idle));
    assert_eq!(summary.spans, 2);
    let printed: serde_json::Value = serde_json::from_str(&line(summary)).unwrap();
    assert_eq!(printed["incomplete"], "idle", "the headless line says so");
    let path = std::path::PathBuf::from(summary.recording.as_deref().unwrap());
    let back = crate::watch::record::read(&path).unwrap();
    assert_eq!(
        (back.spans.len(), back.incomplete()),
        (2, Some(Incomplete::Idle))
    );
    // Its root coming late is a late span: the run ended.
    watch.take(&batch(vec![proto(1, None, "root", &[])]));
    assert_eq!(watch.runs.late_spans, 1);
}

#[tokio::test(start_paused = true)]
async fn a_hundred_runs_that_never_end_do_not_keep_a_normal_run_out() {
    let mut watch = Watch::new(WatchOptions {
        close_finished: true,
        ..WatchOptions::default()
    });
    let mut ended = Vec::new();
    for trace in 1..=100u128 {
        let feed = watch.take(&in_trace(trace, vec![agent(2, 1)]));
        ended.extend(finished(&feed).into_iter().cloned());
        advance(Duration::from_millis(10)).await;
    }
    // Past the 64 runs held, each new trace made room: the oldest run
    // waiting for its root ended, incomplete, and was handed on.
    assert_eq!(ended.len(), 100 - crate::watch::runs::DEFAULT_MAX_RUNS);
    assert!(
        ended
            .iter()
            .all(|s| s.incomplete == Some(Incomplete::MadeRoom))
    );
    assert_eq!(ended[0].trace_id, format!("{:032x}", 1), "oldest first");
    let normal = in_trace(1000, vec![agent(2, 1), proto(1, None, "workflow", &[])]);
    watch.take(&normal);
    advance(Duration::from_millis(crate::watch::runs::DEFAULT_SETTLE_MS)).await;
    let done = watch.settle(Instant::now());
    let normal = finished(&done)
        .into_iter()
        .find(|s| s.trace_id == format!("{:032x}", 1000))
        .expect("the normal run is read and settles");
    assert_eq!((normal.incomplete, normal.spans), (None, 2));
    assert_eq!(normal.agents, ["helper"]);
    assert_eq!(watch.runs.dropped_spans, 0, "no span dropped");
}

#[tokio::test(start_paused = true)]
async fn the_watch_stopping_ends_every_run_still_going_and_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let (batches_in, batches) = mpsc::channel(8);
    let (feed_in, mut feed) = mpsc::channel(64);
    let task = tokio::spawn(watch(batches, recording(&dir), feed_in));
    // One run without its root, one whose root came but has not settled.
    batches_in
        .send(in_trace(1, vec![agent(2, 1)]))
        .await
        .unwrap();
    let whole = in_trace(2, vec![agent(2, 1), proto(1, None, "root", &[])]);
    batches_in.send(whole).await.unwrap();
    tokio::task::yield_now().await;
    let began = Instant::now();
    drop(batches_in);
    let mut ended = Vec::new();
    while let Some(item) = feed.recv().await {
        if let WatchFeed::Finished(summary) = item {
            ended.push(summary);
        }
    }
    task.await.unwrap();
    assert_eq!(Instant::now(), began, "at once, not after the settle time");
    let why: Vec<_> = ended.iter().map(|s| s.incomplete).collect();
    assert_eq!(why, [Some(Incomplete::WatchStopped), None]);
    for summary in &ended {
        let path = std::path::PathBuf::from(summary.recording.as_deref().unwrap());
        let back = crate::watch::record::read(&path).unwrap();
        assert_eq!(back.incomplete(), summary.incomplete);
    }
}

#[tokio::test(start_paused = true)]
async fn the_watch_loop_wakes_for_an_idle_run() {
    let (batches_in, batches) = mpsc::channel(8);
    let (feed_in, mut feed) = mpsc::channel(64);
    let options = WatchOptions {
        limits: Limits {
            idle: Duration::from_secs(30),
            ..Limits::default()
        },
        ..WatchOptions::default()
    };
    let task = tokio::spawn(watch(batches, options, feed_in));
    let began = Instant::now();
    batches_in
        .send(in_trace(1, vec![agent(2, 1)]))
        .await
        .unwrap();
    let summary = loop {
        match feed
            .recv()
            .await
            .expect("the run ends while the watch goes on")
        {
            WatchFeed::Finished(summary) => break summary,
            _ => continue,
        }
    };
    assert_eq!(summary.incomplete, Some(Incomplete::Idle));
    assert_eq!(Instant::now() - began, Duration::from_secs(30));
    drop(batches_in);
    task.await.unwrap();
}
