//! The question a round table asks a person, in words for a terminal
//! without a dashboard: `run --headless` prints it on stderr when the run
//! stops to ask, and `replay --headless` prints it where the recording
//! asked, followed by the answer.

use crate::bus::{Conflict, EventKind, HumanChoice, SeatStance};

/// The question of an `escalated_to_human` event, one line per analyst;
/// `None` for any other event.
pub(crate) fn question(kind: &EventKind) -> Option<String> {
    let EventKind::EscalatedToHuman {
        round,
        blocking_rounds,
        conflicts,
        stances,
    } = kind
    else {
        return None;
    };
    let mut text = format!(
        "round {round}: the table asks a person (a blocking stance {} in a row)",
        crate::words::plural(u64::from(*blocking_rounds), "round")
    );
    let width = stances
        .iter()
        .map(|s| s.agent.chars().count())
        .max()
        .unwrap_or(0);
    for SeatStance {
        agent,
        stance,
        confidence,
    } in stances
    {
        text.push_str(&format!(
            "\n  {agent:<width$}  {:<7}  {confidence:.2}",
            stance.as_str()
        ));
    }
    if !conflicts.is_empty() {
        let conflicts: Vec<&str> = conflicts.iter().map(|c| Conflict::as_str(*c)).collect();
        text.push_str(&format!("\n  conflicts: {}", conflicts.join(", ")));
    }
    Some(text)
}

/// The answers a person can give, as `--decide` takes them.
pub(crate) fn choices() -> String {
    HumanChoice::ALL
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join("|")
}

/// A person's answer in words.
pub(crate) fn answer(kind: &EventKind) -> Option<String> {
    let EventKind::HumanDecided { choice, note, .. } = kind else {
        return None;
    };
    Some(match note {
        Some(note) => format!("a person chose {}, noting: {note}", choice.as_str()),
        None => format!("a person chose {}", choice.as_str()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::Stance;

    #[test]
    fn the_question_names_each_stance_and_the_conflicts() {
        let kind = EventKind::EscalatedToHuman {
            round: 2,
            blocking_rounds: 2,
            conflicts: vec![Conflict::BlockingVsNonBlock],
            stances: vec![
                SeatStance {
                    agent: "demand_analyst".into(),
                    stance: Stance::Go,
                    confidence: 0.8,
                },
                SeatStance {
                    agent: "risk".into(),
                    stance: Stance::Block,
                    confidence: 0.72,
                },
            ],
        };
        assert_eq!(
            question(&kind).unwrap(),
            "round 2: the table asks a person (a blocking stance 2 rounds in a row)\n  demand_analyst  go       0.80\n  risk            block    0.72\n  conflicts: blocking_vs_non_block"
        );
        assert_eq!(choices(), "go|go_with_caution|no_go|continue");
        let answered = EventKind::HumanDecided {
            choice: HumanChoice::NoGo,
            note: Some("fraud first".into()),
            gate: None,
        };
        assert_eq!(
            answer(&answered).unwrap(),
            "a person chose no_go, noting: fraud first"
        );
        assert_eq!(question(&answered), None);
    }
}
