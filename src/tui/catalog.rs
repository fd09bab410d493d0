//! What the picker offers: every `*.json` file of the scenarios folder with
//! its title, pattern and description (or the reason it cannot be launched),
//! then the most recent recordings to replay, each with the run it holds
//! and how it ended, read from the file's first line and its last ones
//! only. The shipped scenarios are built in, so the picker is never empty
//! on a fresh machine.

use crate::bus::{Event, EventKind, RunStatus, RunSummary};
use crate::scenario::{self, PatternKind, Scenario};
use crate::stop::StopReason;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How much of a recording's start and of its end the picker reads: a
/// run's first line (its scenario) and its finish fit in it, and a long
/// recording costs no more than a short one.
const PEEK_BYTES: u64 = 256 * 1024;

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
    /// Read what the picker shows of the recording at `path`: its first
    /// line and its last `PEEK_BYTES`, whatever the file's size.
    pub(crate) fn read(path: &Path) -> Recorded {
        let (start, finish) = match std::fs::File::open(path) {
            Ok(mut file) => (first_run(&mut file), last_finish(&mut file)),
            Err(_) => (None, None),
        };
        Recorded {
            path: path.to_path_buf(),
            start,
            finish,
        }
    }

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
        if let Some(decision) = summary.decision {
            words.push_str(&format!(" · {}", upper(decision.as_str())));
        } else if let Some(health) = summary.health {
            words.push_str(&format!(" · health {}", upper(health.as_str())));
        } else if let Some(agent) = &summary.final_agent {
            words.push_str(&format!(" · by {agent}"));
        }
        if let Some(failed) = summary.counts.failed_tasks.filter(|n| *n > 0) {
            let tasks = summary
                .counts
                .tasks
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

/// The start of the run whose start is the file's first line, when that
/// line fits in `PEEK_BYTES`.
fn first_run(file: &mut std::fs::File) -> Option<Start> {
    let mut head = Vec::new();
    file.by_ref().take(PEEK_BYTES).read_to_end(&mut head).ok()?;
    let end = head.iter().position(|b| *b == b'\n').unwrap_or(head.len());
    match serde_json::from_slice::<Event>(&head[..end]).ok()?.kind {
        EventKind::RunStarted(started) => Some(Start {
            name: started.scenario.name.clone(),
            pattern: started.pattern,
            seed: started.seed,
            started_at_ms: started.started_at_ms,
            flags: crate::tui::text::flag_changes(
                started.flags.iter().map(|f| (f.name.as_str(), f.on)),
                &started.scenario,
            ),
        }),
        _ => None,
    }
}

/// The run's finish, if one of the last lines in the file's last
/// `PEEK_BYTES` is one.
fn last_finish(file: &mut std::fs::File) -> Option<Finish> {
    let len = file.metadata().ok()?.len();
    let from = len.saturating_sub(PEEK_BYTES);
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut tail = Vec::new();
    file.take(PEEK_BYTES).read_to_end(&mut tail).ok()?;
    let mut lines: Vec<&[u8]> = tail.split(|b| *b == b'\n').collect();
    if from > 0 {
        // The first piece is the end of a line cut by the seek.
        lines.remove(0);
    }
    lines
        .into_iter()
        .rev()
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .take(4)
        .find_map(
            |line| match serde_json::from_slice::<Event>(line).ok()?.kind {
                EventKind::RunFinished {
                    status,
                    stop_reason,
                    summary,
                    ..
                } => Some(Finish {
                    status,
                    stop_reason,
                    summary,
                }),
                _ => None,
            },
        )
}

impl Entry {
    pub(crate) fn title(&self) -> String {
        match &self.item {
            Item::Scenario(Ok(s)) => s.title.clone().unwrap_or_else(|| s.name.clone()),
            Item::Scenario(Err(_)) => self.origin.clone(),
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
            Item::Scenario(Ok(_)) => String::new(),
            Item::Scenario(Err(_)) => "cannot be launched".to_string(),
            Item::Recording(recorded) => recorded.outcome(),
            Item::Remote(live) => format!("▶ {} · {} events", live.id, live.events),
        }
    }
}

/// The `limit` most recent recordings in `dir`, newest first.
pub(crate) fn recordings(dir: &Path, limit: usize) -> Vec<Entry> {
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
                .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
                .collect()
        })
        .unwrap_or_default();
    files.sort_by(|a, b| b.cmp(a));
    files
        .into_iter()
        .take(limit)
        .map(|(_, path)| Entry {
            origin: path.display().to_string(),
            item: Item::Recording(Recorded::read(&path)),
        })
        .collect()
}

include!(concat!(env!("OUT_DIR"), "/built_in_scenarios.rs"));

/// The entries of `dir`, sorted by file name, or the built-in scenarios when
/// the folder has none.
pub(crate) fn load(dir: &Path) -> Vec<Entry> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    if files.is_empty() {
        return built_in();
    }
    files
        .into_iter()
        .map(|path| Entry {
            origin: path.display().to_string(),
            item: Item::Scenario(
                scenario::load(&path)
                    .map(Arc::new)
                    .map_err(|e| e.to_string()),
            ),
        })
        .collect()
}

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
    fn a_folder_lists_its_files_and_their_problems() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.json"), "{").unwrap();
        std::fs::write(dir.path().join("a.json"), BUILT_IN[0].1).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        let entries = load(dir.path());
        assert_eq!(entries.len(), 2);
        assert!(matches!(entries[0].item, Item::Scenario(Ok(_))));
        assert!(matches!(&entries[1].item, Item::Scenario(Err(e)) if e.contains("not valid JSON")));
        assert_eq!(default_index(&entries), 0);
        assert_eq!(load(&dir.path().join("missing")).len(), BUILT_IN.len());
    }

    #[test]
    fn recordings_are_listed_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        for (name, age) in [("old.jsonl", 300), ("new.jsonl", 0), ("mid.jsonl", 100)] {
            let path = dir.path().join(name);
            std::fs::write(&path, "{}").unwrap();
            let when = std::time::SystemTime::now() - std::time::Duration::from_secs(age);
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(when)
                .unwrap();
        }
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        let entries = recordings(dir.path(), 2);
        let titles: Vec<String> = entries.iter().map(Entry::title).collect();
        assert_eq!(titles, vec!["replay new.jsonl", "replay mid.jsonl"]);
        assert_eq!(entries[0].state(), "no finish (cut short)");
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

    /// A recording is listed by the run it holds and how it ended, read
    /// from its first line and its end however long it is.
    #[test]
    fn a_recording_is_listed_with_its_scenario_and_its_outcome() {
        use crate::bus::{ClockMode, Health, RunStarted};
        let Item::Scenario(Ok(scenario)) = &built_in()[0].item else {
            panic!("a valid built-in scenario");
        };
        let event = |seq: u64, kind: EventKind| {
            let line = serde_json::to_string(&Event {
                run: 1,
                seq,
                t_ms: seq,
                kind,
            })
            .unwrap();
            format!("{line}\n")
        };
        let mut text = event(
            1,
            EventKind::RunStarted(RunStarted {
                pattern: scenario.pattern,
                seed: 1,
                goal: "g".into(),
                clock: ClockMode::Virtual,
                flags: vec![crate::bus::FlagState {
                    name: "legal_analyst".into(),
                    on: true,
                }],
                source: None,
                started_at_ms: 0,
                model: None,
                scenario: Arc::clone(scenario),
                forked_from: None,
            }),
        );
        // More than the picker reads at either end.
        let mut seq = 2;
        while (text.len() as u64) < 2 * PEEK_BYTES {
            text.push_str(&event(
                seq,
                EventKind::FlagChanged {
                    name: "legal_analyst".into(),
                    on: seq % 2 == 0,
                    gate: None,
                },
            ));
            seq += 1;
        }
        let dir = tempfile::tempdir().unwrap();
        let cut = dir.path().join("cut.jsonl");
        std::fs::write(&cut, &text).unwrap();
        let summary = RunSummary {
            health: Some(Health::Yellow),
            partial: true,
            ..RunSummary::default()
        };
        text.push_str(&event(
            seq,
            EventKind::RunFinished {
                status: RunStatus::Ok,
                stop_reason: StopReason::Success,
                phase: None,
                result: std::sync::Arc::new(serde_json::json!({"status": "ok"}).into()),
                summary: Box::new(summary),
                error: None,
            },
        ));
        let whole = dir.path().join("whole.jsonl");
        std::fs::write(&whole, &text).unwrap();

        let recorded = Recorded::read(&whole);
        let start = recorded.start.clone().expect("the run's start");
        assert_eq!(
            (start.name.as_str(), start.pattern, start.seed),
            (scenario.name.as_str(), scenario.pattern, 1)
        );
        // Finished with work undone: partial, in the failed-only view.
        assert_eq!(recorded.outcome(), "◐ success · health YELLOW · partial");
        assert!(recorded.partial());
        assert!(recorded.failed());
        let entry = Entry {
            origin: "whole.jsonl".into(),
            item: Item::Recording(recorded),
        };
        // Told apart by its seed and the flag it turned on; no start time
        // is shown for a run that recorded none.
        assert_eq!(
            entry.title(),
            format!("replay {} · seed 1 +legal_analyst", scenario.name)
        );
        assert_eq!(entry.kind(), scenario.pattern.to_string());

        let recorded = Recorded::read(&cut);
        assert_eq!(recorded.outcome(), "no finish (cut short)");
        assert!(recorded.failed());
        assert!(recorded.start.is_some());
        let missing = Recorded::read(&dir.path().join("gone.jsonl"));
        assert_eq!((missing.start, missing.finish), (None, None));
    }
}
