use super::super::action::ACTION_KEYS;
use super::*;
use crate::provider::ModelOutput;
use serde_json::json;

const SWARM: [&str; 3] = [REPLY, TRANSFER_TO, CALL];

/// What a turn read leniently is told, from an agent whose turn may set
/// `keys` in a team of `triage` and `billing`.
fn told(output: ModelOutput, keys: &[&str]) -> Option<String> {
    let lenient = Reading::Endpoint { by_contract: false };
    let agents = |name: &str| ["triage", "billing"].contains(&name);
    checked(output, lenient, keys, &agents)
        .err()
        .map(|wrong| wrong.problem)
}

fn told_json(answer: Value, keys: &[&str]) -> String {
    told(ModelOutput::Json(answer), keys).expect("a problem")
}

#[test]
fn several_actions_are_told_what_was_set_and_what_may_be() {
    // llama-server's grammar, under the loose schema, set them all.
    let words = told_json(
        json!({"reply": "Done.", "transfer_to": "billing", "call": "lookup", "args": "{}"}),
        &SWARM,
    );
    assert_eq!(
        words,
        "the answer sets reply, transfer_to and call; exactly one may be set (reply, transfer_to or call), the others left out or null"
    );
    assert!(!words.contains("missing"), "{words}");
    // A swarm agent is never told of call_members, even when it set it.
    let words = told_json(
        json!({"reply": "Done.", "call_members": [{"member": "billing", "task": "x"}]}),
        &SWARM,
    );
    assert_eq!(
        words,
        "the answer sets reply and call_members; exactly one may be set (reply, transfer_to or call), the others left out or null"
    );
    let words = told_json(
        json!({"call_members": [{"member": "billing", "task": "x"}]}),
        &SWARM,
    );
    assert_eq!(
        words,
        "the answer sets call_members, which your turn cannot; set exactly one of reply, transfer_to or call"
    );
    // A coordinator's member may reply or call a tool, nothing else.
    let words = told_json(json!({"transfer_to": "billing"}), &[REPLY, CALL]);
    assert!(
        words.ends_with("set exactly one of reply or call"),
        "{words}"
    );
}

#[test]
fn an_action_of_the_wrong_kind_is_told_what_it_must_hold() {
    let words = told_json(
        json!({"call": "lookup", "args": "Sales KPIs for a date and region"}),
        &SWARM,
    );
    assert_eq!(
        words,
        r#"the "args" of a tool call must be a JSON object, written as a string that holds it, such as "{\"order_id\": \"A-1042\"}" ("{}" when there are none); the answer has the text "Sales KPIs for a date and region""#
    );
    assert_eq!(
        told_json(json!({"message": "over to billing"}), &SWARM),
        "the answer sets only message; exactly one of reply, transfer_to or call must be set"
    );
    assert_eq!(
        told_json(json!({}), &[REPLY]),
        "the answer sets nothing; exactly one of reply must be set"
    );
    assert_eq!(
        told_json(json!({"reply": 5}), &SWARM),
        "reply must be text; the answer has 5"
    );
    let coordinator = ACTION_KEYS;
    assert!(
        told_json(json!({"call_members": []}), &coordinator)
            .starts_with("call_members must list at least one")
    );
}

#[test]
fn text_and_names_that_are_nobody_are_told_as_before() {
    assert_eq!(told(ModelOutput::Text("Refund sent.".into()), &SWARM), None);
    assert_eq!(
        told(ModelOutput::Text("```json\n{\"reply\"".into()), &SWARM).unwrap(),
        "the answer is not one valid JSON object: answer with one JSON object that sets exactly one of reply, transfer_to or call"
    );
    assert_eq!(
        told(ModelOutput::Json(json!({"transfer_to": "refunds"})), &SWARM),
        Some(
            "there is no agent \"refunds\" to transfer to: name one of the agents you were given"
                .into()
        )
    );
    assert!(
        told_json(
            json!({"call_members": [{"member": "billing"}, {"member": "ghost"}]}),
            &ACTION_KEYS
        )
        .contains("\"ghost\"")
    );
    assert_eq!(
        told(ModelOutput::Json(json!({"transfer_to": "billing"})), &SWARM),
        None
    );
}
