//! Trust before execution (DESIGN.md): a scenario is data someone may hand
//! you, so the programs it names run only when the user allows it. An
//! allowance is remembered for the file's exact content, its SHA-256,
//! under `$XDG_STATE_HOME/conclave/trust/` (else `~/.local/state`), as
//! direnv does: an edited file asks again. This module only remembers and
//! lists; the engine refuses to start a program nobody allowed.

use crate::scenario::{Endpoint, Program, Scenario, is_loopback};
use std::path::PathBuf;

/// Where allowances are remembered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustStore {
    /// `None`: nowhere (no state folder), so nothing is remembered.
    dir: Option<PathBuf>,
}

/// What a scenario asks to be allowed: every program it would start and
/// every URL off this machine it would call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Consent {
    pub(crate) programs: Vec<Program>,
    pub(crate) endpoints: Vec<Endpoint>,
    /// The file's SHA-256, the allowance's key.
    pub(crate) sha256: String,
}

impl TrustStore {
    /// The store under the user's state folder.
    pub(crate) fn from_env() -> Self {
        TrustStore {
            dir: crate::state_dir::state_dir().map(|dir| dir.join("trust")),
        }
    }

    /// A store in `dir` (tests, and a user who moves it).
    pub fn at(dir: PathBuf) -> Self {
        TrustStore { dir: Some(dir) }
    }

    /// Whether `scenario`'s exact content was allowed before.
    pub(crate) fn allows(&self, scenario: &Scenario) -> bool {
        self.entry(scenario).is_some_and(|path| path.is_file())
    }

    /// Remember that `scenario`'s exact content may run its programs.
    pub(crate) fn remember(&self, scenario: &Scenario) -> std::io::Result<()> {
        let Some(path) = self.entry(scenario) else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no folder to remember it in: set XDG_STATE_HOME or HOME",
            ));
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // The entry's name is the key; its text says what it was for.
        let note = format!(
            "{}\n{}\n",
            scenario.origin.file(),
            scenario
                .programs()
                .iter()
                .map(|p| p.argv.join(" "))
                .collect::<Vec<_>>()
                .join("\n")
        );
        std::fs::write(path, note)
    }

    fn entry(&self, scenario: &Scenario) -> Option<PathBuf> {
        let sha = scenario.origin.sha256();
        // A scenario built in memory has no bytes to hash.
        if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        Some(self.dir.as_ref()?.join(sha))
    }
}

/// What `scenario` must be allowed to do, or `None` when it starts no
/// program (calling URLs alone needs no allowance).
pub(crate) fn consent_for(scenario: &Scenario) -> Option<Consent> {
    let programs = scenario.programs();
    if programs.is_empty() {
        return None;
    }
    Some(Consent {
        programs,
        endpoints: scenario
            .endpoints()
            .into_iter()
            .filter(|e| !is_loopback(&e.url))
            .collect(),
        sha256: scenario.origin.sha256().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(text: &str) -> Scenario {
        crate::scenario::parse(text, "s.json").unwrap()
    }

    const RUNS_A_PROGRAM: &str = r#"{"name": "t", "pattern": "orchestrator", "goal": "g",
        "context": {}, "provider": {"kind": "sim"},
        "workers": {"inventory_worker": {"command": {"argv": ["conclave", "toolbox", "inventory"]}},
                    "pricing_worker": {"http": {"url": "https://pricing.example.com/v1"}},
                    "local_worker": {"http": {"url": "http://127.0.0.1:8787/x"}}}}"#;

    #[test]
    fn an_allowance_holds_for_the_exact_content_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::at(dir.path().join("trust"));
        let original = scenario(RUNS_A_PROGRAM);
        assert!(!store.allows(&original));
        store.remember(&original).unwrap();
        assert!(store.allows(&original));
        assert!(store.allows(&scenario(RUNS_A_PROGRAM)), "the same bytes");
        let edited = scenario(&RUNS_A_PROGRAM.replace("\"g\"", "\"g2\""));
        assert!(!store.allows(&edited), "an edited file asks again");
        assert!(TrustStore::default().remember(&original).is_err());
        assert!(!TrustStore::default().allows(&original));
    }

    #[test]
    fn consent_lists_every_program_and_the_urls_off_this_machine() {
        let consent = consent_for(&scenario(RUNS_A_PROGRAM)).unwrap();
        let argv: Vec<&Vec<String>> = consent.programs.iter().map(|p| &p.argv).collect();
        assert_eq!(
            argv,
            [&vec![
                "conclave".to_string(),
                "toolbox".into(),
                "inventory".into()
            ]]
        );
        assert_eq!(
            consent.programs[0].path.to_string(),
            "workers.inventory_worker.command"
        );
        let urls: Vec<&str> = consent.endpoints.iter().map(|e| e.url.as_str()).collect();
        assert_eq!(
            urls,
            ["https://pricing.example.com/v1"],
            "loopback is left out"
        );
        let http_only = RUNS_A_PROGRAM.replace(
            r#""command": {"argv": ["conclave", "toolbox", "inventory"]}"#,
            r#""http": {"url": "http://127.0.0.1:1/"}"#,
        );
        assert_eq!(consent_for(&scenario(&http_only)), None);
    }
}
