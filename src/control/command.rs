//! The commands a run takes at its gates, and why one can be refused.

use crate::bus::{AnsweredBy, NoSuchOption};

/// A command for a run, from a key or (as JSON, the same words) from a
/// viewer on another machine: `{"command": "pause"}`,
/// `{"command": "set_flag", "name": "legal_analyst", "on": true}`,
/// `{"command": "answer", "option": "no_go", "note": "..."}`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Control {
    Pause,
    Resume,
    /// While paused, let exactly one gate pass; while running, pause at the
    /// next gate.
    Step,
    SetFlag {
        name: String,
        on: bool,
    },
    Cancel,
    /// An answer to the question the run asks at its gate (or the next one
    /// it asks), with an optional note for the shared context. Read also
    /// as it was written before questions: `{"command": "decide",
    /// "choice": "no_go"}`.
    #[serde(alias = "decide")]
    Answer {
        /// The chosen option's name.
        #[serde(alias = "choice")]
        option: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        /// The question it answers (its id); none: whichever the run asks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        question: Option<String>,
        /// Who gives it; a command read from JSON came by a control
        /// message.
        #[serde(skip)]
        by: AnsweredBy,
    },
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ControlError {
    #[error("unknown flag {name:?}; this scenario declares: {known}")]
    UnknownFlag { name: String, known: String },
    #[error("the run has finished")]
    RunOver,
    #[error("too many commands are waiting for the next gate")]
    Busy,
    /// The answer names none of the asked question's options.
    #[error(transparent)]
    NoSuchOption(#[from] NoSuchOption),
    /// The answer is meant for another question than the one asked.
    #[error("the run asks {asked:?}, not {named:?}")]
    OtherQuestion { named: String, asked: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_reads_in_its_words_and_in_the_older_decide() {
        let answer = Control::Answer {
            option: "no_go".into(),
            note: Some("fraud first".into()),
            question: None,
            by: AnsweredBy::Control,
        };
        let text = serde_json::to_string(&answer).unwrap();
        assert_eq!(
            text,
            r#"{"command":"answer","option":"no_go","note":"fraud first"}"#
        );
        assert_eq!(serde_json::from_str::<Control>(&text).unwrap(), answer);
        let older = r#"{"command":"decide","choice":"no_go","note":"fraud first"}"#;
        assert_eq!(serde_json::from_str::<Control>(older).unwrap(), answer);
        let dashboard = Control::Answer {
            option: "go".into(),
            note: None,
            question: None,
            by: AnsweredBy::Dashboard,
        };
        let sent = serde_json::to_string(&dashboard).unwrap();
        assert!(
            matches!(
                serde_json::from_str::<Control>(&sent).unwrap(),
                Control::Answer {
                    by: AnsweredBy::Control,
                    ..
                }
            ),
            "an answer that came as a message says so, whoever sent it"
        );
    }
}
