//! The screen, the headless line and the recording agree: every captured
//! framework's run, its requests taken by the watch in the order its
//! exporter sent them and shuffled, told as events to the dashboard's
//! state, says the same calls, tokens, cost and errors in its header and
//! its Result pane as the line the watch prints, and its recording,
//! replayed, says them again.

use super::state::WatchedRun;
use crate::bus::Event;
use crate::tui::state::RunState;
use crate::watch::consume::{Watch, WatchFeed, WatchOptions};
use crate::watch::fixture_tests::{decoded, requests};
use crate::watch::receive::Batch;
use crate::watch::summary::WatchSummary;
use crate::watch::translate::tests::sets;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// What a run's figures are, as one side shows them.
fn figures(
    calls: u64,
    input: u64,
    output: u64,
    cost: Option<f64>,
    unpriced: u64,
    errors: u64,
) -> Value {
    json!({
        "model_calls": calls, "input_tokens": input, "output_tokens": output,
        "cost_usd": cost.map(|c| format!("{c:.6}")), "unpriced_calls": unpriced, "errors": errors,
    })
}

/// The headless line's figures.
fn of_line(summary: &WatchSummary) -> Value {
    figures(
        summary.model_calls,
        summary.input_tokens,
        summary.output_tokens,
        summary.cost_usd,
        summary.unpriced_calls,
        summary.errors,
    )
}

/// The Result pane's figures: the watched run's own fold.
fn of_pane(state: &RunState) -> Value {
    let run: &WatchedRun = state.pattern.get().expect("a watched run's fold");
    let s = &run.spend;
    figures(
        s.model_calls,
        s.input,
        s.output,
        s.cost_usd,
        s.unpriced,
        run.failed,
    )
}

/// The header's words for the run's spend: tokens and dollars, or
/// `price unknown` when a call had no price.
fn of_header(state: &RunState) -> Value {
    let spend = &state.spend;
    json!({
        "tokens": spend.tokens(),
        "cost": match spend.cost() {
            Some(c) => format!("{c:.6}"),
            None if spend.tokens() > 0 => "price unknown".to_string(),
            None => "none".to_string(),
        },
    })
}

/// The header's words the line's figures make.
fn header_of_line(summary: &WatchSummary) -> Value {
    let tokens = summary.input_tokens + summary.output_tokens;
    json!({
        "tokens": tokens,
        "cost": match summary.cost_usd {
            Some(c) if summary.unpriced_calls == 0 => format!("{c:.6}"),
            _ if tokens > 0 => "price unknown".to_string(),
            _ => "none".to_string(),
        },
    })
}

/// `items` in an order fixed by `seed` (a small linear congruential
/// shuffle: the same order every run of the test).
fn shuffled<T>(mut items: Vec<T>, seed: u64) -> Vec<T> {
    let mut state = seed;
    for i in (1..items.len()).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        items.swap(i, (state >> 33) as usize % (i + 1));
    }
    items
}

/// Each run of `requests` as the watch ends it: its summary (the line)
/// and the events it told the dashboard.
fn watched(
    requests: Vec<ExportTraceServiceRequest>,
    dir: &std::path::Path,
) -> Vec<(WatchSummary, Vec<Arc<Event>>)> {
    let mut watch = Watch::new(WatchOptions {
        tell: true,
        record_dir: Some(dir.to_path_buf()),
        ..WatchOptions::default()
    });
    let mut feed = Vec::new();
    // One instant for every request: the runs' clocks are the same
    // whichever machine runs the test, so two watches of one set tell it
    // alike.
    let now = tokio::time::Instant::now();
    for request in requests {
        let batch = Batch {
            request,
            received: now,
            bytes: 0,
        };
        feed.extend(watch.take(&batch));
    }
    feed.extend(watch.stop(now));
    let mut events: HashMap<String, Vec<Arc<Event>>> = HashMap::new();
    let mut runs = Vec::new();
    for item in feed {
        match item {
            WatchFeed::Told { run, events: told } => events
                .entry(crate::span::trace_hex(run))
                .or_default()
                .extend(told.into_iter().map(Arc::new)),
            WatchFeed::Finished(summary) => runs.push(*summary),
            _ => {}
        }
    }
    runs.into_iter()
        .map(|s| {
            let told = events.remove(&s.trace_id).unwrap_or_default();
            (s, told)
        })
        .collect()
}

/// Where the three sides of one run disagree, if they do.
fn disagreement(set: &str, summary: &WatchSummary, told: &[Arc<Event>]) -> Option<String> {
    let live = RunState::from_events(0, told);
    let path = std::path::PathBuf::from(summary.recording.as_deref().expect("recorded"));
    let replayed = crate::watch::translate::recorded::events_of(&path).unwrap();
    let replay = RunState::from_events(1, &replayed);
    let rebuilt = crate::watch::replay::rebuild(&path).unwrap();
    let sides = json!({
        "line": of_line(summary),
        "pane": of_pane(&live),
        "recording": of_line(&rebuilt),
        "replayed pane": of_pane(&replay),
    });
    let headers = json!({
        "line": header_of_line(summary),
        "header": of_header(&live),
        "replayed header": of_header(&replay),
    });
    let line = &sides["line"];
    let header = &headers["line"];
    let agree = sides.as_object().unwrap().values().all(|v| v == line)
        && headers.as_object().unwrap().values().all(|v| v == header);
    (!agree).then(|| format!("{set} {}: {sides:#} {headers:#}", summary.trace_id))
}

#[test]
fn the_screen_the_line_and_the_recording_agree_on_every_captured_run() {
    let sets = sets();
    assert!(sets.len() >= 10, "{sets:?}");
    let mut wrong = Vec::new();
    for set in &sets {
        let live: Vec<ExportTraceServiceRequest> = requests(set).iter().map(decoded).collect();
        let dir = tempfile::tempdir().unwrap();
        let in_order = watched(live.clone(), dir.path());
        assert!(!in_order.is_empty(), "{set}");
        let by_trace: HashMap<String, Value> = in_order
            .iter()
            .map(|(s, _)| (s.trace_id.clone(), of_line(s)))
            .collect();
        for (summary, told) in &in_order {
            wrong.extend(disagreement(set, summary, told));
        }
        for seed in [7, 1_000_003] {
            let dir = tempfile::tempdir().unwrap();
            for (summary, told) in watched(shuffled(live.clone(), seed), dir.path()) {
                wrong.extend(disagreement(
                    &format!("{set} shuffled {seed}"),
                    &summary,
                    &told,
                ));
                // Shuffled, the line says what it says in live order.
                if by_trace.get(&summary.trace_id) != Some(&of_line(&summary)) {
                    wrong.push(format!(
                        "{set} shuffled {seed}: {} differs",
                        summary.trace_id
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[tokio::test(start_paused = true)]
async fn a_failed_tool_call_shows_on_its_tab_in_its_header_and_in_the_attention_line() {
    use crate::tui::watching_tests::{batch, take_all, watch, watching_app, whole_run};
    let mut app = watching_app(64, false);
    let mut watch = watch();
    // A run that went well, shown; then a captured run whose tool failed.
    take_all(&mut app, watch.take(&batch(whole_run(1))));
    let set = "openai_agents_openinference_tool_error";
    for request in requests(set).iter().map(decoded) {
        let told = watch.take(&Batch {
            request,
            received: tokio::time::Instant::now(),
            bytes: 0,
        });
        take_all(&mut app, told);
    }
    take_all(&mut app, watch.stop(tokio::time::Instant::now()));
    let slots: Vec<_> = app.runs.iter().collect();
    assert_eq!(slots.len(), 2);
    assert!(!slots[0].partial(), "the run that went well is a success");
    assert!(
        slots[1].partial(),
        "its tab reads partial (◐), not a green ✓"
    );
    let shortfall = slots[1]
        .unit
        .shortfall(&slots[1].state.pattern)
        .expect("the header says what failed");
    assert_eq!(shortfall.words, "1 span failed");
    let needs = crate::tui::panes::attention::needing(&app.runs);
    let words: Vec<&str> = needs.iter().map(|n| n.words.as_str()).collect();
    assert_eq!(words, ["run 2 finished partial: 1 span failed"]);
}

/// `request` as the same run would send it again: another trace id, an
/// hour later.
fn again(mut request: ExportTraceServiceRequest) -> ExportTraceServiceRequest {
    for resource in &mut request.resource_spans {
        for scope in &mut resource.scope_spans {
            for span in &mut scope.spans {
                if let Some(byte) = span.trace_id.first_mut() {
                    *byte ^= 0x80;
                }
                span.start_time_unix_nano += 3_600_000_000_000;
                span.end_time_unix_nano += 3_600_000_000_000;
            }
        }
    }
    request
}

#[test]
fn the_dashboards_comparison_finds_no_divergence_where_the_headless_one_finds_none() {
    for set in sets() {
        let live: Vec<ExportTraceServiceRequest> = requests(&set).iter().map(decoded).collect();
        let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let a = watched(live.clone(), dir_a.path());
        let b = watched(live.into_iter().map(again).collect(), dir_b.path());
        for ((a, _), (b, _)) in a.iter().zip(&b) {
            let (a, b) = (
                a.recording.as_deref().unwrap(),
                b.recording.as_deref().unwrap(),
            );
            let (a, b) = (std::path::Path::new(a), std::path::Path::new(b));
            let headless = crate::watch::replay::first_divergence(
                &crate::watch::replay::rebuild(a).unwrap(),
                &crate::watch::replay::rebuild(b).unwrap(),
            );
            assert_eq!(headless, None, "{set}");
            let (ea, eb) = (
                crate::watch::translate::recorded::events_of(a).unwrap(),
                crate::watch::translate::recorded::events_of(b).unwrap(),
            );
            let compared = crate::compare::compare(
                crate::compare::Side::new("a", &ea).unwrap(),
                crate::compare::Side::new("b", &eb).unwrap(),
                crate::patterns::compare_rules,
            );
            assert_eq!(compared.first_divergence, None, "{set}");
            // Named as watched runs are: no pattern of Conclave's, no seed.
            let written = crate::compare::markdown::comparison(&compared);
            assert!(written.contains("(watched)"), "{written}");
            assert!(
                !written.contains("(swarm)") && !written.contains("| seed"),
                "{written}"
            );
        }
    }
}
