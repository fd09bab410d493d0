//! The research pattern reading its pages for real: `read_source` with
//! `"fetch": true` GETs each page the policy and execution checks allow
//! from a loopback server this test starts, turns its HTML into text, the
//! model takes the notes (only quotes the page holds are kept), and the run
//! cites only those pages. A page on a domain the policy denies is
//! never requested; a redirect to such a domain is not followed.

use crate::common;

use common::loopback::{Loopback, Reply};
use common::real::{Sandbox, of_type, recording, stderr};
use serde_json::{Value, json};

const INCIDENT: &str = "US payment gateway is in P1 degraded mode. Failed payment rate is 3.4%. Chargeback alerts observed: 5. Estimated time to recovery: 45 minutes, subject to change.";
const SLA: &str = "Enterprise monthly uptime SLA is 99.95%. For P1 incidents, first response target is 15 minutes, available 24/7.";

fn html(title: &str, date: &str, text: &str) -> Reply {
    let page = format!(
        "<!doctype html><html><head><title>{title}</title>\
         <meta property='article:published_time' content='{date}T08:00:00Z'>\
         <style>body {{ color: red }}</style><script>var tracking = 1;</script></head>\
         <body><nav>Home · Status</nav><article><h1>{title}</h1><p>{text}</p></article></body></html>"
    );
    Reply::text(200, &page).header("content-type", "text/html; charset=utf-8")
}

/// `host:port` of a loopback server's base URL.
fn host(base_url: &str) -> String {
    let rest = base_url.trim_start_matches("http://");
    rest.split('/').next().unwrap_or(rest).to_string()
}

/// The shipped research scenario, its search and pages moved to `site`
/// (the loopback server, allowed) and `elsewhere` (the same server under
/// another name, which the policy does not allow).
fn scenario(site: &str, elsewhere: &str) -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/payments_incident_research.json"
    );
    let mut scenario: Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let incident = format!("http://{site}/incidents/payments");
    let sla = format!("http://{site}/policies/sla");
    let forum = format!("http://{elsewhere}/thread/outage");
    // The model takes the notes of pages read for real, and the sim writes
    // the answer from the first three.
    scenario["provider"]
        .as_object_mut()
        .unwrap()
        .remove("synthesis");
    scenario["context"]["policy_hints"]["allowed_domains_policy"] = json!([site]);
    scenario["context"]["policy_hints"]["allowed_domains_execution"] = json!([site]);
    scenario["sources"] = json!({
        "search_results": [
            {"url": incident, "title": "Payments Incident Update", "snippet": "P1 status"},
            {"url": sla, "title": "Enterprise SLA", "snippet": "Uptime and response"},
            {"url": forum, "title": "Community Thread", "snippet": "Unverified claims"}
        ],
        "tools": {"read_source": {"fetch": true}}
    });
    scenario
}

#[test]
fn fetched_pages_feed_the_research_and_only_allowed_pages_are_cited() {
    let server = Loopback::serve(|request, _| {
        let path = request.head.split_whitespace().nth(1).unwrap_or("");
        match path {
            "/incidents/payments" => html("Payments Incident Update", "2026-03-07", INCIDENT),
            "/policies/sla" => html("Enterprise SLA", "2026-01-15", SLA),
            _ => Reply::text(404, "not here"),
        }
    });
    let site = host(&server.base_url);
    let port = site.rsplit(':').next().unwrap();
    let elsewhere = format!("localhost:{port}");
    let sandbox = Sandbox::new();
    let path = sandbox.write("fetch.json", &scenario(&site, &elsewhere));
    let record = sandbox.path("run.jsonl");
    let out = sandbox.run(&[
        "run",
        path.to_str().unwrap(),
        "--headless",
        "--record",
        record.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stderr(&out),
        String::from_utf8_lossy(&out.stdout)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["status"], "ok", "{result}");
    let cited = result["citation_details"].to_string();
    assert!(
        cited.contains("/incidents/payments") && cited.contains("/policies/sla"),
        "{cited}"
    );
    assert!(
        !cited.contains("localhost"),
        "a denied page is never cited: {cited}"
    );

    let asked: Vec<String> = server.requests().iter().map(|r| r.head.clone()).collect();
    assert!(
        asked.iter().all(|head| !head.contains("/thread/outage")),
        "the denied page was never requested: {asked:#?}"
    );
    assert!(
        asked
            .iter()
            .any(|head| head.starts_with("GET /incidents/payments ")),
        "{asked:#?}"
    );
    // The page as read: its text without script, style or markup, its
    // title and its date.
    let events = recording(&record);
    let read = of_type(&events, "call_finished")
        .iter()
        .filter(|e| e["tool"] == "read_source")
        .count();
    assert!(read >= 2, "{read}");
    let recorded = serde_json::to_string(&events).unwrap();
    assert!(!recorded.contains("var tracking"), "scripts are dropped");
    // The notes are the model's, each quoting the page as read.
    let quotes: Vec<String> = of_type(&events, "note_extracted")
        .iter()
        .filter_map(|e| e["quote"].as_str().map(String::from))
        .collect();
    assert!(!quotes.is_empty());
    assert!(
        quotes
            .iter()
            .all(|q| INCIDENT.contains(q.as_str()) || SLA.contains(q.as_str())),
        "{quotes:#?}"
    );
}

#[test]
fn a_redirect_to_a_denied_domain_is_not_followed() {
    let server = Loopback::serve(|request, _| {
        let path = request.head.split_whitespace().nth(1).unwrap_or("");
        match path {
            "/incidents/payments" => html("Payments Incident Update", "2026-03-07", INCIDENT),
            "/policies/sla" => Reply::text(302, "").header("location", "http://evil.example/sla"),
            _ => Reply::text(404, "not here"),
        }
    });
    let site = host(&server.base_url);
    let sandbox = Sandbox::new();
    let path = sandbox.write("redirect.json", &scenario(&site, "forum.example"));
    let record = sandbox.path("run.jsonl");
    let out = sandbox.run(&[
        "run",
        path.to_str().unwrap(),
        "--headless",
        "--record",
        record.to_str().unwrap(),
    ]);
    let events = recording(&record);
    let errors: Vec<String> = of_type(&events, "call_finished")
        .iter()
        .filter(|e| e["tool"] == "read_source")
        .filter_map(|e| e["error"].as_str().map(String::from))
        .collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("redirects to http://evil.example/sla")
                && e.contains("does not allow")),
        "{errors:#?}\n{}",
        stderr(&out)
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|r| !r.head.contains("evil.example")),
        "never followed"
    );
}

#[test]
fn only_read_source_fetches_and_a_fetched_read_takes_no_script() {
    let sandbox = Sandbox::new();
    let mut bad = scenario("127.0.0.1:9", "localhost:9");
    bad["sources"]["tools"]["extract_notes"] = json!({"fetch": true});
    bad["sources"]["tools"]["read_source"]["latency_ms"] = json!(100);
    let path = sandbox.write("bad.json", &bad);
    let out = sandbox.run(&["validate", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("sources.tools.extract_notes.fetch")
            && err.contains("only \"read_source\" can fetch pages"),
        "{err}"
    );
    assert!(
        err.contains("sources.tools.read_source.latency_ms")
            && err.contains("a page fetched for real takes the time it takes"),
        "{err}"
    );
}
