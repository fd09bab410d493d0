//! How fast a replay plays: its speeds, slowest first.

/// Playback speeds, slowest first; `Instant` jumps to the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Speed {
    X1,
    X2,
    X5,
    X10,
    Instant,
}

impl Speed {
    const ALL: [Speed; 5] = [Speed::X1, Speed::X2, Speed::X5, Speed::X10, Speed::Instant];

    pub(crate) fn factor(self) -> Option<f64> {
        match self {
            Speed::X1 => Some(1.0),
            Speed::X2 => Some(2.0),
            Speed::X5 => Some(5.0),
            Speed::X10 => Some(10.0),
            Speed::Instant => None,
        }
    }

    pub(crate) fn label(self) -> &'static str {
        match self {
            Speed::X1 => "1×",
            Speed::X2 => "2×",
            Speed::X5 => "5×",
            Speed::X10 => "10×",
            Speed::Instant => "instant",
        }
    }

    pub(crate) fn faster(self) -> Speed {
        let at = Speed::ALL.iter().position(|s| *s == self).unwrap_or(0);
        Speed::ALL[(at + 1).min(Speed::ALL.len() - 1)]
    }

    pub(crate) fn slower(self) -> Speed {
        let at = Speed::ALL.iter().position(|s| *s == self).unwrap_or(0);
        Speed::ALL[at.saturating_sub(1)]
    }
}
