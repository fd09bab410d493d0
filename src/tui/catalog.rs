//! The scenarios the picker offers: every `*.json` file of the scenarios
//! folder with its title, pattern and description, or the reason it cannot
//! be launched. The shipped scenarios are built in, so the picker is never
//! empty on a fresh machine.

use crate::scenario::{self, PatternKind, Scenario};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One entry of the picker.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Where it comes from, as shown: a path or `built-in`.
    pub origin: String,
    pub scenario: Result<Arc<Scenario>, String>,
}

impl Entry {
    pub fn title(&self) -> String {
        match &self.scenario {
            Ok(s) => s.title.clone().unwrap_or_else(|| s.name.clone()),
            Err(_) => self.origin.clone(),
        }
    }

    pub fn pattern(&self) -> Option<PatternKind> {
        self.scenario.as_ref().ok().map(|s| s.pattern)
    }
}

include!(concat!(env!("OUT_DIR"), "/built_in_scenarios.rs"));

/// The entries of `dir`, sorted by file name, or the built-in scenarios when
/// the folder has none.
pub fn load(dir: &Path) -> Vec<Entry> {
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
            scenario: scenario::load(&path)
                .map(Arc::new)
                .map_err(|e| e.to_string()),
        })
        .collect()
}

pub fn built_in() -> Vec<Entry> {
    BUILT_IN
        .iter()
        .map(|(name, text)| Entry {
            origin: format!("built-in {name}"),
            scenario: scenario::parse(text, name)
                .map(Arc::new)
                .map_err(|e| e.to_string()),
        })
        .collect()
}

/// The entry to select first: the checkout launch when present.
pub fn default_index(entries: &[Entry]) -> usize {
    entries
        .iter()
        .position(|e| matches!(&e.scenario, Ok(s) if s.name == "checkout_v2_launch"))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_scenarios_are_valid() {
        for entry in built_in() {
            assert!(
                entry.scenario.is_ok(),
                "{}: {:?}",
                entry.origin,
                entry.scenario.err()
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
        assert!(entries[0].scenario.is_ok());
        assert!(
            entries[1]
                .scenario
                .as_ref()
                .unwrap_err()
                .contains("not valid JSON")
        );
        assert_eq!(default_index(&entries), 0);
        assert_eq!(load(&dir.path().join("missing")).len(), BUILT_IN.len());
    }
}
