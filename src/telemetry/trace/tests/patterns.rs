//! Each pattern's run of a shipped scenario as the trace it becomes.

use super::*;
use crate::patterns::collaboration::trace::STANCE;
use crate::patterns::events::PatternEvent;
use crate::patterns::events::{ResearchEvent, RoundEvent, TeamEvent};
use crate::patterns::team::spans::EVENT_HANDOFF;

#[tokio::test(start_paused = true)]
async fn a_round_table_is_a_workflow_of_rounds_contributions_and_chats() {
    let events = events_of("checkout_v2_launch.json", &[]).await;
    let spans = spans_of(&events, false);
    assert_well_formed(&spans);
    assert_root_is_the_run(&events, &spans);
    assert_one_agent_per_contribution(&events, &spans);
    assert_one_chat_per_model_call(&events, &spans);
    assert!(
        spans
            .iter()
            .all(|s| s.events.iter().all(|e| e.name != n::EVENT_CONTENT))
    );
}

/// The root span is the run's workflow: its name, its times, its seed and
/// how it ended, as the run's first and last events say.
fn assert_root_is_the_run(events: &[Arc<Event>], spans: &[FinishedSpan]) {
    let root = spans.iter().find(|s| s.parent.is_none()).unwrap();
    assert_eq!(root.name, "invoke_workflow checkout_v2_launch");
    assert_eq!(
        text(root, n::OPERATION_NAME).as_deref(),
        Some("invoke_workflow")
    );
    let started = events.first().unwrap();
    let finished = events.last().unwrap();
    let EventKind::RunStarted(run) = &started.kind else {
        panic!("a run starts with run_started")
    };
    assert_eq!(
        root.start_ns,
        (run.started_at_ms + started.t_ms) * 1_000_000
    );
    assert_eq!(root.end_ns / 1_000_000, run.started_at_ms + finished.t_ms);
    assert_eq!(
        root.attrs.get(n::SEED),
        Some(&AttrValue::Int(i64::try_from(run.seed).unwrap()))
    );
    let EventKind::RunFinished {
        status,
        stop_reason,
        summary,
        ..
    } = &finished.kind
    else {
        panic!("a run ends with run_finished")
    };
    assert_eq!(text(root, n::STATUS), Some(wire(status)));
    assert_eq!(text(root, n::STOP_REASON), Some(stop_reason.to_string()));
    assert_eq!(text(root, n::DECISION).as_deref(), summary.text("decision"));
    assert!(summary.text("decision").is_some(), "the table decides");
}

/// One `invoke_agent` span per contribution asked for, under its round.
fn assert_one_agent_per_contribution(events: &[Arc<Event>], spans: &[FinishedSpan]) {
    let contributions: Vec<(u32, &String)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRequested {
                round,
                agent,
            })) => Some((*round, agent)),
            _ => None,
        })
        .collect();
    let agents: Vec<_> = spans
        .iter()
        .filter(|s| s.name.starts_with("invoke_agent "))
        .collect();
    assert_eq!(
        agents.len(),
        contributions.len(),
        "one invoke_agent per contribution"
    );
    for (round, agent) in &contributions {
        let span = agents
            .iter()
            .find(|s| {
                s.name == format!("invoke_agent {agent}")
                    && s.attrs.get(n::ROUND) == Some(&AttrValue::Int(i64::from(*round)))
            })
            .unwrap_or_else(|| panic!("no span for {agent} in round {round}"));
        let parent = by_no(spans, span.parent.unwrap());
        assert_eq!(parent.name, format!("round {round}"));
        assert_eq!(parent.parent, Some(ROOT));
        assert_eq!(text(span, n::AGENT_NAME).as_deref(), Some(agent.as_str()));
        assert!(span.attrs.get(STANCE).is_some(), "{span:?}");
    }
}

/// One `chat` span per model call, with its model and usage, under the
/// contribution it was for (under the root when it was for no agent).
fn assert_one_chat_per_model_call(events: &[Arc<Event>], spans: &[FinishedSpan]) {
    let calls: Vec<(&String, &Option<String>)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallStarted {
                tool, label, agent, ..
            } if tool == crate::gateway::MODEL_TOOL => Some((label, agent)),
            _ => None,
        })
        .collect();
    let chats: Vec<_> = spans
        .iter()
        .filter(|s| s.name.starts_with("chat "))
        .collect();
    assert_eq!(chats.len(), calls.len(), "one chat per model call");
    for (label, agent) in calls {
        let chat = chats
            .iter()
            .find(|s| text(s, n::LABEL).as_deref() == Some(label.as_str()))
            .unwrap();
        assert_eq!(chat.name, "chat sim");
        assert_eq!(text(chat, n::OPERATION_NAME).as_deref(), Some("chat"));
        assert_eq!(
            text(chat, n::PROVIDER_NAME).as_deref(),
            Some("conclave.sim")
        );
        assert_eq!(text(chat, n::REQUEST_MODEL).as_deref(), Some("sim"));
        assert!(matches!(chat.attrs.get(n::USAGE_INPUT_TOKENS), Some(AttrValue::Int(n)) if *n > 0));
        assert!(
            matches!(chat.attrs.get(n::USAGE_OUTPUT_TOKENS), Some(AttrValue::Int(n)) if *n > 0)
        );
        let parent = by_no(spans, chat.parent.unwrap());
        match agent {
            Some(agent) => {
                assert_eq!(parent.name, format!("invoke_agent {agent}"), "{label}");
            }
            None => assert_eq!(parent.no, ROOT, "{label}"),
        }
    }
}

#[tokio::test(start_paused = true)]
async fn calls_refused_by_an_open_breaker_fail_with_circuit_open() {
    let events = events_of("vendor_outage.json", &[]).await;
    let spans = spans_of(&events, false);
    assert_well_formed(&spans);
    let tools: Vec<_> = spans
        .iter()
        .filter(|s| s.name.starts_with("execute_tool "))
        .collect();
    let attempts = events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::AttemptStarted { attempt: 1, .. }))
        .count();
    assert_eq!(tools.len(), attempts, "one execute_tool per call");
    let open: Vec<_> = tools
        .iter()
        .filter(|s| text(s, n::ERROR_TYPE).as_deref() == Some("circuit_open"))
        .collect();
    assert!(!open.is_empty(), "the outage opens a breaker");
    for span in &open {
        assert!(matches!(span.status, SpanStatus::Error(_)));
        let wave = by_no(&spans, span.parent.unwrap());
        assert!(wave.name.starts_with("wave "), "{}", wave.name);
        assert!(text(span, n::TOOL_NAME).is_some());
    }
    let root = by_no(&spans, ROOT);
    assert!(root.events.iter().any(|e| e.name == n::EVENT_BREAKER));
    assert!(
        spans
            .iter()
            .any(|s| s.name == n::SPAN_PLAN && s.parent == Some(ROOT))
    );
    let plan = spans.iter().find(|s| s.name == n::SPAN_PLAN).unwrap();
    assert!(
        spans
            .iter()
            .any(|s| s.name.starts_with("chat ") && s.parent == Some(plan.no))
    );
    // Retried calls keep one span each, with their attempts under them.
    let retries = events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::RetryScheduled { .. }))
        .count();
    let attempt_spans: Vec<_> = spans
        .iter()
        .filter(|s| s.name.starts_with("attempt "))
        .collect();
    assert!(retries > 0, "the outage makes the gateway retry");
    assert!(!attempt_spans.is_empty());
    for attempt in attempt_spans {
        let call = by_no(&spans, attempt.parent.unwrap());
        assert!(call.name.starts_with("execute_tool ") || call.name.starts_with("chat "));
        assert!(call.events.iter().any(|e| e.name == n::EVENT_RETRY));
    }
}

#[tokio::test(start_paused = true)]
async fn a_swarms_turns_are_agent_spans_and_its_handoffs_events() {
    let events = events_of("support_swarm.json", &[]).await;
    let spans = spans_of(&events, false);
    assert_well_formed(&spans);
    let turns = events
        .iter()
        .filter(|e| {
            matches!(
                &e.kind,
                EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnStarted { .. }))
            )
        })
        .count();
    assert_eq!(
        spans
            .iter()
            .filter(|s| s.name.starts_with("invoke_agent "))
            .count(),
        turns
    );
    let handoffs: Vec<(&String, &String)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
                from, to, ..
            })) => Some((from, to)),
            _ => None,
        })
        .collect();
    assert!(!handoffs.is_empty());
    let root = by_no(&spans, ROOT);
    let seen: Vec<(String, String)> = root
        .events
        .iter()
        .filter(|e| e.name == EVENT_HANDOFF)
        .map(|e| {
            let get = |k| match e.attrs.get(k) {
                Some(AttrValue::Str(s)) => s.clone(),
                other => panic!("{k}: {other:?}"),
            };
            (get(n::FROM), get(n::TO))
        })
        .collect();
    let want: Vec<(String, String)> = handoffs
        .iter()
        .map(|(f, t)| ((*f).clone(), (*t).clone()))
        .collect();
    assert_eq!(seen, want);
    // Model calls, and the tool calls a turn asked for, are the turn's.
    for call in spans
        .iter()
        .filter(|s| s.name.starts_with("chat ") || s.name.starts_with("execute_tool "))
    {
        let parent = by_no(&spans, call.parent.unwrap());
        assert!(parent.name.starts_with("invoke_agent "), "{}", parent.name);
    }
    assert!(spans.iter().any(|s| s.name.starts_with("execute_tool ")));
    assert!(text(root, n::FINAL_AGENT).is_some());
}

#[tokio::test(start_paused = true)]
async fn a_coordinators_member_calls_hold_the_members_turns() {
    let events = events_of("launch_coordinator.json", &[]).await;
    let spans = spans_of(&events, false);
    assert_well_formed(&spans);
    let member_calls = events
        .iter()
        .filter(|e| {
            matches!(
                &e.kind,
                EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallStarted { .. }))
            )
        })
        .count();
    assert!(member_calls > 0);
    let calls: Vec<_> = spans
        .iter()
        .filter(|s| s.name.starts_with("execute_tool ") && s.attrs.get(n::TURN).is_some())
        .collect();
    assert_eq!(calls.len(), member_calls);
    for call in calls {
        let asked_by = by_no(&spans, call.parent.unwrap());
        assert!(
            asked_by.name.starts_with("invoke_agent "),
            "{}",
            asked_by.name
        );
        let member = text(call, n::TOOL_NAME).unwrap();
        assert!(
            spans
                .iter()
                .any(|s| s.parent == Some(call.no) && s.name == format!("invoke_agent {member}")),
            "{member}'s turns are under the call"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_team_of_teams_is_a_tree_of_agent_spans() {
    let events = events_of("nested_launch_team.json", &[]).await;
    let spans = spans_of(&events, false);
    assert_well_formed(&spans);
    let named = |name: &str| {
        spans
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no span {name}"))
    };
    // Each ancestor of an agent's turn, innermost first, up to the root.
    let chain_of = |name: &str| {
        let mut names = Vec::new();
        let mut at = named(name);
        while let Some(parent) = at.parent {
            at = by_no(&spans, parent);
            names.push(at.name.clone());
        }
        names
    };
    assert_eq!(
        chain_of("invoke_agent launch/research_team/analyst")[..4],
        [
            "execute_tool launch/research_team/analyst",
            "invoke_agent launch/research_team/research_lead",
            "execute_tool research_team",
            "invoke_agent launch",
        ]
    );
    let billing = chain_of("invoke_agent launch/support_swarm/billing");
    assert_eq!(
        billing[..2],
        ["execute_tool support_swarm", "invoke_agent launch"]
    );
    // The nested swarm's handoff is an event of its member call's span.
    let swarm_call = named("execute_tool support_swarm");
    assert!(swarm_call.events.iter().any(|e| e.name == EVENT_HANDOFF));
    assert!(
        !by_no(&spans, ROOT)
            .events
            .iter()
            .any(|e| e.name == EVENT_HANDOFF)
    );
}

#[tokio::test(start_paused = true)]
async fn a_research_run_is_a_workflow_of_steps() {
    let events = events_of("payments_incident_research.json", &[]).await;
    let spans = spans_of(&events, false);
    assert_well_formed(&spans);
    let steps = events
        .iter()
        .filter(|e| {
            matches!(
                &e.kind,
                EventKind::Pattern(PatternEvent::Research(ResearchEvent::ResearchStepStarted(
                    _
                )))
            )
        })
        .count();
    assert_eq!(
        spans.iter().filter(|s| s.name.starts_with("step ")).count(),
        steps
    );
    for call in spans
        .iter()
        .filter(|s| s.name.starts_with("chat ") || s.name.starts_with("execute_tool "))
    {
        let step = by_no(&spans, call.parent.unwrap());
        assert!(
            step.name.starts_with("step "),
            "{} under {}",
            call.name,
            step.name
        );
    }
}
