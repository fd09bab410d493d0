//! The orchestrator's figures by name (see `patterns::figures`): data
//! only, so that any floor may read it.

use crate::bus::figures::{
    ANSWER, Count, FAILED_TASKS, Figure, Figures, Read, Shape, Swept, TASKS, Was,
};

/// The aggregate's health, as `Health` writes it.
pub(crate) const HEALTH: &str = "health";
/// Worker attempts started, retries and refused ones included.
pub(crate) const DISPATCHES: &str = "dispatches";

pub(crate) const FIGURES: Figures = Figures {
    summary: &[
        Figure {
            name: HEALTH,
            shape: Shape::Value,
            was: Was::Value("/aggregate/health"),
        },
        ANSWER,
    ],
    counts: &[
        Count {
            name: DISPATCHES,
            was: Was::Nowhere,
        },
        // Tasks that finished, done or failed, and of those the failed.
        Count {
            name: TASKS,
            was: Was::Nowhere,
        },
        Count {
            name: FAILED_TASKS,
            was: Was::Length("/aggregate/failed_tasks"),
        },
    ],
    swept: &[
        // The waves of tasks its events opened.
        Swept {
            name: "waves",
            read: Read::StepsOpened,
        },
        Swept {
            name: DISPATCHES,
            read: Read::Count,
        },
    ],
    verdict: Some(HEALTH),
};
