//! A question a run asks a person, in words for a terminal without a
//! dashboard: `run --headless` prints it on stderr when the run ends with
//! it unanswered, and `replay --headless` prints it where the recording
//! asked, followed by the answer. Any pattern's question: its words are
//! the pattern's (see [`crate::bus::Question`]).

use crate::bus::{AnsweredBy, EventKind, Question};

/// The answers a question takes, as `--answer` (and `--decide`) take
/// them: `go|no_go`.
pub(crate) fn choices(question: &Question) -> String {
    question.names().join("|")
}

/// What a person (or nobody) answered, in words.
pub(crate) fn answer(kind: &EventKind) -> Option<String> {
    let EventKind::HumanDecided {
        choice, note, by, ..
    } = kind
    else {
        return None;
    };
    let who = match by {
        Some(AnsweredBy::Default) => "nobody answered in time; the default",
        _ => "a person",
    };
    Some(match note {
        Some(note) => format!("{who} chose {choice}, noting: {note}"),
        None => format!("{who} chose {choice}"),
    })
}

/// The question asked, while it waits for its answer: what the run asked
/// last, forgotten once answered.
pub(crate) fn follow(open: &mut Option<Question>, asked: Option<Question>, kind: &EventKind) {
    if let Some(asked) = asked {
        *open = Some(asked);
    } else if matches!(kind, EventKind::HumanDecided { .. }) {
        *open = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_says_who_chose_and_the_question_is_open_until_answered() {
        let answered = |by| EventKind::HumanDecided {
            choice: "no_go".into(),
            note: Some("fraud first".into()),
            gate: None,
            by,
        };
        assert_eq!(
            answer(&answered(None)).unwrap(),
            "a person chose no_go, noting: fraud first"
        );
        assert_eq!(
            answer(&answered(Some(AnsweredBy::Default))).unwrap(),
            "nobody answered in time; the default chose no_go, noting: fraud first"
        );
        let asked = Question::new(
            "q",
            "the crossing",
            "Which?".into(),
            [("red", "Red"), ("green", "Green")],
        );
        assert_eq!(choices(&asked), "red|green");
        let mut open = None;
        follow(
            &mut open,
            Some(asked.clone()),
            &EventKind::Paused {
                gate: crate::bus::GatePoint::Round { round: 1 },
            },
        );
        assert_eq!(open, Some(asked));
        follow(&mut open, None, &answered(None));
        assert_eq!(open, None);
    }
}
