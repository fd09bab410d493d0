//! Bad scenario files: every error names the file, the line and column, the
//! JSON path and what was expected; no input makes the loader panic.

use crate::common;

use common::files::{self, assert_documented, errors_of, never_panics, position_of};
use conclave::scenario;
use serde_json::{Value, json};

fn valid() -> Value {
    json!({
        "name": "t",
        "pattern": "collaboration",
        "goal": "Decide.",
        "context": {"region": "US"},
        "team": {
            "roles": {"demand_analyst": {"focus": "demand"}, "risk_analyst": {}, "legal_analyst": {}},
            "sequence": ["demand_analyst", "risk_analyst"]
        },
        "flags": {"legal_analyst": {"default": false, "roles": ["legal_analyst"]}},
        "provider": {"kind": "sim", "latency_ms": 100,
                     "responses": {"demand_analyst": ["{}"], "risk_analyst": ["{}"]}}
    })
}

/// `valid()` changed at a JSON pointer: set, or removed with `None`.
fn edit(pointer: &str, value: Option<Value>) -> String {
    files::edit(valid(), pointer, value)
}

#[test]
fn the_valid_base_is_valid() {
    scenario::parse(&valid().to_string(), "ok.json").unwrap();
}

#[test]
fn each_malformed_file_gets_its_documented_error() {
    let cases: Vec<(&str, String, &str)> = vec![
        ("not JSON", "{\"name\": \"t\",".into(), "not valid JSON"),
        (
            "trailing comma",
            "{\"name\": \"t\",}".into(),
            "not valid JSON",
        ),
        (
            "top level is a list",
            "[1, 2]".into(),
            "expected an object, found list",
        ),
        (
            "unknown top-level field",
            edit("/teem", Some(json!({}))),
            "unknown field \"teem\"; expected one of: name, pattern, goal",
        ),
        (
            "unknown nested field",
            edit("/team/order", Some(json!([]))),
            "team.order: unknown field \"order\"; expected one of: roles, sequence",
        ),
        (
            "missing goal",
            edit("/goal", None),
            "missing field \"goal\"",
        ),
        (
            "missing provider",
            edit("/provider", None),
            "missing field \"provider\"",
        ),
        (
            "goal is a number",
            edit("/goal", Some(json!(5))),
            "goal: expected a string, found whole number 5",
        ),
        (
            "unknown pattern",
            edit("/pattern", Some(json!("collab"))),
            "pattern: expected one of \"collaboration\", \"orchestrator\"",
        ),
        (
            "sequence names an undeclared role",
            edit("/team/sequence/1", Some(json!("risk_analist"))),
            "team.sequence[1]: expected a role declared in team.roles (demand_analyst, risk_analyst, legal_analyst), found \"risk_analist\"",
        ),
        (
            "sequence is not a list",
            edit("/team/sequence", Some(json!("demand_analyst"))),
            "team.sequence: expected a list, found string",
        ),
        (
            "flag gates an undeclared role",
            edit("/flags/legal_analyst/roles", Some(json!(["lawyer"]))),
            "flags.legal_analyst.roles[0]: expected a role declared in team.roles",
        ),
        (
            "flag default is a string",
            edit("/flags/legal_analyst/default", Some(json!("on"))),
            "flags.legal_analyst.default: expected true or false, found string \"on\"",
        ),
        (
            "flag gates workers in a collaboration",
            edit("/flags/legal_analyst/workers", Some(json!(["w"]))),
            "collaboration flags gate roles; expected \"roles\" instead of \"workers\"",
        ),
        (
            "sim script misses a role in the sequence",
            edit("/provider/responses/risk_analyst", None),
            "provider.responses: missing the outputs of role \"risk_analyst\" (it speaks at team.sequence[1])",
        ),
        (
            "joining role without a script",
            edit("/flags/legal_analyst/joins", Some(json!(true))),
            "missing the outputs of role \"legal_analyst\" (it speaks at flags.legal_analyst.roles[0])",
        ),
        (
            "script for an undeclared role",
            edit("/provider/responses/cfo", Some(json!(["{}"]))),
            "provider.responses.cfo: \"cfo\" is not a role declared in team.roles",
        ),
        (
            "empty script",
            edit("/provider/responses/risk_analyst", Some(json!([]))),
            "provider.responses.risk_analyst: expected at least one output",
        ),
        (
            "unknown fault",
            edit(
                "/provider/responses/risk_analyst",
                Some(json!([{"$fault": "slow"}])),
            ),
            "provider.responses.risk_analyst[0].$fault: expected $fault to be \"timeout\" or \"empty\", found \"slow\"",
        ),
        (
            "negative budget",
            edit("/budget", Some(json!({"max_rounds": -1}))),
            "budget.max_rounds: expected a number ≥ 0, found whole number -1",
        ),
        (
            "budget seconds as text",
            edit("/budget", Some(json!({"max_seconds": "40"}))),
            "budget.max_seconds: expected a number, found string \"40\"",
        ),
        (
            "unknown budget key",
            edit("/budget", Some(json!({"max_round": 3}))),
            "budget.max_round: unknown field \"max_round\"",
        ),
        (
            "latency as text",
            edit("/provider/latency_ms", Some(json!("fast"))),
            "provider.latency_ms: expected simulated latency of a call: a whole number of milliseconds",
        ),
        (
            "latency range upside down",
            edit(
                "/provider/latency_ms",
                Some(json!({"min": 500, "max": 100})),
            ),
            "provider.latency_ms: expected min ≤ max, found min 500 and max 100",
        ),
        (
            "unknown provider kind",
            edit("/provider/kind", Some(json!("anthropic"))),
            "provider.kind: expected one of \"sim\", \"openai\"",
        ),
        (
            "openai field on the sim",
            edit("/provider/base_url", Some(json!("http://x"))),
            "provider.base_url: \"base_url\" is only for kind \"openai\"",
        ),
        (
            "no roles",
            edit("/team", Some(json!({"roles": {}, "sequence": []}))),
            "team.roles: expected at least one role",
        ),
        (
            "collaboration without a team",
            edit("/team", None),
            "missing field \"team\"",
        ),
        ("seed too large", edit("/seed", Some(json!(1e30))), "seed"),
    ];
    assert!(cases.len() >= 15);
    assert_documented(&cases);
}

fn valid_orchestrator() -> Value {
    json!({
        "name": "o",
        "pattern": "orchestrator",
        "goal": "Report.",
        "context": {"report_date": "2026-02-26", "region": "US"},
        "budget": {"max_tasks": 4, "max_parallel": 3, "max_dispatches": 8},
        "workers": {
            "sales_worker": {"data": {"2026-02-26:US": {"orders": 1}}, "latency_ms": 400},
            "payments_worker": {"latency_ms": [2600, 300], "fail": [3], "outage_ms": [[0, 100]]}
        },
        "flags": {"payments": {"default": true, "workers": ["payments_worker"]}},
        "health_rules": [{"worker": "payments_worker", "field": "failed_payment_rate", "op": ">=",
                          "value": 0.03, "level": "yellow"}],
        "provider": {"kind": "sim", "plan": "{\"kind\": \"plan\"}", "final_answer": "Brief."}
    })
}

/// `valid_orchestrator()` changed at a JSON pointer, as `edit` does.
fn edit_orchestrator(pointer: &str, value: Option<Value>) -> String {
    files::edit(valid_orchestrator(), pointer, value)
}

#[test]
fn the_valid_orchestrator_base_is_valid() {
    scenario::parse(&valid_orchestrator().to_string(), "ok.json").unwrap();
}

#[test]
fn each_malformed_orchestrator_file_gets_its_documented_error() {
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "no workers",
            edit_orchestrator("/workers", None),
            "missing field \"workers\": an orchestrator scenario declares at least one worker",
        ),
        (
            "flag gates an undeclared worker",
            edit_orchestrator("/flags/payments/workers", Some(json!(["fraud_worker"]))),
            "flags.payments.workers[0]: expected a worker declared in workers (sales_worker, payments_worker), found \"fraud_worker\"",
        ),
        (
            "flag gates roles in an orchestrator",
            edit_orchestrator("/flags/payments/roles", Some(json!(["legal_analyst"]))),
            "flags.payments.roles: orchestrator flags gate workers; expected \"workers\" instead of \"roles\"",
        ),
        (
            "health rule names an undeclared worker",
            edit_orchestrator("/health_rules/0/worker", Some(json!("fraud_worker"))),
            "health_rules[0].worker: expected a worker declared in workers",
        ),
        (
            "health rule with an unknown op",
            edit_orchestrator("/health_rules/0/op", Some(json!("=>"))),
            "health_rules[0].op: expected one of \">=\", \">\", \"<=\", \"<\", \"==\", \"!=\", \"non_empty\", \"not_in\", found string \"=>\"",
        ),
        (
            "health rule compares with text",
            edit_orchestrator("/health_rules/0/value", Some(json!("3%"))),
            "health_rules[0].value: expected a number for op \">=\", found string \"3%\"",
        ),
        (
            "health rule without a value",
            edit_orchestrator("/health_rules/0/value", None),
            "health_rules[0]: missing field \"value\": op \">=\" compares the field with it",
        ),
        (
            "not_in without a list",
            edit_orchestrator(
                "/health_rules/0",
                Some(
                    json!({"worker": "payments_worker", "field": "gateway_incident", "op": "not_in",
                            "value": "none", "level": "red"}),
                ),
            ),
            "health_rules[0].value: expected a list for op \"not_in\"",
        ),
        (
            "health level unknown",
            edit_orchestrator("/health_rules/0/level", Some(json!("amber"))),
            "health_rules[0].level: expected one of \"yellow\", \"red\"",
        ),
        (
            "a collaboration budget key",
            edit_orchestrator("/budget/max_rounds", Some(json!(3))),
            "budget.max_rounds: \"max_rounds\" is a budget of collaboration scenarios; this scenario's pattern is orchestrator",
        ),
        (
            "no parallelism",
            edit_orchestrator("/budget/max_parallel", Some(json!(0))),
            "budget.max_parallel: expected a number ≥ 1, found whole number 0",
        ),
        (
            "a team in an orchestrator",
            edit_orchestrator("/team", Some(json!({"roles": {}, "sequence": []}))),
            "team: \"team\" belongs to collaboration scenarios; this scenario's pattern is orchestrator",
        ),
        (
            "collaboration responses in an orchestrator",
            edit_orchestrator("/provider/responses", Some(json!({"a": "x"}))),
            "provider.responses: \"responses\" scripts collaboration roles (1 given); this scenario's pattern is orchestrator",
        ),
        (
            "two workers under one short name",
            edit_orchestrator("/workers/sales", Some(json!({}))),
            "workers.sales: \"sales_worker\" and \"sales\" both report under \"sales\" in the aggregate; rename one",
        ),
        (
            "a worker named after an aggregate key",
            edit_orchestrator("/workers/health_worker", Some(json!({}))),
            "workers.health_worker: the aggregate keeps \"health\" for itself; rename the worker",
        ),
        (
            "an unknown field in a worker",
            edit_orchestrator("/workers/sales_worker/latency", Some(json!(3))),
            "workers.sales_worker.latency: unknown field \"latency\"; expected one of: description, data, latency_ms",
        ),
        (
            "latency range upside down",
            edit_orchestrator(
                "/workers/sales_worker/latency_ms",
                Some(json!({"min": 500, "max": 100})),
            ),
            "workers.sales_worker.latency_ms: expected min ≤ max, found min 500 and max 100",
        ),
        (
            "call number zero",
            edit_orchestrator("/workers/payments_worker/fail", Some(json!([0]))),
            "workers.payments_worker.fail[0]: expected a number ≥ 1, found whole number 0",
        ),
        (
            "outage window upside down",
            edit_orchestrator(
                "/workers/payments_worker/outage_ms",
                Some(json!([[500, 100]])),
            ),
            "workers.payments_worker.outage_ms[0]: expected from < to, found [500, 100]",
        ),
        (
            "data that is not an object",
            edit_orchestrator("/workers/sales_worker/data/2026-02-26:US", Some(json!([1]))),
            "workers.sales_worker.data[\"2026-02-26:US\"]: expected an object, found list [1]",
        ),
        (
            "unknown plan fault",
            edit_orchestrator("/provider/plan", Some(json!({"$fault": "slow"}))),
            "provider.plan.$fault: expected $fault to be \"timeout\" or \"empty\", found \"slow\"",
        ),
        (
            "a plan in a collaboration",
            edit("/provider/plan", Some(json!("{}"))),
            "provider.plan: \"plan\" scripts the orchestrator's or the research planner; this scenario's pattern is collaboration",
        ),
        (
            "workers in a collaboration",
            edit("/workers", Some(json!({"sales_worker": {}}))),
            "workers: \"workers\" belongs to orchestrator scenarios; this scenario's pattern is collaboration",
        ),
        (
            "an orchestrator budget key in a collaboration",
            edit("/budget", Some(json!({"max_dispatches": 8}))),
            "budget.max_dispatches: \"max_dispatches\" is a budget of orchestrator scenarios; this scenario's pattern is collaboration",
        ),
    ];
    assert_documented(&cases);
}

#[test]
fn errors_point_at_the_line_and_column_of_the_culprit() {
    let text = edit("/team/sequence/1", Some(json!("nobody")));
    let (line, column) = position_of(&text, "\"nobody\"");
    let errors = errors_of(&text);
    assert_eq!(
        errors.to_string(),
        format!(
            "bad.json:{line}:{column}: team.sequence[1]: expected a role declared in team.roles (demand_analyst, risk_analyst, legal_analyst), found \"nobody\""
        )
    );
}

#[test]
fn every_error_of_a_file_is_reported_in_file_order() {
    let mut document = valid();
    document["goal"] = json!(1);
    document["context"] = json!({"anything": "goes"});
    document["team"]["extra"] = json!(true);
    document["flags"]["legal_analyst"]["default"] = json!("no");
    let errors = errors_of(&serde_json::to_string_pretty(&document).unwrap());
    let paths: Vec<String> = errors.0.iter().map(|e| e.path.to_string()).collect();
    assert_eq!(
        paths,
        vec!["goal", "team.extra", "flags.legal_analyst.default"]
    );
    let lines: Vec<usize> = errors.0.iter().map(|e| e.position.unwrap().line).collect();
    assert!(lines.windows(2).all(|w| w[0] < w[1]), "{lines:?}");
}

/// Broken copies of the bases and of the shipped collaboration and
/// orchestrator examples, and a file nested too deep to read.
#[test]
fn no_input_makes_the_loader_panic() {
    let root = env!("CARGO_MANIFEST_DIR");
    let shipped = |name: &str| std::fs::read_to_string(format!("{root}/scenarios/{name}")).unwrap();
    let texts = [
        serde_json::to_string_pretty(&valid()).unwrap(),
        shipped("checkout_v2_launch.json"),
        serde_json::to_string_pretty(&valid_orchestrator()).unwrap(),
        shipped("morning_ops_report.json"),
    ];
    let replacements = [
        "null",
        "[]",
        "{}",
        "\"\"",
        "-1",
        "1e999",
        "true",
        "\"\\u0000\"",
        "[[[[[[",
        "\u{1f600}",
    ];
    never_panics(&texts, 0x2545_f491_4f6c_dd1d, 600, &replacements);
    let deep = "[".repeat(10_000);
    assert!(scenario::parse(&deep, "deep.json").is_err());
}

#[test]
fn the_schema_describes_the_format() {
    let schema = scenario::json_schema();
    assert_eq!(schema["title"], "Conclave scenario");
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        required,
        vec!["name", "pattern", "goal", "context", "provider"]
    );
    assert_eq!(schema["additionalProperties"], false);
}

/// Every duration the scenario gives is held to the one-week cap before a
/// run: the error names the place and the cap in the field's unit.
#[test]
fn durations_past_a_week_or_below_zero_are_refused() {
    let week_ms = 7 * 24 * 3600 * 1000_u64;
    let cases = [
        (
            "a model timeout of 1e308 s",
            edit("/provider/timeout_seconds", Some(json!(1e308))),
            "provider.timeout_seconds: expected at most 604800 seconds (one week), found 1e+308",
        ),
        (
            "a run budget of 1e308 s",
            edit("/budget", Some(json!({"max_seconds": 1e308}))),
            "budget.max_seconds: expected at most 604800 seconds (one week), found 1e+308",
        ),
        (
            "negative seconds",
            edit("/budget", Some(json!({"max_seconds": -2.5}))),
            "budget.max_seconds: expected a number ≥ 0, found number -2.5",
        ),
        (
            "the largest whole number of milliseconds",
            edit("/provider/latency_ms", Some(json!(u64::MAX))),
            "provider.latency_ms: expected at most 604800000 milliseconds (one week), found 18446744073709551615",
        ),
        (
            "a latency range a millisecond past the cap",
            edit(
                "/provider/latency_ms",
                Some(json!({"min": 0, "max": week_ms + 1})),
            ),
            "provider.latency_ms.max: expected at most 604800000 milliseconds (one week), found 604800001",
        ),
        (
            "a gateway timeout",
            edit(
                "/resilience",
                Some(json!({"timeouts_ms": {"default": u64::MAX}})),
            ),
            "resilience.timeouts_ms.default: expected at most 604800000 milliseconds",
        ),
        (
            "a tool's breaker",
            edit(
                "/resilience",
                Some(
                    json!({"tools": {"model": {"circuit_breaker": {"open_for_ms": week_ms + 1}}}}),
                ),
            ),
            "resilience.tools.model.circuit_breaker.open_for_ms: expected at most 604800000 milliseconds",
        ),
    ];
    assert_documented(&cases);
    let (line, _) = position_of(&cases[0].1, "\"timeout_seconds\"");
    let errors = errors_of(&cases[0].1);
    assert_eq!(errors.0[0].position.unwrap().line, line);
    // A week exactly is a duration like any other.
    scenario::parse(
        &edit("/budget", Some(json!({"max_seconds": 604800}))),
        "ok.json",
    )
    .unwrap();
}

#[test]
fn a_key_given_twice_is_refused_naming_both_places() {
    let text =
        "{\n  \"name\": \"t\",\n  \"team\": {\"roles\": {}, \"roles\": {}},\n  \"name\": \"u\"\n}";
    let errors = errors_of(text);
    let shown: Vec<String> = errors.0.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        vec![
            "bad.json:3:25: team.roles: duplicate key \"roles\": already given at line 3, column 12; a key may appear once in an object",
            "bad.json:4:3: name: duplicate key \"name\": already given at line 2, column 3; a key may appear once in an object",
        ]
    );
    // A key written with an escape is the same key.
    let escaped =
        edit("/goal", Some(json!("g"))).replacen("\"goal\"", "\"go\\u0061l\": 1, \"goal\"", 1);
    assert!(
        errors_of(&escaped)
            .to_string()
            .contains("duplicate key \"goal\"")
    );
}

#[test]
fn bytes_that_are_not_utf8_text_are_placed() {
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(edit("/goal", Some(json!("g"))).as_bytes());
    let errors = scenario::parse_bytes(bom, "bad.json").unwrap_err();
    assert_eq!(
        errors.to_string(),
        "bad.json:1:1: (top level): starts with a UTF-8 byte-order mark (bytes EF BB BF); save the file as UTF-8 without a BOM"
    );
    let text = edit("/goal", Some(json!("Décidez ici")));
    let at = text.find(" ici").unwrap();
    let mut bytes = text.clone().into_bytes();
    bytes[at] = 0xFF;
    let errors = scenario::parse_bytes(bytes, "bad.json").unwrap_err();
    let (line, column) = position_of(&text, "Décidez");
    let position = errors.0[0].position.unwrap();
    assert_eq!(
        (position.line, position.column),
        (line, column + "Décidez".chars().count())
    );
    assert!(
        errors.to_string().contains("not UTF-8 text: byte 0xFF"),
        "{errors}"
    );
}

#[test]
fn json_syntax_errors_count_columns_in_characters() {
    let text = "{\n  \"goal\": \"ééé\" \"x\"\n}";
    let errors = errors_of(text);
    let position = errors.0[0].position.unwrap();
    // The `"` of "x": 17 characters in, 20 bytes.
    assert_eq!((position.line, position.column), (2, 17), "{errors}");
}

#[test]
fn a_document_that_is_not_an_object_is_named_as_what_it_is() {
    assert_eq!(
        errors_of("[1, 2]").to_string(),
        "bad.json:1:1: (top level): expected an object, found list [1,2]"
    );
    let long = format!("[{}]", vec!["1"; 5000].join(","));
    assert_eq!(
        errors_of(&long).to_string(),
        "bad.json:1:1: (top level): expected an object, found a list"
    );
}

#[test]
fn at_most_a_hundred_errors_are_reported_for_a_file() {
    let nobody: Vec<String> = (0..150).map(|i| format!("nobody_{i}")).collect();
    let errors = errors_of(&edit("/team/sequence", Some(json!(nobody))));
    assert_eq!(errors.0.len(), scenario::MAX_REPORTED + 1);
    let last = errors.0.last().unwrap();
    assert_eq!(last.path.to_string(), "team.sequence[100]");
    assert!(
        last.message
            .contains("more errors from here on are not shown"),
        "{last}"
    );
}

/// How an endpoint is asked (`output`, `output_retries`, `temperature`,
/// `max_output_tokens`, `reasoning_effort`): every value that cannot work
/// is refused at its place, saying what is expected.
#[test]
fn the_ways_of_asking_an_endpoint_are_checked_where_they_are_written() {
    let cases = [
        (
            "an output mode that does not exist",
            edit("/provider/output", Some(json!("strict"))),
            "provider.output: expected one of",
        ),
        (
            "negative repair rounds",
            edit("/provider/output_retries", Some(json!(-1))),
            "provider.output_retries: expected a number ≥ 0, found whole number -1",
        ),
        (
            "repair rounds that are not whole",
            edit("/provider/output_retries", Some(json!(1.5))),
            "provider.output_retries: expected",
        ),
        (
            "repair rounds without end",
            edit("/provider/output_retries", Some(json!(4_000_000_000u64))),
            "provider.output_retries: expected at most 10 repairs of an answer, found 4000000000",
        ),
        (
            "a temperature past 2",
            edit("/provider/temperature", Some(json!(2.5))),
            "provider.temperature: expected a number ≤ 2, found number 2.5",
        ),
        (
            "a temperature in words",
            edit("/provider/temperature", Some(json!("low"))),
            "provider.temperature: expected",
        ),
        (
            "no output tokens at all",
            edit("/provider/max_output_tokens", Some(json!(0))),
            "provider.max_output_tokens: expected a number ≥ 1, found whole number 0",
        ),
        (
            "a blank reasoning effort",
            edit("/provider/reasoning_effort", Some(json!("  "))),
            "provider.reasoning_effort: expected a reasoning effort such as \"low\", \"medium\" or \"high\", found string \"  \"",
        ),
    ];
    assert_documented(&cases);
    let (line, _) = position_of(&cases[6].1, "\"max_output_tokens\"");
    assert_eq!(errors_of(&cases[6].1).0[0].position.unwrap().line, line);
    let modes = files::edit(
        valid(),
        "/provider",
        Some(
            json!({"kind": "openai", "output": "tool", "output_retries": 0, "temperature": null,
                    "max_output_tokens": 800, "reasoning_effort": "minimal"}),
        ),
    );
    scenario::parse(&modes, "ok.json").unwrap();
    for mode in ["auto", "native", "tool", "json", "prompted"] {
        let text = edit("/provider/output", Some(json!(mode)));
        scenario::parse(&text, "ok.json").unwrap();
    }
    let schema = scenario::json_schema();
    let provider = &schema["$defs"]["ProviderSpec"]["properties"];
    for field in [
        "output",
        "output_retries",
        "temperature",
        "max_output_tokens",
        "reasoning_effort",
    ] {
        assert!(provider[field]["description"].is_string(), "{field}");
    }
}
