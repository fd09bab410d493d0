//! Runs that pass control by turns and write no handoff (LangGraph's
//! graph nodes, AutoGen's speakers), and model calls told only inside
//! messages (AutoGen's `models_usage`), read from spans shaped as the
//! captured fixtures show them.

use super::{own, proto};
use crate::watch::acting::model_calls;
use crate::watch::forest::Forest;
use crate::watch::read::read;
use crate::watch::summary::{Handoff, WatchSummary, summarise};

type Shape = (u64, Option<u64>, &'static str, Vec<(&'static str, String)>);

/// The run the spans make, sent children first as exporters send them.
fn run_of(shapes: Vec<Shape>) -> (WatchSummary, Forest) {
    let mut forest = Forest::new(100);
    for (id, parent, name, attrs) in shapes.into_iter().rev() {
        let attrs: Vec<(&str, &str)> = attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        forest.insert(own(proto(id, parent, name, &attrs)));
    }
    (summarise(7, &forest, None), forest)
}

fn handoffs(s: &WatchSummary) -> Vec<(&str, &str)> {
    s.handoffs
        .iter()
        .map(|Handoff { from, to }| (from.as_str(), to.as_str()))
        .collect()
}

/// A LangGraph span: OpenInference's kind and the metadata LangGraph writes.
fn node(kind: &str, ns: &str) -> Vec<(&'static str, String)> {
    vec![
        ("openinference.span.kind", kind.to_string()),
        (
            "metadata",
            format!(r#"{{"langgraph_step": 1, "langgraph_checkpoint_ns": "{ns}"}}"#),
        ),
    ]
}

fn llm(ns: &str) -> Vec<(&'static str, String)> {
    let mut attrs = node("LLM", ns);
    attrs.push(("llm.token_count.prompt", "10".into()));
    attrs.push(("llm.token_count.completion", "2".into()));
    attrs
}

#[test]
fn each_change_of_the_graph_node_that_acts_is_one_handoff() {
    let (s, forest) = run_of(vec![
        (1, None, "LangGraph", node("CHAIN", "")),
        (2, Some(1), "supervisor", node("CHAIN", "supervisor:1")),
        (3, Some(2), "ScriptedChatModel", llm("supervisor:1")),
        (4, Some(2), "tools", node("CHAIN", "supervisor:1|tools:2")),
        // The handoff tool, marked AGENT for the "agent" in its name.
        (
            5,
            Some(4),
            "transfer_to_worker",
            node("AGENT", "supervisor:1|tools:2"),
        ),
        (6, Some(1), "worker", node("CHAIN", "worker:3")),
        (7, Some(6), "agent", node("AGENT", "worker:3|agent:4")),
        (8, Some(7), "ScriptedChatModel", llm("worker:3|agent:4")),
        (9, Some(1), "supervisor", node("CHAIN", "supervisor:5")),
        (10, Some(9), "ScriptedChatModel", llm("supervisor:5")),
    ]);
    assert_eq!(s.agents, ["supervisor", "worker"]);
    // The handoff span tells the first change; the return has no span.
    assert_eq!(
        handoffs(&s),
        [("supervisor", "worker"), ("worker", "supervisor")]
    );
    assert!(s.tool_calls.is_empty(), "{:?}", s.tool_calls);
    let per_agent: Vec<Option<String>> = model_calls(&forest, None)
        .into_iter()
        .map(|c| c.agent)
        .collect();
    let names = ["supervisor", "worker", "supervisor"].map(|n| Some(n.to_string()));
    assert_eq!(per_agent, names);
}

#[test]
fn a_lone_react_agent_is_one_agent_and_its_tools_node_is_none() {
    let mut search = node("TOOL", "tools:2");
    search.push(("tool.name", "web_search".into()));
    let (s, _) = run_of(vec![
        (1, None, "LangGraph", node("CHAIN", "")),
        (2, Some(1), "agent", node("AGENT", "agent:1")),
        (3, Some(2), "ScriptedChatModel", llm("agent:1")),
        (4, Some(1), "tools", node("CHAIN", "tools:2")),
        (5, Some(4), "web_search", search),
        (6, Some(1), "agent", node("AGENT", "agent:3")),
        (7, Some(6), "ScriptedChatModel", llm("agent:3")),
    ]);
    assert_eq!(s.agents, ["agent"]);
    assert!(s.handoffs.is_empty(), "{:?}", s.handoffs);
    let tools: Vec<(Option<&str>, &str)> = s
        .tool_calls
        .iter()
        .map(|t| (t.agent.as_deref(), t.tool.as_str()))
        .collect();
    assert_eq!(tools, [(Some("agent"), "web_search")]);
    assert_eq!((s.model_calls, s.input_tokens, s.output_tokens), (2, 20, 4));
}

fn speaker(name: &str) -> Vec<(&'static str, String)> {
    vec![
        ("gen_ai.operation.name", "invoke_agent".into()),
        ("gen_ai.system", "autogen".into()),
        ("gen_ai.agent.name", name.into()),
    ]
}

fn message(json: &str) -> Vec<(&'static str, String)> {
    vec![("message", json.to_string())]
}

#[test]
fn speakers_take_turns_and_a_message_sent_to_every_recipient_is_one_call() {
    let told = r#"{"id":"m1","source":"planner","models_usage":{"prompt_tokens":26,"completion_tokens":11},"metadata":{},"content":"Plan."}"#;
    let asked = r#"{"id":"m2","source":"researcher","models_usage":{"prompt_tokens":30,"completion_tokens":16},"content":[]}"#;
    let summary = r#"{"id":"m3","source":"researcher","models_usage":null,"content":"Lyon"}"#;
    let (s, forest) = run_of(vec![
        (1, None, "group chat", vec![]),
        (2, Some(1), "invoke_agent planner", speaker("planner")),
        (
            3,
            Some(1),
            "autogen process manager",
            message(&format!(r#"{{"message":{told}}}"#)),
        ),
        (
            4,
            Some(1),
            "autogen process writer",
            message(&format!(
                r#"{{"response":{{"chat_message":{told},"inner_messages":[]}},"name":"planner"}}"#
            )),
        ),
        (5, Some(1), "invoke_agent researcher", speaker("researcher")),
        (
            6,
            Some(5),
            "execute_tool lookup",
            vec![
                ("gen_ai.operation.name", "execute_tool".into()),
                ("gen_ai.tool.name", "lookup".into()),
            ],
        ),
        (
            7,
            Some(1),
            "autogen process manager",
            message(&format!(r#"{{"message":{asked}}}"#)),
        ),
        (
            8,
            Some(1),
            "autogen process planner",
            message(&format!(
                r#"{{"response":{{"chat_message":{summary},"inner_messages":[{asked}]}}}}"#
            )),
        ),
        (9, Some(1), "invoke_agent writer", speaker("writer")),
    ]);
    assert_eq!(s.agents, ["planner", "researcher", "writer"]);
    assert_eq!(
        handoffs(&s),
        [("planner", "researcher"), ("researcher", "writer")]
    );
    assert_eq!(
        (s.model_calls, s.input_tokens, s.output_tokens),
        (2, 56, 27)
    );
    // No model is named: the calls are unpriced, never guessed.
    assert_eq!((s.cost_usd, s.unpriced_calls), (None, 2));
    let per_agent: Vec<Option<String>> = model_calls(&forest, None)
        .into_iter()
        .map(|c| c.agent)
        .collect();
    assert_eq!(
        per_agent,
        [Some("planner".into()), Some("researcher".into())]
    );
}

#[test]
fn a_cut_message_still_tells_its_usage_and_one_with_no_id_is_not_counted() {
    let cut = r#"{"message":{"id":"m1","source":"writer","models_usage":{"prompt_tokens":41,"completion_tokens":6},"content":"Lyon has about 522,000 inh…"#;
    let r = read(&own(proto(1, None, "autogen process", &[("message", cut)])));
    let usage: Vec<(&str, Option<&str>, u64, u64)> = r
        .message_usage
        .iter()
        .map(|u| {
            (
                u.id.as_str(),
                u.agent.as_deref(),
                u.input_tokens,
                u.output_tokens,
            )
        })
        .collect();
    assert_eq!(usage, [("m1", Some("writer"), 41, 6)]);
    for unknown in [
        r#"{"models_usage":{"prompt_tokens":5,"completion_tokens":1}}"#,
        r#"{"id":"m2","metadata":{},"models_usage":{"prompt_tokens":5,"completion_tokens":1}}"#,
        r#"{"id":"m3","models_usage":null}"#,
        "No Message",
    ] {
        let r = read(&own(proto(
            1,
            None,
            "autogen process",
            &[("message", unknown)],
        )));
        assert!(
            r.message_usage.is_empty(),
            "{unknown}: {:?}",
            r.message_usage
        );
    }
}
