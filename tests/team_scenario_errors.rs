//! Bad swarm and coordinator scenario files: every error names the file,
//! the line and column, the JSON path and what was expected; no input
//! makes the loader panic.

use crate::common;

use common::files::{assert_documented, edit, errors_of, never_panics, position_of};
use conclave::scenario;
use serde_json::{Value, json};

fn valid_swarm() -> Value {
    json!({
        "name": "s",
        "pattern": "swarm",
        "goal": "Help.",
        "context": {},
        "entry": "triage",
        "agents": {"triage": {"description": "routes"}, "billing": {}},
        "limits": {"max_handoffs": 4, "node_timeout_ms": 500},
        "budget": {"max_llm_calls": 10, "max_seconds": 30},
        "tools": {"lookup": {"latency_ms": 100, "data": {"A-1": {"ok": true}}}},
        "flags": {"billing_on": {"default": true, "agents": ["billing"]}},
        "provider": {"kind": "sim", "latency_ms": 100, "turns": {
            "triage": [{"transfer_to": "billing", "message": "over", "latency_ms": 50}],
            "billing": [{"call": "lookup", "args": {"id": "A-1"}}, {"reply": "done"}, "raw text",
                        {"$fault": "timeout", "latency_ms": 10}]
        }}
    })
}

fn valid_coordinator() -> Value {
    json!({
        "name": "c",
        "pattern": "coordinator",
        "goal": "Decide.",
        "context": {},
        "entry": "lead",
        "agents": {"lead": {}, "market": {}, "risk": {}},
        "limits": {"member_timeout_ms": 2000},
        "provider": {"kind": "sim", "turns": {
            "lead": [{"call_members": [{"member": "market", "task": "size"}, {"member": "risk"}]},
                     {"reply": "go"}],
            "market": {"reply": "big"},
            "risk": {"reply": "low"}
        }}
    })
}

/// `valid_swarm()` changed at a JSON pointer: set, or removed with `None`.
fn swarm(pointer: &str, value: Option<Value>) -> String {
    edit(valid_swarm(), pointer, value)
}

/// `valid_coordinator()` changed at a JSON pointer, as `swarm` does.
fn coordinator(pointer: &str, value: Option<Value>) -> String {
    edit(valid_coordinator(), pointer, value)
}

#[test]
fn the_valid_bases_are_valid() {
    scenario::parse(&valid_swarm().to_string(), "ok.json").unwrap();
    scenario::parse(&valid_coordinator().to_string(), "ok.json").unwrap();
}

/// A member without turns that many calls name is reported once, at the
/// first call that names it, and the check writes no place for the rest.
#[test]
fn a_member_called_many_times_without_turns_is_reported_once_at_its_first_call() {
    let calls: Vec<Value> = (0..1_000)
        .map(|i| {
            let member = ["market", "risk"][i % 2];
            json!({"member": member, "task": format!("part {i}")})
        })
        .collect();
    let mut file = valid_coordinator();
    file["provider"]["turns"]["lead"] =
        json!([{"call_members": calls}, {"call_members": [{"member": "risk"}]}]);
    file["provider"]["turns"]
        .as_object_mut()
        .unwrap()
        .remove("risk");
    let errors = errors_of(&file.to_string());
    let messages: Vec<&str> = errors.0.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "missing the turns of agent \"risk\" (it gets a turn through provider.turns.lead[0].call_members[1].member)"
        ]
    );
}

#[test]
fn each_malformed_team_file_gets_its_documented_error() {
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "no agents",
            swarm("/agents", None),
            "missing field \"agents\": a swarm scenario declares its agents",
        ),
        (
            "no entry",
            swarm("/entry", None),
            "missing field \"entry\": the agent that takes the first turn",
        ),
        (
            "an undeclared entry",
            swarm("/entry", Some(json!("front_desk"))),
            "entry: expected an agent declared in agents (triage, billing), found \"front_desk\"",
        ),
        (
            "a flag gating an undeclared agent",
            swarm("/flags/billing_on/agents", Some(json!(["refunds"]))),
            "flags.billing_on.agents[0]: expected an agent declared in agents (triage, billing), found \"refunds\"",
        ),
        (
            "a flag gating workers in a swarm",
            swarm("/flags/billing_on/workers", Some(json!(["sales_worker"]))),
            "flags.billing_on.workers: swarm flags gate agents; expected \"agents\" instead of \"workers\"",
        ),
        (
            "a coordinator limit in a swarm",
            swarm("/limits/member_timeout_ms", Some(json!(100))),
            "limits.member_timeout_ms: \"member_timeout_ms\" is a limit of coordinator scenarios; this scenario's pattern is swarm",
        ),
        (
            "a swarm limit in a coordinator",
            coordinator("/limits/max_handoffs", Some(json!(3))),
            "limits.max_handoffs: \"max_handoffs\" is a limit of swarm scenarios; this scenario's pattern is coordinator",
        ),
        (
            "a negative limit",
            swarm("/limits/node_timeout_ms", Some(json!(-5))),
            "limits.node_timeout_ms",
        ),
        (
            "an unknown limit",
            swarm("/limits/max_hops", Some(json!(3))),
            "limits.max_hops: unknown field \"max_hops\"; expected one of: max_handoffs, node_timeout_ms",
        ),
        (
            "an orchestrator budget key",
            swarm("/budget/max_dispatches", Some(json!(3))),
            "budget.max_dispatches: \"max_dispatches\" is a budget of orchestrator scenarios; this scenario's pattern is swarm",
        ),
        (
            "max_llm_calls in a collaboration",
            edit(
                json!({"name": "t", "pattern": "collaboration", "goal": "g", "context": {},
                       "team": {"roles": {"a": {}}, "sequence": ["a"]},
                       "budget": {"max_llm_calls": 3},
                       "provider": {"kind": "sim", "responses": {"a": "{}"}}}),
                "/name",
                Some(json!("t")),
            ),
            "budget.max_llm_calls: \"max_llm_calls\" is a budget of swarm and coordinator scenarios; this scenario's pattern is collaboration",
        ),
        (
            "agents in a collaboration",
            edit(
                json!({"name": "t", "pattern": "collaboration", "goal": "g", "context": {},
                       "team": {"roles": {"a": {}}, "sequence": ["a"]},
                       "agents": {"x": {}},
                       "provider": {"kind": "sim", "responses": {"a": "{}"}}}),
                "/name",
                Some(json!("t")),
            ),
            "agents: \"agents\" belongs to swarm and coordinator scenarios; this scenario's pattern is collaboration",
        ),
        (
            "no turns",
            swarm("/provider/turns", None),
            "provider: missing field \"turns\": the sim needs the turns of each agent that takes one",
        ),
        (
            "turns of an undeclared agent",
            swarm("/provider/turns/refunds", Some(json!({"reply": "x"}))),
            "provider.turns.refunds: \"refunds\" is not an agent declared in agents (triage, billing)",
        ),
        (
            "a transfer target without turns",
            swarm("/provider/turns/billing", None),
            "provider.turns: missing the turns of agent \"billing\" (it gets a turn through provider.turns.triage[0].transfer_to)",
        ),
        (
            "a turn of two kinds",
            swarm(
                "/provider/turns/triage/0",
                Some(json!({"reply": "x", "transfer_to": "billing"})),
            ),
            "provider.turns.triage[0]: a turn is one kind; found \"reply\" and \"transfer_to\"",
        ),
        (
            "a turn of no kind",
            swarm("/provider/turns/triage/0", Some(json!({"answer": "x"}))),
            "provider.turns.triage[0]: expected a turn: text, a $fault, or an object with one of \"reply\", \"transfer_to\", \"call\"",
        ),
        (
            "a number for a turn",
            swarm("/provider/turns/triage/0", Some(json!(42))),
            "found whole number 42",
        ),
        (
            "an unknown field in a turn",
            swarm(
                "/provider/turns/triage/0",
                Some(json!({"transfer_to": "billing", "note": "x"})),
            ),
            "provider.turns.triage[0].note: unknown field \"note\" in a \"transfer_to\" turn; expected one of: transfer_to, message, latency_ms",
        ),
        (
            "args that are not an object",
            swarm(
                "/provider/turns/billing/0",
                Some(json!({"call": "lookup", "args": [1]})),
            ),
            "provider.turns.billing[0].args: expected an object, found list [1]",
        ),
        (
            "a turn latency that is not whole milliseconds",
            swarm(
                "/provider/turns/billing/1",
                Some(json!({"reply": "x", "latency_ms": 1.5})),
            ),
            "provider.turns.billing[1].latency_ms: expected a whole number of milliseconds, found number 1.5",
        ),
        (
            "an unknown fault",
            swarm("/provider/turns/billing/3", Some(json!({"$fault": "slow"}))),
            "provider.turns.billing[3].$fault: expected $fault to be \"timeout\" or \"empty\"",
        ),
        (
            "member calls in a swarm",
            swarm(
                "/provider/turns/triage/0",
                Some(json!({"call_members": [{"member": "billing"}]})),
            ),
            "provider.turns.triage[0].call_members: a swarm agent cannot take a \"call_members\" turn",
        ),
        (
            "a transfer by the coordinator",
            coordinator(
                "/provider/turns/lead/1",
                Some(json!({"transfer_to": "risk"})),
            ),
            "provider.turns.lead[1].transfer_to: the coordinator cannot take a \"transfer_to\" turn",
        ),
        (
            "member calls by a member",
            coordinator(
                "/provider/turns/market",
                Some(json!({"call_members": [{"member": "risk"}]})),
            ),
            "provider.turns.market.call_members: a member cannot take a \"call_members\" turn",
        ),
        (
            "an empty list of member calls",
            coordinator("/provider/turns/lead/0", Some(json!({"call_members": []}))),
            "provider.turns.lead[0].call_members: expected a list of at least one member call, found list []",
        ),
        (
            "a member call without a member",
            coordinator(
                "/provider/turns/lead/0",
                Some(json!({"call_members": [{"task": "x"}]})),
            ),
            "provider.turns.lead[0].call_members[0]: expected {\"member\": name, \"task\": text}",
        ),
        (
            "a called member without turns",
            coordinator("/provider/turns/risk", None),
            "provider.turns: missing the turns of agent \"risk\" (it gets a turn through provider.turns.lead[0].call_members[1].member)",
        ),
        (
            "a coordinator without members",
            coordinator("/agents", Some(json!({"lead": {}}))),
            "agents: expected at least one member besides the coordinator \"lead\"",
        ),
        (
            "a tool named like an agent",
            swarm("/tools/billing", Some(json!({}))),
            "tools.billing: \"billing\" is also an agent's name; a tool needs a name of its own",
        ),
        (
            "a tool latency upside down",
            swarm(
                "/tools/lookup/latency_ms",
                Some(json!({"min": 9, "max": 1})),
            ),
            "tools.lookup.latency_ms: expected min ≤ max, found min 9 and max 1",
        ),
        (
            "tools in an orchestrator",
            edit(
                json!({"name": "o", "pattern": "orchestrator", "goal": "g", "context": {},
                       "workers": {"sales_worker": {}}, "tools": {"lookup": {}},
                       "provider": {"kind": "sim"}}),
                "/name",
                Some(json!("o")),
            ),
            "tools: \"tools\" belongs to swarm and coordinator scenarios; this scenario's pattern is orchestrator",
        ),
        (
            "a final answer in a swarm",
            swarm("/provider/final_answer", Some(json!("Brief."))),
            "provider.final_answer: a swarm run answers with an agent's reply",
        ),
        (
            "turns for an openai provider",
            swarm("/provider/kind", Some(json!("openai"))),
            "provider.turns: \"turns\" is only for kind \"sim\"",
        ),
    ];
    assert_documented(&cases);
}

#[test]
fn a_scripted_transfer_to_an_undeclared_agent_is_the_models_mistake_not_the_files() {
    // The run refuses it as unknown_agent; the file is fine.
    let text = swarm(
        "/provider/turns/triage/0",
        Some(json!({"transfer_to": "ghost"})),
    );
    scenario::parse(&text, "ok.json").unwrap();
}

#[test]
fn errors_point_at_the_line_and_column_of_the_culprit() {
    let text = swarm("/entry", Some(json!("nobody")));
    let (line, column) = position_of(&text, "\"nobody\"");
    assert_eq!(
        errors_of(&text).to_string(),
        format!(
            "bad.json:{line}:{column}: entry: expected an agent declared in agents (triage, billing), found \"nobody\""
        )
    );
}

/// Truncations, byte flips and values swapped for values of other types,
/// over the shipped team scenarios and the bases above.
#[test]
fn no_team_input_makes_the_loader_panic() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut texts: Vec<String> = ["support_swarm", "pingpong_swarm", "launch_coordinator"]
        .iter()
        .map(|n| std::fs::read_to_string(format!("{root}/scenarios/{n}.json")).unwrap())
        .collect();
    texts.push(serde_json::to_string_pretty(&valid_swarm()).unwrap());
    texts.push(serde_json::to_string_pretty(&valid_coordinator()).unwrap());
    let replacements = [
        "null",
        "[]",
        "{}",
        "\"\"",
        "-1",
        "1e999",
        "true",
        "[{}]",
        "{\"$fault\": 1}",
        "\u{1f600}",
    ];
    let parsed = never_panics(&texts, 0x9e37_79b9_7f4a_7c15, 500, &replacements);
    assert!(parsed < 2500, "most broken files are refused");
}
