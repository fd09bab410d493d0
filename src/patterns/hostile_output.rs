//! Properties of the contracts that check model output, on any JSON a
//! model could return: the collaboration contribution, the orchestrator
//! plan, the swarm and coordinator turn, the research plan, notes, tool
//! output and synthesis. None panics; each either accepts a value that keeps
//! its promises or refuses it with a stop reason that reads back as itself
//! (so a recording and the dashboard can show it). `--ignored` runs deeper.

use super::collaboration::contract::validate_contribution;
use super::collaboration::stops::RoundStop;
use super::orchestrator::plan::{plan_json, validate_plan as validate_tasks};
use super::orchestrator::stops::TaskStop;
use super::research::contract::{read_synthesis, tool_data, validate_notes, validate_synthesis};
use super::research::plan::{EXPECTED_ACTIONS, plan_json as research_plan_json, validate_plan};
use super::research::stops::ResearchStop;
use super::team::action::{Action, read};
use super::team::stops::TeamStop;
use crate::patterns::events::TurnOutcome;
use crate::provider::ModelOutput;
use crate::stop::StopReason;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Keys and texts the contracts look for, so that random values get past
/// the first rule as often as they fail it.
const KEYS: &[&str] = &[
    "agent",
    "stance",
    "summary",
    "confidence",
    "actions",
    "kind",
    "tasks",
    "id",
    "worker",
    "args",
    "critical",
    "steps",
    "action",
    "reply",
    "transfer_to",
    "call",
    "call_members",
    "member",
    "task",
    "answer",
    "citations",
    "url",
    "claim",
    "quote",
    "status",
    "data",
];

const TEXTS: &[&str] = &[
    "go",
    "caution",
    "block",
    "plan",
    "ok",
    "sales_worker",
    "analyst",
    "n1",
    " n1 ",
    "search_sources",
    "dedupe_urls",
    "read_extract_notes",
    "verify_notes",
    "synthesize_answer",
    "https://a.example/x",
    "a quote that is long enough to count",
    "",
    "  ",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter_map("finite", serde_json::Number::from_f64)
            .prop_map(Value::Number),
        prop::sample::select(&[0.0, 0.5, 1.0, 1.5, -0.1][..]).prop_map(Value::from),
        prop::sample::select(TEXTS).prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(KEYS).prop_map(str::to_string),
        1 => "\\PC{0,6}",
    ]
}

/// Any JSON value, `depth` levels deep at most.
pub(crate) fn json(depth: u32, size: u32) -> impl Strategy<Value = Value> {
    leaf().prop_recursive(depth, size, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..7)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// What a model returns: JSON, or text (which may itself be JSON).
fn output(depth: u32, size: u32) -> impl Strategy<Value = ModelOutput> {
    prop_oneof![
        json(depth, size).prop_map(ModelOutput::Json),
        json(depth, size).prop_map(|v| ModelOutput::Text(v.to_string())),
        "\\PC{0,40}".prop_map(ModelOutput::Text),
    ]
}

/// A refusal's stop reason has a name, and that name reads back as it.
fn reason_reads_back(reason: impl Into<StopReason>) -> Result<(), TestCaseError> {
    let reason = reason.into();
    let shown = reason.to_string();
    prop_assert!(!shown.is_empty());
    prop_assert_eq!(shown.parse::<StopReason>(), Ok(reason), "{}", shown);
    Ok(())
}

fn contribution(raw: &Value) -> Result<(), TestCaseError> {
    let allowed = |agent: &str| agent == "analyst" || agent == "go";
    match validate_contribution(raw, allowed) {
        Ok(c) => {
            prop_assert!(allowed(&c.agent));
            prop_assert!((0.0..=1.0).contains(&c.confidence));
            prop_assert!(!c.summary.trim().is_empty());
            prop_assert!((1..=3).contains(&c.actions.len()));
        }
        Err(e) => reason_reads_back(RoundStop::InvalidContribution(e))?,
    }
    Ok(())
}

fn orchestrator_plan(output: ModelOutput) -> Result<(), TestCaseError> {
    let raw = plan_json(output);
    match validate_tasks(raw.clone(), |w| w == "sales_worker", 3) {
        Ok(tasks) => {
            prop_assert!((1..=3).contains(&tasks.len()));
            let ids: HashSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
            prop_assert_eq!(ids.len(), tasks.len(), "task ids are unique");
            for task in &tasks {
                prop_assert_eq!(task.worker.as_str(), "sales_worker");
                prop_assert!(task.args.is_object());
            }
        }
        Err((e, given_back)) => {
            prop_assert_eq!(given_back, raw, "a rejected plan is given back whole");
            reason_reads_back(TaskStop::InvalidPlan(e))?
        }
    }
    Ok(())
}

fn turn(output: ModelOutput) -> Result<(), TestCaseError> {
    let (action, recorded) = read(output);
    match &action {
        Action::Reply(text) => {
            prop_assert!(!text.is_empty());
            prop_assert_eq!(text.trim(), text.as_str());
        }
        Action::Call { args, .. } => prop_assert!(args.is_object()),
        Action::CallMembers(calls) => prop_assert!(!calls.is_empty()),
        Action::Invalid => {
            prop_assert_eq!(action.outcome(), TurnOutcome::Invalid);
            reason_reads_back(TeamStop::InvalidTurn)?;
        }
        Action::Empty | Action::Transfer { .. } => {}
    }
    // What the history keeps of the turn is JSON that writes and reads back.
    let text = serde_json::to_string(&recorded).unwrap();
    prop_assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), recorded);
    Ok(())
}

fn research(
    plan: ModelOutput,
    notes: Value,
    synthesis: ModelOutput,
    tool: Value,
) -> Result<(), TestCaseError> {
    match validate_plan(&research_plan_json(plan), 8) {
        Ok(steps) => {
            let actions: Vec<&str> = steps.iter().map(|s| s.action.as_str()).collect();
            prop_assert_eq!(actions, EXPECTED_ACTIONS.to_vec());
        }
        Err(refusal) => reason_reads_back(refusal.reason)?,
    }
    let notes = match notes {
        Value::Array(items) => items,
        other => vec![other],
    };
    let ids: Vec<String> = match validate_notes(&notes, 6) {
        Ok(()) => {
            prop_assert!((1..=6).contains(&notes.len()));
            notes
                .iter()
                .map(|n| n["id"].as_str().unwrap_or_default().trim().to_string())
                .collect()
        }
        Err(e) => {
            reason_reads_back(ResearchStop::InvalidNotes(e))?;
            vec!["n1".to_string()]
        }
    };
    let (answer, citations) = read_synthesis(synthesis);
    match validate_synthesis(&answer, &citations, &ids, 850) {
        Ok(()) => {
            prop_assert!(!answer.is_empty() && answer.chars().count() <= 850);
            prop_assert!(!citations.is_empty() && citations.iter().all(|c| ids.contains(c)));
        }
        Err(e) => reason_reads_back(ResearchStop::InvalidAnswer(e))?,
    }
    match tool_data(&tool, "read_source") {
        Ok(data) => prop_assert_eq!(&Value::Object(data), &tool["data"]),
        Err(reason) => reason_reads_back(reason)?,
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn contributions_are_accepted_whole_or_refused_with_a_reason(raw in json(4, 32)) {
        contribution(&raw)?;
    }

    #[test]
    fn orchestrator_plans_are_accepted_whole_or_refused_with_a_reason(raw in output(5, 48)) {
        orchestrator_plan(raw)?;
    }

    #[test]
    fn turns_are_read_as_one_action_or_refused(raw in output(4, 32)) {
        turn(raw)?;
    }

    #[test]
    fn research_outputs_are_accepted_whole_or_refused_with_a_reason(
        plan in output(4, 48),
        notes in json(3, 24),
        synthesis in output(3, 24),
        tool in json(3, 24),
    ) {
        research(plan, notes, synthesis, tool)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    #[ignore = "the deep run: cargo test --lib hostile_output -- --ignored"]
    fn deep_model_outputs_never_panic_a_contract(
        raw in json(8, 256),
        plan in output(8, 256),
        turn_output in output(8, 256),
        notes in json(6, 128),
        synthesis in output(6, 128),
    ) {
        contribution(&raw)?;
        orchestrator_plan(plan.clone())?;
        turn(turn_output)?;
        research(plan, notes, synthesis, raw)?;
    }
}
