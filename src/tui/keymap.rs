//! The key table: every key the dashboard answers, declared once with its
//! scope and its words. Input handling looks keys up here, and the footer
//! and the help overlay are drawn from the same table, so help is never out
//! of date.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a key asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Quit,
    Help,
    NewRun,
    TogglePause,
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
    Follow,
    Details,
    Filter,
    Close,
    Toggle,
    Confirm,
    StepBack,
    Start,
    End,
    Jump,
    Faster,
    Slower,
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
}

/// The panes a run's screen is made of, numbered as the `1`-`6` keys jump.
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
}

/// The patterns whose pane adds keys of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitKeys {
    /// Collaboration: across rounds.
    RoundTable,
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
    /// The confirmation before a scenario runs programs.
    Trust,
}

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
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::NONE,
    }
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

#[rustfmt::skip]
pub(crate) const BINDINGS: &[Binding] = &[
    Binding { keys: &[key('?')], label: "?", action: Action::Help, help: "help", scope: Scope::Everywhere },
    Binding { keys: &[key('q'), ctrl('c')], label: "q", action: Action::Quit, help: "quit", scope: Scope::Everywhere },
    Binding { keys: &[key('n')], label: "n", action: Action::NewRun, help: "new run", scope: Scope::Everywhere },
    Binding { keys: &[key(' ')], label: "space", action: Action::TogglePause, help: "pause/resume", scope: Scope::Everywhere },
    Binding { keys: &[key('s')], label: "s", action: Action::Step, help: "step one gate", scope: Scope::Everywhere },
    Binding { keys: &[key('f')], label: "f", action: Action::Flags, help: "flags", scope: Scope::Everywhere },
    Binding { keys: &[key('e')], label: "e", action: Action::EditGoal, help: "edit goal", scope: Scope::Everywhere },
    Binding { keys: &[key('r')], label: "r", action: Action::Restart, help: "restart run", scope: Scope::Everywhere },
    Binding { keys: &[code(KeyCode::Tab)], label: "Tab", action: Action::FocusNext, help: "next pane", scope: Scope::Everywhere },
    Binding { keys: &[code(KeyCode::BackTab), Key { code: KeyCode::BackTab, mods: KeyModifiers::SHIFT }], label: "S-Tab", action: Action::FocusPrev, help: "previous pane", scope: Scope::Everywhere },
    Binding { keys: &[key('1')], label: "1", action: Action::Focus(1), help: "runs", scope: Scope::Everywhere },
    Binding { keys: &[key('2')], label: "2", action: Action::Focus(2), help: "pattern pane", scope: Scope::Everywhere },
    Binding { keys: &[key('3')], label: "3", action: Action::Focus(3), help: "event log", scope: Scope::Everywhere },
    Binding { keys: &[key('4')], label: "4", action: Action::Focus(4), help: "result", scope: Scope::Everywhere },
    Binding { keys: &[key('5')], label: "5", action: Action::Focus(5), help: "resilience pane", scope: Scope::Everywhere },
    Binding { keys: &[key('6')], label: "6", action: Action::Focus(6), help: "timeline pane", scope: Scope::Everywhere },
    Binding { keys: &[key('[')], label: "[", action: Action::PrevRun, help: "previous run", scope: Scope::Everywhere },
    Binding { keys: &[key(']')], label: "]", action: Action::NextRun, help: "next run", scope: Scope::Everywhere },
    Binding { keys: &[key('h'), code(KeyCode::Left), key('k'), code(KeyCode::Up)], label: "←/k", action: Action::Left, help: "previous run", scope: Scope::Pane(PaneId::Runs) },
    Binding { keys: &[key('l'), code(KeyCode::Right), key('j'), code(KeyCode::Down)], label: "→/j", action: Action::Right, help: "next run", scope: Scope::Pane(PaneId::Runs) },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "up", scope: Scope::Pane(TABLE) },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "down", scope: Scope::Pane(TABLE) },
    Binding { keys: &[key('h'), code(KeyCode::Left)], label: "h/←", action: Action::Left, help: "prev round", scope: ROUNDS },
    Binding { keys: &[key('l'), code(KeyCode::Right)], label: "l/→", action: Action::Right, help: "next round", scope: ROUNDS },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Details, help: "JSON", scope: Scope::Pane(TABLE) },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "scroll up", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "scroll down", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[code(KeyCode::PageUp)], label: "PgUp", action: Action::PageUp, help: "page up", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[code(KeyCode::PageDown)], label: "PgDn", action: Action::PageDown, help: "page down", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[key('g'), code(KeyCode::Home)], label: "g", action: Action::Top, help: "oldest", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[key('G'), Key { code: KeyCode::Char('G'), mods: KeyModifiers::SHIFT }, code(KeyCode::End)], label: "G", action: Action::Follow, help: "follow newest", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[key('/')], label: "/", action: Action::Filter, help: "filter", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Details, help: "event JSON", scope: Scope::Pane(PaneId::Log) },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "scroll up", scope: Scope::Pane(PaneId::Result) },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "scroll down", scope: Scope::Pane(PaneId::Result) },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Details, help: "result JSON", scope: Scope::Pane(PaneId::Result) },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "previous tool", scope: Scope::Pane(PaneId::Resilience) },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "next tool", scope: Scope::Pane(PaneId::Resilience) },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Details, help: "tool JSON", scope: Scope::Pane(PaneId::Resilience) },
    Binding { keys: &[code(KeyCode::Esc), key('q'), key('?')], label: "Esc", action: Action::Close, help: "close", scope: Scope::Overlay(OverlayKind::Help) },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "scroll", scope: Scope::Overlay(OverlayKind::Help) },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "scroll", scope: Scope::Overlay(OverlayKind::Help) },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "previous flag", scope: Scope::Overlay(OverlayKind::Flags) },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "next flag", scope: Scope::Overlay(OverlayKind::Flags) },
    Binding { keys: &[code(KeyCode::Enter), key(' ')], label: "Enter", action: Action::Toggle, help: "toggle (from the next gate)", scope: Scope::Overlay(OverlayKind::Flags) },
    Binding { keys: &[code(KeyCode::Esc), key('f'), key('q')], label: "Esc", action: Action::Close, help: "close", scope: Scope::Overlay(OverlayKind::Flags) },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "previous", scope: Scope::Overlay(OverlayKind::Picker) },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "next", scope: Scope::Overlay(OverlayKind::Picker) },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Confirm, help: "launch", scope: Scope::Overlay(OverlayKind::Picker) },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "close", scope: Scope::Overlay(OverlayKind::Picker) },
    Binding { keys: &[key('q')], label: "q", action: Action::Quit, help: "quit", scope: Scope::Overlay(OverlayKind::Picker) },
    Binding { keys: &[key('k'), code(KeyCode::Up)], label: "k/↑", action: Action::Up, help: "scroll", scope: Scope::Overlay(OverlayKind::Details) },
    Binding { keys: &[key('j'), code(KeyCode::Down)], label: "j/↓", action: Action::Down, help: "scroll", scope: Scope::Overlay(OverlayKind::Details) },
    Binding { keys: &[code(KeyCode::Esc), code(KeyCode::Enter), key('q')], label: "Esc", action: Action::Close, help: "close", scope: Scope::Overlay(OverlayKind::Details) },
    Binding { keys: &[ctrl('s')], label: "C-s", action: Action::Confirm, help: "save (next launch/restart)", scope: Scope::Overlay(OverlayKind::Goal) },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "cancel", scope: Scope::Overlay(OverlayKind::Goal) },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Confirm, help: "apply filter", scope: Scope::Overlay(OverlayKind::Filter) },
    Binding { keys: &[code(KeyCode::Enter)], label: "Enter", action: Action::Confirm, help: "jump", scope: Scope::Overlay(OverlayKind::Jump) },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "cancel", scope: Scope::Overlay(OverlayKind::Jump) },
    Binding { keys: &[key('y'), key('Y')], label: "y", action: Action::Confirm, help: "allow and run (remembered for this exact file)", scope: Scope::Overlay(OverlayKind::Trust) },
    Binding { keys: &[code(KeyCode::Esc), key('n')], label: "any other key", action: Action::Close, help: "cancel: run nothing", scope: Scope::Overlay(OverlayKind::Trust) },
    Binding { keys: &[key(' ')], label: "space", action: Action::TogglePause, help: "play/pause", scope: Scope::Replay },
    Binding { keys: &[key('s'), code(KeyCode::Right)], label: "s/→", action: Action::Step, help: "step one gate", scope: Scope::Replay },
    Binding { keys: &[code(KeyCode::Left)], label: "←", action: Action::StepBack, help: "step back", scope: Scope::Replay },
    Binding { keys: &[code(KeyCode::Home)], label: "Home", action: Action::Start, help: "start", scope: Scope::Replay },
    Binding { keys: &[code(KeyCode::End)], label: "End", action: Action::End, help: "end", scope: Scope::Replay },
    Binding { keys: &[key('g')], label: "g", action: Action::Jump, help: "jump to round N", scope: Scope::Replay },
    Binding { keys: &[key('+'), key('=')], label: "+", action: Action::Faster, help: "faster", scope: Scope::Replay },
    Binding { keys: &[key('-')], label: "-", action: Action::Slower, help: "slower", scope: Scope::Replay },
    Binding { keys: &[key('r')], label: "r", action: Action::Restart, help: "replay from the start", scope: Scope::Replay },
    Binding { keys: &[code(KeyCode::Esc)], label: "Esc", action: Action::Close, help: "clear filter", scope: Scope::Overlay(OverlayKind::Filter) },
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

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn scopes_resolve_the_same_key_differently() {
        assert_eq!(
            lookup(Scope::Pane(PaneId::Pattern), &press(KeyCode::Char('j'))),
            Some(Action::Down)
        );
        assert_eq!(
            lookup(Scope::Pane(PaneId::Runs), &press(KeyCode::Char('j'))),
            Some(Action::Right)
        );
        assert_eq!(
            lookup(Scope::Everywhere, &press(KeyCode::Char(' '))),
            Some(Action::TogglePause)
        );
        assert_eq!(
            lookup(
                Scope::Overlay(OverlayKind::Flags),
                &press(KeyCode::Char(' '))
            ),
            Some(Action::Toggle)
        );
        assert_eq!(
            lookup(
                Scope::Everywhere,
                &KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)
            ),
            Some(Action::Quit)
        );
        assert_eq!(lookup(Scope::Everywhere, &press(KeyCode::Char('c'))), None);
    }

    #[test]
    fn every_key_of_the_design_is_bound() {
        let everywhere: Vec<&str> = bindings(Scope::Everywhere).map(|b| b.label).collect();
        for label in [
            "?", "q", "n", "space", "s", "f", "e", "r", "Tab", "S-Tab", "1", "6",
        ] {
            assert!(everywhere.contains(&label), "{label}");
        }
        let log: Vec<&str> = bindings(Scope::Pane(PaneId::Log))
            .map(|b| b.label)
            .collect();
        assert!(log.contains(&"/") && log.contains(&"G"));
        assert_eq!(PaneId::from_number(5), Some(PaneId::Resilience));
        assert_eq!(PaneId::from_number(6), None, "no timeline pane yet");
    }
}
