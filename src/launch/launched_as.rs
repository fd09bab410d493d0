//! What starts a launched program again, kept in its recording
//! (`watch_started.launch`): the scenario as it ran, never a key nor an
//! `env` value that may be a secret. It never starts anything itself.

use super::prepare::Prepared;
use super::scenario::{LoadedProgram, ProgramScenario};
use crate::gateway::endpoint::Budgets;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A launched run as its recording keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaunchedAs {
    /// The scenario file as it was named, or `(command line)`.
    pub file: String,
    /// The scenario as the run ran it.
    pub scenario: ProgramScenario,
    /// The `env` variables whose values were left out as secrets: a fork's
    /// program gets them from Conclave's environment, as any launched
    /// program inherits it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_withheld: Vec<String>,
    /// The run this one was forked from, when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<ForkedFrom>,
}

/// Where a fork of a launched run comes from: the recording, its run, the
/// call it forked at and what answered that call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkedFrom {
    /// The parent's recording, as it was named.
    pub file: String,
    /// The parent's run id.
    pub run: String,
    /// The call forked at, as `model call N`.
    pub at: String,
    /// The file the call's answer came from; absent when it went live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

/// How the run that is recorded was started, besides its scenario.
#[derive(Clone, Debug)]
pub(crate) struct RunAs<'a> {
    pub(crate) flags: &'a BTreeMap<String, bool>,
    pub(crate) seed: Option<u64>,
    pub(crate) budgets: Budgets,
    pub(crate) forked_from: Option<ForkedFrom>,
}

impl LaunchedAs {
    /// `loaded` as the run started it from `prepared`'s folder.
    pub(crate) fn of(loaded: &LoadedProgram, prepared: &Prepared, run: RunAs<'_>) -> LaunchedAs {
        let mut scenario = loaded.scenario.clone();
        let cwd = std::fs::canonicalize(&prepared.cwd)
            .or_else(|_| std::path::absolute(&prepared.cwd))
            .unwrap_or_else(|_| prepared.cwd.clone());
        scenario.cwd = Some(cwd.display().to_string());
        for (name, on) in run.flags {
            scenario.flags.entry(name.clone()).or_default().default = *on;
        }
        scenario.seed = run.seed.or(scenario.seed);
        let budgets = super::gateway::budgets_of(&scenario, run.budgets);
        if let Some(model) = &mut scenario.model {
            model.upstream = crate::provider::openai::recordable(&model.upstream);
            model.max_tokens = budgets.max_tokens;
            model.max_cost_usd = budgets.max_cost_usd;
            model.max_calls = budgets.max_calls;
        }
        // What the scenario says in its own words is kept masked where it
        // holds a known secret, as every line of a recording is; field
        // names are the format's, never masked.
        let masked = |text: &mut String| *text = crate::secrets::scrub(text).into_owned();
        scenario.command.iter_mut().for_each(masked);
        for text in [Some(&mut scenario.name), scenario.cwd.as_mut()]
            .into_iter()
            .chain([scenario.title.as_mut(), scenario.description.as_mut()])
            .flatten()
        {
            masked(text);
        }
        if let Some(model) = &mut scenario.model {
            masked(&mut model.upstream);
        }
        let mut env_withheld = Vec::new();
        scenario.env.retain(|name, value| {
            let secret = crate::provider::program_env::looks_secret(name)
                || crate::secrets::scrub(value) != value.as_str();
            if secret {
                env_withheld.push(name.clone());
            }
            !secret
        });
        LaunchedAs {
            file: loaded.file.clone(),
            scenario,
            env_withheld,
            forked_from: run.forked_from,
        }
    }

    /// The program to start again, its errors named as `recording`'s.
    pub(crate) fn program(&self, recording: &str) -> LoadedProgram {
        let folder = self.scenario.cwd.as_deref().map(PathBuf::from);
        let mut scenario = self.scenario.clone();
        scenario.cwd = None;
        LoadedProgram {
            scenario,
            file: format!("{recording} (the launch it keeps)"),
            // No file to place an error in: each is named by its field.
            text: String::new(),
            folder: folder.unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_is_kept_as_it_ran_and_no_secret_value_is() {
        crate::secrets::register("sk-launched-as-Tq4Wm8Zr2Lp");
        let text = r#"{"name": "app", "pattern": "program", "command": ["python", "app.py", "--key=sk-launched-as-Tq4Wm8Zr2Lp"],
            "env": {"REGION": "EU", "SUPPORT_TOKEN": "tok-literal", "OTHER": "x sk-launched-as-Tq4Wm8Zr2Lp"},
            "flags": {"legal": {"default": false}},
            "model": {"upstream": "http://ada:pw@127.0.0.1:9/v1", "key_env": "K", "max_calls": 9}}"#;
        let dir = tempfile::tempdir().unwrap();
        let loaded = super::super::scenario::parse(text, "app.json", dir.path().into()).unwrap();
        let prepared = Prepared {
            program: "/bin/sh".into(),
            args: Vec::new(),
            cwd: dir.path().into(),
        };
        let flags = BTreeMap::from([("legal".to_string(), true)]);
        let budgets = Budgets {
            max_tokens: Some(50),
            ..Budgets::default()
        };
        let kept = LaunchedAs::of(
            &loaded,
            &prepared,
            RunAs {
                flags: &flags,
                seed: Some(4),
                budgets,
                forked_from: None,
            },
        );
        let s = &kept.scenario;
        assert_eq!(s.env.keys().collect::<Vec<_>>(), ["REGION"]);
        assert_eq!(kept.env_withheld, ["SUPPORT_TOKEN", "OTHER"]);
        assert!(s.flags["legal"].default, "the run's flags");
        assert_eq!(s.seed, Some(4));
        let model = s.model.as_ref().unwrap();
        assert_eq!(
            model.upstream, "http://127.0.0.1:9/v1",
            "no user, no password"
        );
        assert_eq!((model.max_tokens, model.max_calls), (Some(50), Some(9)));
        let written = serde_json::to_string(&kept).unwrap();
        assert!(!written.contains("tok-literal") && !written.contains("Tq4Wm8Zr2Lp"));
        assert_eq!(s.command[2], "--key=[redacted]", "an argument is masked");
        assert!(
            written.contains("\"upstream\""),
            "field names are never masked"
        );
        let cwd = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(s.cwd.as_deref(), Some(cwd.to_str().unwrap()));
        let again = kept.program("run.jsonl");
        assert_eq!(again.folder, cwd);
        assert_eq!(again.scenario.cwd, None);
        let read: LaunchedAs = serde_json::from_str(&written).unwrap();
        assert_eq!(read, kept);
    }
}
