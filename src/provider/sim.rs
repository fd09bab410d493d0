//! The embedded simulated model: answers each call with the next scripted
//! output for its purpose (the last one repeats) after a latency drawn from
//! the run's seeded random source. It needs no key and no network, and the
//! same seed gives the same answers at the same moments.

pub(crate) mod estimate;
mod orchestrator;
mod research;
pub(crate) mod sources;
mod turns;
pub(crate) mod workers;

use super::{ModelOutput, ModelRequest, ProviderError, Purpose};
use crate::clock::RunClock;
use crate::pycompat::py_strip;
use crate::rng::RunRng;
use crate::scenario::script::{Fault, ScriptedOutput, script_entries, script_entry_texts};
use crate::scenario::{Latency, ProviderSpec};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

#[derive(Debug)]
pub(crate) struct SimProvider {
    /// The scenario's, shared: a plan of 100,000 tasks is not copied.
    spec: Arc<ProviderSpec>,
    rng: RunRng,
    /// How many calls each script key has answered.
    calls: Mutex<HashMap<String, usize>>,
}

impl SimProvider {
    pub(crate) fn new(spec: Arc<ProviderSpec>, rng: RunRng) -> Self {
        SimProvider {
            spec,
            rng,
            calls: Mutex::new(HashMap::new()),
        }
    }

    /// The scenario's `provider` section the sim plays.
    pub(crate) fn spec(&self) -> &ProviderSpec {
        &self.spec
    }

    pub(crate) fn timeout(&self) -> Option<Duration> {
        self.spec
            .timeout_seconds
            .map(crate::duration::clamp_seconds)
    }

    fn script(&self, purpose: &Purpose) -> Option<&Value> {
        match purpose {
            Purpose::Contribution { role } => self.spec.responses.as_ref()?.get(role),
            // Kept as text: see `next_plan`.
            Purpose::Plan | Purpose::ResearchPlan => None,
            Purpose::FinalBrief => self.spec.final_answer.as_ref(),
            Purpose::Turn { .. } => self.spec.turns.as_ref()?.get(&*purpose.script_key()),
            Purpose::Synthesis => self.spec.synthesis.as_ref(),
            // The sim quotes the page it is given (see `research`).
            Purpose::Notes => None,
        }
    }

    fn latency(&self) -> Duration {
        let ms = match self.spec.latency_ms {
            None => 0,
            Some(Latency::Fixed(ms)) => ms,
            Some(Latency::Range(range)) => self.rng.between(range.min, range.max),
        };
        crate::duration::clamp_millis(ms)
    }

    /// The next output of `purpose`'s script, advancing its cursor, with
    /// the latency the entry sets for itself (a team's turn may).
    fn next_output(
        &self,
        purpose: &Purpose,
    ) -> Option<(Result<ScriptedOutput, String>, Option<Duration>)> {
        if matches!(purpose, Purpose::Plan | Purpose::ResearchPlan) {
            return self.next_plan(purpose).map(|output| (output, None));
        }
        let script = self.script(purpose)?;
        let entries = script_entries(script);
        let entry = &entries[self.next_call(purpose, entries.len())?];
        Some(match purpose {
            Purpose::Turn { .. } => {
                let (entry, latency) = turns::split_latency(entry);
                (ScriptedOutput::parse(&entry), latency)
            }
            _ => (ScriptedOutput::parse(entry), None),
        })
    }

    /// The planner's next output. A plan object stays the scenario's text,
    /// which the pattern reads into tasks as it checks them: a plan of
    /// 100,000 tasks is never held as one value.
    fn next_plan(&self, purpose: &Purpose) -> Option<Result<ScriptedOutput, String>> {
        let plan = self.spec.plan.as_ref()?;
        if *purpose == Purpose::ResearchPlan && plan.is_array() {
            // A research plan is asked for once; a list is its steps.
            let steps = research::plan_of_steps(&plan.to_value());
            return Some(Ok(ScriptedOutput::Json(steps)));
        }
        let entries = script_entry_texts(plan.text());
        let entry = entries[self.next_call(purpose, entries.len())?];
        Some(ScriptedOutput::from_text(plan, entry))
    }

    /// Whether `output` is the scenario's plan, a single object given
    /// whole (not an entry of a list of plans): a recording names it
    /// rather than copies it.
    pub(crate) fn is_whole_plan(&self, output: &ModelOutput) -> bool {
        match (&self.spec.plan, output) {
            (Some(plan), ModelOutput::JsonText(text)) => !plan.is_array() && text.same_text(plan),
            _ => false,
        }
    }

    /// Which of `entries` outputs answers `purpose`'s next call (the last
    /// repeats), counting the call; `None` when the script has none.
    fn next_call(&self, purpose: &Purpose, entries: usize) -> Option<usize> {
        let last = entries.checked_sub(1)?;
        let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        let made = calls.entry(purpose.script_key().to_string()).or_insert(0);
        let index = (*made).min(last);
        *made += 1;
        Some(index)
    }

    /// The sim's answer to `request` as the tests ask for it, on a clock
    /// of its own.
    #[cfg(test)]
    pub(crate) async fn complete(
        &self,
        request: &ModelRequest,
    ) -> Result<ModelOutput, ProviderError> {
        self.complete_on(request, &RunClock::start()).await
    }

    /// The sim's answer to `request`, after its latency on the run clock
    /// `clock`: a call in flight while the run is paused waits with it.
    pub(crate) async fn complete_on(
        &self,
        request: &ModelRequest,
        clock: &RunClock,
    ) -> Result<ModelOutput, ProviderError> {
        let (output, latency) = match self.next_output(&request.purpose) {
            Some((output, latency)) => (Some(output), latency),
            None => (None, None),
        };
        // A turn's own latency replaces the draw, so it takes none from the
        // run's random source.
        let latency = latency.unwrap_or_else(|| self.latency());
        if !latency.is_zero() {
            clock.sleep(latency).await;
        }
        match output {
            Some(Ok(ScriptedOutput::Text(text))) => Ok(ModelOutput::Text(text)),
            Some(Ok(ScriptedOutput::Json(value))) => Ok(ModelOutput::Json(value)),
            Some(Ok(ScriptedOutput::JsonText(text))) => Ok(ModelOutput::JsonText(text)),
            Some(Ok(ScriptedOutput::Fault(Fault::Timeout))) => Err(ProviderError::Timeout),
            Some(Ok(ScriptedOutput::Fault(Fault::Empty))) => Ok(ModelOutput::Text(String::new())),
            Some(Err(message)) => Err(ProviderError::Failed(message)),
            None => match request.purpose {
                Purpose::Plan => Ok(ModelOutput::Json(orchestrator::default_plan(
                    &request.payload,
                ))),
                Purpose::FinalBrief if request.payload.get("aggregate").is_some() => Ok(
                    ModelOutput::Text(orchestrator::brief_from_aggregate(&request.payload)),
                ),
                Purpose::FinalBrief => Ok(ModelOutput::Text(brief_from_history(&request.payload))),
                Purpose::ResearchPlan => {
                    Ok(ModelOutput::Json(research::default_plan(&request.payload)))
                }
                Purpose::Notes => Ok(ModelOutput::Json(research::notes_from_page(
                    &request.payload,
                ))),
                Purpose::Synthesis => Ok(ModelOutput::Json(research::synthesis_from_notes(
                    &request.payload,
                ))),
                Purpose::Contribution { ref role } => Err(ProviderError::Failed(format!(
                    "the sim has no scripted output for role {role:?}"
                ))),
                Purpose::Turn { ref agent, .. } => Err(ProviderError::Failed(format!(
                    "the sim has no scripted turns for agent {agent:?}"
                ))),
            },
        }
    }
}

/// The sim's own final brief when the scenario scripts none: the decision,
/// the last round's stances and the first actions the team proposed.
fn brief_from_history(payload: &Value) -> String {
    let decision = payload["final_decision"].as_str().unwrap_or("no decision");
    let rounds = payload["history"].as_array().map_or(0, Vec::len);
    let last = payload["history"]
        .as_array()
        .and_then(|h| h.last())
        .and_then(|round| round["contributions"].as_array());
    let mut brief = format!(
        "Decision: {} after {}.",
        decision.replace('_', " ").to_uppercase(),
        crate::words::plural(rounds as u64, "round")
    );
    let Some(contributions) = last else {
        return brief;
    };
    let stances: Vec<String> = contributions
        .iter()
        .map(|c| {
            format!(
                "{} {} ({})",
                c["agent"].as_str().unwrap_or("?"),
                c["stance"].as_str().unwrap_or("?"),
                c["confidence"]
            )
        })
        .collect();
    if !stances.is_empty() {
        brief.push_str(&format!(" Final stances: {}.", stances.join(", ")));
    }
    let actions: Vec<&str> = contributions
        .iter()
        .filter_map(|c| c["actions"].as_array()?.first()?.as_str())
        .map(py_strip)
        .take(2)
        .collect();
    if !actions.is_empty() {
        brief.push_str(&format!(" Next: {}.", actions.join("; ")));
    }
    brief
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::prompts::Prompt;
    use serde_json::json;

    fn sim(spec: Value, seed: u64) -> SimProvider {
        SimProvider::new(serde_json::from_value(spec).unwrap(), RunRng::seeded(seed))
    }

    fn contribution(role: &str) -> ModelRequest {
        ModelRequest::new(
            Purpose::Contribution { role: role.into() },
            &Prompt::UNUSED,
            json!({}),
        )
    }

    #[tokio::test(start_paused = true)]
    async fn outputs_are_consumed_in_order_and_the_last_repeats() {
        let sim = sim(
            json!({"kind": "sim", "latency_ms": 200, "responses": {
                "a": ["first", {"stance": "go"}, {"$fault": "empty"}],
                "b": {"$fault": "timeout"}
            }}),
            1,
        );
        let start = tokio::time::Instant::now();
        let a = contribution("a");
        assert_eq!(
            sim.complete(&a).await,
            Ok(ModelOutput::Text("first".into()))
        );
        assert_eq!(
            sim.complete(&a).await,
            Ok(ModelOutput::Json(json!({"stance": "go"})))
        );
        assert_eq!(sim.complete(&a).await, Ok(ModelOutput::Text(String::new())));
        assert_eq!(sim.complete(&a).await, Ok(ModelOutput::Text(String::new())));
        assert_eq!(
            sim.complete(&contribution("b")).await,
            Err(ProviderError::Timeout)
        );
        assert_eq!(
            start.elapsed(),
            Duration::from_millis(1000),
            "a fault takes its latency too"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_plan_object_is_returned_as_its_text_and_faults_still_fail() {
        let plan = json!({"kind": "plan", "tasks": [{"id": "t1"}]});
        let sim = sim(
            json!({"kind": "sim", "plan": [plan, {"$fault": "timeout"}, "not a plan"]}),
            1,
        );
        let request = ModelRequest::new(Purpose::Plan, &Prompt::UNUSED, json!({}));
        let Ok(ModelOutput::JsonText(text)) = sim.complete(&request).await else {
            panic!("a plan object stays text");
        };
        assert_eq!(text.text(), plan.to_string());
        assert_eq!(sim.complete(&request).await, Err(ProviderError::Timeout));
        assert_eq!(
            sim.complete(&request).await,
            Ok(ModelOutput::Text("not a plan".into()))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn latency_ranges_draw_from_the_seed() {
        let spec =
            json!({"kind": "sim", "latency_ms": {"min": 100, "max": 900}, "responses": {"a": "x"}});
        let mut runs = Vec::new();
        for _ in 0..2 {
            let sim = sim(spec.clone(), 42);
            let mut took = Vec::new();
            for _ in 0..20 {
                let start = tokio::time::Instant::now();
                sim.complete(&contribution("a")).await.unwrap();
                took.push(start.elapsed().as_millis());
            }
            runs.push(took);
        }
        assert_eq!(runs[0], runs[1]);
        assert!(runs[0].iter().all(|ms| (100..=900).contains(ms)));
        assert!(runs[0].iter().any(|ms| *ms != runs[0][0]), "draws vary");
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_final_answer_the_sim_writes_one() {
        let sim = sim(json!({"kind": "sim"}), 0);
        let payload = json!({"final_decision": "go_with_caution", "history": [
            {"round": 1, "contributions": [{"agent": "risk", "stance": "caution", "confidence": 0.7,
                                            "actions": ["Watch the payment failure rate"]}]}
        ]});
        let brief = sim
            .complete(&ModelRequest::new(
                Purpose::FinalBrief,
                &Prompt::UNUSED,
                payload,
            ))
            .await
            .unwrap();
        assert_eq!(
            brief,
            ModelOutput::Text(
                "Decision: GO WITH CAUTION after 1 round. Final stances: risk caution (0.7). Next: Watch the payment failure rate."
                    .into()
            )
        );
    }
}
