//! How spans are assembled into runs: one trace with its own root is one
//! run, whatever conversation it shares, and a child that comes in the
//! same request as its parent never hangs under a placeholder.

use super::{in_trace, proto};
use crate::span::spans_of;
use crate::watch::runs::{Limits, Runs};

#[tokio::test(start_paused = true)]
async fn traces_sharing_a_session_are_runs_of_one_conversation_never_one_run() {
    let mut runs = Runs::new(Limits::default());
    let session = [("session.id", "thread-7")];
    let now = tokio::time::Instant::now();
    for trace in [1u128, 2] {
        let batch = in_trace(
            trace,
            vec![
                proto(
                    2,
                    Some(1),
                    "chat",
                    &[("openinference.span.kind", "LLM"), session[0]],
                ),
                proto(1, None, "LangGraph", &session),
            ],
        );
        runs.accept(spans_of(&batch.request), now);
    }
    let ids: Vec<u128> = runs.ids().collect();
    assert_eq!(ids, [1, 2]);
    for id in ids {
        let run = runs.get(id).unwrap();
        assert_eq!(run.arrivals.len(), 2, "each run keeps its own spans");
        assert_eq!(run.conversation.as_deref(), Some("thread-7"));
    }
    assert_eq!(runs.in_conversation("thread-7").collect::<Vec<_>>(), [1, 2]);
}

#[tokio::test(start_paused = true)]
async fn a_child_sent_with_its_parent_does_not_wait_for_it() {
    let mut runs = Runs::new(Limits::default());
    let now = tokio::time::Instant::now();
    // The agent's chat and the agent in one request; the root later.
    let batch = in_trace(
        9,
        vec![
            proto(3, Some(2), "chat", &[("gen_ai.operation.name", "chat")]),
            proto(
                2,
                Some(1),
                "invoke_agent triage",
                &[("gen_ai.operation.name", "invoke_agent")],
            ),
        ],
    );
    runs.accept(spans_of(&batch.request), now);
    let waiting: Vec<(String, bool)> = runs
        .get(9)
        .unwrap()
        .arrivals
        .iter()
        .map(|a| (a.span.name.clone(), a.under_placeholder))
        .collect();
    assert_eq!(
        waiting,
        [
            ("chat".to_string(), false),
            ("invoke_agent triage".to_string(), true)
        ]
    );
}
