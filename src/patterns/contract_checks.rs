//! Tests only: the shipped scenarios and their sim answers, for each
//! pattern's contracts to be checked against (every answer the sim gives
//! and the pattern accepts must keep its contract in wire form), and the
//! schemas `docs/contracts.md` shows, checked against the generated ones.

use crate::scenario::Scenario;
use crate::scenario::script::{ScriptedOutput, script_entries};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The files of `scenarios/`, in order of name.
pub(crate) fn shipped_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("scenarios/")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// Every scenario in `scenarios/`, with its file name.
pub(crate) fn shipped() -> Vec<(String, Scenario)> {
    shipped_files()
        .into_iter()
        .map(|path| {
            let scenario = crate::scenario::load(&path).expect("a shipped scenario loads");
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, scenario)
        })
        .collect()
}

/// The outputs a script gives, in call order, faults left out.
pub(crate) fn outputs(script: &Value) -> Vec<ScriptedOutput> {
    script_entries(script)
        .iter()
        .filter_map(|entry| ScriptedOutput::parse(entry).ok())
        .filter(|output| !matches!(output, ScriptedOutput::Fault(_)))
        .collect()
}

/// A scripted output as the JSON the pattern reads (text parsed as the
/// references parse it).
pub(crate) fn json_of(output: ScriptedOutput) -> Option<Value> {
    match output {
        ScriptedOutput::Json(value) => Some(value),
        ScriptedOutput::JsonText(text) => Some(text.to_value()),
        ScriptedOutput::Text(text) => crate::pycompat::parse_model_text(&text),
        ScriptedOutput::Fault(_) => None,
    }
}

/// Each contract's schema as `docs/contracts.md` shows it, built for the
/// shipped scenario the page names.
fn documented_schemas() -> Vec<(&'static str, Value)> {
    use crate::patterns::{collaboration, orchestrator, research, team};
    let scenario = |file: &str| {
        let (_, scenario) = shipped().into_iter().find(|(f, _)| f == file).expect(file);
        scenario
    };
    let ops = scenario("morning_ops_report.json");
    let workers = ops.workers.keys().map(String::as_str);
    let max_tasks = orchestrator::Limits::of(&ops).max_tasks;
    let turn = |file: &str, agent: &str| {
        let scenario = scenario(file);
        let part = team::part::Part::of_scenario(&scenario);
        let shape = team::turn_schema::TurnShape::of(&part, agent);
        team::turn_schema::turn_contract(&shape).schema
    };
    vec![
        (
            "contribution",
            collaboration::schema::contribution_contract("demand_analyst").schema,
        ),
        (
            "plan",
            orchestrator::plan_schema::plan_contract(workers, max_tasks).schema,
        ),
        (
            "research_plan",
            research::schema::RESEARCH_PLAN.schema.clone(),
        ),
        ("notes", research::schema::NOTES_CONTRACT.schema.clone()),
        (
            "synthesis",
            research::schema::synthesis_contract(&["n1".into(), "n2".into()]).schema,
        ),
        ("turn", turn("support_swarm.json", "billing")),
        (
            "coordinator_turn",
            turn("launch_coordinator.json", "launch_lead"),
        ),
    ]
}

/// `docs/contracts.md` shows every contract's schema exactly as it is
/// generated: each block after `<!-- schema: NAME -->` is that schema.
#[test]
fn the_docs_show_each_schema_as_generated() {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/contracts.md");
    let page = std::fs::read_to_string(page).expect("docs/contracts.md");
    for (name, schema) in documented_schemas() {
        let marker = format!("<!-- schema: {name} -->");
        let shown = page
            .split_once(&marker)
            .and_then(|(_, rest)| rest.split_once("```json\n"))
            .and_then(|(_, rest)| rest.split_once("```"))
            .map(|(block, _)| block);
        let generated = serde_json::to_string_pretty(&schema).unwrap();
        assert_eq!(
            shown.map(str::trim_end),
            Some(generated.as_str()),
            "the schema of {name} in docs/contracts.md"
        );
    }
}
