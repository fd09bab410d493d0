//! The research pattern's cross-reference checks: a `sources` section whose
//! URLs Python's `urlparse` reads without raising and whose pages are keyed
//! by normalised URL, flags that gate declared domains, well-formed tool
//! latencies, and a question for the sim's own plan to search for.

use super::scenario::Sources;
use crate::pycompat::url_refusal;
use crate::scenario::error::Problem;
use crate::scenario::hints::ResearchLimits;
use crate::scenario::latency::WorkerLatency;
use crate::scenario::path::JsonPath;
use crate::scenario::script::{FAULT_KEY, ScriptedOutput};
use crate::scenario::types::{ProviderKind, Scenario};
use crate::scenario::{ResearchTool, ToolBehaviour, normalize_url};
use serde_json::Value;

pub(crate) fn check(scenario: &Scenario, problems: &mut Vec<Problem>) {
    match &scenario.sources {
        Some(sources) => check_sources(sources, problems),
        None => problems.push(Problem::at(
            JsonPath::root(),
            "missing field \"sources\": a research scenario declares what its search finds",
        )),
    }
    check_flags(scenario, problems);
    check_scripts(scenario, problems);
}

/// What the search finds, the pages it reads and how each tool behaves.
fn check_sources(sources: &Sources, problems: &mut Vec<Problem>) {
    let path = JsonPath::root().key("sources");
    let real_search = sources
        .tools
        .real()
        .any(|(tool, _)| tool == ResearchTool::SearchSources);
    if sources.search_results.is_none() && !real_search {
        problems.push(Problem::at(
            path.clone(),
            "missing field \"search_results\": the simulated search answers from it (or make tools.search_sources a real tool)",
        ));
    }
    check_real_tools(sources, &path, problems);
    check_urls(sources, &path, problems);
    for tool in ResearchTool::ALL {
        if let Some(behaviour) = sources.tools.get(tool) {
            check_tool(tool, behaviour, &path, problems);
        }
    }
}

/// Only the search can be a real tool, and a real tool scripts no
/// simulated call.
fn check_real_tools(sources: &Sources, path: &JsonPath, problems: &mut Vec<Problem>) {
    for (tool, call) in sources.tools.real() {
        if tool != ResearchTool::SearchSources {
            problems.push(Problem::at_key(
                path.key("tools").key(tool.as_str()).key(call.key()),
                format!(
                    "only \"search_sources\" can be a real research tool; {} works on the pages as read",
                    tool.as_str()
                ),
            ));
        }
        let behaviour = sources.tools.get(tool);
        for (field, set) in [
            (
                "latency_ms",
                behaviour.is_some_and(|b| b.latency_ms.is_some()),
            ),
            ("fail", behaviour.is_some_and(|b| !b.fail.is_empty())),
        ] {
            if set {
                problems.push(Problem::at_key(
                    path.key("tools").key(tool.as_str()).key(field),
                    format!("{field:?} scripts a simulated call; a real tool takes the time it takes and fails when it fails"),
                ));
            }
        }
    }
}

/// The search results' URLs and the pages' keys, which `read_source` looks
/// up by normalised URL.
fn check_urls(sources: &Sources, path: &JsonPath, problems: &mut Vec<Problem>) {
    for (i, result) in sources.search_results().iter().enumerate() {
        if let Some(why) = refusal(&result.url) {
            problems.push(Problem::at(
                path.key("search_results").index(i).key("url"),
                format!(
                    "expected a URL Python's urlparse can read, found {} ({why})",
                    Value::from(result.url.as_str())
                ),
            ));
        }
    }
    for url in sources.pages.keys() {
        let at = path.key("pages").key(url);
        if let Some(why) = refusal(url) {
            problems.push(Problem::at_key(
                at,
                format!("expected a URL Python's urlparse can read ({why})"),
            ));
            continue;
        }
        let normalised = normalize_url(url);
        if &normalised != url {
            problems.push(Problem::at_key(
                at,
                format!(
                    "expected a normalised URL (lower-case scheme and host, no query, fragment or trailing slash); read_source looks this page up as {}",
                    Value::from(normalised)
                ),
            ));
        }
    }
}

/// One tool's behaviour: only `read_source` fetches, a fetch scripts no
/// simulated call, and its latencies are well formed.
fn check_tool(
    tool: ResearchTool,
    behaviour: &ToolBehaviour,
    path: &JsonPath,
    problems: &mut Vec<Problem>,
) {
    if behaviour.fetch {
        let at = path.key("tools").key(tool.as_str());
        if tool != ResearchTool::ReadSource {
            problems.push(Problem::at_key(
                at.key("fetch"),
                "only \"read_source\" can fetch pages; expected no \"fetch\" here",
            ));
        }
        for (field, set) in [
            ("latency_ms", behaviour.latency_ms.is_some()),
            ("fail", !behaviour.fail.is_empty()),
        ] {
            if set {
                problems.push(Problem::at_key(
                    at.key(field),
                    format!("{field:?} scripts a simulated call; a page fetched for real takes the time it takes and fails when it fails"),
                ));
            }
        }
    }
    let at = path.key("tools").key(tool.as_str()).key("latency_ms");
    match &behaviour.latency_ms {
        Some(WorkerLatency::Range(range)) if range.min > range.max => problems.push(Problem::at(
            at,
            format!(
                "expected min ≤ max, found min {} and max {}",
                range.min, range.max
            ),
        )),
        Some(WorkerLatency::PerCall(calls)) if calls.is_empty() => {
            problems.push(Problem::at(at, "expected at least one latency"))
        }
        _ => {}
    }
}

/// Why a URL cannot be in a scenario: Python would raise on it, or on its
/// normal form, which the reference parses again for its domain and in
/// `read_source`.
fn refusal(url: &str) -> Option<&'static str> {
    url_refusal(url).or_else(|| url_refusal(&normalize_url(url)))
}

/// Research flags gate domains, and only domains the policy declares.
fn check_flags(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let policy = ResearchLimits::of(scenario).policy;
    let declared: Vec<&str> = policy.iter().map(String::as_str).collect();
    for (name, flag) in &scenario.flags {
        let flag_path = JsonPath::root().key("flags").key(name);
        for (i, domain) in flag.domains.iter().enumerate() {
            if !policy.contains(domain) {
                problems.push(Problem::at(
                    flag_path.key("domains").index(i),
                    format!(
                        "expected a domain of the policy allowlist (context.policy_hints.allowed_domains_policy: {}), found {}",
                        if declared.is_empty() {
                            "none".to_string()
                        } else {
                            declared.join(", ")
                        },
                        Value::from(domain.as_str())
                    ),
                ));
            }
        }
        flag.check_gates(&flag_path, (&"research", "domains"), problems);
    }
}

/// The planner is called once: a list as `plan` is the steps themselves.
/// The synthesis is a script like any other (a list gives one output per
/// call; a run makes one). Without a plan, the sim searches for the
/// request's question.
fn check_scripts(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let provider = JsonPath::root().key("provider");
    if scenario.provider.final_answer.is_some() {
        problems.push(Problem::at_key(
            provider.key("final_answer"),
            "a research run writes no final brief; its answer is scripted as \"synthesis\"",
        ));
    }
    if let Some(plan) = &scenario.provider.plan
        && !plan.is_array()
        && let Err(message) = ScriptedOutput::check_text(plan.text())
    {
        problems.push(Problem::at(provider.key("plan").key(FAULT_KEY), message));
    }
    if let Some(synthesis) = &scenario.provider.synthesis {
        crate::scenario::script::check_script(synthesis, &provider.key("synthesis"), problems);
    }
    if scenario.provider.kind == ProviderKind::Sim && scenario.provider.plan.is_none() {
        let request = scenario.context.get("request");
        let (at, found) = match request.as_ref().and_then(|r| r.get("question")) {
            Some(question) => (
                JsonPath::root()
                    .key("context")
                    .key("request")
                    .key("question"),
                Some(question),
            ),
            None if request.is_some() => (JsonPath::root().key("context").key("request"), None),
            None => (JsonPath::root().key("context"), None),
        };
        match found {
            Some(Value::String(_)) => {}
            Some(other) => problems.push(Problem::at(
                at,
                format!(
                    "expected a string (the sim's plan searches for it), found {}",
                    crate::scenario::value_words::describe_value(other)
                ),
            )),
            None => problems.push(Problem::at(
                at,
                "missing context.request.question: without a scripted plan the sim searches for the request's question",
            )),
        }
    }
}
