//! A fallback is no error (issue 58): a run against an endpoint that
//! refuses `json_schema`, with OpenAI's 400 and with llama-cpp-python's
//! 500 quoting pydantic, steps down to tool mode and completes; the model
//! row of its dashboard counts the refused attempt as a fallback and
//! shows no error share. The real binary runs against the loopback model
//! in `auto`, streamed and whole; its recording is folded by the
//! dashboard's reducer, as a live run's events are, and the resilience
//! pane drawn.

use crate::common;
use crate::real_models::headless_in;

use common::messy::{Behaviour, Messy};
use common::script::quick;
use conclave::record::read_recording;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::panes;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// The resilience pane of the run recorded at `path`, as text.
fn resilience_pane(path: &std::path::Path, width: u16, height: u16) -> String {
    let recording = read_recording(path).unwrap();
    assert!(recording.problems.is_empty(), "{:?}", recording.problems);
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&recording.events, Some("scenarios/test.json".into()))
        .expect("events start with run_started");
    let run = app.run().unwrap().view();
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| {
            panes::resilience::draw(
                frame,
                frame.area(),
                &run.state.resilience,
                &run.ui.gateway_tools,
                run.scenario.resilience.is_some(),
                run.now_ms,
                false,
            )
        })
        .unwrap();
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| {
            let line: String = (0..width).map(|x| buffer[(x, y)].symbol()).collect();
            line.trim_end().to_string() + "\n"
        })
        .collect()
}

#[test]
fn a_refused_json_schema_is_a_fallback_on_the_model_row_not_an_error() {
    let doc = quick("checkout_v2_launch.json");
    for behaviour in [Behaviour::NoJsonSchema, Behaviour::LlamaCppPython] {
        for streamed in [true, false] {
            let endpoint = Messy::serve(&doc, behaviour, streamed);
            let work = tempfile::tempdir().unwrap();
            let mut args = vec![
                "--provider",
                "openai",
                "--model",
                "mock-model",
                "--base-url",
                &endpoint.base_url,
            ];
            if !streamed {
                args.push("--no-stream");
            }
            let run = headless_in(work.path(), &doc, &args);
            let about = format!(
                "{behaviour:?} ({}): stderr {}\nresult {}",
                if streamed { "streamed" } else { "whole" },
                run.stderr,
                run.result
            );
            assert_eq!(run.exit, Some(0), "the run completes: {about}");
            let refused = run
                .events
                .iter()
                .filter(|e| e["type"] == "call_finished" && e["outcome"] == "error")
                .collect::<Vec<_>>();
            assert_eq!(refused.len(), 1, "one refused attempt: {about}");
            assert_eq!(refused[0]["fallback"], true, "{about}");

            // Compact (one row) and detailed (two rows) alike.
            for (width, height) in [(120, 4), (120, 12)] {
                let pane = resilience_pane(&work.path().join("run.jsonl"), width, height);
                assert!(pane.contains("fallback 1"), "{about}\n{pane}");
                assert!(pane.contains("err   0%"), "no error share: {about}\n{pane}");
            }
        }
    }
}
