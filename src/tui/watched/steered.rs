//! The steering the watch's screen holds: the watch's steering as last
//! listed, and the steering dialog over the screen with what the person
//! put off. Read and changed by `steer` (the keys) and drawn by
//! `steer_draw`.

use crate::watch::span::{TraceId, trace_hex};
use crate::watch::steer::{ControlOp, ControlRequest, RunView, Steering};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The watch's steering as the screen last read it.
#[derive(Debug)]
pub(crate) struct Steered {
    pub(crate) steering: Arc<Steering>,
    /// Each run with a hook, as last listed.
    pub(crate) views: HashMap<TraceId, RunView>,
    /// How many of each run's decisions are in its log.
    pub(crate) logged: HashMap<TraceId, usize>,
}

/// A steering dialog over the screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Dialog {
    /// The run's flags, one selected.
    Flags { trace: TraceId, selected: usize },
    /// An approval or a question waiting in the run: the option chosen
    /// (approve/reject, or the question's options) and the text typed
    /// (the reason of a rejection, or a free answer).
    Decide {
        trace: TraceId,
        id: u64,
        choice: usize,
        note: String,
    },
    /// A stop, to confirm.
    Stop { trace: TraceId },
}

impl Steered {
    pub(crate) fn new(steering: Arc<Steering>) -> Steered {
        Steered {
            steering,
            views: HashMap::new(),
            logged: HashMap::new(),
        }
    }

    pub(crate) fn control(&self, trace: TraceId, op: ControlOp) -> Result<(), String> {
        let request = ControlRequest {
            trace_id: Some(trace_hex(trace)),
            op,
        };
        self.steering
            .control(request)
            .map_err(|e| format!("steering: {e}"))
    }
}

/// The screen's steering state besides the runs.
#[derive(Debug, Default)]
pub(crate) struct SteerUi {
    /// A steering dialog (flags, a decision, a stop).
    pub(crate) dialog: Option<Dialog>,
    /// Decisions the person put off (Esc): not offered again until `d`.
    pub(crate) put_off: HashSet<u64>,
    /// What the last steering key came to when it could not be done.
    pub(crate) said: Option<String>,
}
