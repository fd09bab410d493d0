//! The round table's figures by name (see `patterns::figures`): data
//! only, so that any floor may read it.

use crate::bus::figures::{ANSWER, Count, Figure, Figures, Read, Shape, Swept, Was};

/// The table's decision, as `Decision` writes it.
pub(crate) const DECISION: &str = "decision";
/// Rounds the table convened.
pub(crate) const ROUNDS: &str = "rounds";

pub(crate) const FIGURES: Figures = Figures {
    summary: &[
        Figure {
            name: DECISION,
            shape: Shape::Value,
            was: Was::Value("/final_decision"),
        },
        ANSWER,
    ],
    counts: &[Count {
        name: ROUNDS,
        was: Was::Value("/rounds_used"),
    }],
    swept: &[Swept {
        name: ROUNDS,
        read: Read::Count,
    }],
    verdict: Some(DECISION),
};
