//! Runs across machines, against a real nats-server on loopback: an engine
//! started with `--nats` publishes its events and answers control
//! requests; `conclave attach` (the dashboard in-process, fed from the
//! server as its loop feeds it) shows such a run from its first event and
//! holds it at a gate with its keys. Nothing here sleeps to wait: every
//! wait polls a condition against a deadline.

use crate::common;
use conclave::patterns::events::PatternEvent;

use common::nats::NatsServer;
use common::screen;
use conclave::bus::{Event, EventKind, GatePoint};
use conclave::nats::command::{Control, RemoteCommand};
use conclave::nats::watch::Watcher;
use conclave::patterns::events::RoundEvent;
use conclave::record::read_recording;
use conclave::stop::StopReason;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::remote::{RemoteFeed, RemoteSource};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// The longest any condition is waited for: far above what it takes, so
/// that a loaded machine passes too.
const DEADLINE: Duration = Duration::from_secs(60);
const WIDTH: u16 = 140;
const HEIGHT: u16 = 48;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// `conclave run SCENARIO --headless --nats URL ...` in a process of its
/// own, killed if the test ends first.
struct Engine {
    child: Child,
}

impl Engine {
    fn start(scenario: &Path, url: &str, extra: &[&str], state: &Path) -> Engine {
        let child = Command::new(env!("CARGO_BIN_EXE_conclave"))
            .arg("run")
            .arg(scenario)
            .args(["--headless", "--nats", url])
            .args(extra)
            .env("XDG_STATE_HOME", state)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the engine starts");
        Engine { child }
    }

    /// Its exit code, waited for at most `DEADLINE`.
    fn wait(&mut self) -> Option<i32> {
        let deadline = std::time::Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the engine did not end within {DEADLINE:?}"
            );
            // A real process: its end is polled, at a pace that does not
            // spin a core.
            std::thread::park_timeout(Duration::from_millis(20));
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The attach dashboard in-process: the app, fed from the server as the
/// loop of `conclave attach` feeds it.
struct Attached {
    app: App,
    world: conclave::tui::world::World,
    feed: mpsc::UnboundedReceiver<RemoteFeed>,
    watcher: Watcher,
    _listing: tokio::task::AbortHandle,
}

impl Attached {
    async fn new(url: &str) -> Attached {
        let watcher = Watcher::connect(url).await.expect("attach connects");
        let (tx, feed) = mpsc::unbounded_channel();
        let source = RemoteSource::new(watcher.clone(), tx);
        let listing = source.keep_listing();
        let mut world = crate::common::world(conclave::bus::Hub::new(16)).with_remote(source);
        let mut app = App::new(AppOptions {
            attach: true,
            ..AppOptions::default()
        });
        app.screen = ratatui::layout::Rect::new(0, 0, WIDTH, HEIGHT);
        let effects = app.key(key(KeyCode::Char('n')));
        crate::common::carry(&mut world, &mut app, effects);
        Attached {
            app,
            world,
            feed,
            watcher,
            _listing: listing,
        }
    }

    fn screen(&self) -> String {
        screen::of_app(&self.app, WIDTH, HEIGHT)
    }

    /// Take what arrives until `done` holds of the app.
    async fn until(&mut self, what: &str, done: impl Fn(&App, &str) -> bool) {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let shown = self.screen();
            if done(&self.app, &shown) {
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.feed.recv()).await {
                Ok(Some(feed)) => self.app.take_remote(feed),
                Ok(None) => panic!("{what}: the feed closed"),
                Err(_) => panic!("{what}: not within {DEADLINE:?}; the screen:\n{shown}"),
            }
        }
    }

    fn press(&mut self, code: KeyCode) {
        let effects = self.app.key(key(code));
        crate::common::carry(&mut self.world, &mut self.app, effects);
    }
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// The header's status badge, e.g. `PAUSED BEFORE ROUND 3`.
fn paused_badge(shown: &str) -> Option<String> {
    let at = shown.find("PAUSED BEFORE ")?;
    let rest = &shown[at..];
    let end = rest.find("  ").unwrap_or(rest.len());
    Some(rest[..end].trim().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attach_shows_another_processs_run_from_its_first_event_and_its_keys_hold_it_at_a_gate() {
    let server = NatsServer::start();
    let state = tempfile::tempdir().unwrap();
    let recording = state.path().join("run.jsonl");
    let mut engine = Engine::start(
        &fixture("slow_deadlock.json"),
        &server.url(),
        &["--clock", "real", "--record", recording.to_str().unwrap()],
        state.path(),
    );
    let mut attached = Attached::new(&server.url()).await;
    attached
        .until("the picker lists the run", |app, _| {
            app.catalog.iter().any(|e| e.origin.contains("over NATS"))
        })
        .await;
    let listed = attached.screen();
    assert!(
        listed.contains("Attach: pick a live run of any engine"),
        "{listed}"
    );
    assert!(
        listed.contains("Slow deadlock: a table that takes its time"),
        "{listed}"
    );

    // Enter attaches: the run's panes fill from its first event on.
    attached.press(KeyCode::Enter);
    attached
        .until("the run's first event is shown", |app, _| {
            app.run().is_some_and(|run| run.state.last_seq >= 1)
        })
        .await;
    let run = attached.app.run().expect("the attached run is selected");
    assert_eq!(
        run.state.last_seq, 1,
        "the run is shown from its first event"
    );
    let id = run.remote().expect("an attached run").clone();
    let first = attached.screen();
    assert!(
        first.contains("Slow deadlock: a table that takes its time"),
        "{first}"
    );
    assert!(
        first.contains("slow_deadlock (collaboration) seed 5"),
        "{first}"
    );
    assert!(
        first.contains(&id.to_string()),
        "the run list names it: {first}"
    );

    // space: the run holds at its next gate, and the screen says so.
    attached
        .until("a round is under way", |app, _| {
            app.run().is_some_and(|run| run.state.last_seq >= 3)
        })
        .await;
    attached.press(KeyCode::Char(' '));
    attached
        .until("the run pauses at a gate", |_, shown| {
            paused_badge(shown).is_some()
        })
        .await;
    let held_at = paused_badge(&attached.screen()).unwrap();

    // f, Enter: the flag goes to the engine, which applies it at its gate.
    attached.press(KeyCode::Char('f'));
    attached.press(KeyCode::Enter);
    attached.press(KeyCode::Esc);
    attached
        .until("the flag is on", |_, shown| {
            shown.contains("legal_analyst ● on")
        })
        .await;
    let flagged = attached.screen();
    assert_eq!(
        paused_badge(&flagged).as_deref(),
        Some(held_at.as_str()),
        "{flagged}"
    );

    // s: one gate passes, and the run holds at the next.
    attached.press(KeyCode::Char('s'));
    attached
        .until("the run holds at the next gate", |_, shown| {
            paused_badge(shown).is_some_and(|badge| badge != held_at)
        })
        .await;

    // The dashboard has no key that cancels another engine's run; any NATS
    // client can ask, the same way its keys do.
    attached
        .watcher
        .command(&id, &RemoteCommand::Control(Control::Cancel))
        .await
        .expect("the engine takes the cancel");
    attached
        .until("the run's end is shown", |_, shown| {
            shown.contains("STOPPED")
        })
        .await;
    assert_eq!(engine.wait(), Some(3), "a cancelled run exits 3");
    let shown_seq = attached.app.run().unwrap().state.last_seq;
    assert_eq!(attached.app.run().unwrap().state.missed, 0);

    // The run's own recording: held at a gate, nothing ran while held.
    let events = read_recording(&recording)
        .expect("the recording reads")
        .events;
    assert_eq!(
        events.last().unwrap().seq,
        shown_seq,
        "attach saw every event"
    );
    let at = |what: &dyn Fn(&Event) -> bool, from: usize| {
        from + events[from..]
            .iter()
            .position(|e| what(e))
            .unwrap_or_else(|| panic!("no such event after {from}"))
    };
    let paused = at(&|e| matches!(e.kind, EventKind::Paused { .. }), 0);
    let EventKind::Paused { gate: first_gate } = &events[paused].kind else {
        unreachable!()
    };
    let stepped = at(&|e| matches!(e.kind, EventKind::Stepped { .. }), paused);
    assert_eq!(
        events[stepped].kind,
        EventKind::Stepped {
            gate: first_gate.clone()
        }
    );
    let held: Vec<&EventKind> = events[paused + 1..stepped]
        .iter()
        .map(|e| &e.kind)
        .collect();
    assert_eq!(
        held,
        vec![&EventKind::FlagChanged {
            name: "legal_analyst".into(),
            on: true,
            gate: Some(first_gate.clone())
        }],
        "while held, only the flag changed, at the gate it was held at"
    );
    let GatePoint::Round { round } = first_gate else {
        panic!("a round table's gate: {first_gate:?}")
    };
    let next = events[stepped..]
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
                round,
                speakers,
            })) => Some((*round, speakers.clone())),
            _ => None,
        })
        .expect("the stepped round runs");
    assert_eq!(next.0, *round);
    assert!(
        next.1.contains(&"legal_analyst".to_string()),
        "the flag seated legal from that round: {:?}",
        next.1
    );
    let paused_again = at(&|e| matches!(e.kind, EventKind::Paused { .. }), stepped);
    assert_eq!(
        events[paused_again].kind,
        EventKind::Paused {
            gate: GatePoint::Round { round: round + 1 }
        }
    );
    assert!(
        events[paused_again + 1..].iter().all(|e| !matches!(
            e.kind,
            EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted { .. }))
        )),
        "no round after the second hold"
    );
    let EventKind::RunFinished { stop_reason, .. } = &events.last().unwrap().kind else {
        panic!("the recording ends with the run's finish")
    };
    assert_eq!(*stop_reason, StopReason::Cancelled);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_for_a_run_whose_engine_died_says_why_and_the_run_leaves_the_list() {
    let server = NatsServer::start();
    let state = tempfile::tempdir().unwrap();
    let mut engine = Engine::start(
        &fixture("slow_deadlock.json"),
        &server.url(),
        &["--clock", "real"],
        state.path(),
    );
    let mut attached = Attached::new(&server.url()).await;
    attached
        .until("the picker lists the run", |app, _| !app.catalog.is_empty())
        .await;
    attached.press(KeyCode::Enter);
    attached
        .until("the run is shown", |app, _| {
            app.run().is_some_and(|run| run.state.last_seq >= 1)
        })
        .await;
    // SIGKILL: no finish is ever published.
    engine.child.kill().unwrap();
    engine.child.wait().unwrap();

    attached.press(KeyCode::Char(' '));
    attached
        // The server may not have seen the engine go yet (a loaded
        // machine): then the request times out, which says why as well.
        .until("the footer says the engine does not answer", |_, shown| {
            shown.contains("its engine does not answer")
                || shown.contains("its engine did not answer in time")
        })
        .await;
    attached.press(KeyCode::Char('n'));
    attached
        .until("the dead run leaves the list", |app, shown| {
            app.catalog.is_empty() && shown.contains("No live run on the server yet")
        })
        .await;
}

#[test]
fn attach_in_a_terminal_pauses_a_dashboard_run_of_another_process() {
    use common::pty::Session;
    let server = NatsServer::start();
    let url = server.url();
    let state = tempfile::tempdir().unwrap();
    let scenario = fixture("slow_deadlock.json");
    let mut engine = Session::start(
        &[
            "run",
            scenario.to_str().unwrap(),
            "--nats",
            &url,
            "--no-record",
        ],
        state.path(),
    );
    engine.wait_text("Slow deadlock");
    let mut attach = Session::start(&["attach", "--nats", &url], state.path());
    attach.wait_text("Attach: pick a live run of any engine");
    attach.wait_text("Slow deadlock: a table that takes its time");
    attach.press("\r");
    attach.wait_text("slow_deadlock (collaboration) seed 5");
    attach.press(" ");
    attach.wait_for("the attached run pauses", |shown| {
        shown.contains("PAUSED BEFORE ROUND")
    });
    // The engine's own dashboard shows its run held by the remote key.
    engine.wait_for("the engine's run pauses", |shown| {
        shown.contains("PAUSED BEFORE ROUND")
    });
    // Quitting attach leaves the run alone: it is not this process's.
    attach.press("q");
    assert!(attach.wait_exit().success());
    engine.press(" ");
    engine.wait_for("the run goes on", |shown| {
        !shown.contains("PAUSED BEFORE ROUND")
    });
    engine.press("q");
    engine.wait_text("Quit?");
    engine.press("y");
    assert!(engine.wait_exit().success());
}
