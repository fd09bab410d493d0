//! A launched run's result: the watch line's fields for its spans, the
//! program's exit, its output's tail and how the run ended, as one
//! document (`--headless`) and in its recording. Its status and stop
//! reason are the run's outcome in a sweep.

use super::output::{OutputTail, Stream};
use super::run::{Ended, Finished};
use crate::exit::Exit;
use crate::watch::forest::Forest;
use crate::watch::summary::{WatchSummary, summarise_read};
use serde::Serialize;
use std::collections::BTreeMap;

/// How many of the last stderr lines a failed run's error quotes.
const ERROR_LINES: usize = 10;

/// A launched run's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunchStatus {
    Ok,
    Failed,
    Stopped,
}

/// Why a launched run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunchStop {
    /// The program exited with status 0.
    Completed,
    /// It exited with another status.
    ExitStatus,
    /// A signal Conclave did not send ended it.
    Signal,
    /// It ran past `max_seconds`.
    MaxSeconds,
    /// A person or the steering stopped it.
    Stopped,
    /// Conclave was told to end (Ctrl-C) and stopped it.
    Interrupted,
    /// Its model calls went past `--max-tokens` (or `model.max_tokens`).
    MaxTokens,
    /// Past `--max-cost` (or `model.max_cost_usd`).
    MaxCost,
    /// Past `--max-calls` (or `model.max_calls`).
    MaxCalls,
    /// A model call its `--cassette` does not hold.
    CassetteMiss,
}

/// The result of a launched run.
#[derive(Clone, Debug, Serialize)]
pub struct LaunchResult {
    pub run_id: String,
    pub scenario: String,
    pub pattern: &'static str,
    pub status: LaunchStatus,
    pub stop_reason: LaunchStop,
    /// The program's exit code; null when a signal ended it.
    pub exit_status: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// Why the run failed, with the program's last stderr lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub duration_ms: u64,
    pub flags: BTreeMap<String, bool>,
    /// The run a fork comes from: its recording, run id and call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<super::launched_as::ForkedFrom>,
    #[serde(flatten)]
    pub watch: WatchSummary,
    pub output: OutputTail,
}

impl LaunchResult {
    /// The result of `finished`, a run of the scenario `name`.
    pub fn of(finished: &Finished, name: &str) -> LaunchResult {
        let (status, stop_reason) = outcome(
            &finished.ended,
            finished.exited.code,
            finished.exited.signal.is_some(),
        );
        let prices = finished.prices.as_ref();
        let mut watch = match &finished.run {
            Some(run) => summarise_read(finished.id, &run.forest, &run.readings, prices),
            None => summarise_read(finished.id, &Forest::new(1), &Default::default(), prices),
        };
        watch.steering = finished.steering.clone();
        if let Some(gateway) = &finished.gateway {
            let calls = gateway.calls.iter().map(|(_, call)| call);
            let refused = gateway.refused_calls;
            crate::watch::gateway_calls::count_from_gateway(&mut watch, calls, refused);
        }
        LaunchResult {
            run_id: finished.run_id.clone(),
            scenario: name.to_string(),
            pattern: "program",
            status,
            stop_reason,
            exit_status: finished.exited.code,
            signal: finished.exited.signal.clone(),
            error: error_of(finished, status, stop_reason),
            duration_ms: finished.duration_ms,
            flags: finished.flags.clone(),
            forked_from: finished.launched.forked_from.clone(),
            watch,
            output: finished.output.clone(),
        }
    }

    /// The exit status of `conclave run --headless` for this result.
    pub fn exit(&self) -> Exit {
        match self.status {
            LaunchStatus::Ok => Exit::Ok,
            LaunchStatus::Failed | LaunchStatus::Stopped => Exit::Stopped,
        }
    }

    /// The result as one JSON document, every text cleaned as a pane
    /// shows it.
    pub fn document(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        crate::watch::start::clean_json(&mut value);
        value
    }

    /// The outcome as a sweep counts it: `<status>/<stop_reason>`.
    pub fn outcome_key(&self) -> String {
        let words = self.document();
        format!(
            "{}/{}",
            words["status"].as_str().unwrap_or_default(),
            words["stop_reason"].as_str().unwrap_or_default()
        )
    }
}

/// The run's status and stop reason from why it ended and how the
/// program exited.
fn outcome(ended: &Ended, code: Option<i32>, signalled: bool) -> (LaunchStatus, LaunchStop) {
    match ended {
        Ended::MaxSeconds => (LaunchStatus::Stopped, LaunchStop::MaxSeconds),
        Ended::Stopped(_) => (LaunchStatus::Stopped, LaunchStop::Stopped),
        Ended::Interrupted(_) => (LaunchStatus::Stopped, LaunchStop::Interrupted),
        Ended::Budget(spent) => (
            LaunchStatus::Stopped,
            match spent.budget.as_str() {
                "max_cost" => LaunchStop::MaxCost,
                "max_calls" => LaunchStop::MaxCalls,
                _ => LaunchStop::MaxTokens,
            },
        ),
        Ended::CassetteMiss(_) => (LaunchStatus::Stopped, LaunchStop::CassetteMiss),
        Ended::Exited if code == Some(0) => (LaunchStatus::Ok, LaunchStop::Completed),
        Ended::Exited if signalled => (LaunchStatus::Failed, LaunchStop::Signal),
        Ended::Exited => (LaunchStatus::Failed, LaunchStop::ExitStatus),
    }
}

/// Why the run did not succeed, in words, with the last stderr lines.
fn error_of(f: &Finished, status: LaunchStatus, stop: LaunchStop) -> Option<String> {
    if status == LaunchStatus::Ok {
        return None;
    }
    let how = match (&f.exited.code, &f.exited.signal) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("ended by {signal}"),
        (None, None) => "ended".to_string(),
    };
    let why = match (&f.ended, stop) {
        (_, LaunchStop::MaxSeconds) => "ran past max_seconds and was stopped; it ".to_string(),
        (Ended::Stopped(reason), _) => format!("was stopped ({reason}); it "),
        (_, LaunchStop::Interrupted) => "was stopped as Conclave was interrupted; it ".into(),
        (Ended::Budget(spent), _) => format!("was stopped: {}; it ", spent.message),
        (Ended::CassetteMiss(words), _) => format!("was stopped: cassette_miss: {words}; it "),
        _ => String::new(),
    };
    let mut error = format!("the program {why}{how}");
    let last = f.output.last_of(Stream::Stderr, ERROR_LINES);
    if !last.is_empty() {
        error.push_str(":\n");
        error.push_str(&last.join("\n"));
    }
    Some(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outcome_follows_the_end_and_the_exit() {
        use LaunchStatus::*;
        assert_eq!(
            outcome(&Ended::Exited, Some(0), false),
            (Ok, LaunchStop::Completed)
        );
        assert_eq!(
            outcome(&Ended::Exited, Some(1), false),
            (Failed, LaunchStop::ExitStatus)
        );
        assert_eq!(
            outcome(&Ended::Exited, None, true),
            (Failed, LaunchStop::Signal)
        );
        assert_eq!(
            outcome(&Ended::MaxSeconds, None, true),
            (Stopped, LaunchStop::MaxSeconds)
        );
        assert_eq!(
            outcome(&Ended::Stopped("x".into()), Some(0), false),
            (Stopped, LaunchStop::Stopped),
            "a stopped run is stopped even when the program exits 0"
        );
    }
}
