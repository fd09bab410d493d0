//! Replays read from their files, as the loop reads them for the app: a
//! replay moved from its file equals one held whole, a file changed under
//! it stops it with the reason, and the app's moves and playback of such a
//! replay are effects the loop carries out, never reads of its own.

use crate::record::Recording;
use crate::tui::app::tests::press;
use crate::tui::app::{App, AppOptions};
use crate::tui::effect::{Done, Effect};
use crate::tui::replay::tests::recording;
use crate::tui::replay::{Replay, Speed, Want};
use crate::tui::state::RunState;
use crossterm::event::KeyCode;

/// The recording as its file, one event a line.
fn written(recording: &Recording) -> tempfile::NamedTempFile {
    use std::io::Write;
    let mut file = tempfile::NamedTempFile::new().unwrap();
    for event in &recording.events {
        serde_json::to_writer(&mut file, &**event).unwrap();
        file.write_all(b"\n").unwrap();
    }
    file.flush().unwrap();
    file
}

#[test]
fn a_replay_read_again_from_its_file_moves_as_one_held_whole() {
    let recording = recording(5);
    let file = written(&recording);
    let (mut held, held_start) = Replay::open(recording).unwrap();
    let (mut filed, filed_start) = Replay::open_file(file.path()).unwrap().unwrap();
    assert_eq!(filed_start, held_start);
    assert_eq!(filed.units, held.units);
    assert_eq!(filed.len(), held.len());
    assert_eq!(filed.note, held.note);
    let end = held.len();
    for position in [9000, 1, 4097, 12_000, 2, 3001, 0, end, 5, end - 1] {
        assert_eq!(filed.seek(position), held.seek(position), "at {position}");
        assert_eq!(filed.seq(), held.seq(), "at {position}");
    }
    held.seek(1);
    filed.seek(1);
    for step in 0..7 {
        assert_eq!(filed.step_forward(), held.step_forward(), "step {step}");
        assert_eq!(filed.seq(), held.seq());
    }
    for step in 0..3 {
        assert_eq!(filed.step_back(), held.step_back(), "back {step}");
    }
    let (mut a, mut b) = (held.seek(1), filed.seek(1));
    for replay in [&mut held, &mut filed] {
        replay.playing = true;
        replay.speed = Speed::X10;
    }
    for tick in 0..20 {
        serve(&mut filed);
        let moved = (held.tick(100.0, &mut a), filed.tick(100.0, &mut b));
        assert_eq!(moved.0, moved.1, "tick {tick}");
        assert_eq!(
            (filed.position(), filed.seq()),
            (held.position(), held.seq())
        );
        assert_eq!(b, a, "tick {tick}");
    }
    assert!(filed.at_end() && !filed.playing);
}

#[test]
fn a_file_changed_under_a_replay_stops_it_where_it_could_go_and_says_why() {
    let recording = recording(2);
    let file = written(&recording);
    let (mut replay, _) = Replay::open_file(file.path()).unwrap().unwrap();
    replay.playing = true;
    file.as_file().set_len(0).unwrap();
    let state = replay.seek(5000);
    assert_eq!(replay.position(), 1, "the first event is held");
    assert_eq!(state, RunState::from_events(1, &recording.events[..1]));
    assert!(!replay.playing);
    let note = replay.note.clone().unwrap_or_default();
    assert!(note.contains("changed after it was opened"), "{note}");
}

/// Read what `replay` asks of the loop, as the loop does, and hand it
/// back.
fn serve(replay: &mut Replay) {
    while let Some(want) = replay.wants() {
        match want {
            Want::ReadAhead(seeker, from, count) => {
                let read = seeker.read_ahead(from, count).map_err(|e| e.to_string());
                replay.read_ahead(from, read);
            }
            Want::Seek(seeker, position) => {
                replay.arrive(seeker.seek(position));
            }
        }
    }
}

/// A replay of a file moves by asking the loop: a step is a fold the
/// update only asks for (the screen says it waits), and the state shows
/// once the fold comes back; Esc lets a slow one go.
#[test]
fn a_step_in_a_replay_read_from_its_file_is_an_effect_and_its_state_comes_back() {
    let recording = recording(3);
    let file = written(&recording);
    let mut app = App::new(AppOptions::default());
    crate::tui::world::open_replay(&mut app, file.path()).unwrap();
    let before = app.run().unwrap().state.clone();

    let effects = press(&mut app, KeyCode::Char('s'));
    let [Effect::Seek { position, .. }] = effects.as_slice() else {
        panic!("a step asks the loop to fold: {effects:?}");
    };
    let (mut held, _) = Replay::open(recording.clone()).unwrap();
    let stepped = held.step_forward();
    assert_eq!(*position, held.position());
    assert_eq!(
        app.run().unwrap().state,
        before,
        "nothing folded in the update"
    );
    let waiting = app.waiting_line().unwrap_or_default();
    assert!(
        waiting.contains("reading the recording to event"),
        "{waiting}"
    );

    crate::tui::world::settle(&mut app, effects);
    assert_eq!(app.run().unwrap().state, stepped, "the fold came back");
    assert_eq!(
        app.run().unwrap().replay.as_ref().unwrap().seq(),
        held.seq()
    );
    assert!(app.waiting_line().is_none());

    // Esc stops waiting: the fold that comes back later is let go.
    let effects = press(&mut app, KeyCode::Char('>'));
    assert!(matches!(effects.as_slice(), [Effect::Seek { .. }]));
    assert!(press(&mut app, KeyCode::Esc).is_empty());
    assert!(app.waiting_line().is_none());
    crate::tui::world::settle(&mut app, effects);
    assert_eq!(app.run().unwrap().state, stepped, "stays where it was");
}

/// Playback of a file's replay applies what the loop read ahead, and
/// waits (its clock too) while nothing is read yet.
#[test]
fn playback_of_a_replay_read_from_its_file_plays_what_the_loop_reads_ahead() {
    let recording = recording(1);
    let file = written(&recording);
    let mut app = App::new(AppOptions::default());
    crate::tui::world::open_replay(&mut app, file.path()).unwrap();
    let effects = press(&mut app, KeyCode::Char(' '));
    let [Effect::ReadAhead { from: 1, .. }] = effects.as_slice() else {
        panic!("playing asks for the events ahead: {effects:?}");
    };
    assert!(!app.tick(1000.0), "nothing read ahead yet: it waits");
    assert!(app.take_queued().is_empty(), "asked once");
    crate::tui::world::settle(&mut app, effects);

    let (mut held, mut state) = Replay::open(recording).unwrap();
    held.playing = true;
    for _ in 0..3 {
        assert!(app.tick(100.0));
        assert!(held.tick(100.0, &mut state));
        let slot = app.run().unwrap();
        let replay = slot.replay.as_ref().unwrap();
        assert_eq!(
            (replay.position(), replay.seq()),
            (held.position(), held.seq())
        );
        assert_eq!(slot.state, state);
    }
    assert_eq!(held.speed, Speed::X1);
    assert!(app.run().unwrap().replay.as_ref().unwrap().playing);
    let _: &RunState = &state;
    let _ = Done::Scanned(Vec::new());
}
