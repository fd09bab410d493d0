//! A question at a gate: the run stops where a pattern asks a person
//! something and takes the first answer that is one of the question's
//! options — given in advance on the command line, sent by the dashboard
//! or a control message, or the question's default when nobody answers in
//! time. The answer is published; the pattern makes of it what it means.

use super::{Cancelled, Control, Gate};
use crate::bus::{Answer, AnsweredBy, EventKind, GatePoint, Question};
use tokio::time::Instant;

impl Gate {
    /// Ask `question` at `at`: an answer already given, else (when someone
    /// watches) wait for one through the controller until the question's
    /// timeout, else its default. `Ok(None)`: nobody answered and there is
    /// no default. The answer is published.
    pub(crate) async fn ask(
        &mut self,
        at: GatePoint,
        question: &Question,
    ) -> Result<Option<Answer>, Cancelled> {
        self.replay_at(&at);
        let answer = match self.given(question) {
            Some(answer) => Some(answer),
            None if self.desk.attended => self.wait_for(question, &at).await?,
            None => default_of(question),
        };
        if let Some(answer) = &answer {
            self.bus.publish(EventKind::HumanDecided {
                choice: answer.option.clone(),
                note: answer.note.clone(),
                gate: Some(at),
                by: (answer.by == AnsweredBy::Default).then_some(AnsweredBy::Default),
            });
        }
        Ok(answer)
    }

    /// An answer given before the run asked `question`: on the command
    /// line (kept for a later question when this one does not offer it),
    /// else one sent or replayed before the gate (dropped when it names
    /// none of the options).
    fn given(&mut self, question: &Question) -> Option<Answer> {
        if self
            .desk
            .preset
            .as_deref()
            .is_some_and(|o| question.offers(o))
        {
            let option = self.desk.preset.take()?;
            return Some(Answer {
                option,
                note: None,
                by: AnsweredBy::CommandLine,
            });
        }
        self.answer.take().filter(|a| question.offers(&a.option))
    }

    /// Wait, the run clock paused, for an answer that is one of
    /// `question`'s options; flags set meanwhile take effect here. After
    /// the question's timeout, its default answers.
    async fn wait_for(
        &mut self,
        question: &Question,
        at: &GatePoint,
    ) -> Result<Option<Answer>, Cancelled> {
        *self.asked.lock() = Some(question.clone());
        self.bus.clock().pause();
        self.bus.publish(EventKind::Paused { gate: at.clone() });
        let deadline = question.timeout.map(|after| Instant::now() + after);
        let answer = loop {
            let command = tokio::select! {
                biased;
                () = self.cancel.cancelled() => break Err(Cancelled),
                () = until(deadline) => break Ok(default_of(question)),
                command = self.rx.recv() => command,
            };
            match command {
                None | Some(Control::Cancel) => {
                    self.cancel.cancel();
                    break Err(Cancelled);
                }
                Some(Control::Answer {
                    option, note, by, ..
                }) if question.offers(&option) => break Ok(Some(Answer { option, note, by })),
                // Refused by the controller as it was sent; one that came
                // past it (sent before the question was asked) is dropped.
                Some(Control::Answer { .. }) => {}
                Some(Control::SetFlag { name, on }) => self.set_flag(name, on, at),
                Some(Control::Pause | Control::Resume | Control::Step) => {}
            }
        };
        *self.asked.lock() = None;
        if answer.is_ok() {
            self.bus.clock().resume();
            self.bus.publish(EventKind::Resumed { gate: at.clone() });
        }
        answer
    }
}

/// The question's default as its answer, if it has one.
fn default_of(question: &Question) -> Option<Answer> {
    question.default.clone().map(|option| Answer {
        option,
        note: None,
        by: AnsweredBy::Default,
    })
}

/// Wait until `deadline`; without one, for ever.
async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ControlError, Controller, Flags, HumanDesk, channel};
    use super::*;
    use crate::bus::{Bus, Delivery, Hub, Subscription};
    use crate::clock::RunClock;
    use crate::scenario::Scenario;
    use std::sync::Arc;
    use std::time::Duration;

    /// A question no pattern asks: three options, green after a minute.
    fn crossing() -> Question {
        Question::new(
            "light",
            "the crossing",
            "Which light?".into(),
            [("red", "Red"), ("amber", "Amber"), ("green", "Green")],
        )
        .defaulting("green", Duration::from_secs(60))
    }

    fn gate(desk: HumanDesk) -> (Controller, Gate, Subscription) {
        let scenario: Scenario = serde_json::from_value(serde_json::json!({
            "name": "t", "pattern": "orchestrator", "goal": "g", "context": {},
            "provider": {"kind": "sim"}
        }))
        .unwrap();
        let hub = Hub::new(64);
        let sub = hub.subscribe();
        let bus = Bus::new(1, RunClock::start(), hub, None);
        let flags = Flags::new(Arc::new(scenario), &[]).unwrap();
        let (controller, gate) = channel(flags, bus, false);
        (controller, gate.with_desk(desk), sub)
    }

    fn attended() -> HumanDesk {
        HumanDesk {
            preset: None,
            attended: true,
        }
    }

    fn kinds(sub: &mut Subscription) -> Vec<EventKind> {
        let mut out = Vec::new();
        while let Some(Delivery::Event(e)) = sub.try_next() {
            out.push(e.kind.clone());
        }
        out
    }

    const AT: GatePoint = GatePoint::Round { round: 4 };

    #[tokio::test(start_paused = true)]
    async fn a_control_message_answers_and_an_answer_naming_no_option_is_refused() {
        let (controller, mut gate, mut sub) = gate(attended());
        let waiting = tokio::spawn(async move {
            let answer = gate.ask(AT, &crossing()).await;
            (gate, answer)
        });
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(!waiting.is_finished(), "waits for an answer");
        assert_eq!(
            controller.answer("blue", None, AnsweredBy::Control),
            Err(ControlError::NoSuchOption(
                crossing().check("blue").unwrap_err()
            )),
            "refused as it is sent, naming the options"
        );
        let other = Control::Answer {
            option: "red".into(),
            note: None,
            question: Some("escalation".into()),
            by: AnsweredBy::Control,
        };
        assert_eq!(
            controller.send(other),
            Err(ControlError::OtherQuestion {
                named: "escalation".into(),
                asked: "light".into()
            })
        );
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(!waiting.is_finished(), "a refused answer answers nothing");
        controller
            .answer("amber", Some("slow down".into()), AnsweredBy::Control)
            .unwrap();
        let (_gate, answer) = waiting.await.unwrap();
        assert_eq!(
            answer,
            Ok(Some(Answer {
                option: "amber".into(),
                note: Some("slow down".into()),
                by: AnsweredBy::Control,
            }))
        );
        let kinds = kinds(&mut sub);
        assert_eq!(kinds.first(), Some(&EventKind::Paused { gate: AT }));
        assert_eq!(
            kinds.last(),
            Some(&EventKind::HumanDecided {
                choice: "amber".into(),
                note: Some("slow down".into()),
                gate: Some(AT),
                by: None,
            }),
            "a person's answer is recorded as it always was"
        );
        assert!(
            controller.answer("blue", None, AnsweredBy::Control).is_ok(),
            "nothing is asked now: kept for the next question, checked there"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn nobody_answers_and_the_default_does_after_the_timeout() {
        let (_controller, mut gate, mut sub) = gate(attended());
        let clock = gate.bus.clock().clone();
        let started = Instant::now();
        let answer = gate.ask(AT, &crossing()).await.unwrap();
        assert_eq!(
            started.elapsed(),
            Duration::from_secs(60),
            "after its timeout"
        );
        assert_eq!(clock.elapsed_ms(), 0, "the run clock stood while it asked");
        assert_eq!(
            answer,
            Some(Answer {
                option: "green".into(),
                note: None,
                by: AnsweredBy::Default
            })
        );
        assert!(kinds(&mut sub).contains(&EventKind::HumanDecided {
            choice: "green".into(),
            note: None,
            gate: Some(AT),
            by: Some(AnsweredBy::Default),
        }));
        let mut no_default = crossing();
        no_default.default = None;
        assert_eq!(gate.ask(AT, &no_default).await, Ok(None), "nobody answered");
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_given_in_advance_waits_for_a_question_that_offers_it() {
        let (_controller, mut gate, _sub) = gate(HumanDesk {
            preset: Some("amber".into()),
            attended: false,
        });
        let other = Question::new("pick", "the dealer", "Which card?".into(), [("ace", "Ace")]);
        assert_eq!(gate.ask(AT, &other).await, Ok(None), "not its option");
        let answer = gate.ask(AT, &crossing()).await.unwrap().unwrap();
        assert_eq!(
            (answer.option.as_str(), answer.by),
            ("amber", AnsweredBy::CommandLine)
        );
        let again = gate.ask(AT, &crossing()).await.unwrap().unwrap();
        assert_eq!(
            again.by,
            AnsweredBy::Default,
            "used once; then nobody watches and the default answers at once"
        );
    }
}
