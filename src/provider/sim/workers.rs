//! Simulated workers: where an orchestrator task's call ends up once the
//! gateway lets it through (a call to a tool a pattern brings, such as
//! research's, is handed on to that pattern's `PatternTools`). Each answers from the scenario's `workers` section,
//! after its scripted latency, like 001's deterministic specialists. A
//! worker never times out, retries or publishes events: the gateway does
//! all three.

use crate::clock::RunClock;
use crate::provider::WorkerError;
use crate::pycompat::py_str;
use crate::rng::RunRng;
use crate::scenario::{WorkerLatency, WorkerSpec, short_name};
use indexmap::IndexMap;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The arg the gateway adds to every worker call, as 001's gateway adds
/// its `request_id`: a plan that sets it is overridden, not refused.
pub(crate) const REQUEST_ID_ARG: &str = "request_id";
/// The args every simulated worker takes.
pub(crate) const WORKER_ARGS: [&str; 2] = ["report_date", "region"];

/// Simulated tools a pattern brings with its own section of the scenario
/// (research's answer from its `sources`): the simulated workers hand a
/// call on to them by name. Like a worker, a tool never times out,
/// retries or publishes: the gateway does.
pub(crate) trait PatternTools: std::fmt::Debug + Send + Sync {
    /// Whether calls to `name` are answered here.
    fn serves(&self, name: &str) -> bool;

    /// Answer a call to `name` with `args`, after its latency on `clock`.
    fn call<'a>(
        &'a self,
        name: &'a str,
        args: &'a Value,
        clock: &'a RunClock,
    ) -> Pin<Box<dyn Future<Output = Result<Value, WorkerError>> + Send + 'a>>;
}

/// The workers of one run.
#[derive(Debug)]
pub(crate) struct SimWorkers {
    specs: IndexMap<String, WorkerSpec>,
    /// How a call's args find its data.
    keys: DataKeys,
    rng: RunRng,
    /// How many calls each worker has started.
    calls: Mutex<HashMap<String, u32>>,
    in_flight: Arc<AtomicUsize>,
    /// The tools the run's pattern brings, if any.
    pattern_tools: Option<Box<dyn PatternTools>>,
}

impl SimWorkers {
    pub(crate) fn new(specs: IndexMap<String, WorkerSpec>, rng: RunRng) -> Self {
        SimWorkers {
            specs,
            keys: DataKeys::Report,
            rng,
            calls: Mutex::new(HashMap::new()),
            in_flight: Arc::new(AtomicUsize::new(0)),
            pattern_tools: None,
        }
    }

    /// The tools of a swarm or coordinator team: any args, data keyed by
    /// their values (see [`tool_key`]).
    pub(crate) fn tools(specs: IndexMap<String, WorkerSpec>, rng: RunRng) -> Self {
        SimWorkers {
            specs,
            keys: DataKeys::Args,
            rng,
            calls: Mutex::new(HashMap::new()),
            in_flight: Arc::new(AtomicUsize::new(0)),
            pattern_tools: None,
        }
    }

    /// Hand calls to the tools `tools` serves on to them.
    pub(crate) fn with_pattern_tools(mut self, tools: Option<Box<dyn PatternTools>>) -> Self {
        self.pattern_tools = tools;
        self
    }

    /// Calls started and neither finished nor dropped: a timed-out call
    /// whose future the gateway dropped is no longer in flight.
    #[cfg(test)]
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Acquire)
    }

    /// Call `worker` with `args`; `started` is the run time at the call,
    /// which decides whether it falls in an outage. The call takes its
    /// latency on the run's `clock`.
    pub(crate) async fn call(
        &self,
        worker: &str,
        args: &Value,
        started: Duration,
        clock: &RunClock,
    ) -> Result<Value, WorkerError> {
        if let Some(tools) = &self.pattern_tools
            && tools.serves(worker)
        {
            let _in_flight = InFlight::enter(&self.in_flight);
            return tools.call(worker, args, clock).await;
        }
        let spec = self.specs.get(worker).ok_or(WorkerError::Missing)?;
        let key = match self.keys {
            DataKeys::Report => {
                let (report_date, region) = worker_args(args).ok_or(WorkerError::BadArgs)?;
                format!("{}:{}", py_str(report_date), region.to_uppercase())
            }
            DataKeys::Args => tool_key(args).ok_or(WorkerError::BadArgs)?,
        };
        let call = {
            let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
            let made = calls.entry(worker.to_string()).or_insert(0);
            *made += 1;
            *made
        };
        let _in_flight = InFlight::enter(&self.in_flight);

        let started_ms = u64::try_from(started.as_millis()).unwrap_or(u64::MAX);
        if spec
            .outage_ms
            .iter()
            .any(|[from, to]| (*from..*to).contains(&started_ms))
        {
            if spec.hang {
                std::future::pending::<()>().await;
            }
            return Err(WorkerError::FAILED);
        }
        let latency = self.latency(spec, call);
        if !latency.is_zero() {
            clock.sleep(latency).await;
        }
        if spec.fail.iter().any(|n| n.get() == call) {
            return Err(WorkerError::FAILED);
        }
        let found = match self.keys {
            DataKeys::Report => spec.data.get(&key),
            DataKeys::Args => spec.data.get(&key).or_else(|| spec.data.get("*")),
        };
        let result = match found {
            // 001 tests `if not metrics`: an empty object is missing data.
            Some(found) if !found.is_empty() => Value::Object(found.clone()),
            _ => json!({"warning": format!("{}_data_missing", short_name(worker))}),
        };
        Ok(match self.keys {
            DataKeys::Report => json!({"status": "done", "worker": worker, "result": result}),
            DataKeys::Args => json!({"status": "done", "tool": worker, "result": result}),
        })
    }

    fn latency(&self, spec: &WorkerSpec, call: u32) -> Duration {
        let ms = match &spec.latency_ms {
            None => 0,
            Some(WorkerLatency::Fixed(ms)) => *ms,
            Some(WorkerLatency::Range(range)) => self.rng.between(range.min, range.max),
            Some(WorkerLatency::PerCall(calls)) => {
                let index = usize::try_from(call - 1).unwrap_or(usize::MAX);
                calls
                    .get(index)
                    .or(calls.last())
                    .copied()
                    .unwrap_or_default()
            }
        };
        crate::duration::clamp_millis(ms)
    }
}

/// How a call's args find the data it answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DataKeys {
    /// An orchestrator worker: `<report_date>:<REGION>`.
    Report,
    /// A team's tool: the args' values.
    Args,
}

/// A tool's data key: the values of `args` in the order given, text as
/// it is and anything else as JSON, joined with `:`. Args must be an
/// object.
pub(crate) fn tool_key(args: &Value) -> Option<String> {
    let parts: Vec<String> = args
        .as_object()?
        .values()
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    Some(parts.join(":"))
}

/// `report_date` and `region` when `args` fit a worker's signature
/// `(report_date, region, request_id)`: both present, nothing else but
/// `request_id`, and a text region (001's workers upper-case it).
fn worker_args(args: &Value) -> Option<(&Value, &str)> {
    let args = args.as_object()?;
    if args
        .keys()
        .any(|k| !WORKER_ARGS.contains(&k.as_str()) && k != REQUEST_ID_ARG)
    {
        return None;
    }
    let report_date = args.get("report_date")?;
    let region = args.get("region")?.as_str()?;
    Some((report_date, region))
}

/// Counts a call as in flight until it returns or is dropped.
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn enter(counter: &Arc<AtomicUsize>) -> Self {
        counter.fetch_add(1, Ordering::AcqRel);
        InFlight(Arc::clone(counter))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workers(specs: Value) -> SimWorkers {
        SimWorkers::new(serde_json::from_value(specs).unwrap(), RunRng::seeded(1))
    }

    fn args(report_date: Value, region: &str) -> Value {
        json!({"report_date": report_date, "region": region})
    }

    #[tokio::test(start_paused = true)]
    async fn answers_from_its_data_after_each_calls_latency() {
        let w = workers(json!({"payments_worker": {
            "data": {"2026-02-26:US": {"failed_payment_rate": 0.023}, "2026-02-26:EU": {}},
            "latency_ms": [2600, 300]
        }}));
        let start = tokio::time::Instant::now();
        let first = w
            .call(
                "payments_worker",
                &args(json!("2026-02-26"), "us"),
                Duration::ZERO,
                &RunClock::start(),
            )
            .await;
        assert_eq!(start.elapsed(), Duration::from_millis(2600));
        assert_eq!(
            first.unwrap(),
            json!({"status": "done", "worker": "payments_worker", "result": {"failed_payment_rate": 0.023}})
        );
        for (date, region) in [(json!("2026-02-26"), "EU"), (json!(2026), "US")] {
            let missing = w
                .call(
                    "payments_worker",
                    &args(date, region),
                    Duration::ZERO,
                    &RunClock::start(),
                )
                .await;
            assert_eq!(
                missing.unwrap()["result"],
                json!({"warning": "payments_data_missing"}),
                "an absent key or an empty object"
            );
        }
        assert_eq!(
            start.elapsed(),
            Duration::from_millis(3200),
            "the last latency repeats"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn args_must_fit_the_signature() {
        let w = workers(json!({"sales_worker": {}}));
        let w = &w;
        let call = |a: Value| async move {
            w.call("sales_worker", &a, Duration::ZERO, &RunClock::start())
                .await
        };
        for bad in [
            json!({"report_date": "d"}),
            json!({"report_date": "d", "region": "US", "limit": 3}),
            json!({"report_date": "d", "region": 7}),
            json!([1]),
        ] {
            assert_eq!(call(bad.clone()).await, Err(WorkerError::BadArgs), "{bad}");
        }
        let with_request_id = json!({"report_date": "d", "region": "US", "request_id": "x"});
        assert!(call(with_request_id).await.is_ok());
        assert_eq!(
            w.call(
                "nobody",
                &args(json!("d"), "US"),
                Duration::ZERO,
                &RunClock::start()
            )
            .await,
            Err(WorkerError::Missing)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn tools_answer_by_the_values_of_their_args() {
        let specs = serde_json::from_value(json!({"refund_api": {
            "data": {"A-1:ch_2": {"refund_id": "R-1"}, "*": {"note": "any order"}},
            "latency_ms": 80
        }}))
        .unwrap();
        let tools = SimWorkers::tools(specs, RunRng::seeded(1));
        let start = tokio::time::Instant::now();
        let found = tools
            .call(
                "refund_api",
                &json!({"order": "A-1", "charge": "ch_2"}),
                Duration::ZERO,
                &RunClock::start(),
            )
            .await;
        assert_eq!(
            found.unwrap(),
            json!({"status": "done", "tool": "refund_api", "result": {"refund_id": "R-1"}})
        );
        assert_eq!(start.elapsed(), Duration::from_millis(80));
        let fallback = tools
            .call(
                "refund_api",
                &json!({"order": 7}),
                Duration::ZERO,
                &RunClock::start(),
            )
            .await;
        assert_eq!(fallback.unwrap()["result"], json!({"note": "any order"}));
        assert_eq!(
            tools
                .call(
                    "refund_api",
                    &json!([1]),
                    Duration::ZERO,
                    &RunClock::start()
                )
                .await,
            Err(WorkerError::BadArgs),
            "args are an object"
        );
        assert_eq!(
            tool_key(&json!({"a": "x", "b": 2, "c": true})).unwrap(),
            "x:2:true"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn scripted_failures_and_outages() {
        let w = workers(json!({
            "flaky_worker": {"latency_ms": 100, "fail": [2]},
            "down_worker": {"latency_ms": 100, "outage_ms": [[1000, 2000]]},
            "stuck_worker": {"latency_ms": 100, "outage_ms": [[0, 500]], "hang": true}
        }));
        let a = args(json!("d"), "US");
        assert!(
            w.call("flaky_worker", &a, Duration::ZERO, &RunClock::start())
                .await
                .is_ok()
        );
        assert_eq!(
            w.call("flaky_worker", &a, Duration::ZERO, &RunClock::start())
                .await,
            Err(WorkerError::FAILED)
        );
        assert!(
            w.call("flaky_worker", &a, Duration::ZERO, &RunClock::start())
                .await
                .is_ok()
        );

        let start = tokio::time::Instant::now();
        for (at, ok) in [(999, true), (1000, false), (1999, false), (2000, true)] {
            let r = w
                .call(
                    "down_worker",
                    &a,
                    Duration::from_millis(at),
                    &RunClock::start(),
                )
                .await;
            assert_eq!(r.is_ok(), ok, "a call starting at {at} ms");
        }
        assert_eq!(
            start.elapsed(),
            Duration::from_millis(200),
            "an outage fails at once"
        );

        let hung = tokio::time::timeout(
            Duration::from_secs(60),
            w.call(
                "stuck_worker",
                &a,
                Duration::from_millis(10),
                &RunClock::start(),
            ),
        )
        .await;
        assert!(hung.is_err(), "hangs until the caller gives up");
        assert_eq!(w.in_flight(), 0, "the dropped call is no longer in flight");
    }
}
