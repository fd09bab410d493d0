//! A program scenario (`"pattern": "program"`): another framework's
//! program as a run, its command line, folder, added environment, the
//! flags its hook reads and the model endpoint its calls go to. Checked
//! before anything starts, every error placed in the file as any
//! scenario's are; it never starts the program itself.

use crate::scenario::{JsonPath, Problem, ScenarioErrors};
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The largest program scenario sniffed for its pattern: a bigger file is
/// some other scenario (a program's file is a few hundred bytes).
const SNIFF_BYTES: u64 = 1024 * 1024;

/// The variables every launch sets, which a scenario's `env` may not.
pub const SET_BY_LAUNCH: &[&str] = &[
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "CONCLAVE_STEER_URL",
    "CONCLAVE_STEER_TOKEN",
    "CONCLAVE_RUN_ID",
    "CONCLAVE_SEED",
    "OPENAI_BASE_URL",
    "OPENAI_API_BASE",
];

/// What a program launched from the command line is named in errors.
pub(crate) const COMMAND_LINE: &str = "(command line)";

/// The one value of a program scenario's `pattern`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProgramPattern {
    Program,
}

/// A flag the program's hook reads (`Steer.flag(name)`), over the
/// hook's own default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProgramFlag {
    /// State at launch (default off); `--flag NAME=on|off` overrides it.
    #[serde(default)]
    pub default: bool,
    /// What turning the flag on does, shown in the flags overlay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Where the program's model calls go: Conclave's gateway for the run
/// passes them on to `upstream` with the key read from `key_env`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelEndpoint {
    /// The OpenAI-compatible endpoint's base URL, e.g. `https://host/v1`.
    pub upstream: String,
    /// The environment variable holding the endpoint's key (never the key
    /// itself); none for an endpoint without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_env: Option<String>,
    /// The run's token budget (input and output of every call); past it
    /// later calls are refused and the run stops `max_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u64>,
    /// The run's budget in US dollars, priced with the pricing table; past
    /// it the run stops `max_cost`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<f64>,
    /// The most calls sent upstream; one more is refused and the run stops
    /// `max_calls`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_calls: Option<u64>,
}

/// A program scenario, as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProgramScenario {
    /// Short machine name; the program's OpenTelemetry service name unless
    /// `env` sets `OTEL_SERVICE_NAME`.
    pub name: String,
    /// `program`.
    pub pattern: ProgramPattern,
    /// A human title for the scenario picker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// One or two sentences for the scenario picker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The program and its arguments (no shell): a program name is looked
    /// up on PATH, a path with a `/` is taken from `cwd`.
    pub command: Vec<String>,
    /// The folder the program starts in, relative to the scenario file's
    /// folder (default: that folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Environment added to Conclave's own for the program.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub env: IndexMap<String, String>,
    /// The flags the program's hook reads.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub flags: IndexMap<String, ProgramFlag>,
    /// The model endpoint its calls go to, through Conclave's gateway.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelEndpoint>,
    /// The longest the program may run before it is stopped (default 600).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_seconds: Option<u64>,
    /// How long each step of a stop waits (SIGINT, then SIGTERM, then
    /// SIGKILL) before the next, in milliseconds (default 5000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_grace_ms: Option<u64>,
    /// Seed handed to the program as `CONCLAVE_SEED`; `--seed` overrides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// A checked program scenario with the file it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedProgram {
    pub scenario: ProgramScenario,
    /// The file as named (errors name it so).
    pub file: String,
    /// The file's text, to place errors found at launch.
    pub text: String,
    /// The folder relative paths resolve against.
    pub folder: PathBuf,
}

impl LoadedProgram {
    /// An error at `path` in the file, placed by line and column.
    pub fn error_at(&self, path: JsonPath, message: impl Into<String>) -> ScenarioErrors {
        if self.file == COMMAND_LINE || self.text.is_empty() {
            // Written by Conclave from the arguments, or kept by a
            // recording: no line to name.
            return ScenarioErrors::one(&self.file, None, path, message);
        }
        crate::scenario::placed(&self.text, &self.file, vec![Problem::at(path, message)])
    }
}

/// The JSON Schema of program scenarios (`conclave schema --program`).
pub fn json_schema() -> serde_json::Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(ProgramScenario))
        .unwrap_or(serde_json::Value::Null);
    if let Some(map) = schema.as_object_mut() {
        map.insert("title".into(), "Conclave program scenario".into());
    }
    schema
}

/// The program scenario at `path`, or `None` when the file is not one
/// (read it as any other scenario then).
pub fn sniff(path: &Path) -> Option<Result<LoadedProgram, ScenarioErrors>> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > SNIFF_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    if !is_program(&text) {
        return None;
    }
    let folder = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    Some(parse(&text, &path.display().to_string(), folder))
}

/// Whether `text` is a scenario whose top-level `pattern` is `program`.
fn is_program(text: &str) -> bool {
    #[derive(Deserialize)]
    struct Pattern {
        pattern: Option<serde_json::Value>,
    }
    text.contains("\"program\"")
        && serde_json::from_str::<Pattern>(text)
            .is_ok_and(|p| p.pattern.is_some_and(|v| v == "program"))
}

/// Check a program scenario's text; `file` names it in errors.
pub fn parse(text: &str, file: &str, folder: PathBuf) -> Result<LoadedProgram, ScenarioErrors> {
    crate::scenario::syntax(text, file)?;
    let place = |problems| crate::scenario::placed(text, file, problems);
    let mut reader = serde_json::Deserializer::from_str(text);
    let scenario: ProgramScenario = serde_path_to_error::deserialize(&mut reader).map_err(|e| {
        let at = crate::scenario::json_path_of(e.path());
        place(vec![Problem::at(at, e.into_inner().to_string())])
    })?;
    let problems = check(&scenario);
    if !problems.is_empty() {
        return Err(place(problems));
    }
    Ok(LoadedProgram {
        scenario,
        file: file.to_string(),
        text: text.to_string(),
        folder,
    })
}

/// What the types cannot say: a command to run, environment a process can
/// take, and nothing set that the launch itself sets.
fn check(s: &ProgramScenario) -> Vec<Problem> {
    let mut problems = Vec::new();
    let root = JsonPath::root();
    if s.command.is_empty() {
        problems.push(Problem::at(
            root.key("command"),
            "expected the program and its arguments, e.g. [\"python\", \"app.py\"]; the list is empty",
        ));
    } else if s.command[0].trim().is_empty() {
        problems.push(Problem::at(
            root.key("command").index(0),
            "expected a program's name or path; it is empty",
        ));
    }
    for (at, arg) in s.command.iter().enumerate() {
        if arg.contains('\0') {
            problems.push(Problem::at(
                root.key("command").index(at),
                "an argument cannot hold a NUL character",
            ));
        }
    }
    for (name, value) in &s.env {
        let at = root.key("env").key(name);
        if let Some(why) = bad_env_name(name) {
            problems.push(Problem::at_key(at, why));
        } else if SET_BY_LAUNCH.contains(&name.as_str()) {
            problems.push(Problem::at_key(
                at,
                format!(
                    "{name} is set by Conclave for every launch (docs/launch.md); leave it out"
                ),
            ));
        } else if value.contains('\0') {
            problems.push(Problem::at(at, "a value cannot hold a NUL character"));
        }
    }
    if let Some(model) = &s.model {
        let at = root.key("model");
        if !(model.upstream.starts_with("http://") || model.upstream.starts_with("https://")) {
            problems.push(Problem::at(
                at.key("upstream"),
                "expected an http:// or https:// URL",
            ));
        }
        if let Some(why) = model.key_env.as_deref().and_then(bad_env_name) {
            problems.push(Problem::at(at.key("key_env"), why));
        }
        for (key, zero) in [
            ("max_tokens", model.max_tokens == Some(0)),
            ("max_calls", model.max_calls == Some(0)),
        ] {
            if zero {
                problems.push(Problem::at(at.key(key), "expected at least 1"));
            }
        }
        if model
            .max_cost_usd
            .is_some_and(|usd| !usd.is_finite() || usd <= 0.0)
        {
            problems.push(Problem::at(
                at.key("max_cost_usd"),
                "expected a number of US dollars above 0",
            ));
        }
    }
    if s.max_seconds == Some(0) {
        problems.push(Problem::at(
            root.key("max_seconds"),
            "expected at least 1 second",
        ));
    }
    problems
}

/// Why `name` cannot be an environment variable's name, if it cannot.
fn bad_env_name(name: &str) -> Option<String> {
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (!plain).then(|| {
        format!(
            "{}: expected an environment variable's name (letters, digits and _, not starting with a digit)",
            serde_json::Value::from(name)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(text: &str) -> String {
        parse(text, "app.json", PathBuf::new())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_program_scenario_reads_with_its_defaults() {
        let text = r#"{"name": "support", "pattern": "program",
            "command": ["python", "app.py"], "flags": {"legal": {"default": true}}}"#;
        let loaded = parse(text, "app.json", PathBuf::from("/apps")).unwrap();
        assert_eq!(loaded.scenario.command, ["python", "app.py"]);
        assert!(loaded.scenario.flags["legal"].default);
        assert_eq!(loaded.scenario.max_seconds, None);
        assert!(is_program(text));
        assert!(!is_program(
            r#"{"name": "x", "pattern": "swarm", "goal": "program"}"#
        ));
    }

    #[test]
    fn the_schema_describes_a_program_scenario() {
        let schema = json_schema();
        assert_eq!(schema["title"], "Conclave program scenario");
        let required = schema["required"].as_array().unwrap();
        assert!(required.contains(&"command".into()), "{schema}");
        assert!(schema["properties"]["max_seconds"].is_object());
    }

    #[test]
    fn bad_programs_are_named_at_their_place_in_the_file() {
        let empty = errors("{\"name\": \"a\", \"pattern\": \"program\",\n \"command\": []}");
        assert!(empty.starts_with("app.json:2:"), "{empty}");
        assert!(empty.contains("command: expected the program"), "{empty}");
        let blank = errors(r#"{"name": "a", "pattern": "program", "command": [" "]}"#);
        assert!(
            blank.contains("command[0]: expected a program's name"),
            "{blank}"
        );
        let set = errors(
            r#"{"name": "a", "pattern": "program", "command": ["x"], "env": {"CONCLAVE_RUN_ID": "1"}}"#,
        );
        assert!(
            set.contains("env.CONCLAVE_RUN_ID: CONCLAVE_RUN_ID is set by Conclave"),
            "{set}"
        );
        let unknown = errors(r#"{"name": "a", "pattern": "program", "command": ["x"], "cmd": 1}"#);
        assert!(unknown.contains("unknown field `cmd`"), "{unknown}");
        let bad_env =
            errors(r#"{"name": "a", "pattern": "program", "command": ["x"], "env": {"A=B": "1"}}"#);
        assert!(
            bad_env.contains("expected an environment variable's name"),
            "{bad_env}"
        );
        let model = errors(
            r#"{"name": "a", "pattern": "program", "command": ["x"], "model": {"upstream": "ftp://x"}}"#,
        );
        assert!(
            model.contains("model.upstream: expected an http"),
            "{model}"
        );
        let budget = errors(
            r#"{"name": "a", "pattern": "program", "command": ["x"],
                "model": {"upstream": "http://127.0.0.1:1/v1", "max_tokens": 0, "max_cost_usd": -1}}"#,
        );
        assert!(
            budget.contains("model.max_tokens: expected at least 1"),
            "{budget}"
        );
        assert!(
            budget.contains("model.max_cost_usd: expected a number of US dollars above 0"),
            "{budget}"
        );
    }
}
