//! Scenario files: their types, their JSON Schema, and loading with every
//! error reported by file, line:column, JSON path and what was expected.
//! Nothing runs until a scenario has passed every check: its size and
//! encoding, JSON syntax and structure (depth, repeated keys), the schema,
//! and the cross-references between its parts. Checking costs memory in
//! the file's size, never a record per value.

#[cfg(test)]
mod budget_tests;
mod checks;
pub(crate) mod compact_json;
pub(crate) mod error;
pub(crate) mod hints;
mod json_text;
pub mod knobs;
pub(crate) mod latency;
pub(crate) mod names;
mod origin;
pub(crate) mod path;
pub(crate) mod pattern_kind;
mod pricing;
mod provider_spec;
mod reach;
pub(crate) mod real;
mod recorded;
pub(crate) mod research_tools;
mod resilience;
pub(crate) mod script;
pub(crate) mod sections;
mod shape;
mod spend;
pub(crate) mod text;
mod typed;
pub(crate) mod types;
pub(crate) mod value_words;
pub(crate) mod workers;

pub(crate) use checks::SectionChecks;
pub(crate) use error::Problem;
pub use error::{MAX_REPORTED, ScenarioError, ScenarioErrors};
pub(crate) use hints::{DEFAULT_MAX_SECONDS, ResearchLimits};
pub(crate) use json_text::{JsonText, members as json_members};
pub use knobs::ProviderKnobs;
pub(crate) use latency::{Latency, WorkerLatency};
pub(crate) use origin::Origin;
pub use path::{JsonPath, Position};
pub use pattern_kind::PatternKind;
pub use pricing::{ModelPrice, PriceTable, load_prices, parse_prices};
pub(crate) use reach::{Endpoint, Program, is_loopback};
pub(crate) use real::{CommandSpec, HttpMethod, HttpSpec, McpServerSpec, RealCall, env_name};
use recorded::{member_value, with_texts};
pub(crate) use recorded::{recheck, recorded};
pub(crate) use research_tools::{
    ResearchTool, ResearchTools, ToolBehaviour, normalize_url, url_domain,
};
pub(crate) use resilience::{
    BackoffSpec, BreakerRule, BulkheadRule, ExponentialBackoff, FailureRule, Jitter, MODEL_TOOL,
    RetryBudgetSpec, RetryRule, SafeModeFallback, SafeModeSpec, ToolResilience,
};
pub use resilience::{GatewayMechanism, ResilienceSpec};
pub(crate) use sections::{MemberTeam, TimedLimits, ToolSection};
pub(crate) use sections::{PatternSections, Sections};
pub use shape::json_schema;
pub(crate) use spend::SpendLimits;
pub(crate) use types::ProviderSpec;
pub use types::{FlagSpec, OutputMode, ProviderKind, Scenario};
pub use workers::WorkerSpec;
pub(crate) use workers::short_name;

use serde_json::{Map, Value};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use text::places;
use text::structure::{self, Finding, MAX_DEPTH, MAX_VALUES_OUTSIDE_CONTEXT};

/// The top-level member that names the model provider, and its member that
/// scripts the sim's planner: both read by name before the schema runs.
const PROVIDER: &str = "provider";
const PLAN: &str = "plan";

/// Read and check a scenario file: at most `CONCLAVE_MAX_SCENARIO_BYTES`
/// (64 MB by default) are read, whatever the file.
pub fn load(path: &Path) -> Result<Scenario, ScenarioErrors> {
    let file = path.display().to_string();
    let fail = |position, message| ScenarioErrors::one(&file, position, JsonPath::root(), message);
    let cap = text::max_bytes().map_err(|message| fail(None, message))?;
    match text::read_capped(path, cap) {
        Ok(text::Contents::Whole(bytes)) => parse_bytes(bytes, &file).map(|mut scenario| {
            scenario.origin = scenario.origin.in_folder_of(path);
            scenario
        }),
        Ok(text::Contents::TooLarge(bytes)) => {
            let past = usize::try_from(cap).unwrap_or(usize::MAX);
            Err(fail(
                Some(text::position_in_bytes(&bytes, past)),
                format!(
                    "the file is larger than the {} cap on scenario files; \
                     set {} to a number of bytes to raise it",
                    text::human_size_exact(cap),
                    text::MAX_BYTES_VAR
                ),
            ))
        }
        Err(e) => Err(fail(None, format!("cannot read the file: {e}"))),
    }
}

/// Check a scenario given as text; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Scenario, ScenarioErrors> {
    parse_bytes(text.as_bytes().to_vec(), file)
}

/// Check a scenario given as the text of the file at `path`, read
/// elsewhere (a sweep's job sent to a worker): errors name `path`, and
/// relative paths in it resolve against `path`'s folder, as after
/// [`load`].
pub fn parse_from(text: &str, path: &Path) -> Result<Scenario, ScenarioErrors> {
    parse(text, &path.display().to_string()).map(|mut scenario| {
        scenario.origin = scenario.origin.in_folder_of(path);
        scenario
    })
}

/// Check a scenario given as the bytes of a file; `file` names it in errors.
pub fn parse_bytes(bytes: Vec<u8>, file: &str) -> Result<Scenario, ScenarioErrors> {
    let origin = Origin::new(file, &bytes);
    match text::decode(bytes) {
        Ok(text) => {
            let text = Arc::new(text);
            let mut scenario = parse_text(Arc::clone(&text), file)?;
            scenario.origin = origin.with_text(text);
            Ok(scenario)
        }
        Err((bytes, bad)) => Err(ScenarioErrors::one(
            file,
            Some(text::position_in_bytes(&bytes, bad.at)),
            JsonPath::root(),
            bad.message,
        )),
    }
}

fn parse_text(text: Arc<String>, file: &str) -> Result<Scenario, ScenarioErrors> {
    syntax(&text, file)?;
    let Document {
        document,
        context,
        plan,
    } = document(&text, file)?;
    let place = |problems| placed(&text, file, problems);
    let problems = shape::check(&document, MAX_REPORTED + 1);
    if !problems.is_empty() {
        return Err(place(problems));
    }
    let mut scenario = typed::typed(document).map_err(|e| {
        let json_path = json_path_of(e.path());
        place(vec![Problem::at(json_path, e.into_inner().to_string())])
    })?;
    // The structure's pass found no key twice in any object.
    with_texts(
        &mut scenario,
        &text,
        context,
        plan,
        JsonText::in_checked_text,
    );
    let problems = checks::check(&scenario);
    if !problems.is_empty() {
        return Err(place(problems));
    }
    Ok(scenario)
}

/// Where a value that did not deserialise stands, as a scenario's
/// errors name places.
pub(crate) fn json_path_of(path: &serde_path_to_error::Path) -> JsonPath {
    let mut json_path = JsonPath::root();
    for segment in path.iter() {
        json_path = match segment {
            serde_path_to_error::Segment::Seq { index } => json_path.index(*index),
            serde_path_to_error::Segment::Map { key } => json_path.key(key),
            serde_path_to_error::Segment::Enum { variant } => json_path.key(variant),
            serde_path_to_error::Segment::Unknown => json_path,
        };
    }
    json_path
}

/// JSON syntax, checked without building anything.
pub(crate) fn syntax(text: &str, file: &str) -> Result<(), ScenarioErrors> {
    let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) else {
        return Ok(());
    };
    let message = e.to_string();
    let message = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(m, _)| m);
    // serde_json counts columns in bytes; people count characters.
    let line_start = text
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let mut end = (line_start + e.column()).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let column = text[line_start..end].chars().count().max(1);
    Err(ScenarioErrors::one(
        file,
        Some(Position {
            line: e.line().max(1),
            column,
        }),
        JsonPath::root(),
        format!("not valid JSON: {message}"),
    ))
}

/// A scenario file read for checking: the parts of any size are left as
/// text and out of the document.
struct Document {
    /// What the schema checks, with a `null` standing in for `context` and
    /// without `provider.plan`.
    document: Value,
    /// Where `context` stands in the text.
    context: Option<Range<usize>>,
    /// Where `provider.plan` stands in the text.
    plan: Option<Range<usize>>,
}

fn document(text: &str, file: &str) -> Result<Document, ScenarioErrors> {
    let structure = structure::scan(text, MAX_REPORTED + 1);
    let at = |offset| places::positions(text, &[offset])[0];
    if !structure.findings.is_empty() {
        return Err(findings_errors(text, file, &structure.findings));
    }
    if !structure.top_is_object {
        let found = if text.len() <= 4096 {
            serde_json::from_str(text)
                .map_or_else(|_| "another value".into(), |v| shape::describe_value(&v))
        } else {
            shape::describe_kind(
                text.as_bytes()
                    .get(structure.top_at)
                    .copied()
                    .unwrap_or(b'n'),
            )
            .to_string()
        };
        return Err(ScenarioErrors::one(
            file,
            Some(at(structure.top_at)),
            JsonPath::root(),
            format!("expected an object, found {found}"),
        ));
    }
    let mut document = Map::new();
    let mut context = None;
    let mut plan = None;
    for member in structure.members {
        let value = member_value(
            text,
            &member.key,
            member.value.clone(),
            &mut context,
            &mut plan,
        );
        let value = value.map_err(|e| {
            ScenarioErrors::one(
                file,
                Some(at(member.value.start)),
                JsonPath::root().key(&member.key),
                format!("not valid JSON: {e}"),
            )
        })?;
        document.insert(member.key.into_owned(), value);
    }
    Ok(Document {
        document: Value::Object(document),
        context,
        plan,
    })
}

/// What the pass over a file's structure found, as errors placed in the
/// file: a key given twice names both places (scenarios and pricing files
/// alike).
pub(crate) fn findings_errors(text: &str, file: &str, findings: &[Finding]) -> ScenarioErrors {
    let at = |offset| places::positions(text, &[offset])[0];
    let errors = findings
        .iter()
        .map(|finding| {
            let (offset, message) = match finding {
                Finding::TooDeep { at } => (
                    *at,
                    format!(
                        "lists and objects nest more than {MAX_DEPTH} levels deep here; a scenario nests at most {MAX_DEPTH}"
                    ),
                ),
                Finding::Duplicate { key, first, again } => {
                    let first = at(*first);
                    (
                        *again,
                        format!(
                            "duplicate key {}: already given at line {}, column {}; a key may appear once in an object",
                            Value::from(key.as_str()),
                            first.line,
                            first.column
                        ),
                    )
                }
                Finding::TooManyValues { at, .. } => (
                    *at,
                    format!(
                        "more than {MAX_VALUES_OUTSIDE_CONTEXT} JSON values outside \"context\"; \
                         large shared data belongs in \"context\", which is kept as text"
                    ),
                ),
            };
            ScenarioError {
                file: file.to_string(),
                position: Some(at(offset)),
                path: places::path_at(text, offset),
                message,
            }
        })
        .collect();
    error::capped(errors)
}

/// Each problem placed in the text, in the order of the file, at most
/// [`MAX_REPORTED`] of them.
pub(crate) fn placed(text: &str, file: &str, mut problems: Vec<Problem>) -> ScenarioErrors {
    problems.truncate(MAX_REPORTED + 1);
    let wanted: Vec<(&JsonPath, bool)> = problems.iter().map(|p| (&p.path, p.at_key)).collect();
    let offsets: Vec<usize> = places::offsets(text, &wanted)
        .into_iter()
        .map(|o| o.unwrap_or(0))
        .collect();
    let positions = places::positions(text, &offsets);
    let mut errors: Vec<ScenarioError> = problems
        .into_iter()
        .zip(positions)
        .map(|(p, position)| ScenarioError {
            file: file.to_string(),
            position: Some(position),
            path: p.path,
            message: p.message,
        })
        .collect();
    errors.sort_by_key(|e| e.position.map(|p| (p.line, p.column)));
    error::capped(errors)
}
