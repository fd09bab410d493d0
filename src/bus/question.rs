//! A question a run asks a person at a gate: what it asks, the answers it
//! takes (each a machine name and a label), the one given when nobody
//! answers in time, and who gave the answer. Any pattern raises one
//! through the control gate; this file knows no pattern's words, and the
//! pattern maps the chosen option back to its own decision.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One answer a question takes: `name` on the command line, in control
/// messages and in recordings; `label` where a person reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuestionOption {
    pub name: String,
    pub label: String,
}

/// What a run asks a person, at the gate it waits at.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// Which of the pattern's questions this is (`escalation`): a control
    /// message may name it, so that an answer meant for another is refused.
    pub id: String,
    /// Who asks, in words: `the table` asks you.
    pub asker: String,
    /// Where in the run it asks, in words: `after round 2`.
    pub when: String,
    /// The question with what a person needs to answer it, in lines for a
    /// terminal.
    pub prompt: String,
    /// The answers it takes, in the order they are offered.
    pub options: Vec<QuestionOption>,
    /// The option that answers when nobody else does: after `timeout`
    /// while someone could answer, at once when nobody can.
    pub default: Option<String>,
    /// How long the gate waits for an answer; `None` waits as long as it
    /// takes.
    pub timeout: Option<Duration>,
}

/// An answer that names none of a question's options.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{option:?} is not an answer to {asker}'s question; it takes {}", .options.join(", "))]
pub struct NoSuchOption {
    pub option: String,
    pub asker: String,
    pub options: Vec<String>,
}

impl Question {
    /// A question with `options` as `(name, label)` pairs, no default and
    /// no timeout.
    pub fn new<'a>(
        id: &str,
        asker: &str,
        prompt: String,
        options: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Question {
        Question {
            id: id.to_string(),
            asker: asker.to_string(),
            when: String::new(),
            prompt,
            options: options
                .into_iter()
                .map(|(name, label)| QuestionOption {
                    name: name.to_string(),
                    label: label.to_string(),
                })
                .collect(),
            default: None,
            timeout: None,
        }
    }

    pub fn at(mut self, when: String) -> Question {
        self.when = when;
        self
    }

    /// `option` answers when nobody has after `after`.
    pub fn defaulting(mut self, option: &str, after: Duration) -> Question {
        debug_assert!(self.offers(option), "the default is one of the options");
        self.default = Some(option.to_string());
        self.timeout = Some(after);
        self
    }

    /// Whether `option` is one of the answers it takes.
    pub fn offers(&self, option: &str) -> bool {
        self.options.iter().any(|o| o.name == option)
    }

    /// The options' names, in order.
    pub fn names(&self) -> Vec<String> {
        self.options.iter().map(|o| o.name.clone()).collect()
    }

    /// `option` as an answer to this question, or why it is none.
    pub fn check(&self, option: &str) -> Result<(), NoSuchOption> {
        if self.offers(option) {
            Ok(())
        } else {
            Err(NoSuchOption {
                option: option.to_string(),
                asker: self.asker.clone(),
                options: self.names(),
            })
        }
    }
}

/// Who gave an answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnsweredBy {
    /// A person at this process's dashboard.
    Dashboard,
    /// The command line, in advance (`--answer`, `--decide`).
    CommandLine,
    /// A control message from another process (NATS); what a command read
    /// from JSON says, since the JSON does not say who sent it.
    #[default]
    Control,
    /// A recording being run again (a cassette or a fork's parent).
    Recording,
    /// Nobody: the question's default, after its timeout.
    Default,
}

/// The answer a question got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The chosen option's name.
    pub option: String,
    /// What the person added, if anything.
    pub note: Option<String>,
    pub by: AnsweredBy,
}

/// An answer given on the command line before the run asks, and how the
/// user spelled the flag (`--answer` or `--decide`), so that a refusal
/// names the flag they typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GivenAnswer {
    pub option: String,
    pub flag: &'static str,
}

impl GivenAnswer {
    pub fn new(option: impl Into<String>, flag: &'static str) -> GivenAnswer {
        GivenAnswer {
            option: option.into(),
            flag,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_checks_an_answer_against_its_options() {
        let q = Question::new(
            "light",
            "the crossing",
            "Which light?".into(),
            [("red", "Red"), ("amber", "Amber"), ("green", "Green")],
        )
        .defaulting("red", Duration::from_secs(30));
        assert!(q.offers("amber"));
        assert_eq!(q.check("green"), Ok(()));
        let refused = q.check("blue").unwrap_err();
        assert_eq!(
            refused.to_string(),
            "\"blue\" is not an answer to the crossing's question; it takes red, amber, green"
        );
        assert_eq!(q.default.as_deref(), Some("red"));
    }
}
