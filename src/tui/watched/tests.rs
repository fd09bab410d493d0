//! The watch's screen: the span tree (placeholders, a parent running while
//! its children ended, the critical path), a watched run's tab, and the
//! live must-show: one run's spans sent in batches over time on a paused
//! clock through the watch's own loop, drawn before its root arrives and
//! marked finished after the settle time.

use super::screen;
use super::state::Watched;
use super::ui::{WatchUi, act};
use crate::tui::keymap::Action;
use crate::tui::patterns::watched::tree_tests::{run_spans, text};
use crate::watch::consume::{WatchOptions, watch};
use crate::watch::forest::Forest;
use crate::watch::receive::Batch;
use crate::watch::runs::Limits;
use crate::watch::span::{Span, Value};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Status, span};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::time::Duration;
use tokio::sync::mpsc;

fn watched_with(spans: Vec<Span>, finished: bool) -> Watched {
    use crate::watch::consume::WatchFeed;
    use crate::watch::runs::Arrival;
    let mut watched = Watched::new(Limits::default(), None);
    watched.take(WatchFeed::Opened(7));
    let arrivals = spans
        .into_iter()
        .enumerate()
        .map(|(i, span)| Arrival {
            at_ms: i as u64 * 10,
            kind: crate::watch::read::read(&span).kind(),
            under_placeholder: false,
            span,
        })
        .collect();
    watched.take(WatchFeed::Arrived {
        run: 7,
        spans: arrivals,
    });
    if finished {
        let run = &watched.runs[0];
        let summary = crate::watch::summary::summarise(7, &run.forest, None);
        watched.take(WatchFeed::Finished(Box::new(summary)));
    }
    watched
}

/// The screen as the loop draws it: the run on screen read when due.
pub(super) fn screen_drawn(watched: &mut Watched, size: (u16, u16)) -> String {
    watched.read_selected(tokio::time::Instant::now());
    let mut terminal = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
    terminal
        .draw(|f| screen::draw(f, watched, &WatchUi::default()))
        .unwrap();
    text(terminal.backend().buffer())
}

#[test]
fn a_watched_runs_tab_shows_agents_handoffs_tools_spend_and_attention() {
    let mut watched = watched_with(run_spans(), true);
    let drawn = screen_drawn(&mut watched, (110, 30));
    let spend = &watched.runs[0].reading.spend;
    assert_eq!(spend.len(), 2);
    assert_eq!(
        (spend[1].agent.as_str(), spend[1].input_tokens),
        ("billing", 200)
    );
    assert!(drawn.contains("1 ✓ finished support workflow"), "{drawn}");
    assert!(drawn.contains("triage → billing"), "{drawn}");
    assert!(drawn.contains("$0.5 (from span)"), "{drawn}");
    assert!(drawn.contains("needs attention"), "{drawn}");
    assert!(!drawn.contains('\u{1b}'));
    insta::assert_snapshot!("watched_run_tab", drawn);
}

#[test]
fn tabs_are_numbered_once_and_keys_move_between_them() {
    use crate::watch::consume::WatchFeed;
    let mut watched = Watched::new(
        Limits {
            max_runs: 2,
            ..Limits::default()
        },
        None,
    );
    watched.take(WatchFeed::Opened(1));
    watched.take(WatchFeed::Opened(2));
    let mut summary = crate::watch::summary::summarise(1, &Forest::new(1), None);
    summary.trace_id = crate::watch::span::trace_hex(1);
    watched.take(WatchFeed::Finished(Box::new(summary)));
    // A third run closes the finished first: its number is not given again.
    watched.take(WatchFeed::Opened(3));
    let tabs: Vec<u32> = watched.runs.iter().map(|r| r.tab).collect();
    assert_eq!(tabs, vec![2, 3]);
    let mut ui = WatchUi::default();
    assert!(!act(&mut watched, &mut ui, Action::NextRun));
    assert_eq!(watched.selected().map(|r| r.tab), Some(3));
    assert!(act(&mut watched, &mut ui, Action::Quit));
}

fn kv(key: &str, value: any_value::Value) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue { value: Some(value) }),
        ..Default::default()
    }
}

/// `spans` as one OTLP export request, as a framework's exporter sends it.
fn request(spans: &[Span]) -> ExportTraceServiceRequest {
    let proto = spans
        .iter()
        .map(|sp| opentelemetry_proto::tonic::trace::v1::Span {
            trace_id: sp.trace_id.to_be_bytes().to_vec(),
            span_id: sp.span_id.to_be_bytes().to_vec(),
            parent_span_id: sp
                .parent
                .map(|p| p.to_be_bytes().to_vec())
                .unwrap_or_default(),
            name: sp.name.clone(),
            kind: span::SpanKind::Internal as i32,
            start_time_unix_nano: sp.start_ns,
            end_time_unix_nano: sp.end_ns,
            attributes: sp
                .attrs
                .iter()
                .map(|(k, v)| match v {
                    Value::Int(n) => kv(k, any_value::Value::IntValue(*n)),
                    Value::Float(x) => kv(k, any_value::Value::DoubleValue(*x)),
                    other => kv(k, any_value::Value::StringValue(other.text())),
                })
                .collect(),
            status: sp.error.as_ref().map(|m| Status {
                code: 2,
                message: m.clone(),
            }),
            ..Default::default()
        })
        .collect();
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![kv(
                    "service.name",
                    any_value::Value::StringValue("support-bot".into()),
                )],
                ..Default::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: "opentelemetry.instrumentation.openai_agents".into(),
                    ..Default::default()
                }),
                spans: proto,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
}

/// Take everything the watch has said so far.
async fn drain(feed: &mut mpsc::Receiver<crate::watch::consume::WatchFeed>, watched: &mut Watched) {
    // Let the watch's task run on the paused clock.
    tokio::time::sleep(Duration::from_millis(1)).await;
    while let Ok(item) = feed.try_recv() {
        watched.take(item);
    }
}

#[tokio::test(start_paused = true)]
async fn live_a_run_is_drawn_before_its_root_and_finished_after_settling() {
    let settle = Duration::from_millis(2000);
    let options = WatchOptions {
        limits: Limits {
            settle,
            ..Limits::default()
        },
        ..WatchOptions::default()
    };
    let (batches, receiver) = mpsc::channel(8);
    let (feed_tx, mut feed) = mpsc::channel(crate::watch::start::FEED);
    let loop_task = tokio::spawn(watch(receiver, options, feed_tx));
    let mut watched = Watched::new(Limits::default(), None);
    let spans = run_spans();
    // Children first, the root in the last request, as real exporters send.
    let sends: [&[Span]; 3] = [&spans[0..3], &spans[3..6], &spans[6..7]];
    let mut seen = Vec::new();
    for batch in sends {
        let bytes = batch.len();
        batches
            .send(Batch {
                request: request(batch),
                received: tokio::time::Instant::now(),
                bytes,
            })
            .await
            .unwrap();
        drain(&mut feed, &mut watched).await;
        seen.push(screen_drawn(&mut watched, (110, 30)));
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    // Before the root: the run has its tab, live, with the placeholder.
    assert!(seen[0].contains("1 ● live support-bot"), "{}", seen[0]);
    assert!(
        seen[0].contains("0000000000000001 not arrived yet"),
        "{}",
        seen[0]
    );
    assert!(seen[0].contains("running ≥"), "{}", seen[0]);
    assert!(seen[1].contains("· live ·") && seen[1].contains("not arrived yet"));
    // The root came: still live until nothing came for the settle time.
    assert!(seen[2].contains("1 ● live support workflow"), "{}", seen[2]);
    assert!(!seen[2].contains("not arrived yet"), "{}", seen[2]);
    tokio::time::sleep(Duration::from_millis(1000)).await;
    drain(&mut feed, &mut watched).await;
    assert!(
        !watched.runs[0].finished,
        "1.5 s after the root it still runs"
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    drain(&mut feed, &mut watched).await;
    let last = screen_drawn(&mut watched, (110, 30));
    assert!(last.contains("1 ✓ finished support workflow"), "{last}");
    insta::assert_snapshot!("live_before_root", seen[0].clone());
    drop(batches);
    loop_task.await.unwrap();
}
