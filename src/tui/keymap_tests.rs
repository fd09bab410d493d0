//! The key table's checks: scopes read a key each their own way, every
//! key of the design is bound, and no scope binds a key twice.

use super::keymap::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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
    assert_eq!(
        lookup(Scope::Everywhere, &press(KeyCode::Char('c'))),
        Some(Action::Compare),
        "a plain c is not Ctrl-C"
    );
}

#[test]
fn every_key_of_the_design_is_bound() {
    let everywhere: Vec<&str> = bindings(Scope::Everywhere).map(|b| b.label).collect();
    for label in [
        "?", "q", "n", "space", "s", "f", "e", "r", "Tab", "S-Tab", "1", "5",
    ] {
        assert!(everywhere.contains(&label), "{label}");
    }
    assert!(
        !everywhere.contains(&"6"),
        "no key is advertised for a timeline pane there is not"
    );
    let log: Vec<&str> = bindings(Scope::Pane(PaneId::Log))
        .map(|b| b.label)
        .collect();
    assert!(log.contains(&"/") && log.contains(&"G") && log.contains(&"Esc"));
    assert_eq!(PaneId::from_number(5), Some(PaneId::Resilience));
    assert_eq!(PaneId::from_number(6), None);
}

/// Every list and the details take the same moves, and a replay's
/// own keys, looked up before the panes', take none of them.
#[test]
fn lists_keep_their_moves_in_a_replay() {
    let moves = [
        (KeyCode::Char('g'), Action::Top),
        (KeyCode::Home, Action::Top),
        (KeyCode::End, Action::Bottom),
        (KeyCode::PageUp, Action::PageUp),
        (KeyCode::PageDown, Action::PageDown),
        (KeyCode::Char('/'), Action::Search),
    ];
    for scope in [
        Scope::Pane(PaneId::Pattern),
        Scope::Pane(PaneId::Resilience),
        Scope::Overlay(OverlayKind::Details),
        Scope::Overlay(OverlayKind::Picker),
    ] {
        for (code, action) in moves {
            assert_eq!(
                lookup(scope, &press(code)),
                Some(action),
                "{scope:?} {code:?}"
            );
        }
    }
    for scope in [
        Scope::Pane(PaneId::Pattern),
        Scope::Pane(PaneId::Resilience),
    ] {
        assert_eq!(
            lookup(scope, &press(KeyCode::Char('G'))),
            Some(Action::Follow)
        );
        assert_eq!(
            lookup(scope, &press(KeyCode::Char('F'))),
            Some(Action::Follow)
        );
        assert_eq!(lookup(scope, &press(KeyCode::Esc)), Some(Action::Close));
    }
    assert_eq!(
        lookup(Scope::Pane(PaneId::Log), &press(KeyCode::Esc)),
        Some(Action::Close),
        "Esc clears the log's filter"
    );
    let taken = [
        KeyCode::Char('g'),
        KeyCode::Char('G'),
        KeyCode::Home,
        KeyCode::End,
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::PageUp,
        KeyCode::PageDown,
        KeyCode::Char('/'),
        KeyCode::Esc,
    ];
    for code in taken {
        assert_eq!(lookup(Scope::Replay, &press(code)), None, "{code:?}");
    }
    assert_eq!(
        lookup(Scope::Replay, &press(KeyCode::Char(':'))),
        Some(Action::Jump)
    );
    assert_eq!(
        lookup(Scope::Replay, &press(KeyCode::Char('<'))),
        Some(Action::Start)
    );
    assert_eq!(
        lookup(Scope::Replay, &press(KeyCode::Char('>'))),
        Some(Action::End)
    );
    assert_eq!(
        lookup(Scope::Replay, &press(KeyCode::Char(','))),
        Some(Action::StepBack)
    );
}

/// No key means two things in one scope: the first row would hide the
/// second, and help would list a key that never does what it says.
#[test]
fn no_scope_binds_a_key_twice() {
    for (i, a) in BINDINGS.iter().enumerate() {
        for b in &BINDINGS[i + 1..] {
            if a.scope == b.scope {
                for key in a.keys {
                    assert!(
                        !b.keys.contains(key),
                        "{:?} binds {:?} to {} and {}",
                        a.scope,
                        key.code,
                        a.help,
                        b.help
                    );
                }
            }
        }
    }
}
