//! The system prompts of the HTTP provider. Each pattern names the prompt
//! of each of its calls (`ModelRequest::prompt`), compiled in from
//! `assets/prompts/`; a folder given with `--prompts` overrides any of them
//! by file name. The pattern fills the prompt's placeholders (`{{role}}`,
//! `{{agent}}`, ...) in the call's purpose. The provider never tells
//! patterns apart: it sends the prompt it is handed.

use std::path::{Path, PathBuf};

/// A prompt a pattern hands the provider: its file name under
/// `assets/prompts/` (the name `--prompts` overrides it by), the text
/// compiled in, and whether the answer must be JSON.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Prompt {
    pub(crate) file: &'static str,
    pub(crate) text: &'static str,
    pub(crate) json: bool,
}

#[cfg(test)]
impl Prompt {
    /// The prompt of a test's call to a provider that reads none (the sim).
    pub(crate) const UNUSED: Prompt = Prompt {
        file: "unused.md",
        text: "",
        json: false,
    };
}

/// The [`Prompt`] of a file in `assets/prompts/`, compiled in:
/// `compiled_in!("swarm_turn.md", json)` for one whose answer must be
/// JSON, `compiled_in!("orchestrator_brief.md", text)` for free text.
macro_rules! compiled_in {
    ($file:literal, json) => {
        $crate::provider::prompts::compiled_in!(@ $file, true)
    };
    ($file:literal, text) => {
        $crate::provider::prompts::compiled_in!(@ $file, false)
    };
    (@ $file:literal, $json:literal) => {
        $crate::provider::prompts::Prompt {
            file: $file,
            text: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/prompts/", $file)),
            json: $json,
        }
    };
}
pub(crate) use compiled_in;

#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum PromptError {
    #[error("cannot read the prompt {path}: {message}")]
    Unreadable { path: String, message: String },
}

/// The placeholders a purpose may fill (`{{role}}` in a prompt), in the
/// order they are written in. One a call's purpose leaves unfilled reads
/// as nothing: a prompt written for another call may carry it.
pub(crate) const PLACEHOLDERS: [&str; 4] = ["role", "focus", "agent", "description"];

/// Where prompts come from.
#[derive(Clone, Debug, Default)]
pub(crate) struct Prompts {
    overrides: Option<PathBuf>,
}

/// The system prompt of a call and whether the answer must be JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SystemPrompt {
    pub(crate) text: String,
    pub(crate) json: bool,
}

impl Prompts {
    pub(crate) fn new(overrides: Option<PathBuf>) -> Self {
        Prompts { overrides }
    }

    /// `prompt`, or the file of its name in the `--prompts` folder, with
    /// the placeholders a call's purpose filled (`Purpose::fills`)
    /// written in.
    pub(crate) fn system(
        &self,
        prompt: &Prompt,
        fills: &[(&'static str, String)],
    ) -> Result<SystemPrompt, PromptError> {
        let mut text = self.text(prompt)?;
        for placeholder in PLACEHOLDERS {
            let fill = fills
                .iter()
                .find(|(name, _)| *name == placeholder)
                .map_or("", |(_, fill)| fill.as_str());
            text = text.replace(&format!("{{{{{placeholder}}}}}"), fill);
        }
        Ok(SystemPrompt {
            text,
            json: prompt.json,
        })
    }

    fn text(&self, prompt: &Prompt) -> Result<String, PromptError> {
        if let Some(dir) = &self.overrides {
            let path: &Path = &dir.join(prompt.file);
            if path.exists() {
                return std::fs::read_to_string(path).map_err(|e| PromptError::Unreadable {
                    path: path.display().to_string(),
                    message: e.to_string(),
                });
            }
        }
        Ok(prompt.text.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Purpose;
    use crate::provider::sim::Unscripted;

    /// A prompt that names its speaker, compiled in as a pattern's are.
    const SPEAKER: Prompt = Prompt {
        file: "speaker.md",
        text: "You are the {{role}}.\nYour focus: {{focus}}\n{\"agent\": \"{{role}}\"}",
        json: true,
    };
    const BRIEF: Prompt = compiled_in!("orchestrator_brief.md", text);

    fn spoken() -> Purpose {
        Purpose::new(
            "speak:risk_analyst",
            "risk_analyst",
            "risk_analyst",
            &Unscripted,
        )
        .spoken_by("risk_analyst")
        .filling("role", "risk_analyst")
        .filling("focus", "payments and chargebacks")
    }

    fn brief() -> Purpose {
        Purpose::new("final_brief", "final_answer", "final_answer", &Unscripted)
    }

    #[test]
    fn a_prompt_gets_the_words_its_purpose_fills_and_asks_for_json_when_its_answer_is() {
        let prompt = Prompts::default()
            .system(&SPEAKER, spoken().fills())
            .unwrap();
        assert!(prompt.json);
        assert!(prompt.text.contains("You are the risk_analyst"));
        assert!(prompt.text.contains("Your focus: payments and chargebacks"));
        assert!(prompt.text.contains(r#"{"agent": "risk_analyst""#));
        assert!(
            !Prompts::default()
                .system(&BRIEF, brief().fills())
                .unwrap()
                .json
        );
    }

    #[test]
    fn a_placeholder_the_purpose_leaves_unfilled_reads_as_nothing() {
        let prompt = Prompts::default()
            .system(&SPEAKER, brief().fills())
            .unwrap();
        assert_eq!(
            prompt.text,
            "You are the .\nYour focus: \n{\"agent\": \"\"}"
        );
    }

    #[test]
    fn a_folder_overrides_prompts_by_file_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("orchestrator_brief.md"),
            "Write it as a haiku.",
        )
        .unwrap();
        let prompts = Prompts::new(Some(dir.path().to_path_buf()));
        assert_eq!(
            prompts.system(&BRIEF, brief().fills()).unwrap().text,
            "Write it as a haiku."
        );
        assert!(
            prompts
                .system(&SPEAKER, spoken().fills())
                .unwrap()
                .text
                .starts_with("You are the risk_analyst"),
            "the others stay compiled in"
        );
    }
}
