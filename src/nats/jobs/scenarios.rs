//! The scenarios a worker has been sent, each read once rather than once
//! per job, and whether this worker may run them. A scenario is known by
//! what the job carries (its source path and text), never by the sweep
//! that sent it: whoever names a sweep id gets the scenario of their own
//! job. It never runs anything and never reads a file the job does not
//! name.

use super::queue::{JobMessage, ScenarioText};
use crate::scenario::{self, Scenario};
use crate::sweep::SweepFork;
use crate::trust;
use parking_lot::Mutex;
use sha2::{Digest, Sha256};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

/// How many scenarios are kept: a worker serves one sweep at a time,
/// seldom a few.
const KEPT: usize = 4;

/// A scenario, parsed, or why it cannot be.
type Parsed = Result<Arc<Scenario>, String>;

/// A recording read for a sweep from a point, or why it cannot be.
type Forked = Result<Arc<SweepFork>, String>;

/// The SHA-256 of a job's source path and text, which is all that makes
/// the scenario it runs.
type Key = [u8; 32];

/// The last few scenarios, by the digest of what the jobs carried.
#[derive(Default)]
pub(crate) struct Scenarios {
    parsed: Mutex<VecDeque<(Key, Parsed)>>,
    /// The recordings of sweeps from a point, by the digest of what the
    /// jobs carried and the gate.
    forks: Mutex<VecDeque<(Key, Forked)>>,
}

impl Scenarios {
    /// The scenario a job carries, read from its text on first use.
    pub(crate) fn get(&self, text: &ScenarioText) -> Result<Arc<Scenario>, String> {
        let key = key(text);
        let mut parsed = self.parsed.lock();
        if let Some((_, scenario)) = parsed.iter().find(|(known, _)| *known == key) {
            return scenario.clone();
        }
        let scenario = read(text);
        if parsed.len() == KEPT {
            parsed.pop_front();
        }
        parsed.push_back((key, scenario.clone()));
        scenario
    }

    /// The scenario a job runs: the one it carries, or for a sweep from a
    /// point the recording's, with the fork to make of it.
    pub(crate) fn of_job(
        &self,
        job: &JobMessage,
    ) -> Result<(Arc<Scenario>, Option<Arc<SweepFork>>), String> {
        match &job.fork_at {
            Some(at) => {
                let fork = self.fork(&job.scenario, at)?;
                Ok((Arc::clone(fork.scenario()), Some(fork)))
            }
            None => Ok((self.get(&job.scenario)?, None)),
        }
    }

    /// The fork a job of a sweep from a point carries: its recording, read
    /// from its text on first use, and the gate.
    fn fork(&self, text: &ScenarioText, at: &str) -> Result<Arc<SweepFork>, String> {
        let mut digest = Sha256::new();
        digest.update(key(text));
        digest.update(at.as_bytes());
        let key: Key = digest.finalize().into();
        let mut forks = self.forks.lock();
        if let Some((_, fork)) = forks.iter().find(|(known, _)| *known == key) {
            return fork.clone();
        }
        let fork = SweepFork::of_text(Path::new(&text.source), text.text.clone(), at).map(Arc::new);
        if forks.len() == KEPT {
            forks.pop_front();
        }
        forks.push_back((key, fork.clone()));
        fork
    }

    /// Why this worker will not run `scenario`, if it will not: it starts
    /// programs and the worker was not started with `--allow-exec`. No
    /// allowance remembered on this machine counts: it was given to a file
    /// here, and a job only claims to be that file.
    pub(crate) fn refusal(&self, scenario: &Scenario, allow_exec: bool) -> Option<String> {
        let consent = trust::consent_for(scenario)?;
        if allow_exec {
            return None;
        }
        let programs: Vec<String> = consent.programs.iter().map(|p| p.argv.join(" ")).collect();
        Some(format!(
            "{} starts programs ({}); a worker runs them only when started with --allow-exec",
            scenario.origin.file(),
            programs.join("; ")
        ))
    }
}

/// Why this worker will not run the job's scenario when it is a program
/// scenario (`"pattern": "program"`, docs/launch.md): workers do not
/// launch programs, and the refusal says whether this worker has the
/// program at all (a program scenario runs only where its program is).
pub(crate) fn program_refusal(text: &ScenarioText) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(&text.text).ok()?;
    if value.get("pattern").and_then(|p| p.as_str()) != Some("program") {
        return None;
    }
    let source = &text.source;
    let not_yet = "workers do not run program scenarios yet; sweep it without --nats \
         on a machine that has the program (docs/sweeps_and_nats.md)";
    let first = value.pointer("/command/0").and_then(|c| c.as_str());
    let Some(first) = first else {
        return Some(format!("{source}: a program scenario; {not_yet}"));
    };
    let folder = Path::new(source).parent().unwrap_or(Path::new(""));
    let folder = match value.get("cwd").and_then(|c| c.as_str()) {
        Some(cwd) => folder.join(cwd),
        None => folder.to_path_buf(),
    };
    let path_var = value.pointer("/env/PATH").and_then(|p| p.as_str());
    let path_var = path_var
        .map(str::to_string)
        .or_else(|| std::env::var("PATH").ok());
    let found = crate::provider::program::resolve_program(first, &folder, path_var.as_deref());
    Some(match found {
        Err(why) => format!("{source}: command[0]: {why} on this worker; {not_yet}"),
        Ok(_) => format!("{source}: a program scenario ({first}); {not_yet}"),
    })
}

/// The digest of a job's scenario: its source path (which decides how
/// relative paths in it resolve) and its text, each preceded by its length
/// so that no two pairs give the same bytes.
fn key(text: &ScenarioText) -> Key {
    let mut digest = Sha256::new();
    for part in [&text.source, &text.text] {
        digest.update((part.len() as u64).to_le_bytes());
        digest.update(part.as_bytes());
    }
    digest.finalize().into()
}

/// Parse the scenario as the sweep's machine did. Paths inside it resolve
/// against the folder it was read from when that folder exists here (the
/// same checkout on every machine), else against this worker's folder.
fn read(text: &ScenarioText) -> Result<Arc<Scenario>, String> {
    let path = Path::new(&text.source);
    let parsed = match path.parent() {
        Some(folder) if folder.as_os_str().is_empty() || folder.is_dir() => {
            scenario::parse_from(&text.text, path)
        }
        _ => scenario::parse(&text.text, &text.source),
    };
    parsed.map(Arc::new).map_err(|errors| errors.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(body: &str) -> ScenarioText {
        ScenarioText {
            source: "scenarios/x.json".into(),
            text: body.into(),
        }
    }

    const SIM: &str = r#"{"name": "t", "pattern": "orchestrator", "goal": "g", "context": {},
        "provider": {"kind": "sim"}, "workers": {"w": {"data": {}}}}"#;

    #[test]
    fn a_scenario_is_read_once_and_known_by_what_the_job_carries() {
        let scenarios = Scenarios::default();
        let a = scenarios.get(&text(SIM)).unwrap();
        let b = scenarios.get(&text(SIM)).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let bad = scenarios.get(&text("{")).unwrap_err();
        assert!(bad.contains("scenarios/x.json"), "{bad}");
        let elsewhere = ScenarioText {
            source: "other/x.json".into(),
            text: SIM.into(),
        };
        let c = scenarios.get(&elsewhere).unwrap();
        assert!(!Arc::ptr_eq(&a, &c), "another source is another scenario");
        for name in ["s3", "s4", "s5", "s6"] {
            scenarios
                .get(&text(&SIM.replace(r#""t""#, &format!("{name:?}"))))
                .unwrap();
        }
        assert_eq!(scenarios.parsed.lock().len(), KEPT);
        let again = scenarios.get(&text(SIM)).unwrap();
        assert!(!Arc::ptr_eq(&a, &again), "the first one was let go");
    }

    #[test]
    fn programs_run_only_when_allowed() {
        let runs_a_program = SIM.replace(
            r#""w": {"data": {}}"#,
            r#""w": {"command": {"argv": ["conclave", "toolbox", "inventory"]}}"#,
        );
        let scenarios = Scenarios::default();
        let scenario = scenarios.get(&text(&runs_a_program)).unwrap();
        let refusal = scenarios.refusal(&scenario, false).expect("refused");
        assert!(
            refusal.contains("conclave toolbox inventory") && refusal.contains("--allow-exec"),
            "{refusal}"
        );
        assert_eq!(scenarios.refusal(&scenario, true), None);
        let sim = scenarios.get(&text(SIM)).unwrap();
        assert_eq!(scenarios.refusal(&sim, false), None);
    }

    #[test]
    fn a_program_scenario_is_refused_naming_its_missing_program() {
        let program = |first: &str| {
            text(&format!(
                r#"{{"name": "app", "pattern": "program", "command": ["{first}", "app.py"]}}"#
            ))
        };
        let missing = program_refusal(&program("no-such-program-on-any-worker")).unwrap();
        assert!(
            missing.starts_with("scenarios/x.json: command[0]: ")
                && missing.contains("\"no-such-program-on-any-worker\"")
                && missing.contains("on this worker; workers do not run program scenarios yet"),
            "{missing}"
        );
        let here = program_refusal(&program("sh")).unwrap();
        assert!(
            here.starts_with("scenarios/x.json: a program scenario (sh); workers do not run"),
            "{here}"
        );
        assert_eq!(program_refusal(&text(SIM)), None);
        assert_eq!(program_refusal(&text("{")), None, "read and named later");
    }
}
