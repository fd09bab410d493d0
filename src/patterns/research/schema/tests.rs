use super::super::contract::{read_synthesis, validate_notes, validate_synthesis};
use super::super::plan::{plan_json, validate_plan};
use super::*;
use crate::patterns::contract_checks::{json_of, outputs, shipped};
use crate::provider::contract::strict::{check_answer, check_contract};
use crate::provider::prompts::Prompt;
use crate::provider::{ModelOutput, ModelRequest, Purpose, SimProvider};
use crate::rng::RunRng;
use crate::scenario::PatternKind;
use serde_json::json;

async fn ask(sim: &SimProvider, purpose: Purpose, payload: Value) -> Value {
    let request = ModelRequest::new(purpose, &Prompt::UNUSED, payload);
    let output = sim.complete(&request).await.expect("the sim answers");
    output
        .returned_json()
        .expect("the sim's own answers are JSON")
}

/// Every research plan, page's notes and synthesis the sim gives for a
/// shipped scenario, scripted or its own, that the workflow accepts keeps
/// its contract in wire form.
#[tokio::test(start_paused = true)]
async fn every_accepted_sim_answer_keeps_its_contract() {
    let (plan, notes) = (&*RESEARCH_PLAN, &*NOTES_CONTRACT);
    check_contract(plan);
    check_contract(notes);
    let mut checked = 0;
    for (_, scenario) in shipped() {
        if scenario.pattern != PatternKind::Research {
            continue;
        }
        let mut own = (*scenario.provider).clone();
        (own.plan, own.synthesis, own.latency_ms) = (None, None, None);
        let sim = SimProvider::new(Arc::new(own), RunRng::seeded(0));
        let mut plans: Vec<Value> = match &scenario.provider.plan {
            Some(script) => outputs(&script.to_value())
                .into_iter()
                .filter_map(json_of)
                .map(|p| plan_json(ModelOutput::Json(p)))
                .collect(),
            None => Vec::new(),
        };
        let payload = json!({"goal": scenario.goal, "request": scenario.context.value()});
        plans.push(ask(&sim, super::super::sim::plan(), payload).await);
        for answer in plans.iter().filter(|p| validate_plan(p, 8).is_ok()) {
            check_answer(plan, answer);
            checked += 1;
        }

        let pages = scenario.sources.clone().unwrap_or_default().pages;
        let mut kept = Vec::new();
        for (url, page) in &pages {
            let payload = json!({"url": url, "page": page, "max_notes": 6});
            let answer = ask(&sim, super::super::sim::notes(), payload).await;
            check_answer(notes, &answer);
            checked += 1;
            for note in answer[NOTES].as_array().unwrap() {
                let id = format!("n{}", kept.len() + 1);
                kept.push(
                    json!({"id": id, "url": url, "claim": note[CLAIM], "quote": note[QUOTE]}),
                );
            }
        }
        assert_eq!(validate_notes(&kept, 64), Ok(()), "the sim's notes pass");

        let ids: Vec<String> = kept
            .iter()
            .map(|n| n["id"].as_str().unwrap().into())
            .collect();
        let mut syntheses =
            vec![ask(&sim, super::super::sim::synthesis(), json!({"notes": kept})).await];
        if let Some(script) = &scenario.provider.synthesis {
            syntheses.extend(outputs(script).into_iter().filter_map(json_of));
        }
        for answer in syntheses {
            let (text, citations) = read_synthesis(ModelOutput::Json(answer.clone()));
            if validate_synthesis(&text, &citations, &ids, 2_000).is_ok() {
                check_answer(&synthesis_contract(&ids), &answer);
                checked += 1;
            }
        }
    }
    assert!(checked >= 6, "only {checked} answers checked");
}

#[test]
fn the_schemas_name_what_the_checks_accept() {
    let plan = &RESEARCH_PLAN.schema;
    let step = &plan["properties"][STEPS]["items"];
    assert_eq!(
        step["properties"]["action"]["enum"],
        json!(EXPECTED_ACTIONS)
    );
    let wire = json!({"steps": EXPECTED_ACTIONS.iter().enumerate()
        .map(|(i, a)| json!({"id": format!("r{i}"), "action": a, "args": "{\"query\": \"why\"}"}))
        .collect::<Vec<_>>()});
    let plan_schema = jsonschema::validator_for(plan).unwrap();
    assert!(plan_schema.is_valid(&wire));
    // A step's args as llama-server's grammar wrote them when any string
    // would do (issue 78): no pattern holds them out (llama.cpp reads one
    // on the raw text, where it lets the JSON break); the check does.
    assert_eq!(step["properties"]["args"].get("pattern"), None);
    for bad in ["],", "{", "payments outage"] {
        let mut broken = wire.clone();
        broken[STEPS][1]["args"] = json!(bad);
        let read = (RESEARCH_PLAN.normalise)(broken);
        assert!(validate_plan(&read, 8).is_err(), "{bad}");
    }
    let mut short = wire.clone();
    short[STEPS].as_array_mut().unwrap().pop();
    assert!(!plan_schema.is_valid(&short), "one step per action");
    let read = (RESEARCH_PLAN.normalise)(wire);
    assert_eq!(read[STEPS][0]["args"], json!({"query": "why"}));
    assert!(validate_plan(&read, 8).is_ok());

    let contract = synthesis_contract(&["n1".into(), "n2".into()]);
    check_contract(&contract);
    let citation = &contract.schema["properties"][CITATIONS]["items"];
    assert_eq!(citation["enum"], json!(["n1", "n2"]));
    let validator = jsonschema::validator_for(&contract.schema).unwrap();
    assert!(validator.is_valid(&json!({"answer": "A", "citations": ["n2"]})));
    assert!(!validator.is_valid(&json!({"answer": "A", "citations": ["n3"]})));
    assert_eq!(
        [RESEARCH_PLAN.name, NOTES_CONTRACT.name, contract.name],
        ["research_plan", "notes", "synthesis"]
    );
}
