//! What a command without a screen (`run --headless`, `sweep`) does about
//! a scenario's programs: `--allow-exec` allows them and is remembered, an
//! earlier allowance of everything as it is now allows them, and anything
//! else leaves them refused, with a note saying what changed since the
//! file was allowed or what an allowance would cover.

use super::{Consent, TrustStore, changes, consent_for};
use crate::output;
use crate::scenario::Scenario;

/// Whether a scenario's programs may start, and what to add to the
/// engine's refusal when they may not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Decision {
    pub(crate) allow_exec: bool,
    /// Said after the engine's refusal: `None` when the programs may run
    /// or the scenario starts none.
    pub(crate) refusal_note: Option<String>,
}

/// Decide for `scenario` (read from `file`) given `--allow-exec`, with the
/// user's store; a failure to remember an allowance is said on stderr and
/// does not stop the run.
pub(crate) fn decide(scenario: &Scenario, allow_exec: bool, file: &str) -> Decision {
    let Some(consent) = consent_for(scenario) else {
        return Decision {
            allow_exec,
            refusal_note: None,
        };
    };
    TrustStore::from_env().decide(&consent, allow_exec, file)
}

impl TrustStore {
    fn decide(&self, consent: &Consent, allow_exec: bool, file: &str) -> Decision {
        let allowed = self.allowed(consent);
        if allowed {
            return Decision {
                allow_exec: true,
                refusal_note: None,
            };
        }
        if !allow_exec {
            return Decision {
                allow_exec: false,
                refusal_note: Some(self.refusal_note(consent, file)),
            };
        }
        if let Err(e) = self.remember(consent) {
            output::message(&format!(
                "conclave: cannot remember that {file} may run its programs: {e}"
            ));
        }
        Decision {
            allow_exec: true,
            refusal_note: None,
        }
    }

    /// Why a headless run or a sweep did not start `consent`'s programs,
    /// beyond the engine's refusal: what changed since `file` was allowed,
    /// else what an allowance would cover.
    pub(crate) fn refusal_note(&self, consent: &Consent, file: &str) -> String {
        let changed = self.changes(consent);
        if changed.is_empty() {
            format!(
                "conclave: --allow-exec allows {file} as it is now, where it is, and what it runs: {}",
                consent
                    .cover
                    .files
                    .iter()
                    .map(changes::what)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        } else {
            format!(
                "conclave: {file} was allowed before, but {}",
                changed.join("; ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUNS_A_SCRIPT: &str = r#"{"name": "t", "pattern": "orchestrator", "goal": "g",
        "context": {}, "provider": {"kind": "sim"},
        "workers": {"w": {"command": {"argv": ["sh", "tool.sh"]}}}}"#;

    #[test]
    fn allow_exec_remembers_and_a_changed_script_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.json");
        std::fs::write(&file, RUNS_A_SCRIPT).unwrap();
        std::fs::write(dir.path().join("tool.sh"), "echo '{}'\n").unwrap();
        let store = TrustStore::at(dir.path().join("trust"));
        let consent = || consent_for(&crate::scenario::load(&file).unwrap()).unwrap();

        let refused = store.decide(&consent(), false, "s.json");
        assert!(!refused.allow_exec);
        let note = refused.refusal_note.unwrap();
        assert!(
            note.contains("--allow-exec allows s.json") && note.contains("tool.sh"),
            "{note}"
        );

        let given = store.decide(&consent(), true, "s.json");
        assert_eq!((given.allow_exec, given.refusal_note), (true, None));
        let remembered = store.decide(&consent(), false, "s.json");
        assert_eq!(
            (remembered.allow_exec, remembered.refusal_note),
            (true, None)
        );

        std::fs::write(dir.path().join("tool.sh"), "echo '{\"x\": 1}'\n").unwrap();
        let changed = store.decide(&consent(), false, "s.json");
        assert!(!changed.allow_exec);
        let note = changed.refusal_note.unwrap();
        assert!(
            note.contains("was allowed before") && note.contains("tool.sh"),
            "{note}"
        );
    }
}
