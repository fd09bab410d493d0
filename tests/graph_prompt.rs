//! What a graph's agent node and a map's items tell a real model, read
//! from the requests a loopback endpoint received: the agent's role text,
//! the scenario's shared `context` (as every other pattern's agents are
//! told it), the node's input or item, and the fields its answer must have.

use crate::common;

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

fn scenario() -> Value {
    json!({
        "name": "graph_prompt", "pattern": "graph", "goal": "Write the Q3 report.",
        "context": {"customer": "ACME", "region": "EU", "report_date": "2026-09-30"},
        "agents": {
            "planner": {"description": "You break the goal into research steps."},
            "researcher": {"description": "You research one step."}
        },
        "graph": {
            "entry": "plan",
            "state": {"steps": {"merge": "replace"}, "findings": {"merge": "append"}},
            "nodes": [
                {"id": "plan", "agent": "planner", "output": {"steps": "list"}, "write": {"steps": "/steps"}},
                {"id": "research", "map": "state.steps", "agent": "researcher",
                 "output": {"finding": "string"}, "collect": "findings"},
                {"id": "done", "end": true}
            ],
            "edges": [{"from": "plan", "to": "research"}, {"from": "research", "to": "done"}]
        },
        "provider": {"kind": "sim"}
    })
}

/// The planner plans two steps; a researcher finds something.
fn answer(request: &Request) -> ResponseTemplate {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let system = body["messages"][0]["content"].as_str().unwrap_or("");
    let content = if system.contains("You are planner") {
        json!({"steps": ["fees", "dates"]})
    } else {
        json!({"finding": "found it"})
    };
    ResponseTemplate::new(200).set_body_json(json!({
        "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content.to_string()}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    }))
}

#[tokio::test]
async fn an_agent_node_and_a_maps_items_carry_the_context_their_input_and_the_schema() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(answer)
        .mount(&server)
        .await;
    let options = common::on_endpoint_at(&server.uri());
    let (outcome, _) = common::run(common::scenario(&scenario()), options).await;
    let result = outcome.result.value().clone();
    assert_eq!(result["stop_reason"], "completed", "{result:#}");

    let requests: Vec<(String, Value)> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| {
            let body: Value = serde_json::from_slice(&request.body).unwrap();
            let system = body["messages"][0]["content"].as_str().unwrap().to_string();
            let user = body["messages"][1]["content"].as_str().unwrap();
            (system, serde_json::from_str(user).unwrap())
        })
        .collect();
    assert_eq!(requests.len(), 3, "the plan and two items");
    let context = json!({"customer": "ACME", "region": "EU", "report_date": "2026-09-30"});

    let (system, plan) = &requests[0];
    assert!(system.contains("You are planner"), "{system}");
    assert!(
        system.contains("You break the goal into research steps."),
        "the agent's role text: {system}"
    );
    assert_eq!(plan["node"], "plan");
    assert_eq!(plan["goal"], "Write the Q3 report.");
    assert_eq!(plan["shared_context"], context, "{plan:#}");
    assert_eq!(plan["input"], json!({"goal": "Write the Q3 report."}));
    assert_eq!(plan["output"], json!({"steps": "list"}));

    let mut items: Vec<&Value> = requests[1..].iter().map(|(_, p)| p).collect();
    items.sort_by_key(|p| p["index"].as_u64());
    for (index, (item, step)) in items.iter().zip(["fees", "dates"]).enumerate() {
        assert!(requests[index + 1].0.contains("You research one step."));
        assert_eq!(item["node"], "research");
        assert_eq!(item["shared_context"], context, "{item:#}");
        assert_eq!(item["item"], step);
        assert_eq!(item["index"], index);
        assert_eq!(item["output"], json!({"finding": "string"}));
    }
    assert_eq!(
        result["state"]["findings"],
        json!([{"finding": "found it"}, {"finding": "found it"}])
    );
}
