//! The reader on what the TypeScript frameworks write: the AI SDK's
//! `ai.*` spans (their loop totals never counted), spans no row reads
//! counted as not understood, LangGraph's control-flow exceptions (Python
//! and JavaScript) no failure, and LangGraph's `__start__` no node.

use super::{own, proto};
use crate::span::{SpanEvent, Value};
use crate::watch::forest::Forest;
use crate::watch::read::{control_flow, read, settle_control_flow, understood};
use crate::watch::start::line;
use crate::watch::summary::summarise;
use crate::watch::vocab::Kind;

/// An AI SDK 6 loop (`ai.generateText`, its totals on it), its two model
/// calls and a tool call: the calls' tokens, not the loop's added to them.
#[test]
fn the_ai_sdks_loop_totals_are_never_added_to_its_calls() {
    let call = |id: u64, input: &'static str, output: &'static str| {
        proto(
            id,
            Some(1),
            "ai.generateText.doGenerate",
            &[
                ("ai.operationId", "ai.generateText.doGenerate"),
                ("ai.telemetry.functionId", "triage"),
                ("ai.model.id", "gpt-4o-mini"),
                ("ai.usage.inputTokens", input),
                ("ai.usage.outputTokens", output),
                ("ai.usage.cachedInputTokens", "4"),
            ],
        )
    };
    let spans = [
        proto(
            1,
            None,
            "ai.generateText",
            &[
                ("ai.operationId", "ai.generateText"),
                ("ai.telemetry.functionId", "triage"),
                ("ai.usage.inputTokens", "30"),
                ("ai.usage.outputTokens", "7"),
                ("ai.response.text", "Done."),
            ],
        ),
        call(2, "10", "3"),
        proto(
            3,
            Some(1),
            "ai.toolCall",
            &[
                ("ai.operationId", "ai.toolCall"),
                ("ai.toolCall.name", "lookup"),
                ("ai.toolCall.args", "{\"id\":7}"),
            ],
        ),
        call(4, "20", "4"),
    ];
    let mut forest = Forest::new(100);
    for p in spans {
        forest.insert(own(p));
    }
    let kinds: Vec<Kind> = forest.arrived().map(|s| read(s).kind()).collect();
    assert_eq!(kinds, [Kind::Agent, Kind::Model, Kind::Tool, Kind::Model]);
    let s = summarise(7, &forest, None);
    assert_eq!(s.agents, ["triage"]);
    assert_eq!(
        (
            s.model_calls,
            s.input_tokens,
            s.output_tokens,
            s.cached_input_tokens
        ),
        (2, 30, 7, 8)
    );
    assert_eq!(s.tool_calls[0].tool, "lookup");
    assert_eq!(s.tool_calls[0].agent.as_deref(), Some("triage"));
    assert_eq!(s.spans_not_understood, 0);
}

/// A run of spans no vocabulary reads (a framework this version does not
/// know) is no empty success: its line says how many were not understood.
#[test]
fn a_run_of_unknown_spans_says_how_many_were_not_understood() {
    let mut forest = Forest::new(100);
    forest.insert(own(proto(1, None, "mystery.run", &[("mystery.step", "1")])));
    forest.insert(own(proto(
        2,
        Some(1),
        "mystery.llm",
        &[("mystery.tokens", "9")],
    )));
    forest.insert(own(proto(
        3,
        Some(1),
        "chat",
        &[("gen_ai.operation.name", "chat")],
    )));
    let s = summarise(7, &forest, None);
    assert_eq!((s.spans, s.spans_not_understood), (3, 2));
    assert!(
        line(&s).contains("\"spans_not_understood\":2"),
        "{}",
        line(&s)
    );
}

fn failed_with(message: &str, events: Vec<(&str, &str)>) -> crate::span::Span {
    let mut span = own(proto(
        1,
        None,
        "tools",
        &[("openinference.span.kind", "CHAIN")],
    ));
    span.error = Some(message.to_string());
    span.events = vec![SpanEvent {
        name: "exception".into(),
        at_ns: 1,
        attrs: events
            .into_iter()
            .map(|(k, v)| (k.to_string(), Value::Str(v.to_string())))
            .collect(),
    }];
    span
}

/// LangGraph's handoffs and interrupts, as Python (`exception.type`) and
/// JavaScript (the stack as the message, the name first) write them, are
/// no failure; a real error is one, whatever its message says later.
#[test]
fn langgraphs_control_flow_exceptions_are_no_failures() {
    let python = failed_with(
        "ParentCommand(Command(graph='parent', goto='billing'))",
        vec![("exception.type", "langgraph.errors.ParentCommand")],
    );
    let js = "\n\nParentCommand\n    at RunnableCallable._controlBranch (state.js:775:47)";
    let javascript = failed_with(js, vec![("exception.message", js)]);
    let interrupt = failed_with("GraphInterrupt: approve?", vec![]);
    let real = failed_with(
        "ValueError: no ParentCommand here",
        vec![("exception.type", "ValueError")],
    );
    let stack = failed_with("\nTypeError: x is undefined\n    at ParentCommand", vec![]);
    assert!(control_flow(&python) && control_flow(&javascript) && control_flow(&interrupt));
    assert!(!control_flow(&real) && !control_flow(&stack));
    let mut spans = vec![python, real];
    settle_control_flow(&mut spans);
    assert_eq!(spans[0].error, None);
    assert_eq!(
        spans[0].events.len(),
        1,
        "the exception stays in the details"
    );
    assert!(spans[1].error.is_some());
}

/// LangGraph.js traces its entry node `__start__`: no graph node, no actor.
#[test]
fn langgraphs_start_node_is_no_node() {
    let metadata = r#"{"langgraph_node":"__start__","langgraph_step":0,"langgraph_checkpoint_ns":"__start__:0b1c"}"#;
    let span = own(proto(
        1,
        None,
        "__start__",
        &[("openinference.span.kind", "CHAIN"), ("metadata", metadata)],
    ));
    let r = read(&span);
    assert_eq!((r.actor, r.activation), (None, None));
    assert!(understood(&span));
}
