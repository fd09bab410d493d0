//! A turn's calls read back as the one action they stand for: a swarm's
//! first transfer winning, a coordinator's member calls together, a name a
//! function cannot take offered under a prefix, a swarm agent offered the
//! others to hand control to.

use super::super::part::Part;
use super::tests::{call, coordinator, named, swarm};
use super::*;
use crate::provider::contract::ToolCall;
use crate::provider::contract::strict::check_contract;
use serde_json::json;

#[test]
fn a_swarm_turn_is_one_action_the_first_transfer_winning() {
    let contract = turn_contract(&swarm(&["billing", "refunds"], &["lookup"]));
    let read = |calls: &[ToolCall]| (contract.answer_of_calls)(calls);
    assert_eq!(
        read(&[
            call("lookup", json!({"q": 1})),
            call(
                "transfer_to_agent",
                json!({"agent": "refunds", "message": null})
            ),
            call(
                "transfer_to_agent",
                json!({"agent": "billing", "message": "hi"})
            ),
        ]),
        Ok(json!({"transfer_to": "refunds"}))
    );
    assert_eq!(
        read(&[
            call("lookup", json!({"q": 1})),
            call("reply", json!({"text": "x"}))
        ]),
        Ok(json!({"call": "lookup", "args": {"q": 1}}))
    );
    assert_eq!(
        read(&[call(
            "transfer_to_agent",
            json!({"agent": "billing", "message": "over"})
        )]),
        Ok(json!({"transfer_to": "billing", "message": "over"}))
    );
    let refused = [
        (vec![], "no function was called"),
        (
            vec![call("escalate", json!({}))],
            "`escalate` is not a function you were given",
        ),
        (
            vec![call("reply", json!(["Done."]))],
            "the arguments of `reply` are not a JSON object",
        ),
        (
            vec![call("reply", json!({"answer": "Done.", "tone": "calm"}))],
            "`reply` takes `text`, a string",
        ),
        (
            vec![call("reply", json!({"text": 7}))],
            "`reply` takes `text`, a string",
        ),
    ];
    for (calls, words) in refused {
        let error = read(&calls).expect_err(words);
        assert!(error.contains(words), "{error}");
    }
    // A reply's one text, however a small model wrote it.
    for arguments in [
        json!({"reply": "Done."}),
        json!({"answer": "Done."}),
        json!("Done."),
    ] {
        assert_eq!(
            read(&[call("reply", arguments.clone())]),
            Ok(json!({"reply": "Done."})),
            "{arguments}"
        );
    }
}

#[test]
fn a_coordinators_member_calls_go_together_and_a_tool_call_goes_alone() {
    let contract = turn_contract(&coordinator(&["analyst", "legal"], &["feed"]));
    let read = |calls: &[ToolCall]| (contract.answer_of_calls)(calls);
    assert_eq!(
        read(&[
            call("legal", json!({"task": "Consent?"})),
            call("analyst", json!({"task": "Demand?"})),
        ]),
        Ok(
            json!({"call_members": [{"member": "legal", "task": "Consent?"},
                                   {"member": "analyst", "task": "Demand?"}]})
        )
    );
    assert_eq!(
        read(&[
            call("analyst", json!({"task": "t"})),
            call("feed", json!({}))
        ]),
        Ok(json!({"call": "feed", "args": {}}))
    );
    assert_eq!(
        read(&[call("reply", json!({"text": "Done."}))]),
        Ok(json!({"reply": "Done."}))
    );
    let error = read(&[
        call("analyst", json!({"task": "t"})),
        call("reply", json!({"text": "x"})),
    ]);
    assert!(error.unwrap_err().contains("cannot come with member calls"));
    let error = read(&[call("transfer_to_agent", json!({"agent": "legal"}))]);
    assert!(error.unwrap_err().contains("not a function you were given"));
    // A member's task under another lone key is its task.
    assert_eq!(
        read(&[call("legal", json!({"legal": "Consent?"}))]),
        Ok(json!({"call_members": [{"member": "legal", "task": "Consent?"}]}))
    );
}

#[test]
fn a_name_a_function_cannot_take_is_offered_under_a_prefix_and_reads_back_as_itself() {
    let long = "t".repeat(70);
    let shape = TurnShape {
        coordinator: true,
        members: named(&["reply", "feed", "transfer_to_agent"]),
        tools: named(&["feed", "tool_feed", &long]),
        ..TurnShape::default()
    };
    let contract = turn_contract(&shape);
    check_contract(&contract);
    let names: Vec<&str> = contract.functions.iter().map(|f| f.name.as_str()).collect();
    let cut = format!("tool_{}", "t".repeat(59));
    assert_eq!(
        names,
        [
            "reply",
            "member_reply",
            "feed",
            "member_transfer_to_agent",
            "tool_feed",
            "tool_tool_feed",
            cut.as_str()
        ]
    );
    assert!(contract.functions[4].description.contains("`feed`"));
    let read = |calls: &[ToolCall]| (contract.answer_of_calls)(calls);
    assert_eq!(
        read(&[call("member_reply", json!({"task": "t"}))]),
        Ok(json!({"call_members": [{"member": "reply", "task": "t"}]}))
    );
    assert_eq!(
        read(&[call("tool_feed", json!({}))]),
        Ok(json!({"call": "feed", "args": {}}))
    );
    assert_eq!(
        read(&[call(&cut, json!({}))]),
        Ok(json!({"call": long, "args": {}}))
    );
    // The schema keeps the scenario's own names.
    let members =
        &contract.schema["properties"]["turn"]["anyOf"][2]["properties"]["call_members"]["items"];
    assert_eq!(
        members["properties"]["member"]["enum"],
        json!(["reply", "feed", "transfer_to_agent"])
    );
}

#[test]
fn a_swarm_agents_contract_offers_the_other_agents_to_hand_control_to() {
    let text = r#"{"name": "s", "pattern": "swarm", "goal": "g", "context": {}, "entry": "a",
        "agents": {"a": {}, "b": {}}, "provider": {"kind": "sim", "turns": {"a": "hi"}}}"#;
    let scenario = crate::scenario::parse(text, "s.json").unwrap();
    let part = Part::of_scenario(&scenario);
    let a = turn_contract(&TurnShape::of(&part, "a"));
    assert_eq!(
        a.schema["properties"]["turn"]["anyOf"][1]["properties"]["transfer_to"]["enum"],
        json!(["b"])
    );
}
