//! `conclave attach` to a run whose events carry garbage, against a real
//! nats-server: escape sequences, bytes that are not UTF-8, a 900 kB
//! delta, a kind no engine publishes and another run's escalation, put on
//! the run's subject beside a real engine's events. Each costs only
//! itself: the run goes on showing its engine's events, `q` quits and
//! SIGTERM ends the dashboard with the terminal given back. A publisher
//! that forges the engine's message ids gets its events shown, but cannot
//! take the keys: its repeated question leaves `q` and Ctrl-C to quit.

use crate::common;

use common::nats::NatsServer;
use common::pty::Session;
use conclave::nats::watch::{Listing, Watcher};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Far above what any step takes, so that a loaded machine passes too.
const DEADLINE: Duration = Duration::from_secs(60);

fn slow_deadlock() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/slow_deadlock.json")
}

/// A dashboard engine publishing its run to `url`, held at its first gate
/// (so that it stays live for as long as the test needs).
fn held_engine(url: &str, state: &Path) -> Session {
    let scenario = slow_deadlock();
    let engine = Session::start(
        &[
            "run",
            scenario.to_str().unwrap(),
            "--nats",
            url,
            "--no-record",
            "--paused",
        ],
        state,
    );
    engine.wait_text("PAUSED BEFORE ROUND 1");
    engine
}

/// What a hostile or broken publisher puts on run `run`'s subject.
fn garbage(run: u32) -> Vec<Vec<u8>> {
    let text = |value: serde_json::Value| value.to_string().into_bytes();
    let mut non_utf8 =
        format!(r#"{{"run":{run},"seq":1004,"t_ms":5,"type":"call_delta","call":9001,"text":""#)
            .into_bytes();
    non_utf8.extend_from_slice(b"\xff\xfe\xc3\x28\"}");
    vec![
        text(serde_json::json!({
            "run": run, "seq": 1000, "t_ms": 5, "type": "call_started", "call": 9001,
            "tool": "model", "attempt": 1, "agent": "demand_analyst",
            "label": "\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}[2J\u{1b}[?1049l\u{1b}[?25l round 1",
        })),
        text(serde_json::json!({
            "run": run, "seq": 1001, "t_ms": 5, "type": "call_delta", "call": 9001,
            "text": "x".repeat(900_000),
        })),
        text(serde_json::json!({
            "run": run + 41, "seq": 1002, "t_ms": 5, "type": "escalated_to_human",
            "round": 1, "blocking_rounds": 3,
        })),
        text(serde_json::json!({
            "run": run, "seq": 1003, "t_ms": 5, "type": "launch_the_missiles",
        })),
        non_utf8,
        b"[1, 2, 3]".to_vec(),
    ]
}

/// What goes on a run's subject: `(payload, Some(seq))` carries the
/// message id the run's engine gives its event `seq`, as a publisher that
/// knows the scheme (a lying one) would put it.
type Message = (Vec<u8>, Option<u64>);

/// Put `messages(run)` on the subject of the one live run at `url`.
fn publish(url: &str, messages: impl FnOnce(u32) -> Vec<Message>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let watcher = Watcher::connect(url).await.expect("connects");
        let start = Instant::now();
        let id = loop {
            let live = watcher.live_runs(&mut Listing::default()).await.unwrap();
            if let Some(run) = live.first() {
                break run.id.clone();
            }
            assert!(
                start.elapsed() < DEADLINE,
                "the engine's run is never listed"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let nats = conclave::nats::connect(url).await.expect("connects");
        let subject = format!("conclave.events.{}.{}", id.engine, id.run);
        for (payload, seq) in messages(id.run) {
            let mut headers = async_nats::HeaderMap::new();
            if let Some(seq) = seq {
                let message_id = format!("{}/{}/{seq}", id.engine, id.run);
                headers.insert(async_nats::header::NATS_MESSAGE_ID, message_id.as_str());
            }
            nats.js
                .publish_with_headers(subject.clone(), headers, payload.into())
                .await
                .expect("published")
                .await
                .expect("stored");
        }
    });
}

/// Put [`garbage`] on the subject of the one live run at `url`.
fn publish_garbage(url: &str) {
    publish(url, |run| {
        garbage(run)
            .into_iter()
            .map(|payload| (payload, None))
            .collect()
    });
}

/// Events of run `run` from `seq` on, with its engine's message ids: the
/// table's question, a 900 kB delta of words, lines and escapes, and a
/// call whose label marks that they arrived.
fn forged(run: u32, seq: u64, marker: &str) -> Vec<Message> {
    let words: String = (0..90_000)
        .map(|i| match i % 50 {
            0 => "\n".to_string(),
            25 => "\u{1b}[2J\u{1b}]52;c;cHduZWQ=\u{7} ".to_string(),
            _ => format!("word{i} "),
        })
        .collect();
    let events = [
        serde_json::json!({
            "run": run, "seq": seq, "t_ms": 5, "type": "escalated_to_human",
            "round": 1, "blocking_rounds": 3,
        }),
        serde_json::json!({
            "run": run, "seq": seq + 1, "t_ms": 5, "type": "call_started", "call": seq,
            "tool": "model", "attempt": 1, "agent": "demand_analyst", "label": marker,
        }),
        serde_json::json!({
            "run": run, "seq": seq + 2, "t_ms": 5, "type": "call_delta", "call": seq,
            "text": &words[..words.len().min(900_000)],
        }),
    ];
    events
        .iter()
        .zip(seq..)
        .map(|(event, seq)| (event.to_string().into_bytes(), Some(seq)))
        .collect()
}

/// `conclave attach` in a terminal, showing the engine's run.
fn attached(url: &str, state: &Path) -> Session {
    let mut attach = Session::start(&["attach", "--nats", url], state);
    attach.wait_text("Attach: pick a live run of any engine");
    attach.wait_text("Slow deadlock: a table that takes its time");
    attach.press("\r");
    attach.wait_text("· collaboration · seed");
    attach
}

/// `q` ends attach with success and the terminal given back.
fn quit_with_q(attach: &mut Session) {
    attach.press("q");
    let status = attach.wait_exit();
    assert!(status.success(), "{status:?}");
    assert_restored(attach);
}

/// The terminal was given back: main screen, cursor shown.
fn assert_restored(session: &Session) {
    let screen = session.screen.lock().unwrap();
    assert!(
        !screen.screen().alternate_screen(),
        "left the alternate screen"
    );
    assert!(!screen.screen().hide_cursor(), "cursor shown");
    let raw = String::from_utf8_lossy(&session.raw.lock().unwrap()).into_owned();
    assert!(raw.rfind("\x1b[?1049l") > raw.rfind("\x1b[?1049h"));
}

#[test]
fn attach_to_a_run_with_garbage_events_shows_the_rest_and_quits_on_q_and_sigterm() {
    let server = NatsServer::start();
    let url = server.url();
    let state = tempfile::tempdir().unwrap();
    let mut engine = held_engine(&url, state.path());
    publish_garbage(&url);

    let mut attach = attached(&url, state.path());
    attach.wait_text("PAUSED BEFORE ROUND 1");
    attach.wait_text("6 messages on the attached run's subject skipped");
    // The run's own events after the garbage still come: resumed from
    // here, the engine's run moves on, and the attached view with it.
    attach.press(" ");
    attach.wait_for("the run goes on past the garbage", |shown| {
        !shown.contains("PAUSED BEFORE ROUND")
    });
    // Held again, so that it is live for the next dashboard.
    attach.press(" ");
    attach.wait_text("PAUSED BEFORE ROUND");
    let shown = attach.text();
    let raw = String::from_utf8_lossy(&attach.raw.lock().unwrap()).into_owned();
    assert!(
        !raw.contains("\x1b]52;c;cHduZWQ="),
        "no escape reached the terminal"
    );
    assert!(
        !shown.contains("asks a person") && !shown.contains("ESCALATED"),
        "another run's escalation is not this run's:\n{shown}"
    );
    quit_with_q(&mut attach);

    let mut attach = attached(&url, state.path());
    let pid = attach.child.process_id().expect("a pid") as libc::pid_t;
    // SAFETY: a signal to the dashboard this test started.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let status = attach.wait_exit();
    assert_eq!(status.exit_code(), 128 + 15, "{status:?}");
    assert_restored(&attach);
    let _ = engine.child.kill();
}

/// A publisher that knows the run's message ids puts the table's question
/// on its subject, again and again: the dialog it opens takes text, so `q`
/// there is a letter. Closed, it stays closed when asked again, and `q`
/// quits; open, Ctrl-C quits.
#[test]
fn a_question_put_on_the_subject_again_and_again_leaves_q_and_ctrl_c_to_quit() {
    let server = NatsServer::start();
    let url = server.url();
    let state = tempfile::tempdir().unwrap();
    let mut engine = held_engine(&url, state.path());
    publish(&url, |run| forged(run, 5000, "forged first"));

    let mut attach = attached(&url, state.path());
    attach.wait_text("The table asks you");
    attach.press("\u{1b}");
    attach.wait_for("the dialog closed", |t| !t.contains("The table asks you"));
    publish(&url, |run| forged(run, 5010, "forged again"));
    attach.wait_text("forged again");
    let shown = attach.text();
    assert!(
        !shown.contains("The table asks you"),
        "a question closed stays closed:\n{shown}"
    );
    // The engine's own next events are numbered below the forged ones:
    // attach reads them as repeats and skips them, as
    // docs/sweeps_and_nats.md says.
    assert!(!shown.contains("subject skipped"), "{shown}");
    engine.press(" ");
    attach.wait_text("on the attached run's subject skipped");
    quit_with_q(&mut attach);

    let mut attach = attached(&url, state.path());
    attach.wait_text("The table asks you");
    attach.press("\u{3}");
    let status = attach.wait_exit();
    assert!(status.success(), "{status:?}");
    assert_restored(&attach);
    let raw = String::from_utf8_lossy(&attach.raw.lock().unwrap()).into_owned();
    assert!(
        !raw.contains("\x1b]52;c;cHduZWQ="),
        "no escape reached the terminal"
    );
    let _ = engine.child.kill();
}
