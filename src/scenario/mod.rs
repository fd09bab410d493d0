//! Scenario files: their types, their JSON Schema, and loading with every
//! error reported by file, line:column, JSON path and what was expected.
//! Nothing runs until a scenario has passed all three checks: JSON syntax,
//! the schema, and the cross-references between its parts.

mod checks;
mod error;
mod hints;
mod path;
mod resilience;
pub mod script;
mod shape;
mod sources;
mod team;
mod types;
mod workers;

pub use error::{ScenarioError, ScenarioErrors};
pub use hints::*;
pub use path::{JsonPath, Position};
pub use resilience::*;
pub use shape::json_schema;
pub use sources::*;
pub use team::*;
pub use types::*;
pub use workers::*;

use error::Problem;
use path::SourceMap;
use serde_json::Value;
use std::path::Path;

/// Read and check a scenario file.
pub fn load(path: &Path) -> Result<Scenario, ScenarioErrors> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        ScenarioErrors(vec![ScenarioError {
            file: file.clone(),
            position: None,
            path: JsonPath::root(),
            message: format!("cannot read the file: {e}"),
        }])
    })?;
    parse(&text, &file)
}

/// Check a scenario given as text; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Scenario, ScenarioErrors> {
    let document: Value = serde_json::from_str(text).map_err(|e| {
        let message = e.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m);
        ScenarioErrors(vec![ScenarioError {
            file: file.to_string(),
            position: (e.line() > 0).then_some(Position {
                line: e.line(),
                column: e.column().max(1),
            }),
            path: JsonPath::root(),
            message: format!("not valid JSON: {message}"),
        }])
    })?;
    let map = SourceMap::build(text);
    let place = |problems: Vec<Problem>| {
        let mut errors: Vec<ScenarioError> = problems
            .into_iter()
            .map(|p| ScenarioError {
                file: file.to_string(),
                position: if p.at_key {
                    map.key(&p.path)
                } else {
                    map.value(&p.path)
                },
                path: p.path,
                message: p.message,
            })
            .collect();
        errors.sort_by_key(|e| e.position.map(|p| (p.line, p.column)));
        ScenarioErrors(errors)
    };

    let problems = shape::check(&document);
    if !problems.is_empty() {
        return Err(place(problems));
    }
    let scenario: Scenario = serde_path_to_error::deserialize(&document).map_err(|e| {
        let mut json_path = JsonPath::root();
        for segment in e.path().iter() {
            json_path = match segment {
                serde_path_to_error::Segment::Seq { index } => json_path.index(*index),
                serde_path_to_error::Segment::Map { key } => json_path.key(key),
                serde_path_to_error::Segment::Enum { variant } => json_path.key(variant),
                serde_path_to_error::Segment::Unknown => json_path,
            };
        }
        place(vec![Problem::at(json_path, e.into_inner().to_string())])
    })?;
    let problems = checks::check(&scenario);
    if !problems.is_empty() {
        return Err(place(problems));
    }
    Ok(scenario)
}

impl Scenario {
    /// A top-level fact of the shared context (`report_date`, `region`),
    /// or `null` when the context has none.
    pub fn fact(&self, key: &str) -> Value {
        self.context.get(key).cloned().unwrap_or(Value::Null)
    }

    /// The flags' states at launch.
    pub fn default_flags(&self) -> impl Iterator<Item = (&str, bool)> {
        self.flags
            .iter()
            .map(|(name, flag)| (name.as_str(), flag.default))
    }
}
