//! What the pane shows of a node and an edge as the run goes: a node's
//! state (each with a colour and a glyph of its own, so no state is told
//! by colour alone), its visits and activations, a map's progress, a
//! join's barrier; an edge's last evaluation with its checks' values.

use ratatui::style::{Color, Style};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum NodeState {
    #[default]
    Waiting,
    /// Its input arrived; it starts at its step's gate.
    Ready,
    Running,
    Done,
    Skipped,
    Failed,
}

impl NodeState {
    pub(crate) fn glyph(self) -> char {
        match self {
            NodeState::Waiting => '○',
            NodeState::Ready => '◎',
            NodeState::Running => '▶',
            NodeState::Done => '✓',
            NodeState::Skipped => '⊘',
            NodeState::Failed => '✗',
        }
    }

    pub(crate) fn word(self) -> &'static str {
        match self {
            NodeState::Waiting => "waiting",
            NodeState::Ready => "ready",
            NodeState::Running => "running",
            NodeState::Done => "done",
            NodeState::Skipped => "skipped",
            NodeState::Failed => "failed",
        }
    }

    pub(crate) fn style(self) -> Style {
        Style::default().fg(match self {
            NodeState::Waiting => Color::DarkGray,
            NodeState::Ready => Color::Cyan,
            NodeState::Running => Color::Yellow,
            NodeState::Done => Color::Green,
            NodeState::Skipped => Color::Blue,
            NodeState::Failed => Color::Red,
        })
    }
}

/// One activation of a node: what went in and came out, and what its
/// model calls used. Text as recorded (clipped by the engine), cleaned
/// where it is drawn.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Activation {
    pub(crate) visit: u32,
    pub(crate) step: u32,
    pub(crate) started_ms: u64,
    pub(crate) input: String,
    /// What of the state an agent node with `reads` was shown.
    pub(crate) read: Option<String>,
    pub(crate) finished: Option<Finished>,
    /// What it wrote into the shared state: each key with its value.
    pub(crate) writes: Vec<(String, String)>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Finished {
    pub(crate) ms: u64,
    pub(crate) status: String,
    pub(crate) output: String,
    pub(crate) answer: Option<String>,
    pub(crate) error: Option<String>,
    pub(crate) tokens: u64,
    pub(crate) cost_usd: f64,
}

/// A map node's items.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct MapProgress {
    pub(crate) done: u64,
    pub(crate) failed: u64,
    pub(crate) running: u64,
    pub(crate) of: u64,
}

/// A join's barrier in this loop iteration.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Barrier {
    pub(crate) rule: String,
    pub(crate) arrived: Vec<String>,
    pub(crate) waiting_on: Vec<String>,
    /// The barrier was met (and re-armed) since the last arrival.
    pub(crate) fired: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct NodeLive {
    pub(crate) state: NodeState,
    pub(crate) visits: u32,
    pub(crate) activations: imbl::Vector<Activation>,
    pub(crate) map: Option<MapProgress>,
    pub(crate) join: Option<Barrier>,
}

/// An edge's last evaluation: each check in words with its values.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct EdgeEval {
    pub(crate) checks: Vec<(String, bool)>,
    pub(crate) taken: bool,
    pub(crate) visits: Option<u32>,
    pub(crate) max_visits: Option<u32>,
}
