//! A graph run as its trace: one `invoke_agent <node>` span per
//! activation under the run's workflow, with the node's id, step and
//! visit, each holding the model calls its activation made.

use super::*;
use crate::patterns::graph::trace::{NODE, STEP, VISIT};

#[tokio::test(start_paused = true)]
async fn each_activation_is_an_agent_span_holding_its_calls() {
    let events = events_of("graph_review_loop.json", &[]).await;
    let spans = spans_of(&events, false);
    assert_well_formed(&spans);
    let root = spans.iter().find(|s| s.parent.is_none()).unwrap();
    assert_eq!(root.name, "invoke_workflow graph_review_loop");
    let agents: Vec<&FinishedSpan> = spans
        .iter()
        .filter(|s| s.name.starts_with("invoke_agent "))
        .collect();
    let nodes: Vec<String> = agents.iter().map(|s| text(s, NODE).unwrap()).collect();
    assert_eq!(
        nodes,
        [
            "plan", "risks", "research", "gather", "draft", "review", "draft", "review", "draft",
            "review", "publish", "done"
        ],
        "in the order they ended: the risks before the slower research"
    );
    assert!(agents.iter().all(|s| s.parent == Some(root.no)));
    let third_draft = agents[8];
    assert_eq!(third_draft.attrs.get(STEP), Some(&AttrValue::Int(9)));
    assert_eq!(third_draft.attrs.get(VISIT), Some(&AttrValue::Int(3)));
    let chats: Vec<&FinishedSpan> = spans
        .iter()
        .filter(|s| s.name.starts_with("chat "))
        .collect();
    assert_eq!(
        chats.len(),
        11,
        "three items of the map, one call of each other agent's activation"
    );
    for chat in chats {
        let parent = by_no(&spans, chat.parent.unwrap());
        let label = text(chat, n::LABEL).unwrap();
        let node = label
            .trim_start_matches("node:")
            .split('[')
            .next()
            .unwrap()
            .to_string();
        assert_eq!(text(parent, NODE), Some(node), "{label} in its activation");
    }
}

/// A team node's team: its turns are `invoke_agent` spans under the
/// node's activation (each visit's under its own), its member calls under
/// the turn that made them, and each model call under its turn.
#[tokio::test(start_paused = true)]
async fn a_team_nodes_turns_nest_under_its_activation() {
    let events = events_of("graph_team_draft.json", &[]).await;
    let spans = spans_of(&events, false);
    assert_well_formed(&spans);
    let drafts: Vec<&FinishedSpan> = spans
        .iter()
        .filter(|s| text(s, NODE).as_deref() == Some("draft"))
        .collect();
    assert_eq!(drafts.len(), 2, "one activation a visit");
    for (draft, path) in drafts.iter().zip(["draft", "draft#2"]) {
        let turns: Vec<&str> = spans
            .iter()
            .filter(|s| s.parent == Some(draft.no) && s.name.starts_with("invoke_agent "))
            .map(|s| s.name.as_str())
            .collect();
        let editor = format!("invoke_agent {path}/editor");
        assert_eq!(turns, [editor.as_str(), editor.as_str()], "{path}");
        let calls: Vec<&FinishedSpan> = spans
            .iter()
            .filter(|s| s.name.starts_with("execute_tool "))
            .filter(|s| by_no(&spans, s.parent.unwrap()).parent == Some(draft.no))
            .collect();
        assert_eq!(calls.len(), 2, "{path}: the writer and the fact checker");
        for call in calls {
            let member = call.name.trim_start_matches("execute_tool ");
            let inner: Vec<&str> = spans
                .iter()
                .filter(|s| s.parent == Some(call.no))
                .map(|s| s.name.as_str())
                .collect();
            assert_eq!(inner, [format!("invoke_agent {member}")], "{member}");
        }
    }
    for chat in spans.iter().filter(|s| s.name.starts_with("chat ")) {
        let label = text(chat, n::LABEL).unwrap();
        if let Some(turn) = label.strip_prefix("turn ") {
            let agent = turn.split(" · ").nth(1).unwrap();
            let parent = by_no(&spans, chat.parent.unwrap());
            assert_eq!(parent.name, format!("invoke_agent {agent}"), "{label}");
        }
    }
}
