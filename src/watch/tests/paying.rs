//! Cost as the user pays it (a dated snapshot priced as its base name, the
//! cached input at its price, a framework's own cost preferred), each call
//! counted once where a message repeats a model span's usage, and a call
//! attributed to its agent while the agent's span is still open.

use super::{own, proto};
use crate::watch::acting::model_calls;
use crate::watch::forest::Forest;
use crate::watch::summary::{CostFrom, PricedAs, summarise};

/// The forest of `spans`, sent children first as exporters send them.
fn forest_of(spans: Vec<super::Proto>) -> Forest {
    let mut forest = Forest::new(100);
    for p in spans.into_iter().rev() {
        forest.insert(own(p));
    }
    forest
}

fn chat(id: u64, parent: Option<u64>, attrs: &[(&'static str, &'static str)]) -> super::Proto {
    let mut all = vec![("gen_ai.operation.name", "chat")];
    all.extend_from_slice(attrs);
    proto(id, parent, "chat", &all)
}

#[test]
fn a_dated_snapshot_is_priced_as_its_base_name_and_the_line_says_so() {
    let forest = forest_of(vec![
        chat(
            1,
            None,
            &[
                ("gen_ai.request.model", "gpt-4o"),
                ("gen_ai.response.model", "gpt-4o-2024-08-06"),
                ("gen_ai.usage.input_tokens", "1000"),
                ("gen_ai.usage.output_tokens", "100"),
            ],
        ),
        // The Agents SDK names only the snapshot.
        chat(
            2,
            None,
            &[
                ("gen_ai.request.model", "gpt-4.1-mini-2025-04-14"),
                ("gen_ai.usage.input_tokens", "1000"),
                ("gen_ai.usage.output_tokens", "100"),
            ],
        ),
        // A deployment's own name: priced as the model asked for.
        chat(
            3,
            None,
            &[
                ("gen_ai.request.model", "gpt-4.1-mini"),
                ("gen_ai.response.model", "my-deployment-7"),
                ("gen_ai.usage.input_tokens", "1000"),
                ("gen_ai.usage.output_tokens", "100"),
            ],
        ),
    ]);
    let s = summarise(7, &forest, None);
    // gpt-4o: 1000 × 2.50 + 100 × 10.00; gpt-4.1-mini twice: 1000 × 0.40 + 100 × 1.60.
    assert_eq!(s.cost_usd, Some(0.0035 + 2.0 * 0.00056));
    assert_eq!(
        (s.cost_from, s.unpriced_calls),
        (Some(CostFrom::PriceTable), 0)
    );
    let priced = |model: &str, priced_as: &str| PricedAs {
        model: model.into(),
        priced_as: priced_as.into(),
    };
    assert_eq!(
        s.priced_as,
        [
            priced("gpt-4o-2024-08-06", "gpt-4o"),
            priced("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
            priced("my-deployment-7", "gpt-4.1-mini"),
        ]
    );
    let line = crate::watch::start::line(&s);
    assert!(
        line.contains(r#""priced_as":[{"model":"gpt-4o-2024-08-06","as":"gpt-4o"}"#),
        "{line}"
    );
}

#[test]
fn cached_input_tokens_cost_the_cached_price_in_either_vocabulary() {
    let forest = forest_of(vec![
        chat(
            1,
            None,
            &[
                ("gen_ai.request.model", "gpt-4.1-mini"),
                ("gen_ai.usage.input_tokens", "10000"),
                ("gen_ai.usage.cache_read.input_tokens", "8000"),
                ("gen_ai.usage.output_tokens", "1000"),
            ],
        ),
        proto(
            2,
            None,
            "ChatCompletion",
            &[
                ("openinference.span.kind", "LLM"),
                ("llm.model_name", "gpt-4.1-mini"),
                ("llm.token_count.prompt", "10000"),
                ("llm.token_count.prompt_details.cache_read", "8000"),
                ("llm.token_count.completion", "1000"),
            ],
        ),
    ]);
    let s = summarise(7, &forest, None);
    assert_eq!(s.cached_input_tokens, 16_000);
    // Each: 2,000 × 0.40 + 8,000 × 0.10 + 1,000 × 1.60 per million (not 0.0056).
    assert_eq!(s.cost_usd, Some(2.0 * 0.0032));
}

#[test]
fn a_frameworks_own_cost_is_read_and_preferred_to_the_price_table() {
    let forest = forest_of(vec![chat(
        1,
        None,
        &[
            ("gen_ai.request.model", "gpt-4o"),
            ("gen_ai.usage.input_tokens", "1000"),
            ("gen_ai.usage.output_tokens", "100"),
            ("operation.cost", "0.0042"),
        ],
    )]);
    let s = summarise(7, &forest, None);
    assert_eq!(
        (s.cost_usd, s.cost_from),
        (Some(0.0042), Some(CostFrom::Span))
    );
    assert!(s.priced_as.is_empty());
}

/// AutoGen with its OpenAI client instrumented: the `chat` span and the
/// message's `models_usage` tell the same call; a message no span matches
/// (a client left uninstrumented) is a call of its own.
#[test]
fn a_message_repeating_a_model_span_is_matched_to_it_never_added() {
    let said = |id: &str, from: &str, input: u32, output: u32| {
        format!(
            r#"{{"message":{{"id":"{id}","source":"{from}","models_usage":{{"prompt_tokens":{input},"completion_tokens":{output}}}}}}}"#
        )
    };
    let planner = said("m1", "planner", 58, 15);
    let writer = said("m2", "writer", 40, 9);
    let forest = forest_of(vec![
        proto(1, None, "group chat", &[]),
        proto(
            2,
            Some(1),
            "invoke_agent planner",
            &[
                ("gen_ai.operation.name", "invoke_agent"),
                ("gen_ai.agent.name", "planner"),
                ("gen_ai.system", "autogen"),
            ],
        ),
        chat(
            3,
            Some(2),
            &[
                ("gen_ai.request.model", "gpt-4o"),
                ("gen_ai.usage.input_tokens", "58"),
                ("gen_ai.usage.output_tokens", "15"),
            ],
        ),
        proto(
            4,
            Some(1),
            "autogen process manager",
            &[("message", &planner)],
        ),
        proto(
            5,
            Some(1),
            "autogen process writer",
            &[("message", &planner)],
        ),
        proto(
            6,
            Some(1),
            "autogen process manager",
            &[("message", &writer)],
        ),
    ]);
    let s = summarise(7, &forest, None);
    assert_eq!(
        (s.model_calls, s.input_tokens, s.output_tokens),
        (2, 98, 24)
    );
    assert_eq!(s.unpriced_calls, 1, "the writer's call names no model");
    let agents: Vec<Option<String>> = model_calls(&forest, None)
        .into_iter()
        .map(|c| c.agent)
        .collect();
    assert_eq!(agents, [Some("planner".into()), Some("writer".into())]);
}

/// Spans arrive when they end: while an agent's span is open its calls
/// hang under a placeholder, and are the agent they name themselves.
#[test]
fn a_call_names_its_agent_while_the_agent_span_is_open() {
    let forest = forest_of(vec![
        chat(
            2,
            Some(1),
            &[
                ("gen_ai.agent.name", "researcher"),
                ("gen_ai.request.model", "gpt-4o"),
                ("gen_ai.usage.input_tokens", "10"),
                ("gen_ai.usage.output_tokens", "5"),
            ],
        ),
        proto(
            3,
            Some(1),
            "search_market.run",
            &[
                ("openinference.span.kind", "TOOL"),
                ("tool.name", "search_market"),
                ("tool.agent_role", "Market Researcher"),
            ],
        ),
    ]);
    let s = summarise(7, &forest, None);
    assert_eq!(s.agents, ["researcher"]);
    assert_eq!(s.tool_calls[0].agent.as_deref(), Some("Market Researcher"));
    let agents: Vec<Option<String>> = model_calls(&forest, None)
        .into_iter()
        .map(|c| c.agent)
        .collect();
    assert_eq!(agents, [Some("researcher".into())]);
}

/// CrewAI's agent span is named `<role>.<task, cut>.execute`; its role is
/// `graph.node.id`, and the next task's agent names the one before it.
#[test]
fn a_crewai_agent_is_its_role_and_the_next_task_a_handoff() {
    let agent = |id: u64, role: &'static str, before: Option<&'static str>| {
        let mut attrs = vec![
            ("openinference.span.kind", "AGENT"),
            ("graph.node.id", role),
        ];
        attrs.extend(before.map(|b| ("graph.node.parent_id", b)));
        proto(
            id,
            Some(1),
            &format!("{role}.Research the market.execute"),
            &attrs,
        )
    };
    let llm = |id: u64, parent: u64| {
        proto(
            id,
            Some(parent),
            "gpt-4.1-mini.llm_call",
            &[
                ("openinference.span.kind", "LLM"),
                ("llm.model_name", "gpt-4.1-mini"),
                ("llm.token_count.prompt", "100"),
                ("llm.token_count.completion", "10"),
            ],
        )
    };
    let forest = forest_of(vec![
        proto(
            1,
            None,
            "crew.kickoff",
            &[
                ("openinference.span.kind", "CHAIN"),
                ("llm.token_count.total", "220"),
            ],
        ),
        agent(2, "Market Researcher", None),
        llm(3, 2),
        agent(4, "Writer", Some("Market Researcher")),
        llm(5, 4),
    ]);
    let s = summarise(7, &forest, None);
    assert_eq!(s.agents, ["Market Researcher", "Writer"]);
    let handoffs: Vec<(&str, &str)> = s
        .handoffs
        .iter()
        .map(|h| (h.from.as_str(), h.to.as_str()))
        .collect();
    assert_eq!(handoffs, [("Market Researcher", "Writer")]);
    assert_eq!((s.model_calls, s.input_tokens), (2, 200));
}

/// The Agents SDK (OpenInference): after `handoff to Weather agent` the
/// new agent's calls arrive before its span, which ends last; until then
/// they are the agent the handoff went to.
#[test]
fn calls_after_a_handoff_are_the_new_agents_until_its_span_arrives() {
    let llm = |id: u64, parent: u64| {
        proto(
            id,
            Some(parent),
            "response",
            &[
                ("openinference.span.kind", "LLM"),
                ("llm.token_count.prompt", "10"),
                ("llm.token_count.completion", "2"),
            ],
        )
    };
    let arrived = vec![
        proto(
            2,
            Some(1),
            "Triage agent",
            &[
                ("openinference.span.kind", "AGENT"),
                ("agent.name", "Triage agent"),
            ],
        ),
        llm(3, 2),
        proto(
            4,
            Some(2),
            "handoff to Weather agent",
            &[("openinference.span.kind", "TOOL")],
        ),
        // The weather agent's turn (span 6) has not arrived: its call waits.
        llm(7, 6),
    ];
    let agents = |forest: &Forest| -> Vec<Option<String>> {
        model_calls(forest, None)
            .into_iter()
            .map(|c| c.agent)
            .collect()
    };
    let open = forest_of(arrived.clone());
    assert_eq!(
        agents(&open),
        [Some("Triage agent".into()), Some("Weather agent".into())]
    );
    // Once its span arrives the agent span above the call names it.
    let mut done = arrived;
    done.push(proto(
        6,
        Some(1),
        "Helper agent",
        &[
            ("openinference.span.kind", "AGENT"),
            ("agent.name", "Helper agent"),
        ],
    ));
    assert_eq!(
        agents(&forest_of(done)),
        [Some("Triage agent".into()), Some("Helper agent".into())]
    );
}

/// The contrib Agents SDK instrumentation stamps `gen_ai.agent.name =
/// "OpenAI Agent"` on every call: after a handoff, while the new agent's
/// span is open, the handoff's target names the call, not that stamp.
#[test]
fn after_a_handoff_the_target_wins_over_a_calls_stamped_name() {
    let forest = forest_of(vec![
        proto(
            2,
            Some(1),
            "agent_handoff",
            &[
                ("gen_ai.handoff.from_agent", "triage"),
                ("gen_ai.handoff.to_agent", "billing"),
            ],
        ),
        chat(
            4,
            Some(3),
            &[
                ("gen_ai.agent.name", "OpenAI Agent"),
                ("gen_ai.usage.input_tokens", "10"),
                ("gen_ai.usage.output_tokens", "2"),
            ],
        ),
    ]);
    let agents: Vec<Option<String>> = model_calls(&forest, None)
        .into_iter()
        .map(|c| c.agent)
        .collect();
    assert_eq!(agents, [Some("billing".into())]);
}
