//! Tests only: the shipped scenarios and their sim answers, for each
//! pattern's contracts to be checked against: every answer the sim gives
//! and the pattern accepts must keep its contract in wire form.

use crate::scenario::Scenario;
use crate::scenario::script::{ScriptedOutput, script_entries};
use serde_json::Value;
use std::path::Path;

/// Every scenario in `scenarios/`, with its file name.
pub(crate) fn shipped() -> Vec<(String, Scenario)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("scenarios/")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let scenario = crate::scenario::load(&path).expect("a shipped scenario loads");
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, scenario)
        })
        .collect()
}

/// The outputs a script gives, in call order, faults left out.
pub(crate) fn outputs(script: &Value) -> Vec<ScriptedOutput> {
    script_entries(script)
        .iter()
        .filter_map(|entry| ScriptedOutput::parse(entry).ok())
        .filter(|output| !matches!(output, ScriptedOutput::Fault(_)))
        .collect()
}

/// A scripted output as the JSON the pattern reads (text parsed as the
/// references parse it).
pub(crate) fn json_of(output: ScriptedOutput) -> Option<Value> {
    match output {
        ScriptedOutput::Json(value) => Some(value),
        ScriptedOutput::JsonText(text) => Some(text.to_value()),
        ScriptedOutput::Text(text) => crate::pycompat::parse_model_text(&text),
        ScriptedOutput::Fault(_) => None,
    }
}
