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
