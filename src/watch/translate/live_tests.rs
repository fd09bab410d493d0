//! The telling as spans come one batch at a time: a call is told as soon
//! as its agent can be known (when its agent's span arrives, or at once
//! when the call names its agent), each span once, the run's clock never
//! going back.

use super::Translator;
use super::tests::{CODER, CODER_CALL, came, facts_of, sorted, span};
use crate::bus::{Event, EventKind};
use crate::span::Span;
use crate::watch::runs::{Limits, Runs};
use crate::watch::summary::summarise;
use serde_json::json;
use std::collections::BTreeSet;

/// Spans of run 7 accepted as they come, each batch's new arrivals told.
struct Feed {
    runs: Runs,
    translator: Translator,
    now: tokio::time::Instant,
}

impl Feed {
    fn new() -> Self {
        Feed {
            runs: Runs::new(Limits::default()),
            translator: Translator::new(1, 7),
            now: tokio::time::Instant::now(),
        }
    }

    fn take(&mut self, spans: Vec<Span>) -> Vec<Event> {
        let from = self.runs.get(7).map_or(0, |r| r.arrivals.len());
        self.runs.accept(spans, self.now);
        let run = self.runs.get(7).unwrap();
        self.translator.take_read(
            &came(&run.arrivals[from..]),
            &run.forest,
            &run.readings,
            None,
        )
    }
}

#[test]
fn a_call_is_told_when_its_agents_span_arrives_and_each_span_once() {
    let agent = [
        ("openinference.span.kind", "AGENT"),
        ("agent.name", "triage"),
    ];
    let model = [
        ("openinference.span.kind", "LLM"),
        ("llm.model_name", "gpt-4o"),
        ("llm.token_count.prompt", "10"),
        ("llm.token_count.completion", "3"),
    ];
    let mut feed = Feed::new();
    // The model call ends first, under its agent's span, not yet arrived.
    let first = feed.take(vec![span(3, Some(2), &model)]);
    assert!(matches!(first[0].kind, EventKind::RunStarted(_)));
    assert!(matches!(
        first[1].kind,
        EventKind::SpanArrived { call: Some(1), .. }
    ));
    assert_eq!(first.len(), 2, "the call waits for its agent");
    let second = feed.take(vec![span(2, Some(1), &agent)]);
    let kinds: Vec<&str> = second
        .iter()
        .map(|e| crate::bus::describe::kind_name(&e.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            "span_arrived",
            "turn_started",
            "call_started",
            "call_finished",
            "turn_finished"
        ]
    );
    let EventKind::CallStarted { agent, label, .. } = &second[2].kind else {
        unreachable!()
    };
    assert_eq!(agent.as_deref(), Some("triage"));
    assert_eq!(label, "triage · gpt-4o");
    let EventKind::CallFinished {
        usage: Some(usage), ..
    } = &second[3].kind
    else {
        unreachable!()
    };
    assert_eq!((usage.input, usage.output), (10, 3));
    assert!(usage.cost_usd.is_some(), "gpt-4o is priced");
    // The root: its span alone, nothing told again.
    let third = feed.take(vec![span(1, None, &[])]);
    assert_eq!(third.len(), 1);
    assert_eq!(third[0].seq, 8);
}

#[test]
fn calls_wait_under_their_running_agent_once_and_are_told_when_it_ends() {
    let (agent, model) = (CODER, CODER_CALL);
    let mut runs = Runs::new(Limits::default());
    let now = tokio::time::Instant::now();
    let mut translator = Translator::new(1, 7);
    let mut told = Vec::new();
    // 2,000 model calls under the agent's span, in 20 requests of 100,
    // the agent's span (id 2) still running: nothing but the spans told.
    for batch in 0..20u64 {
        let from = runs.get(7).map_or(0, |r| r.arrivals.len());
        let spans = (0..100).map(|i| span(10 + batch * 100 + i, Some(2), &model));
        runs.accept(spans.collect(), now);
        let run = runs.get(7).unwrap();
        told.extend(translator.take_read(
            &came(&run.arrivals[from..]),
            &run.forest,
            &run.readings,
            None,
        ));
    }
    let calls = |events: &[Event]| {
        events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::CallFinished { .. }))
            .count()
    };
    assert_eq!(calls(&told), 0);
    assert_eq!(translator.waiting.len(), 1, "they wait under the one span");
    // The agent's span ends: every call is told, once, as the agent's.
    let from = runs.get(7).unwrap().arrivals.len();
    runs.accept(vec![span(2, None, &agent)], now);
    let run = runs.get(7).unwrap();
    let then = translator.take_read(
        &came(&run.arrivals[from..]),
        &run.forest,
        &run.readings,
        None,
    );
    assert_eq!(calls(&then), 2000);
    assert!(translator.waiting.is_empty());
    let agents: BTreeSet<&str> = then
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallStarted { agent, .. } => agent.as_deref(),
            _ => None,
        })
        .collect();
    assert_eq!(agents, BTreeSet::from(["coder"]));
}

#[test]
fn a_runs_clock_never_goes_back_when_its_hook_spoke_before_its_spans() {
    // The hook's decisions count from its first call; the spans from the
    // first span's arrival, which came later and counts from 0.
    let mut translator = Translator::new(1, 7);
    let mut told = translator.start_hooked(900);
    told.extend(translator.steered(1200, "paused".into(), json!({"decision": "paused"})));
    let mut runs = Runs::new(Limits::default());
    runs.accept(vec![span(2, None, &[])], tokio::time::Instant::now());
    let run = runs.get(7).unwrap();
    told.extend(translator.take_read(&came(&run.arrivals), &run.forest, &run.readings, None));
    let times: Vec<u64> = told.iter().map(|e| e.t_ms).collect();
    assert_eq!(times[..2], [900, 1200], "{times:?}");
    assert!(
        times.len() > 2 && times[2..].iter().all(|t| *t == 1200),
        "{times:?}"
    );
}

#[test]
fn a_call_that_names_its_agent_is_told_before_its_agents_span_arrives() {
    // PydanticAI's chat spans name their agent; its agent span comes last.
    let chat = [
        ("gen_ai.operation.name", "chat"),
        ("gen_ai.agent.name", "support"),
        ("gen_ai.request.model", "gpt-4o"),
        ("gen_ai.usage.input_tokens", "10"),
        ("gen_ai.usage.output_tokens", "3"),
    ];
    let agent = [
        ("gen_ai.operation.name", "invoke_agent"),
        ("gen_ai.agent.name", "support"),
    ];
    let mut feed = Feed::new();
    // Five calls, each told as it comes: the run's and the agent's counts
    // are live while the agent still runs.
    let mut told = Vec::new();
    for id in 3..8 {
        let now = feed.take(vec![span(id, Some(2), &chat)]);
        let facts = facts_of(&now);
        assert_eq!(facts["model_calls"], 1, "call {id} is told at once");
        assert_eq!(facts["agents"], json!(["support"]));
        let started = now.iter().find_map(|e| match &e.kind {
            EventKind::CallStarted { agent, .. } => agent.clone(),
            _ => None,
        });
        assert_eq!(started.as_deref(), Some("support"));
        told.extend(now);
    }
    // The agent's span and the root: no call told again.
    told.extend(feed.take(vec![span(2, Some(1), &agent)]));
    told.extend(feed.take(vec![span(1, None, &[])]));
    let facts = facts_of(&told);
    assert_eq!(facts["model_calls"], 5);
    assert_eq!(facts["input_tokens"], 50);
    assert_eq!(facts["output_tokens"], 15);
    let run = feed.runs.get(7).unwrap();
    let summary = summarise(7, &run.forest, None);
    assert_eq!(summary.model_calls, 5);
    assert_eq!(sorted(summary.agents.iter().cloned()), ["support"]);
}
