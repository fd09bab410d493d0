//! The team patterns' figures by name (see `patterns::figures`): the
//! swarm's and the coordinator's, whose summaries this folder writes.
//! Data only, so that any floor may read it.

use crate::bus::figures::{ANSWER, Count, Figure, Figures, Read, Shape, Swept, Was};

/// The agent holding control at the end.
pub(crate) const FINAL_AGENT: &str = "final_agent";
/// Model calls the team started.
pub(crate) const LLM_CALLS: &str = "llm_calls";
/// Transfers a swarm's agents asked for, refused ones included.
pub(crate) const HANDOFFS: &str = "handoffs";
/// Calls a coordinator made to its members.
pub(crate) const MEMBER_CALLS: &str = "member_calls";

const FINAL: Figure = Figure {
    name: FINAL_AGENT,
    shape: Shape::Value,
    was: Was::Value("/final_agent"),
};

const CALLS: Count = Count {
    name: LLM_CALLS,
    was: Was::Value("/llm_calls"),
};

pub(crate) const SWARM: Figures = Figures {
    summary: &[ANSWER, FINAL],
    counts: &[
        Count {
            name: HANDOFFS,
            was: Was::Length("/handoffs"),
        },
        CALLS,
    ],
    swept: &[Swept {
        name: HANDOFFS,
        read: Read::Count,
    }],
    verdict: Some(FINAL_AGENT),
};

pub(crate) const COORDINATOR: Figures = Figures {
    summary: &[ANSWER, FINAL],
    counts: &[
        CALLS,
        Count {
            name: MEMBER_CALLS,
            was: Was::Length("/member_calls"),
        },
    ],
    swept: &[Swept {
        name: MEMBER_CALLS,
        read: Read::Count,
    }],
    verdict: Some(FINAL_AGENT),
};
