//! Bad research scenario files: every error names the file, the line and
//! column, the JSON path and what was expected; no input makes the loader
//! panic.

use crate::common;

use common::files::{self, assert_documented, errors_of, never_panics};
use conclave::scenario;
use serde_json::{Value, json};

fn valid() -> Value {
    json!({
        "name": "t",
        "pattern": "research",
        "goal": "Research.",
        "context": {
            "request": {"question": "What is the status?"},
            "policy_hints": {"allowed_domains_policy": ["a.example", "b.example"],
                             "allowed_domains_execution": ["a.example"]}
        },
        "flags": {"b_reads": {"default": false, "domains": ["b.example"]}},
        "sources": {
            "search_results": [{"url": "https://a.example/x#top", "title": "A"}],
            "pages": {"https://a.example/x": {"title": "A", "published_at": "2026-03-07",
                      "notes": [{"claim": "A.", "quote": "A quote long enough to keep."}]}},
            "tools": {"read_source": {"latency_ms": 300}}
        },
        "provider": {"kind": "sim", "latency_ms": 100}
    })
}

/// `valid()` changed at a JSON pointer: set, or removed with `None`. A key
/// that holds `/`, as a page's URL does, is written with `~1`.
fn edit(pointer: &str, value: Option<Value>) -> String {
    files::edit(valid(), pointer, value)
}

#[test]
fn the_valid_base_and_the_shipped_scenarios_are_valid() {
    scenario::parse(&valid().to_string(), "ok.json").unwrap();
    for file in [
        "payments_incident_research.json",
        "payments_research_locked_down.json",
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .join(file);
        scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn each_malformed_research_file_gets_its_documented_error() {
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "no sources",
            edit("/sources", None),
            "missing field \"sources\": a research scenario declares what its search finds",
        ),
        (
            "a page under a URL read_source never asks for",
            edit(
                "/sources/pages/HTTPS:~1~1A.example~1x~1",
                Some(json!({"title": "A", "published_at": "2026"})),
            ),
            "sources.pages[\"HTTPS://A.example/x/\"]: expected a normalised URL (lower-case scheme and host, no query, fragment or trailing slash); read_source looks this page up as \"https://a.example/x\"",
        ),
        (
            "an IPv6 host",
            edit(
                "/sources/search_results/0/url",
                Some(json!("https://[::1]/x")),
            ),
            "sources.search_results[0].url: expected a URL Python's urlparse can read, found \"https://[::1]/x\" (a host in brackets",
        ),
        (
            "a non-ASCII host",
            edit(
                "/sources/search_results/0/url",
                Some(json!("bücher.example/x")),
            ),
            "(a host with non-ASCII characters (write it in punycode",
        ),
        (
            "a search result without a URL",
            edit("/sources/search_results/0", Some(json!({"title": "A"}))),
            "sources.search_results[0]: missing field \"url\"",
        ),
        (
            "a note without a quote",
            edit(
                "/sources/pages/https:~1~1a.example~1x/notes",
                Some(json!([{"claim": "A."}])),
            ),
            "sources.pages[\"https://a.example/x\"].notes[0]: missing field \"quote\"",
        ),
        (
            "a tool that does not exist",
            edit("/sources/tools/fetch_page", Some(json!({}))),
            "sources.tools.fetch_page: unknown field \"fetch_page\"; expected one of: search_sources, read_source, extract_notes, verify_notes",
        ),
        (
            "a latency range upside down",
            edit(
                "/sources/tools/read_source",
                Some(json!({"latency_ms": {"min": 9, "max": 1}})),
            ),
            "sources.tools.read_source.latency_ms: expected min ≤ max, found min 9 and max 1",
        ),
        (
            "a flag on an undeclared domain",
            edit("/flags/b_reads/domains", Some(json!(["c.example"]))),
            "flags.b_reads.domains[0]: expected a domain of the policy allowlist (context.policy_hints.allowed_domains_policy: a.example, b.example), found \"c.example\"",
        ),
        (
            "a flag gating roles",
            edit("/flags/b_reads/roles", Some(json!(["x"]))),
            "flags.b_reads.roles: research flags gate domains; expected \"domains\" instead of \"roles\"",
        ),
        (
            "no question for the sim's plan",
            edit("/context/request", Some(json!({}))),
            "context.request: missing context.request.question: without a scripted plan the sim searches for the request's question",
        ),
        (
            "a question that is not text",
            edit("/context/request/question", Some(json!(7))),
            "context.request.question: expected a string (the sim's plan searches for it), found whole number 7",
        ),
        (
            "a final brief in research",
            edit("/provider/final_answer", Some(json!("Brief."))),
            "provider.final_answer: a research run writes no final brief; its answer is scripted as \"synthesis\"",
        ),
        (
            "an unknown synthesis fault",
            edit("/provider/synthesis", Some(json!({"$fault": "slow"}))),
            "provider.synthesis.$fault: expected $fault to be \"timeout\" or \"empty\"",
        ),
        (
            "an orchestrator budget key",
            edit("/budget", Some(json!({"max_tasks": 3}))),
            "budget.max_tasks: \"max_tasks\" is a budget of orchestrator scenarios; this scenario's pattern is research",
        ),
        (
            "collaboration responses",
            edit("/provider/responses", Some(json!({"a": "x"}))),
            "provider.responses: \"responses\" scripts collaboration roles (1 given); this scenario's pattern is research",
        ),
    ];
    assert_documented(&cases);
}

#[test]
fn research_sections_belong_to_research() {
    let collaboration = json!({
        "name": "t", "pattern": "collaboration", "goal": "g", "context": {},
        "team": {"roles": {"a": {}}, "sequence": ["a"]},
        "sources": {"search_results": []},
        "budget": {"max_steps": 3},
        "provider": {"kind": "sim", "responses": {"a": "{}"}, "synthesis": {"answer": "x"}}
    });
    let shown = errors_of(&collaboration.to_string()).to_string();
    for fragment in [
        "sources: \"sources\" belongs to research scenarios; this scenario's pattern is collaboration",
        "budget.max_steps: \"max_steps\" is a budget of research scenarios",
        "provider.synthesis: \"synthesis\" scripts the research answer; this scenario's pattern is collaboration",
    ] {
        assert!(shown.contains(fragment), "{fragment:?} in\n{shown}");
    }
}

#[test]
fn a_scripted_plan_needs_no_question_and_hints_may_be_anything() {
    let mut document = valid();
    document["context"] = json!({"policy_hints": "whatever"});
    document["provider"]["plan"] = json!([{"id": "r1"}]);
    document["flags"] = json!({"vendor": {"domains": ["vendor.example.com"]}});
    scenario::parse(&document.to_string(), "ok.json").unwrap();
}

/// Broken copies of the base and of the shipped research example.
#[test]
fn no_input_makes_the_loader_panic() {
    let shipped = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/payments_incident_research.json"
    ))
    .unwrap();
    let texts = [serde_json::to_string_pretty(&valid()).unwrap(), shipped];
    let replacements = [
        "null",
        "[]",
        "{}",
        "\"\"",
        "-1",
        "1e999",
        "true",
        "\"[::1]\"",
        "\"ü\"",
        "\"//\"",
    ];
    never_panics(&texts, 0x9e37_79b9_7f4a_7c15, 800, &replacements);
}
