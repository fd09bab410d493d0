//! The research pattern's results on the virtual clock: the reference's
//! example, every stop reason 004 can reach, the lenient reading of its
//! hints, and the sim's own plan and answer.

use crate::common;

use common::research::{OFFICIAL, VENDOR, payments, plan, result_of, timed};
use conclave::patterns::events::ResearchPhase;
use serde_json::{Value, json};

#[tokio::test(start_paused = true)]
async fn the_example_gives_the_reference_result() {
    let mut ours = result_of(&payments()).await;
    let reference: Value =
        serde_json::from_str(include_str!("conformance/payments_incident_reference.json")).unwrap();
    let run_id = ours.as_object_mut().unwrap().remove("run_id").unwrap();
    // Conclave's own tokens and dollars: no field of the reference's.
    assert!(ours.as_object_mut().unwrap().remove("usage").is_some());
    assert_eq!(run_id.as_str().unwrap().len(), 36);
    for entry in ours["trace"].as_array_mut().unwrap() {
        let elapsed = entry.as_object_mut().unwrap().remove("elapsed_ms").unwrap();
        assert!(elapsed.as_u64().unwrap() >= 1);
    }
    assert_eq!(ours, reference);
}

/// Every stop reason 004's workflow can reach, each from one change to the
/// example, with the phase it stops in and what the result adds.
#[tokio::test(start_paused = true)]
async fn every_reachable_stop_reason_of_the_reference() {
    type Change = fn(&mut Value);
    let cases: Vec<(&str, Change, &str)> = vec![
        ("success", |_| {}, ""),
        (
            "max_seconds",
            |d| d["budget"] = json!({"max_seconds": 1}),
            "read_extract",
        ),
        (
            "invalid_plan:steps",
            |d| d["provider"]["plan"] = json!({"steps": []}),
            "plan",
        ),
        (
            "invalid_plan:steps",
            |d| d["provider"]["plan"] = json!("not a plan"),
            "plan",
        ),
        (
            "invalid_plan:too_many_steps",
            |d| d["budget"] = json!({"max_steps": 4}),
            "plan",
        ),
        (
            "invalid_plan:step_sequence",
            |d| {
                let mut p = plan(json!("q"));
                p["steps"].as_array_mut().unwrap().swap(3, 4);
                d["provider"]["plan"] = p;
            },
            "plan",
        ),
        (
            "invalid_step:not_object",
            |d| d["provider"]["plan"] = json!(["search_sources"]),
            "plan",
        ),
        (
            "invalid_step:id",
            |d| {
                let mut p = plan(json!("q"));
                p["steps"][2]["id"] = json!(" ");
                d["provider"]["plan"] = p;
            },
            "plan",
        ),
        (
            "invalid_step:action",
            |d| {
                let mut p = plan(json!("q"));
                p["steps"][1]["action"] = json!(7);
                d["provider"]["plan"] = p;
            },
            "plan",
        ),
        (
            "invalid_step:args",
            |d| {
                let mut p = plan(json!("q"));
                p["steps"][4]["args"] = json!(null);
                d["provider"]["plan"] = p;
            },
            "plan",
        ),
        (
            "invalid_search:query",
            |d| d["provider"]["plan"] = plan(json!("   ")),
            "search",
        ),
        (
            "no_sources_after_dedupe",
            |d| d["sources"]["search_results"] = json!([]),
            "dedupe",
        ),
        (
            "no_reliable_sources",
            |d| d["context"]["policy_hints"]["allowed_domains_execution"] = json!([]),
            "read_extract",
        ),
        (
            "tool_invalid_output:search_sources",
            |d| d["sources"]["tools"]["search_sources"]["fail"] = json!([1]),
            "search",
        ),
        (
            "tool_invalid_output:read_source",
            |d| {
                d["sources"]["pages"]
                    .as_object_mut()
                    .unwrap()
                    .remove(VENDOR);
            },
            "read_extract",
        ),
        (
            "tool_invalid_output:extract_notes",
            |d| d["sources"]["tools"]["extract_notes"]["fail"] = json!([2]),
            "read_extract",
        ),
        (
            "tool_invalid_output:verify_notes",
            |d| d["sources"]["tools"]["verify_notes"]["fail"] = json!([1]),
            "verify",
        ),
        (
            "verification_failed:stale_source",
            |d| d["sources"]["pages"][VENDOR]["notes"][0]["issues"] = json!(["stale_source"]),
            "verify",
        ),
        (
            "invalid_notes:claim",
            |d| d["sources"]["pages"][VENDOR]["notes"][0]["claim"] = json!("\t "),
            "read_extract",
        ),
        (
            "invalid_notes:quote",
            |d| d["sources"]["pages"][OFFICIAL]["notes"][0]["quote"] = json!(" P1 degraded mode. "),
            "read_extract",
        ),
        (
            "invalid_answer:empty",
            |d| d["provider"]["synthesis"] = json!({"$fault": "empty"}),
            "synthesize",
        ),
        (
            "invalid_answer:too_long",
            |d| d["context"]["policy_hints"]["max_answer_chars"] = json!(274),
            "synthesize",
        ),
        (
            "invalid_answer:citations",
            |d| d["provider"]["synthesis"]["citations"] = json!(["", " "]),
            "synthesize",
        ),
        (
            "invalid_answer:citation_unknown",
            |d| d["provider"]["synthesis"]["citations"] = json!(["n1", "n3"]),
            "synthesize",
        ),
        (
            "llm_timeout",
            |d| d["provider"]["plan"] = json!({"$fault": "timeout"}),
            "plan",
        ),
        (
            "llm_timeout",
            |d| d["provider"]["synthesis"] = json!({"$fault": "timeout"}),
            "synthesize",
        ),
    ];
    for (reason, change, phase) in cases {
        let mut doc = timed();
        change(&mut doc);
        let r = result_of(&doc).await;
        assert_eq!(r["stop_reason"], reason, "{r:#}");
        if reason == "success" {
            assert_eq!(r["status"], "ok");
            assert!(r.get("phase").is_none());
            continue;
        }
        assert_eq!(r["status"], "stopped", "{reason}");
        assert_eq!(r["phase"], phase, "{reason}");
        assert!(r.get("answer").is_none() && r.get("aggregate").is_none());
        let steps_done = ResearchPhase::parse(phase).unwrap().step() - 1;
        assert_eq!(
            r["trace"].as_array().unwrap().len() as u32,
            steps_done,
            "{reason}: the trace holds the steps that went well"
        );
        let extras: Vec<&str> = ["denied_sources", "details", "verification"]
            .into_iter()
            .filter(|k| r.get(*k).is_some())
            .collect();
        let want: &[&str] = match reason {
            "no_reliable_sources" => &["denied_sources"],
            "invalid_plan:step_sequence" => &["details"],
            "verification_failed:stale_source" => &["verification"],
            _ => &[],
        };
        assert_eq!(extras, want, "{reason}");
    }
}

#[tokio::test(start_paused = true)]
async fn what_the_stops_carry() {
    let mut doc = timed();
    doc["context"]["policy_hints"]["allowed_domains_execution"] = json!([]);
    let r = result_of(&doc).await;
    assert_eq!(
        r["denied_sources"],
        json!([
            {"url": OFFICIAL, "reason": "source_denied_execution"},
            {"url": VENDOR, "reason": "source_denied_execution"},
            {"url": "https://regulator.example.org/guidance/customer-communications", "reason": "source_denied_execution"},
            {"url": "https://community-rumors.example.net/thread/payment-outage", "reason": "source_denied_policy"}
        ])
    );

    let mut doc = timed();
    doc["sources"]["pages"][VENDOR]["notes"][0]["issues"] = json!(["stale_source", "x"]);
    let r = result_of(&doc).await;
    assert_eq!(
        r["verification"],
        json!({"ok": false, "checked_notes": 2, "issues": ["stale_source", "x"]})
    );

    let mut doc = timed();
    let mut shuffled = plan(json!("q"));
    shuffled["steps"].as_array_mut().unwrap().reverse();
    doc["provider"]["plan"] = shuffled;
    let r = result_of(&doc).await;
    assert_eq!(
        r["details"]["received"],
        json!([
            "synthesize_answer",
            "verify_notes",
            "read_extract_notes",
            "dedupe_urls",
            "search_sources"
        ])
    );
    assert_eq!(r["details"]["expected"][0], "search_sources");
}

#[tokio::test(start_paused = true)]
async fn hints_are_read_as_leniently_as_the_reference() {
    let mut doc = timed();
    doc["provider"].as_object_mut().unwrap().remove("synthesis");
    doc["context"]["policy_hints"] = json!({
        "allowed_domains_policy": [" Official-Status.Example.COM ", "vendor.example.com", 3, ""],
        "allowed_domains_execution": ["official-status.example.com", "VENDOR.example.com"],
        "max_urls": " 2 ",
        "max_read_pages": 1.9,
        "max_notes": "many",
        "max_answer_chars": "3.0",
    });
    let r = result_of(&doc).await;
    assert_eq!(r["stop_reason"], "success", "{r:#}");
    let a = &r["aggregate"];
    assert_eq!(a["urls_found"], 4, "k = 2 × max_urls");
    assert_eq!(a["urls_after_dedupe"], 2);
    assert_eq!(a["pages_read"], 1, "1.9 reads as 1");
    assert_eq!(a["notes_count"], 1);
    assert_eq!(r["citations"], json!(["n1"]));

    // Out of range: clamped; not an object: 004's defaults.
    let mut doc = timed();
    doc["context"]["policy_hints"]["max_urls"] = json!(0);
    doc["context"]["policy_hints"]["max_answer_chars"] = json!(true);
    let r = result_of(&doc).await;
    assert_eq!(r["trace"][2]["urls_after_dedupe"], 1, "max_urls 0 is 1");
    assert_eq!(r["stop_reason"], "invalid_answer:too_long", "at least 120");
    let mut doc = timed();
    doc["context"]["policy_hints"] = json!("none");
    assert_eq!(result_of(&doc).await["stop_reason"], "success");
    let mut doc = timed();
    doc["context"]["policy_hints"]["max_notes"] = json!("+1");
    doc["provider"]["synthesis"]["citations"] = json!(["n1"]);
    let r = result_of(&doc).await;
    assert_eq!(
        (
            r["aggregate"]["pages_read"].clone(),
            r["aggregate"]["notes_count"].clone()
        ),
        (json!(1), json!(1)),
        "the note budget stops the reads at once"
    );
}

#[tokio::test(start_paused = true)]
async fn without_scripts_the_sim_plans_and_answers_from_the_notes() {
    let mut doc = timed();
    doc["provider"].as_object_mut().unwrap().remove("synthesis");
    let r = result_of(&doc).await;
    assert_eq!(r["stop_reason"], "success");
    assert_eq!(
        r["answer"],
        "Summary from the notes: US payments incident is P1 with failed payment rate 3.4%, 5 \
         chargeback alerts, and ETA about 45 minutes. Enterprise SLA includes 99.95% monthly uptime \
         and a 15-minute first response target for P1 incidents (24/7). Figures and estimates may \
         change as the sources update."
    );
    assert_eq!(r["citations"], json!(["n1", "n2"]));
    assert_eq!(
        r["aggregate"]["query"], doc["context"]["request"]["question"],
        "the sim's plan searches for the request's question"
    );
}
