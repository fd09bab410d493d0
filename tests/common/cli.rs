//! The built binary run as a user runs it, from the project's folder so
//! that scenario paths are the ones the README shows.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// Run `conclave` with `args` and wait for it to exit.
pub fn conclave(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

/// `conclave run APP --headless --record RECORD`, which must exit 0 (its
/// stderr said if not): the run's result.
pub fn run_recorded(app: &str, record: &Path) -> Value {
    let record = record.to_str().expect("a test's paths are text");
    let out = conclave(&["run", app, "--headless", "--record", record]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    result(&out)
}

/// The one JSON document a run prints on stdout; panics with both streams
/// when stdout is anything else.
pub fn result(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is one JSON document ({e}):\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The lines of the recording at `path` as far as they are whole (a
/// recording being written may end in a line cut short); none when it
/// is not there yet.
pub fn recording_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The names of the files in `dir`, sorted.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
