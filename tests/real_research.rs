//! A research run whose search is real: any endpoint that answers
//! `{"results": [{"url", "title", "snippet"}]}`. The policy and execution
//! checks, the reads and the synthesis go on as with the simulated search,
//! so the answer and its citations are the same as the shipped scenario's.

use crate::common;

use common::loopback::{Loopback, Reply};
use common::real::{Sandbox, stderr};
use serde_json::{Value, json};

#[test]
fn a_real_search_feeds_the_research_workflow() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/payments_incident_research.json"
    );
    let shipped: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let results = shipped["sources"]["search_results"].clone();
    let answer = json!({"results": results});
    let search = Loopback::serve(move |_, _| Reply::json(200, &answer));

    let mut real = shipped.clone();
    let sources = real["sources"].as_object_mut().unwrap();
    sources.remove("search_results");
    sources
        .entry("tools")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .unwrap()
        .insert(
            "search_sources".into(),
            json!({"http": {"url": format!("{}/search", search.base_url)}}),
        );
    let sandbox = Sandbox::new();
    let real_path = sandbox.write("real_search.json", &real);

    let simulated = sandbox.run(&["run", path, "--headless"]);
    let with_real = sandbox.run(&["run", real_path.to_str().unwrap(), "--headless"]);
    assert_eq!(
        with_real.status.code(),
        simulated.status.code(),
        "{}",
        stderr(&with_real)
    );
    let simulated: Value = serde_json::from_slice(&simulated.stdout).unwrap();
    let with_real: Value = serde_json::from_slice(&with_real.stdout).unwrap();
    assert_eq!(with_real["status"], "ok");
    for key in ["answer", "citations", "citation_details"] {
        assert_eq!(with_real[key], simulated[key], "{key}");
    }
    let requests = search.requests();
    assert_eq!(requests.len(), 1, "one search");
    let args: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(
        args["query"], shipped["context"]["request"]["question"],
        "the planner's query reaches the endpoint"
    );
}
