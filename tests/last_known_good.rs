//! The last-known-good fallback (`safe_mode.fallback: "last_known_good"`):
//! a call that fails fast is served its tool's last good answer to the same
//! arguments, from this run or from the `--cache DIR` a healthy run filled,
//! marked stale in the result and the events.

use crate::common;

use common::cli::{conclave, result};
use serde_json::Value;
use std::path::Path;

/// `vendor_outage` falling back to last known good answers, with or
/// without its enrichment outage, written into `dir`.
fn vendor_outage(dir: &Path, outage: bool) -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/vendor_outage.json"),
    )
    .unwrap();
    let mut scenario: Value = serde_json::from_str(&text).unwrap();
    scenario["resilience"]["safe_mode"]["fallback"] = "last_known_good".into();
    if !outage {
        scenario["workers"]["enrichment_worker"]["outage_ms"] = Value::Array(vec![]);
    }
    let name = if outage {
        "outage.json"
    } else {
        "healthy.json"
    };
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(&scenario).unwrap()).unwrap();
    path.display().to_string()
}

/// The enrichment tasks of a result's history, by their fate.
fn enrichment(result: &Value) -> (Vec<&Value>, Vec<&Value>, Vec<&Value>) {
    let tasks: Vec<&Value> = result["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["worker"] == "enrichment_worker")
        .collect();
    let stale = tasks
        .iter()
        .copied()
        .filter(|t| t["stale"] == true)
        .collect();
    let failed = tasks
        .iter()
        .copied()
        .filter(|t| t["status"] == "failed")
        .collect();
    (tasks, stale, failed)
}

#[test]
fn a_cache_a_healthy_run_filled_serves_stale_answers_during_the_outage() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    let cache = cache.display().to_string();

    let healthy = conclave(&[
        "run",
        &vendor_outage(dir.path(), false),
        "--headless",
        "--cache",
        &cache,
    ]);
    assert_eq!(
        healthy.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&healthy.stderr)
    );
    let healthy = result(&healthy);
    let (tasks, stale, failed) = enrichment(&healthy);
    assert_eq!(
        (tasks.len(), stale.len(), failed.len()),
        (20, 0, 0),
        "healthy"
    );
    let kept: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("cache/vendor_outage.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        kept["answers"]["enrichment_worker"]
            .as_object()
            .unwrap()
            .len(),
        20
    );

    // Without the cache, the outage fails tasks as it always did.
    let alone = result(&conclave(&[
        "run",
        &vendor_outage(dir.path(), true),
        "--headless",
    ]));
    let (_, stale_alone, failed_alone) = enrichment(&alone);
    assert!(
        stale_alone.is_empty(),
        "no earlier good answer to the same arguments"
    );
    assert!(
        !failed_alone.is_empty(),
        "the outage fails enrichment tasks"
    );
    let shipped = result(&conclave(&[
        "run",
        "scenarios/vendor_outage.json",
        "--headless",
    ]));
    assert_eq!(
        alone, shipped,
        "a fallback with nothing to serve changes nothing"
    );

    // With it, the calls the open breaker rejects get last known good answers.
    let output = conclave(&[
        "run",
        &vendor_outage(dir.path(), true),
        "--headless",
        "--cache",
        &cache,
    ]);
    let served = result(&output);
    let (_, stale, failed) = enrichment(&served);
    assert!(!stale.is_empty(), "stale answers served: {served}");
    assert!(
        failed.len() < failed_alone.len(),
        "{} failed with the cache, {} without",
        failed.len(),
        failed_alone.len()
    );
    for task in &stale {
        assert_eq!(task["status"], "done", "{task}");
        let region = task["task_id"].as_str().unwrap();
        let args = format!(
            "{{\"region\":\"{}\",\"report_date\":\"2026-03-12\"}}",
            task_region(&served, region)
        );
        assert_eq!(
            task["observation"], kept["answers"]["enrichment_worker"][&args],
            "the healthy run's answer to the same arguments"
        );
    }
    let trace_stale = served["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["stale"] == true)
        .count();
    assert_eq!(trace_stale, stale.len(), "the trace marks them too");
}

/// The region task `id` asked for, from the result's plan.
fn task_region(result: &Value, id: &str) -> String {
    result["plan"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .and_then(|t| t["args"]["region"].as_str())
        .unwrap()
        .to_string()
}

#[test]
fn a_damaged_cache_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("vendor_outage.json"), "{\"answers\": 3").unwrap();
    let file = vendor_outage(dir.path(), true);
    let output = conclave(&[
        "run",
        &file,
        "--headless",
        "--cache",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("vendor_outage.json: not JSON"), "{said}");
    assert!(said.contains("expected a Conclave cache"), "{said}");

    // A folder under a file cannot be made: named, exit 2.
    let under_a_file = dir.path().join("vendor_outage.json/cache");
    let refused = conclave(&[
        "run",
        &file,
        "--headless",
        "--cache",
        under_a_file.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("vendor_outage.json/cache") && said.contains("cannot make it"),
        "{said}"
    );
}

#[test]
fn a_cache_folder_that_is_not_there_yet_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let file = vendor_outage(dir.path(), true);
    let cache = dir.path().join("state/conclave/cache");
    let output = conclave(&[
        "run",
        &file,
        "--headless",
        "--cache",
        cache.to_str().unwrap(),
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let kept: serde_json::Value =
        serde_json::from_slice(&std::fs::read(cache.join("vendor_outage.json")).unwrap()).unwrap();
    assert_eq!(kept["version"], 1, "{kept}");
}

/// The stale answers in the dashboard: the workers list marks the tasks,
/// the resilience pane counts them for the tool.
#[tokio::test(start_paused = true)]
async fn the_workers_and_resilience_panes_mark_stale_answers() {
    use conclave::engine::LaunchOptions;
    use conclave::tui::app::{App, AppOptions};
    use conclave::tui::keymap::Action;
    use std::sync::Arc;

    let dir = tempfile::tempdir().unwrap();
    let cached = LaunchOptions {
        cache: Some(dir.path().to_path_buf()),
        ..LaunchOptions::default()
    };
    let load = |outage| {
        let file = vendor_outage(dir.path(), outage);
        Arc::new(conclave::scenario::load(Path::new(&file)).unwrap())
    };
    common::run(load(false), cached.clone()).await;
    let (outcome, events) = common::run(load(true), cached).await;
    assert!(
        outcome.result["history"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["stale"] == true)
    );
    let served = events
        .iter()
        .filter(|e| matches!(e.kind, conclave::bus::EventKind::FallbackServed { .. }))
        .count();
    assert!(served > 0);

    let events: Vec<Arc<conclave::bus::Event>> = events.into_iter().map(Arc::new).collect();
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events, None);
    let screen = |app: &App| common::screen::of_app(app, 160, 50);
    app.update(Action::Focus(2));
    let workers = screen(&app);
    assert!(
        workers
            .lines()
            .any(|l| l.contains("-enrich") && l.contains(" done ") && l.contains("stale {")),
        "a stale task's row says so:\n{workers}"
    );
    app.update(Action::Focus(5));
    app.update(Action::Zoom);
    let tools = screen(&app);
    assert!(
        tools.contains(&format!("stale {served}")),
        "the resilience pane counts {served} stale answers:\n{tools}"
    );
}
