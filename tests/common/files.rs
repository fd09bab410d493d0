//! Scenario files for the loader's tests: valid documents changed at one
//! place, the errors the loader reports for them, and texts broken at
//! random that it must refuse without a panic.

use conclave::scenario::{self, ScenarioErrors};
use serde_json::Value;

/// The errors of `text` loaded as `bad.json`; panics if it loads.
pub fn errors_of(text: &str) -> ScenarioErrors {
    scenario::parse(text, "bad.json")
        .err()
        .unwrap_or_else(|| panic!("expected errors for:\n{text}"))
}

/// `document` changed at a JSON pointer: the value set there, or the key
/// removed with `None`. Pretty-printed, so that each value stands on a line
/// of its own and an error's line and column find it.
pub fn edit(mut document: Value, pointer: &str, value: Option<Value>) -> String {
    let (parent, key) = pointer
        .rsplit_once('/')
        .unwrap_or_else(|| panic!("{pointer:?} is not a JSON pointer"));
    // The last step is unescaped by hand, as `pointer_mut` does the others:
    // `~1` stands for `/` (URLs as keys) and `~0` for `~`.
    let key = key.replace("~1", "/").replace("~0", "~");
    let target = document
        .pointer_mut(parent)
        .unwrap_or_else(|| panic!("no {parent} in the document"));
    match (target, value) {
        (Value::Object(map), Some(v)) => {
            map.insert(key, v);
        }
        (Value::Object(map), None) => {
            map.remove(&key);
        }
        (Value::Array(items), Some(v)) => items[key.parse::<usize>().unwrap()] = v,
        (other, _) => panic!("cannot edit {other}"),
    }
    serde_json::to_string_pretty(&document).unwrap()
}

/// Each case is `(what, text, fragment)`: `text` must fail to load, the
/// errors shown must contain `fragment`, and every error must name the file
/// and give a line and column.
pub fn assert_documented(cases: &[(&str, String, &str)]) {
    for (what, text, fragment) in cases {
        let errors = scenario::parse(text, "bad.json")
            .err()
            .unwrap_or_else(|| panic!("{what}: expected errors for:\n{text}"));
        let shown = errors.to_string();
        assert!(
            shown.contains(fragment),
            "{what}: expected {fragment:?} in\n{shown}"
        );
        for error in &errors.0 {
            assert!(
                error.to_string().starts_with("bad.json"),
                "{what}: names the file:\n{error}"
            );
            assert!(
                error.position.is_some(),
                "{what}: has a line and column:\n{error}"
            );
        }
    }
}

/// The line and column, both from 1, where `needle` first stands in `text`.
pub fn position_of(text: &str, needle: &str) -> (usize, usize) {
    text.lines()
        .enumerate()
        .find_map(|(i, line)| line.find(needle).map(|at| (i + 1, at + 1)))
        .unwrap_or_else(|| panic!("{needle:?} is not in\n{text}"))
}

/// Loads `per_text` broken copies of each text, from a xorshift generator
/// started at `seed` so that every run tries the same ones: a copy is cut
/// short, has one byte changed, or has a few bytes swapped for one of
/// `replacements`. A panic fails the test; errors are expected. Returns how
/// many broken copies still loaded.
pub fn never_panics(texts: &[String], seed: u64, per_text: usize, replacements: &[&str]) -> usize {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut parsed = 0;
    for text in texts {
        let bytes = text.as_bytes();
        for _ in 0..per_text {
            let mut broken = bytes.to_vec();
            match next() % 3 {
                0 => broken.truncate((next() as usize) % bytes.len()),
                1 => {
                    let at = (next() as usize) % broken.len();
                    broken[at] = (next() % 128) as u8;
                }
                _ => {
                    let at = (next() as usize) % broken.len();
                    let with = replacements[(next() as usize) % replacements.len()];
                    let end = (at + 1 + (next() as usize) % 12).min(broken.len());
                    broken.splice(at..end, with.bytes());
                }
            }
            if scenario::parse(&String::from_utf8_lossy(&broken), "fuzz.json").is_ok() {
                parsed += 1;
            }
        }
    }
    parsed
}

/// The shipped scenarios as JSON documents with their file names
/// (`checkout_v2_launch.json`), in name order.
/// The shipped scenarios whose workers are all simulated, which run on the
/// virtual clock (those with real workers need `conclave toolbox serve`:
/// `real_examples.rs` runs them).
pub fn shipped_documents() -> Vec<(String, Value)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios");
    let mut all: Vec<(String, Value)> = std::fs::read_dir(root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            (
                name,
                serde_json::from_slice::<Value>(&std::fs::read(&path).unwrap()).unwrap(),
            )
        })
        .filter(|(_, document)| {
            serde_json::from_value::<conclave::scenario::Scenario>(document.clone())
                .is_ok_and(|s| !s.has_real_calls())
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(all.len() >= 10, "the shipped scenarios are found");
    all
}
