//! What the picker offers: every `*.json` file of the scenarios folder with
//! its title, pattern and description (or the reason it cannot be launched),
//! then the most recent recordings to replay. The shipped scenarios are
//! built in, so the picker is never empty on a fresh machine.

use crate::scenario::{self, Scenario};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One entry of the picker.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// Where it comes from, as shown: a path or `built-in`.
    pub(crate) origin: String,
    pub(crate) item: Item,
}

#[derive(Clone, Debug)]
pub(crate) enum Item {
    /// A scenario to launch, or why it cannot be.
    Scenario(Result<Arc<Scenario>, String>),
    /// A recording to replay.
    Recording(PathBuf),
}

impl Entry {
    pub(crate) fn title(&self) -> String {
        match &self.item {
            Item::Scenario(Ok(s)) => s.title.clone().unwrap_or_else(|| s.name.clone()),
            Item::Scenario(Err(_)) => self.origin.clone(),
            Item::Recording(path) => format!(
                "replay {}",
                path.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            ),
        }
    }

    /// What the entry is, in a word or two.
    pub(crate) fn kind(&self) -> String {
        match &self.item {
            Item::Scenario(Ok(s)) => s.pattern.to_string(),
            Item::Scenario(Err(_)) => "invalid".to_string(),
            Item::Recording(_) => "recording".to_string(),
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
            item: Item::Recording(path),
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
        let titles: Vec<String> = recordings(dir.path(), 2).iter().map(Entry::title).collect();
        assert_eq!(titles, vec!["replay new.jsonl", "replay mid.jsonl"]);
    }
}
