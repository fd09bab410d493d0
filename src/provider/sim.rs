//! The embedded simulated model: answers each call with the next scripted
//! output for its purpose (the last one repeats) after a latency drawn from
//! the run's seeded random source. It needs no key and no network, and the
//! same seed gives the same answers at the same moments.

pub(crate) mod estimate;
#[cfg(test)]
mod script;
mod turns;
pub(crate) mod workers;

pub(crate) use super::purpose::{Script, SimScript};
use super::{ModelOutput, ModelRequest, ProviderError, Purpose};
use crate::clock::RunClock;
use crate::rng::RunRng;
use crate::scenario::script::{Fault, ScriptedOutput, script_entries, script_entry_texts};
use crate::scenario::{Latency, ProviderSpec};
#[cfg(test)]
pub(crate) use script::Unscripted;
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
        match purpose.sim().script(&self.spec, purpose) {
            Script::None => None,
            Script::Whole(value) => Some((Ok(ScriptedOutput::Json(value)), None)),
            // A plan stays the scenario's text, which the pattern reads
            // into tasks as it checks them: a plan of 100,000 tasks is
            // never held as one value.
            Script::Text(plan) => {
                let entries = script_entry_texts(plan.text());
                let entry = entries[self.next_call(purpose, entries.len())?];
                Some((ScriptedOutput::from_text(plan, entry), None))
            }
            Script::Outputs(script) => {
                let entries = script_entries(script);
                let entry = &entries[self.next_call(purpose, entries.len())?];
                Some((ScriptedOutput::parse(entry), None))
            }
            Script::TimedOutputs(script) => {
                let entries = script_entries(script);
                let entry = &entries[self.next_call(purpose, entries.len())?];
                // Copied once, without its latency, and read as it is.
                let (entry, latency) = turns::split_latency(entry);
                Some((ScriptedOutput::from_value(entry), latency))
            }
        }
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
        // Looked up before a key is made: a run makes its calls under a
        // handful of keys.
        let made = match calls.get_mut(purpose.script_key()) {
            Some(made) => made,
            None => calls.entry(purpose.script_key().to_string()).or_insert(0),
        };
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
            None => request
                .purpose
                .sim()
                .unscripted(&request.purpose, &request.payload),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::prompts::Prompt;
    use serde_json::{Value, json};

    fn sim(spec: Value, seed: u64) -> SimProvider {
        SimProvider::new(serde_json::from_value(spec).unwrap(), RunRng::seeded(seed))
    }

    /// A test's script: a speaker's outputs in `responses`, the plan as
    /// its text.
    #[derive(Debug)]
    struct Scripted;

    impl SimScript for Scripted {
        fn script<'a>(&self, spec: &'a ProviderSpec, purpose: &Purpose) -> Script<'a> {
            let responses = spec.responses.as_ref();
            match purpose.agent() {
                Some(who) => responses
                    .and_then(|r| r.get(who))
                    .map_or(Script::None, Script::Outputs),
                None => spec.plan.as_ref().map_or(Script::None, Script::Text),
            }
        }

        fn unscripted(&self, _: &Purpose, _: &Value) -> Result<ModelOutput, ProviderError> {
            Ok(ModelOutput::Text("unscripted".into()))
        }
    }

    fn spoken(who: &str) -> ModelRequest {
        let purpose = Purpose::new(format!("speak:{who}"), who, who, &Scripted).spoken_by(who);
        ModelRequest::new(purpose, &Prompt::UNUSED, json!({}))
    }

    fn planned() -> ModelRequest {
        ModelRequest::new(
            Purpose::new("plan", "plan", "planner", &Scripted),
            &Prompt::UNUSED,
            json!({}),
        )
    }

    #[tokio::test(start_paused = true)]
    async fn outputs_are_consumed_in_order_and_the_last_repeats() {
        let sim = sim(
            json!({"kind": "sim", "latency_ms": 200, "responses": {
                "a": ["first", {"verdict": "go"}, {"$fault": "empty"}],
                "b": {"$fault": "timeout"}
            }}),
            1,
        );
        let start = tokio::time::Instant::now();
        let a = spoken("a");
        assert_eq!(
            sim.complete(&a).await,
            Ok(ModelOutput::Text("first".into()))
        );
        assert_eq!(
            sim.complete(&a).await,
            Ok(ModelOutput::Json(json!({"verdict": "go"})))
        );
        assert_eq!(sim.complete(&a).await, Ok(ModelOutput::Text(String::new())));
        assert_eq!(sim.complete(&a).await, Ok(ModelOutput::Text(String::new())));
        assert_eq!(
            sim.complete(&spoken("b")).await,
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
        let request = planned();
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
                sim.complete(&spoken("a")).await.unwrap();
                took.push(start.elapsed().as_millis());
            }
            runs.push(took);
        }
        assert_eq!(runs[0], runs[1]);
        assert!(runs[0].iter().all(|ms| (100..=900).contains(ms)));
        assert!(runs[0].iter().any(|ms| *ms != runs[0][0]), "draws vary");
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_its_script_leaves_out_gets_the_purposes_own_answer_after_its_latency() {
        let sim = sim(json!({"kind": "sim", "latency_ms": 300}), 0);
        let start = tokio::time::Instant::now();
        assert_eq!(
            sim.complete(&planned()).await,
            Ok(ModelOutput::Text("unscripted".into()))
        );
        assert_eq!(start.elapsed(), Duration::from_millis(300));
    }
}
