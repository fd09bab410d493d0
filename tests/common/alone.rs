//! A test that measures its whole process runs in a process of its own:
//! this test binary again, filtered to that one test. What such a test
//! measures holds for every thread of its process (the counting
//! allocator's figures), or starts at its process's size (a child's peak
//! memory counts the parent's pages at the fork), so it cannot share the
//! big test process with the tests running beside it. Started this way it
//! still runs beside them, on a core they leave idle.

use std::ffi::OsStr;
use std::process::Command;

/// Set in the process started for one test: that test's name.
const ALONE: &str = "CONCLAVE_TEST_ALONE";

/// Whether this process is the one to run test `test` of the module at
/// `module` (its `module_path!()`). If it is not, the test runs in a
/// process of its own, with `env` set, and is waited for: that process
/// must pass exactly that one test, so that a misspelt name fails here
/// rather than passing with nothing run.
pub fn here(module: &str, test: &str, env: &[(&str, &OsStr)]) -> bool {
    // The module's path starts with the test binary's crate; the test's
    // name in the binary does not.
    let module = module.split_once("::").map_or("", |(_, module)| module);
    let name = format!("{module}::{test}");
    if std::env::var(ALONE).is_ok_and(|alone| alone == name) {
        return true;
    }
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([&name, "--exact", "--test-threads=1", "--nocapture"])
        .env(ALONE, &name);
    for (variable, value) in env {
        command.env(variable, value);
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{name}, in a process of its own: {}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("test result: ok. 1 passed"),
        "{name} did not run in the process started for it:\n{stdout}"
    );
    false
}
