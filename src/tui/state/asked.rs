//! The question a run asks a person, as its events tell it: asked when the
//! pattern's event raises it (the pattern says which, see
//! [`crate::patterns::question_of`]), answered when the answer is
//! published. Kept until the pattern's next step opens, so that a replay
//! shows the question and then the answer. Any pattern's question.

use crate::bus::{EventKind, Question};
use crate::scenario::PatternKind;

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Asked {
    pub(crate) question: Question,
    /// The chosen option's name and the note, once answered.
    pub(crate) answer: Option<(String, Option<String>)>,
}

impl Asked {
    /// Whether the run still waits for an answer.
    pub(crate) fn waiting(&self) -> bool {
        self.answer.is_none()
    }

    /// Who asks, as a sentence starts: `The table`.
    pub(crate) fn who(&self) -> String {
        let mut chars = self.question.asker.chars();
        chars.next().map_or_else(String::new, |first| {
            first.to_uppercase().chain(chars).collect()
        })
    }

    /// `{who} {verb} a person {when}`: `The table asks a person after
    /// round 2`.
    pub(crate) fn sentence(&self, verb: &str) -> String {
        let when = &self.question.when;
        let mut text = format!("{} {verb} a person", self.who());
        if !when.is_empty() {
            text.push(' ');
            text.push_str(when);
        }
        text
    }
}

/// Fold `kind`, an event of a run of `pattern`, into the question `now`
/// stands at.
pub(super) fn fold(now: &mut Option<Asked>, pattern: Option<PatternKind>, kind: &EventKind) {
    if let Some(question) = pattern.and_then(|p| crate::patterns::question_of(p, kind)) {
        *now = Some(Asked {
            question,
            answer: None,
        });
        return;
    }
    match kind {
        EventKind::HumanDecided { choice, note, .. } => {
            if let Some(asked) = now {
                asked.answer = Some((choice.clone(), note.clone()));
            }
        }
        // The run went on: the question is behind it.
        _ if crate::bus::describe::opens_step(kind) => *now = None,
        _ => {}
    }
}
