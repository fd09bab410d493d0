//! Escalation to a person (000's try-next suggestion): after
//! `budget.escalate_after_blocking_rounds` rounds in a row with a blocking
//! stance, the table raises a question at the gate. Its options are the
//! three decisions and one more round; the answer maps back to one of
//! them, and its note joins the shared context.

use super::result::RoundRecord;
use crate::bus::{AnsweredBy, Bus, Question};
use crate::bus::{EventKind, GatePoint};
use crate::control::{Cancelled, Gate};
use crate::patterns::collaboration::events::{Conflict, RoundEvent, SeatStance};
use crate::patterns::collaboration::events::{Decision, Stance};
use crate::patterns::events::PatternEvent;
use crate::scenario::Scenario;

/// The id of the table's question, as a control message may name it.
pub(crate) const QUESTION_ID: &str = "escalation";
/// Who asks, in words.
const ASKER: &str = "the table";

/// What a person at the table answers when the run escalates to them:
/// one of the decisions, or one more round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum HumanChoice {
    Go,
    GoWithCaution,
    NoGo,
    Continue,
}

impl HumanChoice {
    /// Every choice, in the order the question offers them.
    pub(crate) const ALL: [HumanChoice; 4] = [
        HumanChoice::Go,
        HumanChoice::GoWithCaution,
        HumanChoice::NoGo,
        HumanChoice::Continue,
    ];

    /// The option's name: on the command line, in control messages and
    /// in recordings (`human_decided.choice`).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            HumanChoice::Go => "go",
            HumanChoice::GoWithCaution => "go_with_caution",
            HumanChoice::NoGo => "no_go",
            HumanChoice::Continue => "continue",
        }
    }

    /// The option as a person reads it.
    fn label(self) -> &'static str {
        match self {
            HumanChoice::Go => "go",
            HumanChoice::GoWithCaution => "go with caution",
            HumanChoice::NoGo => "no-go",
            HumanChoice::Continue => "one more round",
        }
    }

    /// The choice an option's name stands for.
    pub(crate) fn named(name: &str) -> Option<HumanChoice> {
        HumanChoice::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The decision the choice makes; `None` for one more round.
    pub(crate) fn decision(self) -> Option<Decision> {
        match self {
            HumanChoice::Go => Some(Decision::Go),
            HumanChoice::GoWithCaution => Some(Decision::GoWithCaution),
            HumanChoice::NoGo => Some(Decision::NoGo),
            HumanChoice::Continue => None,
        }
    }
}

/// The table's question with `prompt`: the four choices, no default, no
/// timeout (the table waits for a person as long as it takes).
fn question(prompt: String) -> Question {
    Question::new(
        QUESTION_ID,
        ASKER,
        prompt,
        HumanChoice::ALL.map(|c| (c.as_str(), c.label())),
    )
}

/// The questions a run of `scenario` may ask: the table's, when the
/// scenario escalates.
pub(crate) fn questions(scenario: &Scenario) -> Vec<Question> {
    let escalates = scenario
        .budget
        .as_ref()
        .is_some_and(|b| b.escalate_after_blocking_rounds.is_some());
    if escalates {
        vec![question("whether the table goes on or decides".into())]
    } else {
        Vec::new()
    }
}

/// The question an `escalated_to_human` event raised; `None` for any
/// other event. The prompt is one line per analyst, for a terminal
/// without a dashboard.
pub(crate) fn question_of(kind: &EventKind) -> Option<Question> {
    let EventKind::Pattern(PatternEvent::Round(RoundEvent::EscalatedToHuman {
        round,
        blocking_rounds,
        conflicts,
        stances,
    })) = kind
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
    Some(question(text).at(format!("after round {round}")))
}

/// How the table stands towards a person.
#[derive(Debug, Default)]
pub(crate) struct Escalation {
    after: Option<u32>,
    streak: u32,
    /// Notes the person added, in order; they join the shared context.
    pub(crate) notes: Vec<String>,
    /// The person made the decision.
    pub(crate) decided: bool,
}

/// What the person answered.
pub(crate) enum Answer {
    /// Nobody is there to ask: the run stops with `escalated_to_human`.
    Nobody,
    Decided(Decision),
    OneMoreRound,
}

impl Escalation {
    pub(crate) fn of(scenario: &Scenario) -> Self {
        Escalation {
            after: scenario
                .budget
                .as_ref()
                .and_then(|b| b.escalate_after_blocking_rounds),
            ..Escalation::default()
        }
    }

    /// After an undecided round: `None` while the table goes on by itself,
    /// else the person's answer.
    pub(crate) async fn after_round(
        &mut self,
        gate: &mut Gate,
        bus: &Bus,
        record: &RoundRecord,
    ) -> Result<Option<Answer>, Cancelled> {
        let Some(after) = self.after else {
            return Ok(None);
        };
        let blocked = record
            .contributions
            .iter()
            .any(|c| c.stance == Stance::Block);
        self.streak = if blocked { self.streak + 1 } else { 0 };
        if self.streak < after {
            return Ok(None);
        }
        let escalated = EventKind::Pattern(PatternEvent::Round(RoundEvent::EscalatedToHuman {
            round: record.round,
            blocking_rounds: self.streak,
            conflicts: record.conflicts.clone(),
            stances: record
                .contributions
                .iter()
                .map(|c| SeatStance {
                    agent: c.agent.clone(),
                    stance: c.stance,
                    confidence: c.confidence,
                })
                .collect(),
        }));
        let asked = question_of(&escalated).expect("an escalation asks");
        bus.publish(escalated);
        let at = GatePoint::Decision {
            round: record.round,
        };
        let Some(answer) = gate.ask(at, &asked).await? else {
            return Ok(Some(Answer::Nobody));
        };
        if let Some(note) = answer.note.filter(|n| !n.trim().is_empty()) {
            self.notes.push(note);
        }
        self.streak = 0;
        // The gate takes only the question's options.
        let choice = HumanChoice::named(&answer.option).expect("one of the table's options");
        Ok(Some(match choice.decision() {
            Some(decision) => {
                self.decided = answer.by != AnsweredBy::Default;
                Answer::Decided(decision)
            }
            None => Answer::OneMoreRound,
        }))
    }
}

/// How the round table asks a person: when a blocking stance lasts
/// `budget.escalate_after_blocking_rounds` rounds.
pub(crate) const ASKING: crate::patterns::asking::Asking = crate::patterns::asking::Asking {
    who: "a round table that asks a person",
    when: "a collaboration scenario with budget.escalate_after_blocking_rounds",
    questions,
    question_of,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_names_each_stance_and_the_conflicts() {
        let kind = EventKind::Pattern(PatternEvent::Round(RoundEvent::EscalatedToHuman {
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
        }));
        let asked = question_of(&kind).unwrap();
        assert_eq!(
            asked.prompt,
            "round 2: the table asks a person (a blocking stance 2 rounds in a row)\n  demand_analyst  go       0.80\n  risk            block    0.72\n  conflicts: blocking_vs_non_block"
        );
        assert_eq!(
            asked.names(),
            ["go", "go_with_caution", "no_go", "continue"]
        );
        assert_eq!(asked.when, "after round 2");
        assert_eq!((asked.default, asked.timeout), (None, None), "it waits");
        for choice in HumanChoice::ALL {
            assert_eq!(HumanChoice::named(choice.as_str()), Some(choice));
        }
        assert_eq!(HumanChoice::named("maybe"), None);
    }
}
