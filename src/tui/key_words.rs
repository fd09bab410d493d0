//! What keys ask for and where they apply: the words of the key table
//! (`keymap`), kept apart from the table itself.

use super::pane_id::PaneId;

/// What a key asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Quit,
    Help,
    NewRun,
    TogglePause,
    /// Pause every watched run, and hold each new one from its first gate
    /// (again: run every one on).
    HoldAll,
    /// Set or clear a breakpoint of every watched run.
    Break,
    Step,
    Flags,
    EditGoal,
    Restart,
    FocusNext,
    FocusPrev,
    Focus(u8),
    PrevRun,
    NextRun,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Top,
    /// The last row of a list.
    Bottom,
    Follow,
    Details,
    Filter,
    /// Search the focused list or the details for text.
    Search,
    /// The next way of ordering the focused list.
    Sort,
    /// The next choice of rows the focused list shows.
    Show,
    Close,
    Toggle,
    Confirm,
    StepBack,
    Start,
    End,
    Jump,
    Faster,
    Slower,
    /// Zoom the focused pane to the whole screen, or back.
    Zoom,
    /// Back from a zoomed pane.
    Unzoom,
    /// Pin the selected run to compare others with.
    Pin,
    /// Compare the selected run with the pinned one.
    Compare,
    /// Copy the selected item to the clipboard (OSC 52).
    Copy,
    /// Write the result, the filtered log or a comparison to a file.
    Write,
    /// Answer the round table's question to a person.
    Decide,
    /// Show the sweep's charts.
    Sweep,
    /// Fork a replayed run at the gate the replay stands in.
    Fork,
    /// Show the next run that waits on a person or stopped with an error.
    Attend,
    /// Draw the focused pane's items larger (the graph's nodes as boxes).
    ZoomIn,
    /// Draw the focused pane's items smaller (the graph's nodes as lines).
    ZoomOut,
    /// Stop a watched run through its steering hook.
    StopRun,
}

/// Where a key applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Everywhere,
    /// The focused pane.
    Pane(PaneId),
    /// The keys a pattern's pane adds to the pattern pane's own, looked up
    /// before them.
    Unit(UnitKeys),
    /// An open overlay.
    Overlay(OverlayKind),
    /// A replayed run, before its panes.
    Replay,
    /// The keys a live watched run takes besides the dashboard's (its
    /// hook's steering, docs/steer.md), looked up before the global ones.
    WatchSteer,
}

/// The patterns whose pane adds keys of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitKeys {
    /// Collaboration: across rounds.
    RoundTable,
    /// Orchestrator: the tasks' sort and filter.
    Workers,
    /// Coordinator: opening a member team's call to its own chain.
    Members,
    /// Graph: moving sideways along a layer, zooming.
    Graph,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverlayKind {
    Help,
    Flags,
    Picker,
    Details,
    Goal,
    Filter,
    /// The round or wave number to jump to in a replay.
    Jump,
    /// Text being searched for in a list, the details or the picker.
    Search,
    /// Quitting while a run is live, to confirm.
    Quit,
    /// Two runs side by side.
    Compare,
    /// The path to write to, being typed.
    Export,
    /// The confirmation before a scenario runs programs.
    Trust,
    /// The round table asks a person.
    Decide,
    /// A sweep's charts and the runs of a bar.
    Sweep,
    /// A replay's fork: its flags, goal and model.
    Fork,
    /// Stopping a watched run, to confirm.
    StopRun,
    /// A watch's breakpoints, one being typed.
    Break,
    /// Stopping a program launched here, to confirm.
    StopProgram,
}
