//! A pattern's words stay in its two folders (`src/patterns/<p>/` and
//! `src/tui/patterns/<p>/`): the shared floors see a pattern through its
//! registries and traits, so few files outside name a pattern's kind or
//! its own vocabulary. Read from the source as it stands, its tests left
//! out (a test file, or a file's part from its `#[cfg(test)]` on).

use crate::common::sources::rust_files;
use std::path::Path;

/// The words only a pattern's own folders should need.
const PATTERN_WORDS: [&str; 5] = ["handoff", "stance", "citation", "consensus", "contribution"];

/// The files outside the pattern folders, each with its text before its
/// tests, named from `src/`.
fn shared_floors() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .into_iter()
        .filter_map(|path| {
            let name = path
                .strip_prefix(&src)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            let own = name.starts_with("patterns/") || name.starts_with("tui/patterns/");
            let test = name.ends_with("tests.rs") || name.split('/').any(|part| part == "tests");
            if own || test {
                return None;
            }
            let text = std::fs::read_to_string(&path).ok()?;
            let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
            Some((name, code))
        })
        .collect()
}

/// Fails unless at most `limit` of the shared floors' files have code in
/// which `says` finds `what`.
fn at_most(limit: usize, what: &str, says: impl Fn(&str) -> bool) {
    let naming: Vec<String> = shared_floors()
        .into_iter()
        .filter(|(_, code)| says(code))
        .map(|(name, _)| name)
        .collect();
    assert!(
        naming.len() <= limit,
        "{} files name {what}: {naming:?}",
        naming.len()
    );
}

#[test]
fn at_most_three_files_outside_the_pattern_folders_name_a_pattern_kind() {
    at_most(3, "`PatternKind::`", |code| code.contains("PatternKind::"));
}

/// The watch (`src/watch/`, `src/tui/watched/`) reads other frameworks'
/// traces, whose own vocabularies have handoffs (OpenInference's `handoff
/// to X`, the Agents SDK's `agent_handoff`): that word is the watch's own
/// there, not the swarm's, so its folders are counted apart from the
/// floors, and the floors' limit is what they need without them.
fn in_the_watch(name: &str) -> bool {
    name.starts_with("watch/") || name.starts_with("tui/watched/")
}

#[test]
fn at_most_two_files_outside_the_pattern_and_watch_folders_name_a_patterns_own_words() {
    let naming: Vec<String> = shared_floors()
        .into_iter()
        .filter(|(name, _)| !in_the_watch(name))
        .filter(|(_, code)| {
            let code = code.to_lowercase();
            PATTERN_WORDS.iter().any(|word| code.contains(word))
        })
        .map(|(name, _)| name)
        .collect();
    assert!(
        naming.len() <= 2,
        "{} files name a pattern's words: {naming:?}",
        naming.len()
    );
}

#[test]
fn the_watch_names_no_pattern_word_but_handoff() {
    let others: Vec<String> = shared_floors()
        .into_iter()
        .filter(|(name, _)| in_the_watch(name))
        .filter(|(_, code)| {
            let code = code.to_lowercase();
            PATTERN_WORDS
                .iter()
                .filter(|word| **word != "handoff")
                .any(|word| code.contains(word))
        })
        .map(|(name, _)| name)
        .collect();
    assert!(others.is_empty(), "{others:?}");
}

#[test]
fn the_floors_are_read_as_the_count_needs_them() {
    // The reading itself: the kinds' own file is among the floors, and a
    // pattern's file is not.
    let floors = shared_floors();
    assert!(floors.iter().any(|(name, code)| {
        name == "scenario/pattern_kind.rs" && code.contains("PatternKind::Graph")
    }));
    assert!(!floors.iter().any(|(name, _)| name.starts_with("patterns/")));
}

/// The folders under the patterns' floor: each pattern reaches them, so
/// none of them may reach back (the bus through its `Registry`, the
/// comparison through `CompareRules`, the telemetry through `Shapes`, the
/// scenario through `Sections` and `SectionChecks`).
const BELOW_THE_PATTERNS: [&str; 14] = [
    "bus/",
    "cassette/",
    "compare/",
    "control/",
    "gateway/",
    "provider/",
    "pycompat/",
    "record/",
    "scenario/",
    "secrets/",
    "stop/",
    "telemetry/",
    "toolbox/",
    "trust/",
];

#[test]
fn no_floor_below_the_patterns_imports_them() {
    let importing: Vec<String> = shared_floors()
        .into_iter()
        .filter(|(name, _)| BELOW_THE_PATTERNS.iter().any(|f| name.starts_with(f)))
        .filter(|(_, code)| code.contains("crate::patterns"))
        .map(|(name, _)| name)
        .collect();
    assert!(
        importing.is_empty(),
        "these import the patterns: {importing:?}"
    );
}
