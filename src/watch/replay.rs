//! `conclave replay --headless` and `conclave compare --headless` on
//! watch recordings: the run rebuilt from its recorded spans alone, in
//! arrival order (each arrival a line on stderr, with its time), and two
//! runs compared by agent chain, handoffs and tool calls, naming the
//! first place they differ.

use super::forest::Forest;
use super::record::read_as_written;
use super::runs::DEFAULT_MAX_SPANS;
use super::summary::{WatchSummary, summarise};
use crate::exit::Exit;
use crate::output;
use std::path::Path;

/// The run recorded at `path`, rebuilt from its spans.
pub(crate) fn rebuild(path: &Path) -> Result<WatchSummary, Exit> {
    let rec = read_as_written(path).map_err(|e| {
        output::message(&format!("conclave: {e}"));
        Exit::BadInput
    })?;
    let mut forest = Forest::new(DEFAULT_MAX_SPANS.max(rec.spans.len()));
    let trace = u128::from_str_radix(&rec.trace_id, 16).unwrap_or(0);
    let steering = super::steer::replayed::steering_of(&rec);
    let incomplete = rec.incomplete();
    let through_gateway = !rec.model_calls.is_empty()
        || rec.refused_calls > 0
        || rec
            .summary
            .as_ref()
            .is_some_and(|s| s.get("gateway").is_some());
    for (_, span) in rec.spans {
        forest.insert(span);
    }
    let mut summary = summarise(trace, &forest, None);
    if through_gateway {
        // A launch records its first refusals a line each and counts the
        // rest in its summary; a recording cut before its end has only
        // the lines.
        let refused = rec
            .summary
            .as_ref()
            .and_then(|s| s.pointer("/gateway/refused"))
            .and_then(serde_json::Value::as_u64)
            .map_or(rec.refused_calls, |counted| counted.max(rec.refused_calls));
        let calls = rec.model_calls.iter().map(|(_, call)| call);
        super::gateway_calls::count_from_gateway(&mut summary, calls, refused);
    }
    summary.recording = Some(path.display().to_string());
    super::steer::marks::with_steering(&mut summary, steering);
    summary.incomplete = incomplete;
    Ok(summary)
}

/// Step through a watch recording: each span's arrival on stderr, the
/// run's line on stdout.
pub fn replay(path: &Path) -> Exit {
    if let Ok(rec) = read_as_written(path) {
        for (at_ms, span) in &rec.spans {
            let kind = super::read::read(span).kind();
            output::message(&format!("+{at_ms} ms  {kind:?}  {}", span.name));
        }
        // The decisions have their own clock: from the hook's first call.
        for (at_ms, decision) in &rec.steered {
            output::message(&super::steer::replayed::log_line(*at_ms, decision));
        }
        // A launched program's output has its own clock: from the launch.
        for line in &rec.output {
            let stream = match line.stream {
                super::output_line::Stream::Stdout => "stdout",
                super::output_line::Stream::Stderr => "stderr",
            };
            let text = crate::sanitize::clean(&line.text);
            output::message(&format!("+{} ms  {stream}  {text}", line.at_ms));
        }
        for (at_ms, call) in &rec.model_calls {
            output::message(&model_call_line(*at_ms, call));
        }
    }
    let ended = launch_end(path);
    match rebuild(path) {
        Ok(summary) => {
            let mut line = serde_json::to_value(&summary).unwrap_or_default();
            if let (Some(line), Some(ended)) = (line.as_object_mut(), ended) {
                line.extend(ended);
            }
            super::start::clean_json(&mut line);
            output::line(&line.to_string());
            Exit::Ok
        }
        Err(exit) => exit,
    }
}

/// A launched run's status, stop reason and error, as its recording's
/// summary says them: a replay tells how the run ended as well as what
/// it did.
fn launch_end(path: &Path) -> Option<serde_json::Map<String, serde_json::Value>> {
    let summary = read_as_written(path).ok()?.summary?;
    let ended: serde_json::Map<_, _> = ["status", "stop_reason", "error"]
        .into_iter()
        .filter_map(|key| Some((key.to_string(), summary.get(key)?.clone())))
        .collect();
    (!ended.is_empty()).then_some(ended)
}

/// One model call through the endpoint, as a replay's stderr lists it.
fn model_call_line(at_ms: u64, call: &crate::gateway::endpoint::EndpointCall) -> String {
    let status = call
        .status
        .map_or_else(|| "unreached".to_string(), |s| s.to_string());
    let tokens = call
        .usage
        .map(|u| format!("  {} in, {} out", u.input, u.output))
        .unwrap_or_default();
    let model = call.model.as_deref().unwrap_or("?");
    let error = call
        .error
        .as_deref()
        .map(|e| format!("  {e}"))
        .unwrap_or_default();
    let text = format!(
        "+{at_ms} ms  model call  {} {model}  {status}{tokens}{error}",
        call.api
    );
    crate::sanitize::clean(&text).into_owned()
}

/// Where two watched runs first differ: `agents`, `handoffs` or
/// `tool_calls`, the index and each side's value; `None` when they agree.
pub(crate) fn first_divergence(a: &WatchSummary, b: &WatchSummary) -> Option<serde_json::Value> {
    fn first<T: serde::Serialize + PartialEq>(
        what: &str,
        a: &[T],
        b: &[T],
    ) -> Option<serde_json::Value> {
        let at = (0..a.len().max(b.len())).find(|i| a.get(*i) != b.get(*i))?;
        Some(serde_json::json!({"in": what, "index": at, "a": a.get(at), "b": b.get(at)}))
    }
    first("agents", &a.agents, &b.agents)
        .or_else(|| first("handoffs", &a.handoffs, &b.handoffs))
        .or_else(|| {
            let calls = |s: &WatchSummary| -> Vec<(Option<String>, String, &'static str)> {
                s.tool_calls
                    .iter()
                    .map(|t| (t.agent.clone(), t.tool.clone(), t.status))
                    .collect()
            };
            first("tool_calls", &calls(a), &calls(b))
        })
}

/// `conclave compare --headless` of two watch recordings: one JSON
/// document naming the first divergence (`null` when none).
pub fn compare(a: &Path, b: &Path) -> Exit {
    let (a, b) = match (rebuild(a), rebuild(b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(exit), _) | (_, Err(exit)) => return exit,
    };
    let divergence = first_divergence(&a, &b);
    output::document(&serde_json::json!({"diverged": divergence.is_some(), "first": divergence}));
    Exit::Ok
}
