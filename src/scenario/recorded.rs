//! A scenario read back from a recording: read as the loader reads a
//! file, and checked again before a fork runs it.

use super::json_text::{self, JsonText};
use super::text::structure::CONTEXT;
use super::types::Scenario;
use super::{PLAN, PROVIDER, checks};
use serde_json::{Map, Value};
use std::ops::Range;
use std::sync::Arc;

/// The checks a file's scenario passes when it loads, run again on one a
/// recording holds, before a fork runs it: a recording is a file anyone
/// may edit, and the runners trust what loading checked (a graph that
/// compiles). Each problem as `PATH: what`, joined.
pub(crate) fn recheck(scenario: &Scenario) -> Result<(), String> {
    let problems = checks::check(scenario);
    if problems.is_empty() {
        return Ok(());
    }
    let words: Vec<String> = problems
        .iter()
        .map(|problem| format!("{}: {}", problem.path, problem.message))
        .collect();
    Err(words.join("; "))
}

/// A scenario as a recording's `run_started` holds it, read as the loader
/// reads a file, its `context` and `plan` left as text: a recorded plan of
/// 100,000 tasks is not built as a tree to be replayed. Nothing is checked
/// beyond its shape: the run that recorded it was checked at launch.
pub(crate) fn recorded(text: String) -> serde_json::Result<Scenario> {
    let text = Arc::new(text);
    let members = json_text::members(&text, 0..text.len())?;
    let mut document = Map::with_capacity(members.len());
    let (mut context, mut plan) = (None, None);
    for (key, span) in members {
        let value = member_value(&text, &key, span, &mut context, &mut plan)?;
        document.insert(key, value);
    }
    let mut scenario: Scenario = serde_json::from_value(Value::Object(document))?;
    with_texts(&mut scenario, &text, context, plan, JsonText::in_text);
    Ok(scenario)
}

/// `scenario` with its `context` and `plan` as their spans of `text`.
pub(super) fn with_texts(
    scenario: &mut Scenario,
    text: &Arc<String>,
    context: Option<Range<usize>>,
    plan: Option<Range<usize>>,
    in_text: fn(Arc<String>, Range<usize>) -> JsonText,
) {
    if let Some(span) = context {
        scenario.context = in_text(Arc::clone(text), span);
    }
    if let Some(span) = plan {
        Arc::make_mut(&mut scenario.provider).plan = Some(in_text(Arc::clone(text), span));
    }
}

/// A scenario's top-level member `key`, written at `span` of `text`, as the
/// document holds it: `context` as `null` and `provider` without its
/// `plan`, their places in the text noted instead.
pub(super) fn member_value(
    text: &str,
    key: &str,
    span: Range<usize>,
    context: &mut Option<Range<usize>>,
    plan: &mut Option<Range<usize>>,
) -> serde_json::Result<Value> {
    if key == CONTEXT {
        *context = Some(span);
        Ok(Value::Null)
    } else if key == PROVIDER {
        let (provider, at) = json_text::object_but(text, span, PLAN)?;
        *plan = at;
        Ok(provider)
    } else {
        serde_json::from_str(&text[span])
    }
}
