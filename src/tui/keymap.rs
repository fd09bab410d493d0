//! The key table: every key the dashboard answers, declared once with its
//! scope and its words. Input handling looks keys up here, and the footer
//! and the help overlay are drawn from the same table, so help is never out
//! of date.

pub use super::pane_id::PaneId;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub use super::key_words::{Action, OverlayKind, Scope, UnitKeys};

/// One entry of the key table.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Binding {
    pub(crate) keys: &'static [Key],
    /// How the keys are written in the footer and in help.
    pub(crate) label: &'static str,
    pub(crate) action: Action,
    pub(crate) help: &'static str,
    pub(crate) scope: Scope,
}

/// A key with the modifiers it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Key {
    pub(crate) code: KeyCode,
    pub(crate) mods: KeyModifiers,
}

const fn key(c: char) -> Key {
    code(KeyCode::Char(c))
}

const fn code(code: KeyCode) -> Key {
    Key {
        code,
        mods: KeyModifiers::NONE,
    }
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::CONTROL,
    }
}

const TABLE: PaneId = PaneId::Pattern;
const ROUNDS: Scope = Scope::Unit(UnitKeys::RoundTable);
const WORKERS: Scope = Scope::Unit(UnitKeys::Workers);
const MEMBERS: Scope = Scope::Unit(UnitKeys::Members);
const GRAPH: Scope = Scope::Unit(UnitKeys::Graph);
/// The label of a dialog's typing, a row of help with no key of its own.
pub(crate) const TYPING: &str = "letters";
const TOOLS: Scope = Scope::Pane(PaneId::Resilience);
const RUNS: Scope = Scope::Pane(PaneId::Runs);
const PICKER: Scope = Scope::Overlay(OverlayKind::Picker);
const DETAILS: Scope = Scope::Overlay(OverlayKind::Details);
const SEARCH: Scope = Scope::Overlay(OverlayKind::Search);
const SHIFT_TAB: &[Key] = &[
    code(KeyCode::BackTab),
    Key {
        code: KeyCode::BackTab,
        mods: KeyModifiers::SHIFT,
    },
];
const COMPARE: Scope = Scope::Overlay(OverlayKind::Compare);
const SWEEP: Scope = Scope::Overlay(OverlayKind::Sweep);
const FORK: Scope = Scope::Overlay(OverlayKind::Fork);
const STEER: Scope = Scope::WatchSteer;

#[rustfmt::skip]
pub(crate) const BINDINGS: &[Binding] = &[
    Binding { keys: &[key('x')], label: "x", action: Action::StopRun, help: "stop the run (asks first)", scope: STEER },
    Binding { keys: &[key('b')], label: "b", action: Action::Break, help: "breakpoints: pause every run before a named gate", scope: STEER },
    Binding { keys: &[key('P')], label: "P", action: Action::HoldAll, help: "hold every run, new ones from their first gate (again: run all on)", scope: STEER },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Confirm, help: "set the breakpoint typed, or clear it when set", scope: Scope::Overlay(OverlayKind::Break) },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "close", scope: Scope::Overlay(OverlayKind::Break) },
    Binding { keys: &[], label: TYPING, action: Action::Confirm, help: crate::watch::steer::protocol::BREAK_TYPING, scope: Scope::Overlay(OverlayKind::Break) },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Confirm, help: "stop it, with the reason typed: its hook ends the run as its framework does", scope: Scope::Overlay(OverlayKind::StopRun) },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "keep it running", scope: Scope::Overlay(OverlayKind::StopRun) },
    Binding { keys: &[], label: TYPING, action: Action::Confirm, help: "the stop's reason (Backspace deletes)", scope: Scope::Overlay(OverlayKind::StopRun) },
    Binding { keys: &[key('?')], label: "?", action: Action::Help, help: "help", scope: Scope::Everywhere },
    Binding { keys: &[key('q'), ctrl('c')], label: "q", action: Action::Quit, help: "quit", scope: Scope::Everywhere },
    // Taken before any dialog's keys (`App::key`); a row of help only.
    Binding { keys: &[], label: "Ctrl-C", action: Action::Quit, help: "quit, from any dialog too (twice while a run is live)", scope: Scope::Everywhere },
    Binding { keys: &[key('n')], label: "n", action: Action::NewRun, help: "new run", scope: Scope::Everywhere },
    Binding { keys: &[key(' ')], label: "space", action: Action::TogglePause, help: "pause/resume", scope: Scope::Everywhere },
    Binding { keys: &[key('s')], label: "s", action: Action::Step, help: "step one gate", scope: Scope::Everywhere },
    Binding { keys: &[key('f')], label: "f", action: Action::Flags, help: "flags", scope: Scope::Everywhere },
    Binding { keys: &[key('e')], label: "e", action: Action::EditGoal, help: "edit goal", scope: Scope::Everywhere },
    Binding { keys: &[key('r')], label: "r", action: Action::Restart, help: "restart run", scope: Scope::Everywhere },
    Binding { keys: &[code(KeyCode::Tab)], label: "Tab", action: Action::FocusNext, help: "next pane", scope: Scope::Everywhere },
    Binding { keys: SHIFT_TAB, label: "S-Tab", action: Action::FocusPrev, help: "previous pane", scope: Scope::Everywhere },
    Binding { keys: &[key('1')], label: "1", action: Action::Focus(1), help: "runs", scope: Scope::Everywhere },
    Binding { keys: &[key('2')], label: "2", action: Action::Focus(2), help: "pattern pane", scope: Scope::Everywhere },
    Binding { keys: &[key('3')], label: "3", action: Action::Focus(3), help: "event log", scope: Scope::Everywhere },
    Binding { keys: &[key('4')], label: "4", action: Action::Focus(4), help: "result", scope: Scope::Everywhere },
    Binding { keys: &[key('5')], label: "5", action: Action::Focus(5), help: "resilience pane", scope: Scope::Everywhere },
    Binding { keys: &[key('z')], label: "z", action: Action::Zoom, help: "zoom pane", scope: Scope::Everywhere },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Unzoom, help: "unzoom", scope: Scope::Everywhere },
    Binding { keys: &[key('[')], label: "[", action: Action::PrevRun, help: "previous run", scope: Scope::Everywhere },
    Binding { keys: &[key(']')], label: "]", action: Action::NextRun, help: "next run", scope: Scope::Everywhere },
    Binding { keys: &[key('h'), code(KeyCode::Left), key('k'), code(KeyCode::Up)], label: "←/k", action: Action::Left, help: "previous run", scope: RUNS },
    Binding { keys: &[key('l'), code(KeyCode::Right), key('j'), code(KeyCode::Down)], label: "→/j", action: Action::Right, help: "next run", scope: RUNS },
    Binding { keys: &[key('g'), code(KeyCode::Home)], label: "g", action: Action::Top, help: "first run", scope: RUNS },
    Binding { keys: &[key('G'), code(KeyCode::End)], label: "G", action: Action::Bottom, help: "last run", scope: RUNS },
    Binding { keys: &[key('/')], label: "/", action: Action::Search, help: "search", scope: RUNS },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "clear search", scope: RUNS },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "up", scope: Scope::Pane(TABLE) },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "down", scope: Scope::Pane(TABLE) },
    Binding { keys: &[code(KeyCode::PageUp)], label: "PgUp", action: Action::PageUp, help: "page up", scope: Scope::Pane(TABLE) },
    Binding { keys: &[code(KeyCode::PageDown)], label: "PgDn", action: Action::PageDown, help: "page down", scope: Scope::Pane(TABLE) },
    Binding { keys: &[key('g'), code(KeyCode::Home)], label: "g", action: Action::Top, help: "first", scope: Scope::Pane(TABLE) },
    Binding { keys: &[code(KeyCode::End)], label: "End", action: Action::Bottom, help: "last", scope: Scope::Pane(TABLE) },
    Binding { keys: &[key('G'), key('F')], label: "G", action: Action::Follow, help: "follow", scope: Scope::Pane(TABLE) },
    Binding { keys: &[key('h'), code(KeyCode::Left)], label: "h/←", action: Action::Left, help: "prev round", scope: ROUNDS },
    Binding { keys: &[key('l'), code(KeyCode::Right)], label: "l/→", action: Action::Right, help: "next round", scope: ROUNDS },
    Binding { keys: &[key('o')], label: "o", action: Action::Sort, help: "sort", scope: WORKERS },
    Binding { keys: &[key('v')], label: "v", action: Action::Show, help: "running/failed", scope: WORKERS },
    Binding { keys: &[key('l'), code(KeyCode::Right)], label: "l/→", action: Action::Right, help: "open team", scope: MEMBERS },
    Binding { keys: &[key('h'), code(KeyCode::Left)], label: "h/←", action: Action::Left, help: "close team", scope: MEMBERS },
    Binding { keys: &[key('h'), code(KeyCode::Left)], label: "h/←", action: Action::Left, help: "node to the left", scope: GRAPH },
    Binding { keys: &[key('l'), code(KeyCode::Right)], label: "l/→", action: Action::Right, help: "node to the right", scope: GRAPH },
    Binding { keys: &[key('+'), key('=')], label: "+", action: Action::ZoomIn, help: "zoom in: boxes", scope: GRAPH },
    Binding { keys: &[key('-')], label: "-", action: Action::ZoomOut, help: "zoom out: one line a node", scope: GRAPH },
    Binding { keys: &[key('v')], label: "v", action: Action::Show, help: "boxes/lines (in a replay too)", scope: GRAPH },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Details, help: "the node's activations; on a team node that ran, its team's own pane (←/→ its visits, Esc back to the graph)", scope: GRAPH },
    Binding { keys: &[code(KeyCode::PageUp)], label: "PgUp", action: Action::PageUp, help: "a page of layers up; in a small pane (80×24), scroll the edges explained", scope: GRAPH },
    Binding { keys: &[code(KeyCode::PageDown)], label: "PgDn", action: Action::PageDown, help: "a page of layers down; in a small pane, scroll the edges explained", scope: GRAPH },
    Binding { keys: &[key('/')], label: "/", action: Action::Search, help: "search", scope: Scope::Pane(TABLE) },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "clear", scope: Scope::Pane(TABLE) },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Details, help: "JSON", scope: Scope::Pane(TABLE) },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "scroll up", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "scroll down", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[code(KeyCode::PageUp)], label: "PgUp", action: Action::PageUp, help: "page up", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[code(KeyCode::PageDown)], label: "PgDn", action: Action::PageDown, help: "page down", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[key('g'), code(KeyCode::Home)], label: "g", action: Action::Top, help: "oldest", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[key('G'), key('F'), code(KeyCode::End)], label: "G", action: Action::Follow, help: "follow newest", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[key('/')], label: "/", action: Action::Filter, help: "filter", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "clear filter", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Details, help: "event JSON", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "scroll up", scope: Scope::Pane(PaneId::Result) },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "scroll down", scope: Scope::Pane(PaneId::Result) },
    Binding { keys: &[code(KeyCode::PageUp)], label: "PgUp", action: Action::PageUp, help: "page up", scope: Scope::Pane(PaneId::Result) },
    Binding { keys: &[code(KeyCode::PageDown)], label: "PgDn", action: Action::PageDown, help: "page down", scope: Scope::Pane(PaneId::Result) },
    Binding { keys: &[key('g'), code(KeyCode::Home)], label: "g", action: Action::Top, help: "top", scope: Scope::Pane(PaneId::Result) },
    Binding { keys: &[key('G'), Key { code: KeyCode::Char('G'), mods: KeyModifiers::SHIFT }, code(KeyCode::End)], label: "G", action: Action::Follow, help: "end", scope: Scope::Pane(PaneId::Result) },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Details, help: "result JSON", scope: Scope::Pane(PaneId::Result) },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "previous tool", scope: TOOLS },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "next tool", scope: TOOLS },
    Binding { keys: &[code(KeyCode::PageUp)], label: "PgUp", action: Action::PageUp, help: "page up", scope: TOOLS },
    Binding { keys: &[code(KeyCode::PageDown)], label: "PgDn", action: Action::PageDown, help: "page down", scope: TOOLS },
    Binding { keys: &[key('g'), code(KeyCode::Home)], label: "g", action: Action::Top, help: "first", scope: TOOLS },
    Binding { keys: &[code(KeyCode::End)], label: "End", action: Action::Bottom, help: "last", scope: TOOLS },
    Binding { keys: &[key('G'), key('F')], label: "G", action: Action::Follow, help: "follow the sick", scope: TOOLS },
    Binding { keys: &[key('o')], label: "o", action: Action::Sort, help: "sort", scope: TOOLS },
    Binding { keys: &[key('v')], label: "v", action: Action::Show, help: "sick/failed", scope: TOOLS },
    Binding { keys: &[key('/')], label: "/", action: Action::Search, help: "search", scope: TOOLS },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "clear", scope: TOOLS },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Details, help: "tool JSON", scope: TOOLS },
    Binding { keys: &[code(KeyCode::Esc), key('q'), key('?')], label: "Esc", action: Action::Close, help: "close", scope: Scope::Overlay(OverlayKind::Help) },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "scroll", scope: Scope::Overlay(OverlayKind::Help) },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "scroll", scope: Scope::Overlay(OverlayKind::Help) },
    Binding { keys: &[code(KeyCode::PageUp)], label: "PgUp", action: Action::PageUp, help: "page up", scope: Scope::Overlay(OverlayKind::Help) },
    Binding { keys: &[code(KeyCode::PageDown), key(' ')], label: "PgDn", action: Action::PageDown, help: "page down", scope: Scope::Overlay(OverlayKind::Help) },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "previous flag", scope: Scope::Overlay(OverlayKind::Flags) },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "next flag", scope: Scope::Overlay(OverlayKind::Flags) },
    Binding { keys: &[code(KeyCode::Enter), key(' ')], label: "Enter", action: Action::Toggle, help: "toggle (from the next gate)", scope: Scope::Overlay(OverlayKind::Flags) },
    Binding { keys: &[code(KeyCode::Esc), key('f'), key('q')], label: "Esc", action: Action::Close, help: "close", scope: Scope::Overlay(OverlayKind::Flags) },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "previous", scope: PICKER },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "next", scope: PICKER },
    Binding { keys: &[code(KeyCode::PageUp)], label: "PgUp", action: Action::PageUp, help: "page up", scope: PICKER },
    Binding { keys: &[code(KeyCode::PageDown)], label: "PgDn", action: Action::PageDown, help: "page down", scope: PICKER },
    Binding { keys: &[key('g'), code(KeyCode::Home)], label: "g", action: Action::Top, help: "first", scope: PICKER },
    Binding { keys: &[key('G'), code(KeyCode::End)], label: "G", action: Action::Bottom, help: "last", scope: PICKER },
    Binding { keys: &[key('/')], label: "/", action: Action::Search, help: "filter", scope: PICKER },
    Binding { keys: &[key('o')], label: "o", action: Action::Sort, help: "sort", scope: PICKER },
    Binding { keys: &[key('v')], label: "v", action: Action::Show, help: "scenarios/failed", scope: PICKER },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Confirm, help: "launch", scope: PICKER },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "clear filter, close", scope: PICKER },
    Binding { keys: &[key('q')], label: "q", action: Action::Quit, help: "quit", scope: PICKER },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "scroll", scope: DETAILS },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "scroll", scope: DETAILS },
    Binding { keys: &[code(KeyCode::PageUp)], label: "PgUp", action: Action::PageUp, help: "page up", scope: DETAILS },
    Binding { keys: &[code(KeyCode::PageDown), key(' ')], label: "PgDn", action: Action::PageDown, help: "page down", scope: DETAILS },
    Binding { keys: &[key('g'), code(KeyCode::Home)], label: "g", action: Action::Top, help: "top", scope: DETAILS },
    Binding { keys: &[key('G'), code(KeyCode::End)], label: "G", action: Action::Bottom, help: "end", scope: DETAILS },
    Binding { keys: &[key('/')], label: "/", action: Action::Search, help: "search", scope: DETAILS },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "clear search, close", scope: DETAILS },
    Binding { keys: &[code(KeyCode::Enter), key('q')], label: "Enter", action: Action::Confirm, help: "close", scope: DETAILS },
    Binding { keys: &[ctrl('s')], label: "C-s", action: Action::Confirm, help: "save (next launch/restart)", scope: Scope::Overlay(OverlayKind::Goal) },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "cancel", scope: Scope::Overlay(OverlayKind::Goal) },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Confirm, help: "apply filter", scope: Scope::Overlay(OverlayKind::Filter) },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Confirm, help: "jump", scope: Scope::Overlay(OverlayKind::Jump) },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "cancel", scope: Scope::Overlay(OverlayKind::Jump) },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Confirm, help: "done", scope: SEARCH },
    Binding { keys: &[code(KeyCode::Tab), code(KeyCode::Down)], label: "Tab/↓", action: Action::Down, help: "next match", scope: SEARCH },
    Binding { keys: &[code(KeyCode::BackTab), Key { code: KeyCode::BackTab, mods: KeyModifiers::SHIFT }, code(KeyCode::Up)], label: "S-Tab/↑", action: Action::Up, help: "previous match", scope: SEARCH },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "clear", scope: SEARCH },
    Binding { keys: &[key('y'), ctrl('c')], label: "y", action: Action::Confirm, help: "quit: live runs are cancelled", scope: Scope::Overlay(OverlayKind::Quit) },
    Binding { keys: &[], label: "any other key", action: Action::Close, help: "stay", scope: Scope::Overlay(OverlayKind::Quit) },
    Binding { keys: &[key('y'), key('Y')], label: "y", action: Action::Confirm, help: "stop it: SIGINT to its process group, then SIGTERM and SIGKILL after its grace", scope: Scope::Overlay(OverlayKind::StopProgram) },
    Binding { keys: &[], label: "any other key", action: Action::Close, help: "keep it running", scope: Scope::Overlay(OverlayKind::StopProgram) },
    Binding { keys: &[key('y'), key('Y')], label: "y", action: Action::Confirm, help: "allow and run (remembered while the file and its programs stay as they are)", scope: Scope::Overlay(OverlayKind::Trust) },
    Binding { keys: &[code(KeyCode::Esc), key('n')], label: "any other key", action: Action::Close, help: "cancel: run nothing", scope: Scope::Overlay(OverlayKind::Trust) },
    Binding { keys: &[key(' ')], label: "space", action: Action::TogglePause, help: "play/pause", scope: Scope::Replay },
    Binding { keys: &[key('s'), key('.')], label: "s/.", action: Action::Step, help: "step one gate", scope: Scope::Replay },
    Binding { keys: &[key(',')], label: ",", action: Action::StepBack, help: "step back", scope: Scope::Replay },
    Binding { keys: &[key('<')], label: "<", action: Action::Start, help: "start", scope: Scope::Replay },
    Binding { keys: &[key('>')], label: ">", action: Action::End, help: "end", scope: Scope::Replay },
    Binding { keys: &[key(':')], label: ":", action: Action::Jump, help: "jump to round N", scope: Scope::Replay },
    Binding { keys: &[key('+'), key('=')], label: "+", action: Action::Faster, help: "faster", scope: Scope::Replay },
    Binding { keys: &[key('-')], label: "-", action: Action::Slower, help: "slower", scope: Scope::Replay },
    Binding { keys: &[key('r')], label: "r", action: Action::Restart, help: "replay from the start", scope: Scope::Replay },
    Binding { keys: &[key('x')], label: "x", action: Action::Fork, help: "fork at this gate (a launched program's run: at a model call)", scope: Scope::Replay },
    Binding { keys: &[code(KeyCode::Up), code(KeyCode::BackTab)], label: "↑", action: Action::Up, help: "previous row", scope: FORK },
    Binding { keys: &[code(KeyCode::Down), code(KeyCode::Tab)], label: "↓", action: Action::Down, help: "next row", scope: FORK },
    Binding { keys: &[], label: "←/→", action: Action::Toggle, help: "pick gate, answer", scope: FORK },
    Binding { keys: &[key(' ')], label: "space", action: Action::Toggle, help: "turn flag", scope: FORK },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Confirm, help: "fork", scope: FORK },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "cancel", scope: FORK },
    Binding { keys: &[], label: TYPING, action: Action::Confirm, help: "on the goal, model or edit row: type it (Backspace deletes, ←/→ move)", scope: FORK },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "clear filter", scope: Scope::Overlay(OverlayKind::Filter) },
    Binding { keys: &[key('p')], label: "p", action: Action::Pin, help: "pin run", scope: Scope::Everywhere },
    Binding { keys: &[key('c')], label: "c", action: Action::Compare, help: "compare with pinned", scope: Scope::Everywhere },
    Binding { keys: &[key('y')], label: "y", action: Action::Copy, help: "copy", scope: Scope::Everywhere },
    Binding { keys: &[key('w')], label: "w", action: Action::Write, help: "write file", scope: Scope::Everywhere },
    Binding { keys: &[key('d')], label: "d", action: Action::Decide, help: "answer the table's question", scope: Scope::Everywhere },
    Binding { keys: &[code(KeyCode::Up), code(KeyCode::BackTab)], label: "↑", action: Action::Up, help: "previous answer", scope: Scope::Overlay(OverlayKind::Decide) },
    Binding { keys: &[code(KeyCode::Down), code(KeyCode::Tab)], label: "↓", action: Action::Down, help: "next answer", scope: Scope::Overlay(OverlayKind::Decide) },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Confirm, help: "answer (with the note typed)", scope: Scope::Overlay(OverlayKind::Decide) },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "later: the run waits (d reopens)", scope: Scope::Overlay(OverlayKind::Decide) },
    Binding { keys: &[], label: TYPING, action: Action::Confirm, help: "a note to go with the answer (Backspace deletes)", scope: Scope::Overlay(OverlayKind::Decide) },
    Binding { keys: &[key('y')], label: "y", action: Action::Copy, help: "copy JSON", scope: Scope::Overlay(OverlayKind::Details) },
    Binding { keys: &[key('y')], label: "y", action: Action::Copy, help: "copy JSON", scope: COMPARE },
    Binding { keys: &[key('w')], label: "w", action: Action::Write, help: "write (.json or .md)", scope: COMPARE },
    Binding { keys: &[code(KeyCode::Esc), key('q'), key('c')], label: "Esc", action: Action::Close, help: "close", scope: COMPARE },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "scroll", scope: COMPARE },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "scroll", scope: COMPARE },
    Binding { keys: &[code(KeyCode::PageUp)], label: "PgUp", action: Action::PageUp, help: "page up", scope: COMPARE },
    Binding { keys: &[code(KeyCode::PageDown), key(' ')], label: "PgDn", action: Action::PageDown, help: "page down", scope: COMPARE },
    Binding { keys: &[key('g'), code(KeyCode::Home)], label: "g", action: Action::Top, help: "top", scope: COMPARE },
    Binding { keys: &[key('G'), Key { code: KeyCode::Char('G'), mods: KeyModifiers::SHIFT }, code(KeyCode::End)], label: "G", action: Action::Follow, help: "bottom", scope: COMPARE },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Confirm, help: "write (.md: Markdown, else JSON)", scope: Scope::Overlay(OverlayKind::Export) },
    Binding { keys: &[key('S')], label: "S", action: Action::Sweep, help: "sweep", scope: Scope::Everywhere },
    Binding { keys: &[key('E')], label: "E", action: Action::Attend, help: "jump to a run that needs attention", scope: Scope::Everywhere },
    Binding { keys: &[key('h'), code(KeyCode::Left)], label: "←/h", action: Action::Left, help: "previous chart", scope: SWEEP },
    Binding { keys: &[key('l'), code(KeyCode::Right)], label: "→/l", action: Action::Right, help: "next chart", scope: SWEEP },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "previous bar/run", scope: SWEEP },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "next bar/run", scope: SWEEP },
    Binding { keys: &[key('g'), code(KeyCode::Home)], label: "g", action: Action::Top, help: "first", scope: SWEEP },
    Binding { keys: &[key('G'), code(KeyCode::End)], label: "G", action: Action::Bottom, help: "last", scope: SWEEP },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Confirm, help: "list the bar's runs / replay the run", scope: SWEEP },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "back to the bars / to the runs (S returns)", scope: SWEEP },
    Binding { keys: &[key('q')], label: "q", action: Action::Quit, help: "quit", scope: SWEEP },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "cancel", scope: Scope::Overlay(OverlayKind::Export) },
];

impl Key {
    fn matches(&self, event: &KeyEvent) -> bool {
        if self.code != event.code {
            return false;
        }
        // Shift is part of the character for printable keys.
        let relevant = event.modifiers - KeyModifiers::SHIFT;
        let wanted = self.mods - KeyModifiers::SHIFT;
        relevant == wanted
    }
}

/// The action `event` asks for in `scope`, if any.
pub(crate) fn lookup(scope: Scope, event: &KeyEvent) -> Option<Action> {
    lookup_in(&[scope], event)
}

/// The action `event` asks for in the first of `scopes` that binds it.
pub(crate) fn lookup_in(scopes: &[Scope], event: &KeyEvent) -> Option<Action> {
    scopes.iter().find_map(|scope| {
        BINDINGS
            .iter()
            .find(|b| b.scope == *scope && b.keys.iter().any(|k| k.matches(event)))
            .map(|b| b.action)
    })
}

/// The bindings of one scope, in table order.
pub(crate) fn bindings(scope: Scope) -> impl Iterator<Item = &'static Binding> {
    BINDINGS.iter().filter(move |b| b.scope == scope)
}

/// The bindings of several scopes together, in table order.
pub(crate) fn bindings_in(scopes: &[Scope]) -> impl Iterator<Item = &'static Binding> + '_ {
    BINDINGS.iter().filter(|b| scopes.contains(&b.scope))
}
