//! The native schema as tight as the contract (issue 78), against loopback
//! endpoints. One enforces each request's schema as llama-server's grammar
//! does: of the answers a small model wrote there under the loose schema
//! (every action of a turn set, `args` as prose, `confidence: 1.5`) and a
//! right one, it can write only those the schema admits, so a run gets the
//! right one and repairs nothing. The other enforces nothing (`json`
//! mode): the wrong answer comes, and the repair says what it did and what
//! is allowed, naming only the agent's own keys.

use crate::common;
use common::script::quick;
use conclave::bus::EventKind;
use conclave::engine::{LaunchOptions, ProviderChoice};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// What a model would write to a request, first the wrong answers a small
/// model wrote under the loose schema, last the right one.
type Candidates = fn(&Value) -> Vec<Value>;

/// How the endpoint writes: held to the request's schema, or not at all.
#[derive(Clone, Copy)]
enum Writes {
    /// As a grammar built from the schema: the first candidate the
    /// schema admits, and the last it admits to a repair.
    Grammar,
    /// The first candidate, and the last to a repair.
    Freely,
}

struct Endpoint {
    writes: Writes,
    candidates: Candidates,
}

impl Respond for Endpoint {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let format = &body["response_format"];
        let content = if format.is_null() {
            // A prose brief.
            "The launch goes ahead as planned.".to_string()
        } else {
            let candidates = (self.candidates)(&body);
            let written = match self.writes {
                Writes::Grammar => {
                    let schema = &format["json_schema"]["schema"];
                    let grammar = jsonschema::validator_for(schema).expect("a JSON Schema");
                    let mut admitted = candidates.into_iter().filter(|c| grammar.is_valid(c));
                    // A repair is answered with the last the schema admits.
                    if is_repair(&body) {
                        admitted.next_back()
                    } else {
                        admitted.next()
                    }
                }
                Writes::Freely if is_repair(&body) => candidates.into_iter().last(),
                Writes::Freely => candidates.into_iter().next(),
            };
            written.expect("something to write").to_string()
        };
        ResponseTemplate::new(200).set_body_json(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "mock-model",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        }))
    }
}

fn is_repair(body: &Value) -> bool {
    body["messages"].as_array().is_some_and(|m| m.len() > 2)
}

/// The schema's properties, for a request asked natively; none else.
fn properties(body: &Value) -> &Value {
    &body["response_format"]["json_schema"]["schema"]["properties"]
}

/// A swarm agent's turn: every action set at once (llama-server's answer
/// under the loose schema), as a strict answer writes it and as the
/// contract's own JSON, then a reply alone.
fn turns(body: &Value) -> Vec<Value> {
    let all = json!({"reply": "Done.", "transfer_to": "billing", "message": null,
                     "call": "invoice_lookup", "args": "{}"});
    let reply = json!({"reply": "Refund of ch_2 queued."});
    let native = !properties(body).is_null();
    if native {
        vec![json!({"turn": all}), all, json!({"turn": reply})]
    } else {
        vec![all, reply]
    }
}

/// A round-table contribution: `confidence` past 1, then within.
fn contributions(body: &Value) -> Vec<Value> {
    let agent = properties(body)["agent"]["enum"][0]
        .as_str()
        .unwrap_or("demand_analyst")
        .to_string();
    [1.5, 0.9]
        .map(|confidence| {
            json!({"agent": agent, "stance": "go", "summary": "Ready as planned.",
                   "confidence": confidence, "actions": ["Ship on Tuesday"]})
        })
        .to_vec()
}

/// A plan whose args are prose (llama-server's answer when any string
/// would do), then one whose args are an object written as a string.
fn plans(_: &Value) -> Vec<Value> {
    let workers = ["sales_worker", "payments_worker", "inventory_worker"];
    let prose = "Sales KPIs for a date and region, by store";
    let object = "{\"report_date\": \"2026-02-26\", \"region\": \"US\"}";
    [prose, object]
        .iter()
        .map(|args| {
            let tasks: Vec<Value> = workers
                .iter()
                .enumerate()
                .map(|(i, worker)| {
                    json!({"id": format!("t{}", i + 1), "worker": worker, "args": args,
                           "critical": true})
                })
                .collect();
            json!({"kind": "plan", "tasks": tasks})
        })
        .collect()
}

/// Run the shipped scenario `file` in `output` mode against an endpoint
/// that writes `candidates` as `writes` says: the result, the repairs'
/// words and the requests the endpoint got.
async fn run(
    file: &str,
    output: &str,
    writes: Writes,
    candidates: Candidates,
) -> (Value, Vec<String>, Vec<Value>) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(Endpoint { writes, candidates })
        .mount(&server)
        .await;
    let mut doc = quick(file);
    doc["provider"]["output"] = output.into();
    let options = LaunchOptions {
        provider: ProviderChoice {
            no_stream: true,
            ..common::endpoint_at(&server.uri())
        },
        ..LaunchOptions::default()
    };
    let (outcome, events) = common::run(common::scenario(&doc), options).await;
    let repairs = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::CallRepair { error, .. } => Some(error.clone()),
            _ => None,
        })
        .collect();
    let requests = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    (outcome.result.value().clone(), repairs, requests)
}

/// The stop of a result, whatever the pattern calls it.
fn stop(result: &Value) -> String {
    ["stop_reason", "status"]
        .iter()
        .filter_map(|key| result[*key].as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test]
async fn a_grammar_that_follows_the_schema_writes_one_action_a_turn_and_nothing_is_repaired() {
    let (result, repairs, requests) =
        run("support_swarm.json", "native", Writes::Grammar, turns).await;
    assert_eq!(repairs, Vec::<String>::new(), "{result}");
    let first = &requests[0]["response_format"]["json_schema"]["schema"];
    assert_eq!(first["required"], json!(["turn"]), "{first}");
    assert_eq!(result["answer"], "Refund of ch_2 queued.", "{result}");
    assert!(!stop(&result).contains("invalid"), "{result}");
}

#[tokio::test]
async fn a_grammar_that_follows_the_schema_keeps_confidence_within_0_and_1() {
    let (result, repairs, requests) = run(
        "checkout_v2_launch.json",
        "native",
        Writes::Grammar,
        contributions,
    )
    .await;
    assert_eq!(repairs, Vec::<String>::new(), "{result}");
    assert!(!stop(&result).contains("confidence_range"), "{result}");
    assert!(requests.len() >= 2, "{requests:?}");
}

#[tokio::test]
async fn a_grammar_that_follows_the_schema_may_write_prose_args_which_are_repaired_in_words() {
    // `args` carries no pattern (llama.cpp reads one on the raw text and
    // lets the answer's JSON break there): a grammar may write prose, and
    // the repair says what the field must be; the answer after it holds.
    let (result, repairs, _) =
        run("morning_ops_report.json", "native", Writes::Grammar, plans).await;
    assert_eq!(repairs.len(), 1, "{result}");
    assert!(
        repairs[0].starts_with(r#"invalid_plan:args: the "args" of each task must be a JSON object, written as a string that holds it"#),
        "{repairs:?}"
    );
    assert!(!stop(&result).contains("invalid_plan"), "{result}");
}

#[tokio::test]
async fn a_turn_that_sets_several_actions_is_told_so_naming_only_the_agents_own_keys() {
    let (result, repairs, requests) =
        run("support_swarm.json", "json", Writes::Freely, turns).await;
    let words = "the answer sets reply, transfer_to and call; exactly one may be set (reply, transfer_to or call), the others left out or null";
    assert_eq!(repairs, vec![words.to_string()], "{result}");
    // The model reads them as the repair's user message.
    let repair = requests.iter().find(|r| is_repair(r)).expect("a repair");
    let told = repair["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(told["content"], words);
    assert!(!words.contains("call_members") && !words.contains("missing"));
    assert_eq!(result["answer"], "Refund of ch_2 queued.", "{result}");
}

#[tokio::test]
async fn args_that_are_prose_are_told_what_they_must_be() {
    let (result, repairs, _) = run("morning_ops_report.json", "json", Writes::Freely, plans).await;
    assert_eq!(
        repairs,
        vec![
            r#"invalid_plan:args: the "args" of each task must be a JSON object, written as a string that holds it, such as "{\"report_date\": \"2026-02-26\", \"region\": \"US\"}" ("{}" when there are none); task "t1" has the text "Sales KPIs for a date and region, by store""#
                .to_string()
        ],
        "{result}"
    );
    assert!(!stop(&result).contains("invalid_plan"), "{result}");
}

#[tokio::test]
async fn a_confidence_past_1_is_told_the_range_and_what_it_was() {
    let (result, repairs, _) = run(
        "checkout_v2_launch.json",
        "json",
        Writes::Freely,
        contributions,
    )
    .await;
    assert!(!repairs.is_empty(), "{result}");
    for words in &repairs {
        assert_eq!(
            words,
            "invalid_contribution:confidence_range: \"confidence\" must be a number from 0 to 1; the answer has 1.5"
        );
    }
}
