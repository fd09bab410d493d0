//! The graph pattern's figures by name (see `patterns::figures`): data
//! only, so that any floor may read it.

use crate::bus::figures::{ANSWER, Count, Figure, Figures, Read, Shape, Swept, Was};

/// The node ids in the order they were activated.
pub(crate) const PATH: &str = "path";
/// Each node's visits, `{"draft": 3}`.
pub(crate) const VISITS: &str = "visits";
/// Where the run stopped, in words: the node, cycle, values or joins.
pub(crate) const STOP: &str = "stop";
/// Node activations the run made.
pub(crate) const ACTIVATIONS: &str = "activations";

pub(crate) const FIGURES: Figures = Figures {
    summary: &[
        // The output the end node was reached with.
        ANSWER,
        Figure {
            name: PATH,
            shape: Shape::List,
            was: Was::Value("/path"),
        },
        Figure {
            name: VISITS,
            shape: Shape::Value,
            was: Was::Value("/visits"),
        },
        Figure {
            name: STOP,
            shape: Shape::Value,
            was: Was::Value("/stop"),
        },
    ],
    counts: &[Count {
        name: ACTIVATIONS,
        was: Was::Length("/path"),
    }],
    // The activations its events opened (each opens a step), and each
    // node's visits (`visits.draft`).
    swept: &[
        Swept {
            name: "steps",
            read: Read::StepsOpened,
        },
        Swept {
            name: VISITS,
            read: Read::EachKey,
        },
    ],
    verdict: Some(PATH),
};
