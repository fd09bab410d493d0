//! Trust before execution (DESIGN.md): a scenario is data someone may hand
//! you, so the programs it names run only when the user allows it. An
//! allowance covers what will actually run (`cover`): the scenario file
//! where it is and as it is, and every program it starts and script it
//! hands one, as they are now; it is remembered under
//! `$XDG_STATE_HOME/conclave/trust/` (else `~/.local/state`) by a hash over
//! all of that, as direnv does for a file: a change to any of it asks
//! again, naming what changed. This module only remembers and lists; the
//! engine refuses to start a program nobody allowed.

mod changes;
mod cover;
mod decision;

#[cfg(test)]
use cover::{Content, Role};
pub(crate) use cover::{Cover, Covered};
pub(crate) use decision::decide;

use crate::scenario::{Endpoint, Program, Scenario, is_loopback};
use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// Where allowances are remembered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustStore {
    /// `None`: nowhere (no state folder), so nothing is remembered.
    dir: Option<PathBuf>,
}

/// What a scenario asks to be allowed: every program it would start, what
/// each would run, and every URL off this machine it would call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Consent {
    pub(crate) programs: Vec<Program>,
    pub(crate) endpoints: Vec<Endpoint>,
    /// What an allowance covers; its key names the allowance.
    pub(crate) cover: Cover,
}

/// The folder, under the store, that maps a scenario file to the key of
/// its last allowance, to say what changed since.
const LAST: &str = "files";

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

    /// Whether `scenario` starts programs and was allowed before, with
    /// everything it would run as it is now (the dashboard's tests ask;
    /// the engine asks through [`Self::allowed`]).
    #[cfg(test)]
    pub(crate) fn allows(&self, scenario: &Scenario) -> bool {
        consent_for(scenario).is_some_and(|consent| self.allowed(&consent))
    }

    /// Whether `consent` was allowed before, everything it covers as it
    /// is now.
    pub(crate) fn allowed(&self, consent: &Consent) -> bool {
        self.entry(&consent.cover)
            .is_some_and(|path| path.is_file())
    }

    /// Remember that what `consent` covers may run.
    pub(crate) fn remember(&self, consent: &Consent) -> std::io::Result<()> {
        // A fork's scenario is the one its recording holds: there is no
        // file whose content an allowance could be kept for.
        if !is_key(&consent.cover.sha256) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "its scenario is the one a recording holds, not a file: the allowance is for this run alone",
            ));
        }
        let Some(path) = self.entry(&consent.cover) else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no folder to remember it in: set XDG_STATE_HOME or HOME",
            ));
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // The entry's name is the key; its text lists what it covers.
        let text = serde_json::to_string_pretty(&consent.cover).map_err(std::io::Error::other)?;
        std::fs::write(&path, text + "\n")?;
        if let Some(last) = self.last(&consent.cover) {
            if let Some(dir) = last.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(last, consent.cover.key())?;
        }
        Ok(())
    }

    /// What changed since this scenario file was last allowed, one
    /// sentence each; empty when it never was (or nothing did).
    pub(crate) fn changes(&self, consent: &Consent) -> Vec<String> {
        let before = self
            .last(&consent.cover)
            .and_then(|last| std::fs::read_to_string(last).ok())
            .filter(|key| is_key(key))
            .and_then(|key| std::fs::read_to_string(self.dir.as_ref()?.join(key)).ok())
            .and_then(|text| serde_json::from_str::<Cover>(&text).ok());
        match before {
            Some(before) => changes::between(&before, &consent.cover, changes::SINCE_ALLOWED),
            None => Vec::new(),
        }
    }

    fn entry(&self, cover: &Cover) -> Option<PathBuf> {
        // A scenario built in memory has no bytes to hash.
        if !is_key(&cover.sha256) {
            return None;
        }
        Some(self.dir.as_ref()?.join(cover.key()))
    }

    /// Where the key of the last allowance of `cover`'s scenario file is
    /// kept; `None` for a scenario given as text.
    fn last(&self, cover: &Cover) -> Option<PathBuf> {
        let file = cover.scenario.as_ref()?;
        let name = cover::hex(&Sha256::digest(file.as_bytes()));
        Some(self.dir.as_ref()?.join(LAST).join(name))
    }
}

/// A covered file in a few words, for the confirmation: its path and how
/// it is held ("sha256 3fa1…", "a system program", "conclave itself").
pub(crate) fn described(covered: &Covered) -> String {
    changes::what(covered)
}

/// What changed between what a confirmation showed (`shown`) and what
/// would run now, one sentence each.
pub(crate) fn changed_while_asked(shown: &Cover, now: &Cover) -> Vec<String> {
    changes::between(shown, now, changes::WHILE_ASKED)
}

/// Whether `text` is a SHA-256 in hex, as keys and scenario hashes are.
fn is_key(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// What `scenario` must be allowed to do, or `None` when it starts no
/// program (calling URLs alone needs no allowance). The programs and
/// the files they run are read now, as the launch would find them.
pub(crate) fn consent_for(scenario: &Scenario) -> Option<Consent> {
    let programs = scenario.programs();
    if programs.is_empty() {
        return None;
    }
    Some(Consent {
        cover: Cover::of(scenario, &programs),
        programs,
        endpoints: scenario
            .endpoints()
            .into_iter()
            .filter(|e| !is_loopback(&e.url))
            .collect(),
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

    /// A folder holding `s.json` (running `argv`) and an executable
    /// `tool.sh` that says `says`, loaded as `conclave run` loads it.
    fn folder_with(argv: &[&str], says: &str) -> (tempfile::TempDir, Scenario) {
        let dir = tempfile::tempdir().unwrap();
        write_tool(dir.path(), says);
        let text = serde_json::json!({"name": "t", "pattern": "orchestrator", "goal": "g",
            "context": {}, "provider": {"kind": "sim"},
            "workers": {"w": {"command": {"argv": argv}}}})
        .to_string();
        std::fs::write(dir.path().join("s.json"), text).unwrap();
        let scenario = crate::scenario::load(&dir.path().join("s.json")).unwrap();
        (dir, scenario)
    }

    fn write_tool(folder: &std::path::Path, says: &str) {
        let tool = folder.join("tool.sh");
        std::fs::write(&tool, format!("#!/bin/sh\necho '{says}'\n")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn reload(dir: &tempfile::TempDir) -> Scenario {
        crate::scenario::load(&dir.path().join("s.json")).unwrap()
    }

    #[test]
    fn an_allowance_holds_while_the_file_and_its_programs_are_as_they_were() {
        let state = tempfile::tempdir().unwrap();
        let store = TrustStore::at(state.path().join("trust"));
        let (dir, original) = folder_with(&["./tool.sh"], "one");
        let consent = consent_for(&original).unwrap();
        assert!(!store.allowed(&consent));
        store.remember(&consent).unwrap();
        assert!(store.allowed(&consent));
        assert!(store.allows(&reload(&dir)), "the same file, the same tool");
        assert!(store.changes(&consent).is_empty());

        write_tool(dir.path(), "two");
        let rewritten = consent_for(&reload(&dir)).unwrap();
        assert!(!store.allowed(&rewritten), "a rewritten program asks again");
        let tool = std::fs::canonicalize(dir.path().join("tool.sh")).unwrap();
        assert_eq!(
            store.changes(&rewritten),
            [format!("{} changed since you allowed it", tool.display())]
        );
        write_tool(dir.path(), "one");
        assert!(store.allows(&reload(&dir)), "as it was, allowed again");

        let text = std::fs::read_to_string(dir.path().join("s.json")).unwrap();
        std::fs::write(dir.path().join("s.json"), text.replace("\"g\"", "\"g2\"")).unwrap();
        let edited = consent_for(&reload(&dir)).unwrap();
        assert!(!store.allowed(&edited), "an edited file asks again");
        assert_eq!(
            store.changes(&edited),
            ["the scenario file changed since you allowed it"]
        );
        assert!(TrustStore::default().remember(&consent).is_err());
        assert!(!TrustStore::default().allows(&original));
    }

    #[test]
    fn the_same_text_in_another_folder_is_another_allowance() {
        let state = tempfile::tempdir().unwrap();
        let store = TrustStore::at(state.path().join("trust"));
        let (first, allowed) = folder_with(&["./tool.sh"], "one");
        store.remember(&consent_for(&allowed).unwrap()).unwrap();
        // The same bytes, the same tool, but elsewhere: what runs is read
        // from another folder, which nobody allowed.
        let (second, elsewhere) = folder_with(&["./tool.sh"], "one");
        assert_eq!(allowed.origin.sha256(), elsewhere.origin.sha256());
        let consent = consent_for(&elsewhere).unwrap();
        assert!(!store.allowed(&consent));
        assert_eq!(
            consent.cover.scenario.as_deref(),
            Some(shown_canonical(&second.path().join("s.json")).as_str())
        );
        assert!(store.changes(&consent).is_empty(), "never allowed here");
        assert!(store.allows(&reload(&first)));
    }

    #[test]
    fn a_program_that_is_a_pipe_or_a_device_is_covered_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string; mkfifo only creates the node.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o700) }, 0);
        let fifo = fifo.to_str().unwrap().to_string();
        // Neither is a program the resolver finds nor a file an argument
        // names, so neither is read; on a thread all the same, as opening
        // a fifo for reading would wait for a writer that never comes.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (_dir, scenario) = folder_with(&[&fifo, "/dev/zero"], "one");
            let _ = tx.send(consent_for(&scenario).unwrap().cover.files);
        });
        let files = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("covering a fifo and /dev/zero returns");
        assert!(
            files.iter().all(|f| f.content == Content::Absent),
            "{files:?}"
        );
    }

    fn shown_canonical(path: &std::path::Path) -> String {
        std::fs::canonicalize(path).unwrap().display().to_string()
    }

    #[test]
    fn a_script_an_argument_names_is_covered_by_its_bytes() {
        let state = tempfile::tempdir().unwrap();
        let store = TrustStore::at(state.path().join("trust"));
        let (dir, scenario) = folder_with(&["sh", "tool.sh", "--config=tool.sh"], "one");
        let consent = consent_for(&scenario).unwrap();
        let files: Vec<(Role, &str)> = consent
            .cover
            .files
            .iter()
            .map(|f| (f.role, f.written.as_str()))
            .collect();
        assert_eq!(
            files,
            [
                (Role::Program, "sh"),
                (Role::Argument, "tool.sh"),
                (Role::Argument, "--config=tool.sh")
            ]
        );
        store.remember(&consent).unwrap();
        write_tool(dir.path(), "two");
        let rewritten = consent_for(&reload(&dir)).unwrap();
        assert!(!store.allowed(&rewritten), "a rewritten script asks again");
    }

    #[test]
    fn a_data_file_an_argument_names_is_not_covered_but_a_program_is() {
        let covered = |argv: &[&str]| {
            let (dir, _) = folder_with(argv, "one");
            std::fs::write(dir.path().join("data.json"), "{}").unwrap();
            std::fs::write(dir.path().join("other"), "#!/bin/sh\n").unwrap();
            std::fs::write(dir.path().join("server.py"), "print(1)\n").unwrap();
            let consent = consent_for(&reload(&dir)).unwrap();
            let files: Vec<String> = consent
                .cover
                .files
                .iter()
                .map(|f| f.written.clone())
                .collect();
            files
        };
        assert_eq!(covered(&["sh", "tool.sh", "data.json"]), ["sh", "tool.sh"]);
        assert_eq!(covered(&["./tool.sh", "data.json"]), ["./tool.sh"]);
        assert_eq!(
            covered(&["./tool.sh", "data.json", "other", "server.py"]),
            ["./tool.sh", "other", "server.py"],
            "a program or a script given to a script is covered still"
        );
        assert_eq!(
            covered(&["sh", "-e", "data.json", "other"]),
            ["sh", "data.json", "other"],
            "what a binary is given first may be its script, whatever its name"
        );
    }

    #[test]
    fn a_system_program_is_covered_by_its_path_and_conclave_is_itself() {
        let (_dir, scenario) = folder_with(&["sh", "-c", "true"], "one");
        let consent = consent_for(&scenario).unwrap();
        let sh = &consent.cover.files[0];
        assert!(
            sh.path.starts_with("/usr/bin/") || sh.path.starts_with("/bin/"),
            "{sh:?}"
        );
        assert_eq!(sh.content, Content::System);
        assert_eq!(consent.cover.files.len(), 1, "-c and true name no file");

        let (dir, scenario) = folder_with(&["conclave", "toolbox", "echo"], "one");
        let consent = consent_for(&scenario).unwrap();
        assert_eq!(consent.cover.files[0].content, Content::Conclave);
        // A copy of a system program in the user's folder is theirs to
        // change: it is covered by its bytes.
        std::fs::copy(&sh.path, dir.path().join("sh")).unwrap();
        let mut own = scenario.programs();
        own[0].argv = vec!["./sh".into()];
        let cover = Cover::of(&scenario, &own);
        assert!(
            matches!(cover.files[0].content, Content::Sha256(_)),
            "{cover:?}"
        );
    }

    #[test]
    fn a_program_that_is_not_there_is_covered_as_absent() {
        let (dir, scenario) = folder_with(&["./missing.sh"], "one");
        let consent = consent_for(&scenario).unwrap();
        assert_eq!(consent.cover.files[0].content, Content::Absent);
        let key = consent.cover.key();
        write_tool(dir.path(), "one");
        std::fs::rename(dir.path().join("tool.sh"), dir.path().join("missing.sh")).unwrap();
        assert_ne!(
            consent_for(&reload(&dir)).unwrap().cover.key(),
            key,
            "a program that appears asks again"
        );
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
