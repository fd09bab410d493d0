//! The captured traces of real frameworks, request by request as their
//! exporters sent them, told as events: the events give the agents,
//! handoffs (in their order), tool calls, model calls and tokens the
//! watch's summary gives of the same spans. The agents are compared as a
//! set: the events name them in the order their turns were told, which
//! is not always the order they started in (PydanticAI's coordinator's
//! span arrives after its delegate's turns). And the telling is incremental: each span is
//! told once, a call as soon as its agent can be known.

use super::Translator;
use crate::bus::{Event, EventKind};
use crate::patterns::events::{PatternEvent, TeamEvent};
use crate::span::{Span, TraceId, spans_of};
use crate::watch::fixture_tests::{decoded, requests};
use crate::watch::runs::{Limits, Runs};
use crate::watch::summary::summarise;
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// Arrivals as the telling takes them (their run holds the spans and
/// their readings).
pub(crate) fn came(arrivals: &[crate::watch::runs::Arrival]) -> Vec<crate::watch::runs::Came> {
    arrivals.iter().map(crate::watch::runs::Came::of).collect()
}

/// Each run of fixture set `set`, its events and its summary's facts.
pub(crate) fn told(set: &str) -> Vec<(Vec<Event>, Value)> {
    let mut runs = Runs::new(Limits::default());
    let mut translators: HashMap<TraceId, (Translator, usize)> = HashMap::new();
    let mut events: HashMap<TraceId, Vec<Event>> = HashMap::new();
    let now = tokio::time::Instant::now();
    let mut order = Vec::new();
    for sent in requests(set) {
        let mut spans = spans_of(&decoded(&sent));
        crate::watch::read::settle_control_flow(&mut spans);
        for id in runs.accept(spans, now) {
            let run = u32::try_from(translators.len() + 1).unwrap();
            translators.insert(id, (Translator::new(run, id), 0));
            order.push(id);
        }
        for id in &order {
            let run = runs.get(*id).unwrap();
            let (translator, seen) = translators.get_mut(id).unwrap();
            let told = translator.take_read(
                &came(&run.arrivals[*seen..]),
                &run.forest,
                &run.readings,
                None,
            );
            *seen = run.arrivals.len();
            events.entry(*id).or_default().extend(told);
        }
    }
    order
        .iter()
        .map(|id| {
            let run = runs.get(*id).unwrap();
            let summary = summarise(*id, &run.forest, None);
            // The watch sums a run up from the readings its spans were
            // taken with: the same summary as reading them again.
            assert_eq!(
                crate::watch::summary::summarise_read(*id, &run.forest, &run.readings, None),
                summary,
                "{set}"
            );
            let (translator, _) = translators.get_mut(id).unwrap();
            let mut all = events.remove(id).unwrap_or_default();
            all.extend(translator.finish((&run.forest, &run.readings), &summary, None, 0));
            let facts = json!({
                "agents": sorted(summary.agents.iter().cloned()),
                "handoffs": summary
                    .handoffs
                    .iter()
                    .map(|h| format!("{} → {}", h.from, h.to))
                    .collect::<Vec<_>>(),
                "tool_calls": sorted(summary.tool_calls.iter().map(|c| {
                    format!("{} {} {}", c.agent.as_deref().unwrap_or("-"), c.tool, c.status)
                })),
                "model_calls": summary.model_calls,
                "input_tokens": summary.input_tokens,
                "output_tokens": summary.output_tokens,
            });
            (all, facts)
        })
        .collect()
}

pub(super) fn sorted(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut items: Vec<String> = items.collect();
    items.sort();
    items
}

/// What the events say of the run, in the summary's terms.
pub(super) fn facts_of(events: &[Event]) -> Value {
    let mut agents = BTreeSet::new();
    let (mut handoffs, mut tools) = (Vec::new(), Vec::new());
    let (mut calls, mut input, mut output) = (0u64, 0u64, 0u64);
    for event in events {
        match &event.kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnStarted { agent, .. })) => {
                agents.insert(agent.clone());
            }
            EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
                from, to, ..
            })) => handoffs.push(format!("{from} → {to}")),
            EventKind::Pattern(PatternEvent::Team(TeamEvent::ToolUsed {
                agent, tool, ok, ..
            })) => {
                let agent = if agent.is_empty() { "-" } else { agent };
                let status = if *ok { "ok" } else { "error" };
                tools.push(format!("{agent} {tool} {status}"));
            }
            EventKind::CallFinished {
                tool,
                usage: Some(usage),
                ..
            } if tool == "model" => {
                calls += 1;
                input += usage.input;
                output += usage.output;
            }
            _ => {}
        }
    }
    json!({
        "agents": agents.into_iter().collect::<Vec<_>>(),
        "handoffs": handoffs,
        "tool_calls": sorted(tools.into_iter()),
        "model_calls": calls,
        "input_tokens": input,
        "output_tokens": output,
    })
}

/// Every captured set of real frameworks' requests.
pub(crate) fn sets() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/watch");
    let mut sets: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let e = e.ok()?;
            e.path()
                .join("index.json")
                .exists()
                .then(|| e.file_name().to_string_lossy().into_owned())
        })
        .collect();
    sets.sort();
    sets
}

#[test]
fn the_events_of_every_captured_run_say_what_its_summary_says() {
    let sets = sets();
    assert!(sets.len() >= 10, "{sets:?}");
    for set in sets {
        for (events, facts) in told(&set) {
            assert_eq!(facts_of(&events), facts, "{set}");
        }
    }
}

#[test]
fn each_run_starts_once_ends_once_and_numbers_its_events_without_gaps() {
    for set in sets() {
        for (events, _) in told(&set) {
            assert!(matches!(events[0].kind, EventKind::RunStarted(_)), "{set}");
            let starts = events
                .iter()
                .filter(|e| matches!(e.kind, EventKind::RunStarted(_)));
            assert_eq!(starts.count(), 1, "{set}");
            assert!(matches!(
                events.last().unwrap().kind,
                EventKind::RunFinished { .. }
            ));
            let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
            assert_eq!(seqs, (1..=events.len() as u64).collect::<Vec<_>>(), "{set}");
            // Each event reads back as it was written: a recording of
            // them replays.
            for event in &events {
                let text = serde_json::to_string(event).unwrap();
                let back: Event = serde_json::from_str(&text).unwrap();
                assert_eq!(&back, event, "{set}: {text}");
            }
        }
    }
}

/// The agent span of `coder`, and a model call of 5/2 tokens.
pub(super) const CODER: [(&str, &str); 2] = [
    ("openinference.span.kind", "AGENT"),
    ("agent.name", "coder"),
];
pub(super) const CODER_CALL: [(&str, &str); 3] = [
    ("openinference.span.kind", "LLM"),
    ("llm.token_count.prompt", "5"),
    ("llm.token_count.completion", "2"),
];

pub(super) fn span(id: u64, parent: Option<u64>, attrs: &[(&str, &str)]) -> Span {
    Span {
        trace_id: 7,
        span_id: id,
        parent,
        remote_parent: None,
        name: format!("s{id}"),
        start_ns: id * 1_000_000,
        end_ns: id * 1_000_000 + 500_000,
        error: None,
        attrs: attrs
            .iter()
            .map(|(k, v)| (k.to_string(), crate::span::Value::Str(v.to_string())))
            .collect(),
        events: Vec::new(),
        service: Some("svc".into()),
        scope: String::new(),
        language: None,
    }
}
