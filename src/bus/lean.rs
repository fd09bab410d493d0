//! Short call records: a worker or tool call's record leaves out what the
//! recording already says, its args and answer when they are the tool's
//! previous call's, and its end when it is the event's own time. The bus
//! shortens them in publish order, under its lock, which is the order a
//! cassette reads them back in and fills them in again.

use super::EventKind;
use super::cassette::{Answer, CallRecord};
use serde_json::Value;
use std::collections::HashMap;

/// The last args and answer of each tool's calls, in recording order: what
/// a short record of the tool stands for.
#[derive(Debug, Default)]
pub(crate) struct LastCalls(HashMap<String, LastCall>);

#[derive(Debug, Default)]
struct LastCall {
    args: Option<Value>,
    answer: Option<Answer>,
}

/// Run time `t_ms` in microseconds, as a record's `ended_us` counts it.
fn micros(t_ms: u64) -> u64 {
    t_ms.saturating_mul(1000)
}

impl LastCalls {
    /// Shorten the record of `kind`, a tool call's `call_finished` at
    /// `t_ms`, against the tool's previous call.
    pub(crate) fn shorten(&mut self, kind: &mut EventKind, t_ms: u64) {
        let EventKind::CallFinished {
            tool,
            record: Some(record),
            ..
        } = kind
        else {
            return;
        };
        if record.purpose.is_some() || record.args.is_none() {
            return;
        }
        let last = self.last_of(tool);
        let same_args = last.args == record.args;
        let same_answer = record.answer.is_some() && last.answer == record.answer;
        if !same_args {
            last.args.clone_from(&record.args);
        }
        if !same_answer {
            last.answer.clone_from(&record.answer);
        }
        // A call that got no answer, or whose end is not known, is written
        // whole: a short record without them stands for the previous ones.
        if !same_args || record.answer.is_none() || record.ended_us.is_none() {
            return;
        }
        record.args = None;
        if same_answer {
            record.answer = None;
        }
        if record.ended_us == Some(micros(t_ms)) {
            record.ended_us = None;
        }
    }

    /// `record`, of a call to `tool` at `t_ms`, whole: a short one filled
    /// in from the tool's previous call. Every tool call's record passes
    /// here in recording order.
    pub(crate) fn fill(&mut self, tool: &str, record: &CallRecord, t_ms: u64) -> CallRecord {
        let mut whole = record.clone();
        if whole.purpose.is_some() {
            return whole;
        }
        let last = self.last_of(tool);
        if whole.args.is_none() {
            whole.args.clone_from(&last.args);
            if whole.answer.is_none() {
                whole.answer.clone_from(&last.answer);
            }
            whole.ended_us.get_or_insert(micros(t_ms));
        }
        if last.args != whole.args {
            last.args.clone_from(&whole.args);
        }
        if last.answer != whole.answer {
            last.answer.clone_from(&whole.answer);
        }
        whole
    }

    fn last_of(&mut self, tool: &str) -> &mut LastCall {
        self.0.entry(tool.to_string()).or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::CallOutcome;
    use serde_json::json;

    fn finished(tool: &str, record: CallRecord) -> EventKind {
        EventKind::CallFinished {
            call: 1,
            tool: tool.into(),
            attempt: 1,
            latency_ms: 1,
            outcome: CallOutcome::Ok,
            usage: None,
            error: None,
            http_status: None,
            first_token_ms: None,
            tokens_per_s: None,
            served: false,
            reasoning: None,
            record: Some(Box::new(record)),
            extracted: None,
            fallback: false,
        }
    }

    fn tool_call(args: Value, answer: Option<Answer>, ended_us: u64) -> CallRecord {
        CallRecord {
            args: Some(args),
            answer,
            ended_us: Some(ended_us),
            ..CallRecord::default()
        }
    }

    fn record_of(kind: &EventKind) -> CallRecord {
        let EventKind::CallFinished {
            record: Some(record),
            ..
        } = kind
        else {
            panic!("a call_finished with a record")
        };
        (**record).clone()
    }

    #[test]
    fn short_records_fill_in_to_what_was_published_in_every_order() {
        let ok = |n: i64| Some(Answer::Observation(json!({"value": n})));
        // (tool, args, answer, ended_us, t_ms)
        let calls = [
            ("a", json!({"x": 1}), ok(1), 1000, 1),
            ("a", json!({"x": 1}), ok(1), 2000, 2),
            ("b", json!({"x": 1}), ok(1), 2000, 2),
            ("a", json!({"x": 1}), ok(2), 3500, 3),
            ("a", json!({"x": 1}), None, 4000, 4),
            ("a", json!({"x": 1}), ok(2), 5000, 5),
            ("a", json!({"x": 2}), ok(2), 6000, 6),
            ("a", json!({"x": 2}), ok(2), 6000, 7),
        ];
        let (mut publisher, mut reader) = (LastCalls::default(), LastCalls::default());
        let mut written = Vec::new();
        for (tool, args, answer, ended_us, t_ms) in calls {
            let whole = tool_call(args, answer, ended_us);
            let mut kind = finished(tool, whole.clone());
            publisher.shorten(&mut kind, t_ms);
            let short = record_of(&kind);
            written.push(serde_json::to_value(&short).unwrap());
            assert_eq!(reader.fill(tool, &short, t_ms), whole, "{tool} at {t_ms}");
        }
        assert_eq!(written[1], json!({}), "the same call again");
        assert_eq!(written[2]["args"], json!({"x": 1}), "another tool's first");
        assert_eq!(
            written[3],
            json!({"ended_us": 3500, "answer": {"observation": {"value": 2}}})
        );
        assert_eq!(written[4]["args"], json!({"x": 1}), "no answer: whole");
        assert_eq!(written[6]["args"], json!({"x": 2}), "new args: whole");
        assert_eq!(written[7], json!({"ended_us": 6000}));
        // A model call's record is never short.
        let model = CallRecord {
            purpose: Some("plan".into()),
            ..CallRecord::default()
        };
        let mut kind = finished("model", model.clone());
        publisher.shorten(&mut kind, 8);
        assert_eq!(record_of(&kind), model);
    }
}
