//! The scenarios a worker has been sent, each read once per sweep rather
//! than once per job, and whether this worker may run them. It never runs
//! anything and never reads a file the job does not name.

use super::queue::ScenarioText;
use crate::scenario::{self, Scenario};
use crate::trust::{self, TrustStore};
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

/// How many sweeps' scenarios are kept: a worker serves one sweep at a
/// time, seldom a few.
const KEPT: usize = 4;

/// A sweep's scenario, parsed, or why it cannot be.
type Parsed = Result<Arc<Scenario>, String>;

/// The last few sweeps' scenarios, by sweep id.
#[derive(Default)]
pub(crate) struct Scenarios {
    parsed: Mutex<VecDeque<(String, Parsed)>>,
}

impl Scenarios {
    /// The scenario of `sweep`, read from the job's text on first use.
    pub(crate) fn get(&self, sweep: &str, text: &ScenarioText) -> Result<Arc<Scenario>, String> {
        let mut parsed = self.parsed.lock();
        if let Some((_, scenario)) = parsed.iter().find(|(id, _)| id == sweep) {
            return scenario.clone();
        }
        let scenario = read(text);
        if parsed.len() == KEPT {
            parsed.pop_front();
        }
        parsed.push_back((sweep.to_string(), scenario.clone()));
        scenario
    }

    /// Why this worker will not run `scenario`, if it will not: it starts
    /// programs and neither `--allow-exec` nor a remembered allowance for
    /// its exact content lets it (the same rule as `conclave run`).
    pub(crate) fn refusal(&self, scenario: &Scenario, allow_exec: bool) -> Option<String> {
        let consent = trust::consent_for(scenario)?;
        if allow_exec || TrustStore::from_env().allows(scenario) {
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
    fn a_sweep_s_scenario_is_read_once() {
        let scenarios = Scenarios::default();
        let a = scenarios.get("s1", &text(SIM)).unwrap();
        let b = scenarios.get("s1", &text("not read again")).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let bad = scenarios.get("s2", &text("{")).unwrap_err();
        assert!(bad.contains("scenarios/x.json"), "{bad}");
        for sweep in ["s3", "s4", "s5", "s6"] {
            scenarios.get(sweep, &text(SIM)).unwrap();
        }
        assert_eq!(scenarios.parsed.lock().len(), KEPT);
        assert!(scenarios.get("s1", &text("{")).is_err(), "s1 was let go");
    }

    #[test]
    fn programs_run_only_when_allowed() {
        let runs_a_program = SIM.replace(
            r#""w": {"data": {}}"#,
            r#""w": {"command": {"argv": ["conclave", "toolbox", "inventory"]}}"#,
        );
        let scenarios = Scenarios::default();
        let scenario = scenarios.get("s", &text(&runs_a_program)).unwrap();
        let refusal = scenarios.refusal(&scenario, false).expect("refused");
        assert!(
            refusal.contains("conclave toolbox inventory") && refusal.contains("--allow-exec"),
            "{refusal}"
        );
        assert_eq!(scenarios.refusal(&scenario, true), None);
        let sim = scenarios.get("t", &text(SIM)).unwrap();
        assert_eq!(scenarios.refusal(&sim, false), None);
    }
}
