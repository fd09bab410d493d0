//! What a recording keeps of each call so that it can serve the call again
//! (a cassette): what was asked and what came back. Shared by the gateway,
//! which writes it on every `call_finished`, and the cassette, which reads
//! it back; it holds data only and decides nothing.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One attempt of a call as the recording keeps it: the request it was
/// matched by and the answer it got.
///
/// A worker or tool call's record without `args` is written short: it
/// leaves out what the recording already says. Its args, and its answer
/// when none is given, are those of the tool's previous call in the
/// recording; it ended at its event's `t_ms` unless `ended_us` says
/// otherwise. (A record of a tool call always held its args before.)
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// A model call's purpose, as its pattern names it (`turn:billing`,
    /// `plan`, `final_brief` …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purpose: Option<String>,
    /// A model call's prompt, hashed: SHA-256 of its prompt file's name,
    /// its compiled-in text and the JSON payload the model was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_sha256: Option<String>,
    /// A model call: run time from the start of the call (before its
    /// first attempt) to the end of this attempt, in whole milliseconds.
    /// A cassette gives it back as the call's duration, so that a turn's
    /// latency is the recorded one whatever the clock did around it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_ms: Option<u64>,
    /// Run time at which this attempt ended, in microseconds: a cassette
    /// ends the served attempt at the same run time, so that calls in
    /// parallel finish in their recorded order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_us: Option<u64>,
    /// A worker or tool call's arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
    /// What came back; none when nothing did (the call timed out, was cut
    /// at a deadline or cancelled), which a cassette serves as a call that
    /// never answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
}

/// What a call answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// A model's text.
    Text(String),
    /// A model's text, cut at its output limit (`finish_reason: "length"`).
    Cut(String),
    /// A model's refusal (`message.refusal`), in its words, and any text
    /// that came with it.
    Refused {
        refusal: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        text: String,
    },
    /// JSON a model returned as such (the sim's scripts), kept as its
    /// text: a planner's plan of 100,000 tasks is not built into a tree to
    /// be recorded, nor when it is served.
    Json(RawJson),
    /// The scenario's scripted plan, one object given whole: the run's
    /// `run_started` holds it already, so the recording does not repeat
    /// it (a plan of 100,000 tasks is 19 MB). A cassette serves it as
    /// [`Answer::Json`] from there.
    ScriptedPlan,
    /// A worker's or tool's observation.
    Observation(Value),
    /// A model call that failed with an answer (a status, a bad body).
    ModelError {
        error: ModelFailure,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after_ms: Option<u64>,
    },
    /// A worker or tool call that failed with an answer.
    ToolError {
        error: ToolFailure,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        http_status: Option<u16>,
    },
}

/// JSON kept as its text, and written as a string holding it: an event
/// is read through serde's buffering (its kind is a tag), which keeps a
/// string whole but would build any other value into a tree.
#[derive(Clone, Debug)]
pub struct RawJson(pub Box<serde_json::value::RawValue>);

impl Serialize for RawJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.get())
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        serde_json::value::RawValue::from_string(text)
            .map(RawJson)
            .map_err(serde::de::Error::custom)
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl RawJson {
    /// The JSON text of `value`.
    pub fn of(value: &Value) -> RawJson {
        RawJson(
            serde_json::value::to_raw_value(value)
                .unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned()),
        )
    }

    /// `text`, which must be JSON; `null` when it is not.
    pub fn from_text(text: &str) -> RawJson {
        RawJson(
            serde_json::value::RawValue::from_string(text.to_owned())
                .unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned()),
        )
    }

    pub fn text(&self) -> &str {
        self.0.get()
    }
}

/// How a model call failed, as the provider said.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelFailure {
    Unavailable,
    Auth,
    BadResponse,
    BadRequest,
    UnexpectedStatus,
    Failed,
    /// The endpoint refused a feature of the request by name: served
    /// again, the run adapts as it did (`{"unsupported": "json_schema"}`).
    Unsupported(Feature),
}

/// A feature of a request that an endpoint can refuse by name (a 400 or
/// 422 whose words name it), and that a run can ask without.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    /// `response_format` as such (`json_object` refused).
    ResponseFormat,
    /// A strict schema (`response_format: {"type": "json_schema"}`).
    JsonSchema,
    /// `tools` and `tool_choice`.
    Tools,
    Temperature,
    MaxCompletionTokens,
}

impl Feature {
    /// The feature as the request names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Feature::ResponseFormat => "response_format",
            Feature::JsonSchema => "json_schema",
            Feature::Tools => "tools",
            Feature::Temperature => "temperature",
            Feature::MaxCompletionTokens => "max_completion_tokens",
        }
    }
}

impl std::fmt::Display for Feature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a worker or tool call failed, as the worker said.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolFailure {
    Missing,
    BadArgs,
    Failed,
    BadResult,
}

/// Where a forked run came from: `run_started.forked_from`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkedFrom {
    /// The parent's recording, as the fork was given it.
    pub file: String,
    /// The parent's run id in that recording.
    pub run: u32,
    /// The gate the fork went live at, as the timeline names it
    /// (`round 3`).
    pub gate: String,
    /// The model that answered the calls the fork serves (its parent's),
    /// when it is not the fork's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<crate::bus::RunModel>,
    /// The recorded outputs the fork served changed, as given
    /// (`review:/verdict="approve"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edited: Vec<String>,
}

/// `forked from FILE run N at GATE`, as replay and the dashboard say it
/// (the file's control characters shown escaped).
impl std::fmt::Display for ForkedFrom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "forked from {} run {} at {}",
            crate::sanitize::clean(&self.file),
            self.run,
            crate::sanitize::clean(&self.gate)
        )?;
        for edit in &self.edited {
            write!(f, ", {}", crate::sanitize::clean(edit))?;
        }
        Ok(())
    }
}

/// A measure a recorded run took on its clock around its calls, which a
/// run served from the recording asks for again (the cassette serves it).
/// A pattern's event says which measure it took.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Measure {
    /// A member call's `latency_ms`, by the turn that asked for it and the
    /// member's path.
    MemberCall { turn: u32, member: String },
    /// The run time at which a research step ended, by its number.
    StepEnded(u32),
}
