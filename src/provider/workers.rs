//! Where the gateway sends a worker or tool call once it lets it through:
//! to the real worker of that name (an HTTP endpoint, a program), else to
//! the simulated ones. One dispatch for every kind, so the gateway's
//! timeouts, retries, breakers and bulkheads apply to all of them alike.

use super::WorkerError;
use super::real::RealTools;
use super::sim::workers::SimWorkers;
use crate::clock::RunClock;
use serde_json::Value;
use std::time::Duration;

#[derive(Debug)]
pub(crate) struct Workers {
    sim: SimWorkers,
    real: RealTools,
}

impl Workers {
    pub(crate) fn new(sim: SimWorkers, real: RealTools) -> Self {
        Workers { sim, real }
    }

    /// Call `worker` with `args`; `started` is the run time at the call
    /// (a simulated outage depends on it), and a simulated worker takes
    /// its time on the run's `clock`.
    pub(crate) async fn call(
        &self,
        worker: &str,
        args: &Value,
        started: Duration,
        clock: &RunClock,
    ) -> Result<Value, WorkerError> {
        // A real call (a connection, a program, an MCP session) is boxed:
        // it is many times the size of a simulated worker's, and every
        // call that awaits this one would carry that size and copy it.
        if self.real.is_real(worker)
            && let Some(answer) = Box::pin(self.real.call(worker, args)).await
        {
            return answer;
        }
        self.sim.call(worker, args, started, clock).await
    }

    /// A call served from a cassette still plays a simulated worker's
    /// script (see `Provider::play_script`); a real one is not called.
    pub(crate) fn play_script(
        &self,
        worker: &str,
        args: &Value,
        started: Duration,
        clock: &RunClock,
    ) {
        use futures_util::FutureExt as _;
        if !self.real.is_real(worker) {
            drop(self.sim.call(worker, args, started, clock).now_or_never());
        }
    }

    /// Why a call to `worker` may not be made: it would start a program
    /// nobody allowed.
    pub(crate) fn refusal(&self, worker: &str) -> Option<&str> {
        self.real.refusal(worker)
    }

    /// Whether calls to `worker` leave the process.
    pub(crate) fn is_real(&self, worker: &str) -> bool {
        self.real.is_real(worker)
    }

    /// Start what the run's real tools need before the first call (its
    /// MCP servers); the descriptions their servers give, by worker or
    /// tool name.
    pub(crate) async fn start(&self) -> Vec<(String, String)> {
        self.real.start_mcp().await
    }

    /// The run is over: nothing it started may outlive it.
    pub(crate) fn shutdown(&self) {
        self.real.shutdown();
    }

    /// Simulated calls in flight.
    #[cfg(test)]
    pub(crate) fn in_flight(&self) -> usize {
        self.sim.in_flight()
    }
}
