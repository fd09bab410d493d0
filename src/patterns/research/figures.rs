//! The research workflow's figures by name (see `patterns::figures`):
//! data only, so that any floor may read it.

use crate::bus::figures::{ANSWER, Figure, Figures, Read, Shape, Swept, Was};

/// The notes the answer cites, as written.
pub(crate) const CITATIONS: &str = "citations";

pub(crate) const FIGURES: Figures = Figures {
    summary: &[
        ANSWER,
        Figure {
            name: CITATIONS,
            shape: Shape::List,
            was: Was::Value("/citations"),
        },
    ],
    counts: &[],
    // The steps of the workflow its events opened.
    swept: &[Swept {
        name: "steps",
        read: Read::StepsOpened,
    }],
    verdict: None,
};
