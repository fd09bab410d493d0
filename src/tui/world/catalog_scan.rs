//! The picker's folders scanned, on a blocking thread of the loop's: every
//! `*.json` file of the scenarios folder loaded and checked, and the most
//! recent recordings, each peeked at its first line and its last ones
//! only, so a long recording costs no more than a short one. What the
//! picker shows of them is `tui::catalog`'s.

use crate::bus::{Event, EventKind};
use crate::scenario;
use crate::tui::catalog::{Entry, Finish, Item, Recorded, Start, built_in};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How many recent recordings the picker lists.
const RECENT_RECORDINGS: usize = 20;

/// How much of a recording's start and of its end the picker reads: a
/// run's first line (its scenario) and its finish fit in it, and a long
/// recording costs no more than a short one.
pub(crate) const PEEK_BYTES: u64 = 256 * 1024;

/// The picker's entries: the scenarios of `scenarios` (the built-in ones
/// when it has none), then the most recent recordings of `recordings`.
pub(crate) fn scan(scenarios: &Path, recordings: Option<&Path>) -> Vec<Entry> {
    let mut entries = load(scenarios);
    if let Some(dir) = recordings {
        entries.extend(recent(dir, RECENT_RECORDINGS));
    }
    entries
}

/// Read what the picker shows of the recording at `path`: its first line
/// and its last `PEEK_BYTES`, whatever the file's size.
pub(crate) fn peek(path: &Path) -> Recorded {
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

/// The `limit` most recent recordings in `dir`, newest first.
pub(crate) fn recent(dir: &Path, limit: usize) -> Vec<Entry> {
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
            item: Item::Recording(peek(&path)),
        })
        .collect()
}

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
            item: match crate::launch::sniff(&path) {
                // A program scenario is launched as a program (docs/launch.md).
                Some(Ok(program)) => Item::Program(Arc::new(program)),
                Some(Err(errors)) => Item::Scenario(Err(errors.to_string())),
                None => Item::Scenario(
                    scenario::load(&path)
                        .map(Arc::new)
                        .map_err(|e| e.to_string()),
                ),
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{RunStatus, RunSummary};
    use crate::stop::StopReason;
    use crate::tui::catalog::{BUILT_IN, Item, built_in, default_index};

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
        let entries = recent(dir.path(), 2);
        let titles: Vec<String> = entries.iter().map(Entry::title).collect();
        assert_eq!(titles, vec!["replay new.jsonl", "replay mid.jsonl"]);
        assert_eq!(entries[0].state(), "no finish (cut short)");
    }

    /// A recording is listed by the run it holds and how it ended, read
    /// from its first line and its end however long it is.
    #[test]
    fn a_recording_is_listed_with_its_scenario_and_its_outcome() {
        use crate::bus::{ClockMode, RunStarted};
        use crate::patterns::events::Health;
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
        let mut summary = RunSummary::default();
        summary.partial = true;
        summary.put("health", Health::Yellow);
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

        let recorded = peek(&whole);
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

        let recorded = peek(&cut);
        assert_eq!(recorded.outcome(), "no finish (cut short)");
        assert!(recorded.failed());
        assert!(recorded.start.is_some());
        let missing = peek(&dir.path().join("gone.jsonl"));
        assert_eq!((missing.start, missing.finish), (None, None));
    }
}
