//! The panes a run's screen is made of, by the number its key jumps to.

/// The panes a run's screen is made of, numbered as the `1`-`5` keys jump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PaneId {
    Runs,
    Pattern,
    Log,
    Result,
    /// Every tool's breaker, bulkhead and call health (any pattern).
    Resilience,
}

impl PaneId {
    pub(crate) const ALL: [PaneId; 5] = [
        PaneId::Runs,
        PaneId::Pattern,
        PaneId::Log,
        PaneId::Result,
        PaneId::Resilience,
    ];

    pub(crate) fn number(self) -> u8 {
        match self {
            PaneId::Runs => 1,
            PaneId::Pattern => 2,
            PaneId::Log => 3,
            PaneId::Result => 4,
            PaneId::Resilience => 5,
        }
    }

    pub(crate) fn from_number(n: u8) -> Option<PaneId> {
        PaneId::ALL.into_iter().find(|p| p.number() == n)
    }

    /// The pane `by` places after this one in focus order, round the end.
    pub(crate) fn next(self, by: usize) -> PaneId {
        let at = PaneId::ALL.iter().position(|p| *p == self).unwrap_or(0);
        PaneId::ALL[(at + by) % PaneId::ALL.len()]
    }
}
