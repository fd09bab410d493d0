//! The last known good answers, 003's cached fallback: with
//! `safe_mode.fallback: "last_known_good"`, every good answer a tool gives
//! is remembered by its arguments, and a call that fails fast (breaker
//! open, bulkhead full, retry budget spent) is served the most recent one
//! for the same arguments, marked stale. `--cache DIR` keeps them between
//! runs in one file per scenario, written whole (a temporary file renamed
//! over the old one) and with every secret scrubbed out.

use parking_lot::Mutex;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The cache file's format version.
const VERSION: u64 = 1;

/// A cache file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct CacheError {
    pub(crate) path: String,
    pub(crate) message: String,
}

#[derive(Debug)]
pub(crate) struct LastKnownGood {
    /// Tool, then the arguments in canonical form.
    answers: Mutex<BTreeMap<String, BTreeMap<String, Value>>>,
    /// Where they are kept between runs, if anywhere.
    file: Option<PathBuf>,
}

impl LastKnownGood {
    /// The answers of this run only.
    pub(crate) fn in_memory() -> Self {
        LastKnownGood {
            answers: Mutex::new(BTreeMap::new()),
            file: None,
        }
    }

    /// The answers kept in `dir` for `scenario`, which this run adds to; no
    /// folder or file yet is an empty cache (the folder is made, parents
    /// and all, as the user asked for it), a file that is not one is an
    /// error.
    pub(crate) fn in_dir(dir: &Path, scenario: &str) -> Result<Self, CacheError> {
        let file = dir.join(format!("{}.json", file_stem(scenario)));
        let shown = crate::sanitize::clean(&file.display().to_string()).into_owned();
        let error = |message: String| CacheError {
            path: shown.clone(),
            message,
        };
        if !dir.is_dir() {
            let shown_dir = crate::sanitize::clean(&dir.display().to_string()).into_owned();
            if dir.exists() {
                return Err(CacheError {
                    path: shown_dir,
                    message: "expected a folder for --cache, found something else".into(),
                });
            }
            std::fs::create_dir_all(dir).map_err(|e| CacheError {
                path: shown_dir,
                message: format!("expected a folder for --cache; cannot make it: {e}"),
            })?;
        }
        let answers = match std::fs::read(&file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(error(format!("cannot read the cache: {e}"))),
            Ok(bytes) => read(&bytes).map_err(|why| {
                error(format!(
                    "{why}; expected a Conclave cache ({{\"version\": 1, \"answers\": {{tool: {{args: answer}}}}}}): delete it to start afresh"
                ))
            })?,
        };
        Ok(LastKnownGood {
            answers: Mutex::new(answers),
            file: Some(file),
        })
    }

    /// `tool` answered `answer` to `args`.
    pub(crate) fn remember(&self, tool: &str, args: &Value, answer: &Value) {
        self.answers
            .lock()
            .entry(tool.to_string())
            .or_default()
            .insert(canonical(args), answer.clone());
    }

    /// The last good answer of `tool` to `args`, if it ever gave one.
    pub(crate) fn recall(&self, tool: &str, args: &Value) -> Option<Value> {
        self.answers
            .lock()
            .get(tool)?
            .get(&canonical(args))
            .cloned()
    }

    /// Write the answers to the cache file, if there is one: whole, then
    /// renamed over the old file, so that a crash leaves one or the other.
    pub(crate) fn save(&self) -> Result<(), CacheError> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        let mut answers = Map::new();
        for (tool, by_args) in self.answers.lock().iter() {
            let by_args: Map<String, Value> = by_args
                .iter()
                .map(|(args, answer)| (args.clone(), answer.clone()))
                .collect();
            answers.insert(tool.clone(), Value::Object(by_args));
        }
        let mut document = serde_json::json!({"version": VERSION, "answers": answers});
        crate::secrets::scrub_json(&mut document);
        let error = |e: std::io::Error| CacheError {
            path: crate::sanitize::clean(&file.display().to_string()).into_owned(),
            message: format!("cannot write the cache: {e}"),
        };
        let temporary = file.with_extension("json.tmp");
        std::fs::write(&temporary, document.to_string()).map_err(error)?;
        std::fs::rename(&temporary, file).map_err(error)
    }
}

fn read(bytes: &[u8]) -> Result<BTreeMap<String, BTreeMap<String, Value>>, String> {
    let document: Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
    if document.get("version").and_then(Value::as_u64) != Some(VERSION) {
        return Err("no \"version\": 1".into());
    }
    let Some(answers) = document.get("answers").and_then(Value::as_object) else {
        return Err("no \"answers\" object".into());
    };
    let mut read = BTreeMap::new();
    for (tool, by_args) in answers {
        let Some(by_args) = by_args.as_object() else {
            return Err(format!("answers.{tool}: expected an object of answers"));
        };
        let by_args = by_args
            .iter()
            .map(|(args, answer)| (args.clone(), answer.clone()))
            .collect();
        read.insert(tool.clone(), by_args);
    }
    Ok(read)
}

/// `args` written with every object's keys in order, so that the same
/// arguments give the same key however they were written.
fn canonical(args: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&map[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(args).to_string()
}

/// A file name for `scenario`: its letters, digits, `-` and `_`, the rest
/// as `_`.
fn file_stem(scenario: &str) -> String {
    let stem: String = scenario
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() {
        "scenario".into()
    } else {
        stem
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_same_arguments_in_another_order_find_the_same_answer() {
        let good = LastKnownGood::in_memory();
        good.remember("vendor", &json!({"region": "US", "date": "d"}), &json!(1));
        assert_eq!(
            good.recall("vendor", &json!({"date": "d", "region": "US"})),
            Some(json!(1))
        );
        assert_eq!(good.recall("vendor", &json!({"region": "CA"})), None);
        assert_eq!(good.recall("other", &json!({"region": "US"})), None);
    }

    #[test]
    fn answers_kept_in_a_folder_come_back_and_a_damaged_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let good = LastKnownGood::in_dir(dir.path(), "vendor outage/1").unwrap();
        good.remember("vendor", &json!({"region": "US"}), &json!({"tier": "gold"}));
        good.save().unwrap();
        let file = dir.path().join("vendor_outage_1.json");
        assert!(file.exists());
        assert!(!dir.path().join("vendor_outage_1.json.tmp").exists());
        let again = LastKnownGood::in_dir(dir.path(), "vendor outage/1").unwrap();
        assert_eq!(
            again.recall("vendor", &json!({"region": "US"})),
            Some(json!({"tier": "gold"}))
        );

        std::fs::write(&file, "{\"version\": 1, \"answers\": [").unwrap();
        let damaged = LastKnownGood::in_dir(dir.path(), "vendor outage/1").unwrap_err();
        assert!(damaged.path.ends_with("vendor_outage_1.json"), "{damaged}");
        assert!(damaged.message.starts_with("not JSON"), "{damaged}");
        std::fs::write(&file, "{\"version\": 7}").unwrap();
        let other = LastKnownGood::in_dir(dir.path(), "vendor outage/1").unwrap_err();
        assert!(
            other.to_string().contains("expected a Conclave cache"),
            "{other}"
        );

        let made = dir.path().join("not/yet/there");
        LastKnownGood::in_dir(&made, "x").expect("a folder that is not there yet is made");
        assert!(made.is_dir());
        let a_file = dir.path().join("vendor_outage_1.json");
        let not_a_folder = LastKnownGood::in_dir(&a_file, "x").unwrap_err();
        assert!(
            not_a_folder
                .message
                .contains("expected a folder for --cache"),
            "{not_a_folder}"
        );
        let under_a_file = LastKnownGood::in_dir(&a_file.join("cache"), "x").unwrap_err();
        assert!(
            under_a_file.message.contains("cannot make it"),
            "{under_a_file}"
        );
    }
}
