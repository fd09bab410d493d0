//! What the picker offers: every `*.json` file of the scenarios folder with
//! its title, pattern and description (or the reason it cannot be launched),
//! then the most recent recordings to replay, each with the run it holds
//! and how it ended. The shipped scenarios are built in, so the picker is
//! never empty on a fresh machine. The folders are scanned by the loop
//! (`world::catalog_scan`); this is what the picker makes of them.

use crate::bus::{RunStatus, RunSummary};
use crate::patterns::events::{Decision, Health};
use crate::patterns::figures::{FAILED_TASKS, TASKS};
use crate::scenario::{self, PatternKind, Scenario};
use crate::stop::StopReason;
use std::path::PathBuf;
use std::sync::Arc;

/// One entry of the picker.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Where it comes from, as shown: a path or `built-in`.
    pub origin: String,
    pub(crate) item: Item,
}

#[derive(Clone, Debug)]
pub(crate) enum Item {
    /// A scenario to launch, or why it cannot be.
    Scenario(Result<Arc<Scenario>, String>),
    /// A recording to replay.
    Recording(Recorded),
    /// A live run of another engine, to attach (`conclave attach`).
    Remote(crate::nats::watch::LiveRun),
    /// A program scenario (`"pattern": "program"`), to launch as a run.
    Program(Arc<crate::launch::LoadedProgram>),
}

/// A recording as the picker lists it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Recorded {
    pub(crate) path: PathBuf,
    /// What the run's start tells of it, from its first line.
    pub(crate) start: Option<Start>,
    /// How the run ended; `None` when the file's end holds no finish (a
    /// run cut short, or a damaged end).
    pub(crate) finish: Option<Finish>,
}

/// A recorded run's start, as the picker tells runs of one scenario apart:
/// the scenario, its pattern, the seed, when it started and the flags it
/// was launched with where they differ from the scenario's defaults.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Start {
    pub(crate) name: String,
    pub(crate) pattern: PatternKind,
    pub(crate) seed: u64,
    pub(crate) started_at_ms: u64,
    pub(crate) flags: Vec<String>,
}

impl Start {
    /// `loyalty_program_deadlock · 11-25 14:03:22 · seed 5 · +legal_analyst`,
    /// the time in the machine's zone.
    fn words(&self) -> String {
        let mut words = self.name.clone();
        if let Some(at) = i64::try_from(self.started_at_ms)
            .ok()
            .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
            .filter(|_| self.started_at_ms > 0)
        {
            let local = at.to_zoned(jiff::tz::TimeZone::system());
            words.push_str(&format!(" · {}", local.strftime("%m-%d %H:%M:%S")));
        }
        words.push_str(&format!(" · seed {}", self.seed));
        for flag in &self.flags {
            words.push_str(&format!(" {flag}"));
        }
        words
    }
}

/// How a recorded run ended, from its `run_finished`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Finish {
    pub(crate) status: RunStatus,
    pub(crate) stop_reason: StopReason,
    pub(crate) summary: Box<RunSummary>,
}

impl Recorded {
    /// How the run ended, in words: `✓ success · GO WITH CAUTION`,
    /// `✗ max_rounds`, `· partial`; or that the file has no finish.
    pub(crate) fn outcome(&self) -> String {
        let Some(finish) = &self.finish else {
            return "no finish (cut short)".to_string();
        };
        let glyph = match finish.status {
            RunStatus::Ok if finish.summary.falls_short() => "◐",
            RunStatus::Ok => "✓",
            RunStatus::Stopped => "✗",
        };
        let mut words = format!("{glyph} {}", finish.stop_reason);
        let summary = &finish.summary;
        if let Some(decision) = summary.read::<Decision>("decision") {
            words.push_str(&format!(" · {}", upper(decision.as_str())));
        } else if let Some(health) = summary.read::<Health>("health") {
            words.push_str(&format!(" · health {}", upper(health.as_str())));
        } else if let Some(agent) = summary.text("final_agent") {
            words.push_str(&format!(" · by {agent}"));
        }
        if let Some(failed) = summary.counts.get(FAILED_TASKS).filter(|n| *n > 0) {
            let tasks = summary
                .counts
                .get(TASKS)
                .map_or(String::new(), |t| format!(" of {t}"));
            words.push_str(&format!(
                " · {failed}{tasks} task{} failed",
                if failed == 1 && tasks.is_empty() {
                    ""
                } else {
                    "s"
                }
            ));
        }
        if summary.falls_short() {
            words.push_str(" · partial");
        }
        words
    }

    /// Whether the run stopped short of its goal, finished with work
    /// undone (partial), or has no finish.
    pub(crate) fn failed(&self) -> bool {
        self.finish
            .as_ref()
            .is_none_or(|f| f.status == RunStatus::Stopped || f.summary.falls_short())
    }

    /// Whether the run finished with work undone.
    pub(crate) fn partial(&self) -> bool {
        self.finish
            .as_ref()
            .is_some_and(|f| f.status == RunStatus::Ok && f.summary.falls_short())
    }
}

/// The live runs of other engines, as the picker offers them to attach.
pub(crate) fn remote(runs: Vec<crate::nats::watch::LiveRun>) -> Vec<Entry> {
    runs.into_iter()
        .map(|live| Entry {
            origin: format!("run {} over NATS", live.id),
            item: Item::Remote(live),
        })
        .collect()
}

fn upper(word: &str) -> String {
    word.replace('_', " ").to_uppercase()
}

impl Entry {
    pub(crate) fn title(&self) -> String {
        match &self.item {
            Item::Scenario(Ok(s)) => s.title.clone().unwrap_or_else(|| s.name.clone()),
            Item::Scenario(Err(_)) => self.origin.clone(),
            Item::Program(p) => p
                .scenario
                .title
                .clone()
                .unwrap_or_else(|| p.scenario.name.clone()),
            Item::Remote(live) => live
                .scenario
                .title
                .clone()
                .unwrap_or_else(|| live.scenario.name.clone()),
            Item::Recording(recorded) => match &recorded.start {
                Some(start) => format!("replay {}", start.words()),
                None => format!(
                    "replay {}",
                    recorded
                        .path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default()
                ),
            },
        }
    }

    /// What the entry is, in a word or two.
    pub(crate) fn kind(&self) -> String {
        match &self.item {
            Item::Scenario(Ok(s)) => s.pattern.to_string(),
            Item::Scenario(Err(_)) => "invalid".to_string(),
            Item::Program(_) => "program".to_string(),
            Item::Remote(live) => live.pattern.to_string(),
            Item::Recording(recorded) => match &recorded.start {
                Some(start) => start.pattern.to_string(),
                None => "recording".to_string(),
            },
        }
    }

    /// Its state in words: how a recorded run ended, or why a scenario
    /// cannot be launched; nothing for a scenario ready to launch.
    pub(crate) fn state(&self) -> String {
        match &self.item {
            Item::Scenario(Ok(_)) | Item::Program(_) => String::new(),
            Item::Scenario(Err(_)) => "cannot be launched".to_string(),
            Item::Recording(recorded) => recorded.outcome(),
            Item::Remote(live) => format!("▶ {} · {} events", live.id, live.events),
        }
    }
}

include!(concat!(env!("OUT_DIR"), "/built_in_scenarios.rs"));

pub(crate) fn built_in() -> Vec<Entry> {
    BUILT_IN
        .iter()
        .map(|(name, text)| Entry {
            origin: format!("built-in {name}"),
            item: Item::Scenario(
                scenario::parse(text, name)
                    .map(Arc::new)
                    .map_err(|e| e.to_string()),
            ),
        })
        .collect()
}

/// The entry to select first: the checkout launch when present.
pub(crate) fn default_index(entries: &[Entry]) -> usize {
    entries
        .iter()
        .position(|e| matches!(&e.item, Item::Scenario(Ok(s)) if s.name == "checkout_v2_launch"))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_scenarios_are_valid() {
        for entry in built_in() {
            assert!(
                matches!(entry.item, Item::Scenario(Ok(_))),
                "{}: {:?}",
                entry.origin,
                entry.item
            );
        }
    }

    #[test]
    fn a_start_is_told_by_its_time_in_the_machines_zone() {
        let start = Start {
            name: "loyalty".into(),
            pattern: serde_json::from_value("collaboration".into()).unwrap(),
            seed: 7,
            started_at_ms: 1_764_000_000_000,
            flags: vec!["-breakers".into()],
        };
        let local = jiff::Timestamp::from_millisecond(1_764_000_000_000)
            .unwrap()
            .to_zoned(jiff::tz::TimeZone::system())
            .strftime("%m-%d %H:%M:%S")
            .to_string();
        assert_eq!(
            start.words(),
            format!("loyalty · {local} · seed 7 -breakers")
        );
    }
}
