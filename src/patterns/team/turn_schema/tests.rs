use super::super::action::{self, Action};
use super::super::part::Part;
use super::super::turn_calls::{Stands, offered};
use super::*;
use crate::patterns::contract_checks::{outputs, shipped};
use crate::provider::ModelOutput;
use crate::provider::contract::ToolCall;
use crate::provider::contract::strict::{check_answer, check_contract};
use crate::scenario::Scenario;
use crate::scenario::script::ScriptedOutput;
use serde_json::json;

/// A scripted turn's own latency, which the sim takes out of the output.
const TURN_LATENCY_KEY: &str = "latency_ms";

pub(super) fn named(names: &[&str]) -> Vec<(String, String)> {
    names
        .iter()
        .map(|n| (n.to_string(), format!("does {n}")))
        .collect()
}

pub(super) fn swarm(targets: &[&str], tools: &[&str]) -> TurnShape {
    TurnShape {
        targets: targets.iter().map(|t| t.to_string()).collect(),
        tools: named(tools),
        ..TurnShape::default()
    }
}

pub(super) fn coordinator(members: &[&str], tools: &[&str]) -> TurnShape {
    TurnShape {
        coordinator: true,
        members: named(members),
        tools: named(tools),
        ..TurnShape::default()
    }
}

pub(super) fn call(name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        name: name.into(),
        arguments,
    }
}

/// The function a turn shaped `shape` offers for `stands`.
fn function_for(shape: &TurnShape, stands: &Stands) -> String {
    let found = offered(shape).into_iter().find(|(_, s, _)| s == stands);
    found.expect("offered").0
}

/// The calls a model makes in `tool` mode for the turn `answer`.
fn calls_for(shape: &TurnShape, answer: &Value) -> Vec<ToolCall> {
    let function = |stands| function_for(shape, &stands);
    if let Some(text) = answer.get("reply") {
        return vec![call("reply", json!({"text": text}))];
    }
    if let Some(to) = answer.get("transfer_to") {
        let message = answer.get("message").cloned().unwrap_or(Value::Null);
        return vec![call(
            "transfer_to_agent",
            json!({"agent": to, "message": message}),
        )];
    }
    if let Some(tool) = answer.get("call").and_then(Value::as_str) {
        let args = answer.get("args").cloned().unwrap_or_else(|| json!({}));
        return vec![call(&function(Stands::Tool(tool.into())), args)];
    }
    let members = answer["call_members"].as_array().expect("a member call");
    members
        .iter()
        .map(|m| {
            let member = m["member"].as_str().unwrap();
            call(
                &function(Stands::Member(member.into())),
                json!({"task": m["task"]}),
            )
        })
        .collect()
}

/// Whether the run takes `action` from an agent shaped `shape` (a
/// transfer or call it refuses, naming an agent or tool nobody declared,
/// is the model's mistake, and no contract allows it).
fn taken(shape: &TurnShape, action: &Action) -> bool {
    let has = |list: &[(String, String)], name: &str| list.iter().any(|(n, _)| n == name);
    match action {
        Action::Reply(_) | Action::Empty => true,
        Action::Transfer { to } => shape.targets.contains(to),
        Action::Call { tool, .. } => has(&shape.tools, tool),
        Action::CallMembers(calls) => {
            shape.coordinator && calls.iter().all(|c| has(&shape.members, &c.member))
        }
        Action::Invalid => false,
    }
}

/// Every part of `scenario` (its own team, then each of `teams`) with how
/// the sim's script names its agents.
fn parts(scenario: &Scenario) -> Vec<(Part<'_>, String)> {
    let own = Part::of_scenario(scenario);
    let mut parts = vec![(own.clone(), String::new())];
    for (name, spec) in &scenario.teams {
        let part = own.member_team(name, spec, (name, 0), None);
        parts.push((part, format!("{name}/")));
    }
    parts
}

#[test]
fn every_taken_sim_turn_keeps_its_agents_contract_natively_and_as_calls() {
    let mut checked = 0;
    for (_, scenario) in shipped() {
        let Some(turns) = &scenario.provider.turns else {
            continue;
        };
        for (part, prefix) in parts(&scenario) {
            for agent in part.agents.keys() {
                let shape = TurnShape::of(&part, agent);
                let contract = turn_contract(&shape);
                check_contract(&contract);
                let Some(script) = turns.get(&format!("{prefix}{agent}")) else {
                    continue;
                };
                for output in outputs(script) {
                    let output = match output {
                        ScriptedOutput::Json(mut turn) => {
                            turn.as_object_mut()
                                .map(|t| t.shift_remove(TURN_LATENCY_KEY));
                            ModelOutput::Json(turn)
                        }
                        ScriptedOutput::Text(text) => ModelOutput::Text(text),
                        _ => continue,
                    };
                    let (action, answer) = action::read(output);
                    if !taken(&shape, &action) {
                        continue;
                    }
                    // A call without args reads as one with none: the
                    // strict form always writes them.
                    let mut want = answer.clone();
                    if want.get("call").is_some() && want.get("args").is_none() {
                        want["args"] = json!({});
                    }
                    check_answer(&contract, &want);
                    let calls = calls_for(&shape, &answer);
                    assert_eq!((contract.answer_of_calls)(&calls), Ok(want), "{agent}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 25, "only {checked} turns checked");
}

/// The forms of a turn's schema, each by the action key it sets.
fn forms(contract: &Contract) -> Vec<(String, Value)> {
    let turn = &contract.schema["properties"][TURN];
    let forms = match turn.get("anyOf") {
        Some(forms) => forms.as_array().unwrap().clone(),
        None => vec![turn.clone()],
    };
    forms
        .into_iter()
        .map(|form| {
            let key = form["required"][0].as_str().unwrap().to_string();
            (key, form)
        })
        .collect()
}

#[test]
fn each_agent_is_offered_what_its_part_lets_it_do() {
    let swarm_turn = turn_contract(&swarm(&["billing", "refunds"], &["refund_api"]));
    assert_eq!(swarm_turn.name, "turn");
    assert_eq!(swarm_turn.schema["required"], json!([TURN]));
    let swarm_forms = forms(&swarm_turn);
    let keys: Vec<&str> = swarm_forms.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["reply", "transfer_to", "call"]);
    assert_eq!(
        swarm_forms[1].1["required"],
        json!(["transfer_to", "message"])
    );
    assert_eq!(
        swarm_forms[1].1["properties"]["transfer_to"]["enum"],
        json!(["billing", "refunds"])
    );
    assert_eq!(swarm_forms[2].1["required"], json!(["call", "args"]));
    assert_eq!(
        swarm_forms[2].1["properties"]["call"]["enum"],
        json!(["refund_api"])
    );
    let names: Vec<&str> = swarm_turn
        .functions
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(names, ["reply", "transfer_to_agent", "refund_api"]);
    assert!(
        !swarm_turn.functions[2].strict,
        "a tool's arguments are free-form"
    );
    assert_eq!(
        swarm_turn.functions[2].description,
        "Call the tool `refund_api`: does refund_api"
    );
    let mut undescribed = swarm(&[], &["lookup"]);
    undescribed.tools[0].1 = " ".into();
    let undescribed = turn_contract(&undescribed);
    assert_eq!(
        undescribed.functions[1].description,
        "Call the tool `lookup`."
    );

    let lead = turn_contract(&coordinator(&["analyst", "legal"], &[]));
    assert_eq!(lead.name, "coordinator_turn");
    let lead_forms = forms(&lead);
    let keys: Vec<&str> = lead_forms.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["reply", "call_members"]);
    let calls = &lead_forms[1].1["properties"]["call_members"];
    assert_eq!(calls["minItems"], 1);
    assert_eq!(
        calls["items"]["properties"]["member"]["enum"],
        json!(["analyst", "legal"])
    );
    let names: Vec<&str> = lead.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["reply", "analyst", "legal"]);
    assert_eq!(lead.functions[1].parameters["required"], json!(["task"]));

    // A coordinator's member replies or calls a tool, nothing else: one
    // form, the reply, without an anyOf.
    let member_turn = turn_contract(&swarm(&[], &[]));
    assert_eq!(
        member_turn.schema["properties"][TURN]["required"],
        json!(["reply"])
    );
    check_contract(&member_turn);
}

#[test]
fn a_strict_answer_reads_as_the_turn_it_stands_for() {
    let contract = turn_contract(&swarm(&["billing"], &["lookup"]));
    let read = |wire: Value| action::read(ModelOutput::Json((contract.normalise)(wire)));
    assert_eq!(
        read(json!({"turn": {"transfer_to": "billing", "message": null}})),
        (
            Action::Transfer {
                to: "billing".into()
            },
            json!({"transfer_to": "billing"})
        )
    );
    let tool = json!({"turn": {"call": "lookup", "args": "{\"order\": \"A-1\"}"}});
    assert_eq!(
        read(tool.clone()).0,
        Action::Call {
            tool: "lookup".into(),
            args: json!({"order": "A-1"})
        }
    );
    let once = (contract.normalise)(tool);
    assert_eq!((contract.normalise)(once.clone()), once, "idempotent");
    // An answer in the contract's own form, as `json` and `prompted`
    // answers and recordings made before turns were wrapped are, reads
    // the same.
    let nulls =
        json!({"reply": null, "transfer_to": null, "message": null, "call": null, "args": null});
    let mut unwrapped = nulls.clone();
    unwrapped["transfer_to"] = json!("billing");
    assert_eq!(
        read(unwrapped).0,
        Action::Transfer {
            to: "billing".into()
        }
    );
    assert_eq!(
        read(nulls.clone()).0,
        Action::Invalid,
        "no action is no turn"
    );
    let mut two = nulls;
    two["reply"] = json!("Done.");
    two["transfer_to"] = json!("billing");
    assert_eq!(read(two).0, Action::Invalid, "two actions are no turn");
}

/// What llama-server's grammar produced under the loose schema, each now
/// outside the schema: a server that follows it can write none of them.
#[test]
fn the_schema_holds_out_the_turns_a_grammar_wrote_under_the_loose_one() {
    let contract = turn_contract(&swarm(&["billing"], &["lookup"]));
    check_contract(&contract);
    let schema = jsonschema::validator_for(&contract.schema).unwrap();
    let wrapped = |turn: Value| json!({ "turn": turn });
    for bad in [
        // reply, transfer_to, call and args all set (issue 78).
        json!({"reply": "Done.", "transfer_to": "billing", "message": null,
               "call": "lookup", "args": "{}"}),
        json!({"reply": "Done.", "transfer_to": "billing", "message": "over"}),
        // nothing set
        json!({"reply": null}),
        json!({}),
    ] {
        assert!(!schema.is_valid(&wrapped(bad.clone())), "{bad}");
    }
    for good in [
        json!({"reply": "Done."}),
        json!({"transfer_to": "billing", "message": null}),
        json!({"call": "lookup", "args": "{\"order\": \"A-1042\"}"}),
        json!({"call": "lookup", "args": "{}"}),
    ] {
        assert!(schema.is_valid(&wrapped(good.clone())), "{good}");
    }
    let lead = turn_contract(&coordinator(&["analyst"], &[]));
    let lead_schema = jsonschema::validator_for(&lead.schema).unwrap();
    assert!(!lead_schema.is_valid(&wrapped(json!({"call_members": []}))));
    assert!(!lead_schema.is_valid(&wrapped(
        json!({"reply": "Done.", "call_members": [{"member": "analyst", "task": "x"}]})
    )));
}
