//! The real binary in a pseudo-terminal, read through a terminal emulator:
//! what a person at the keyboard sees. The dashboard runs on the real clock,
//! so each step waits for what should appear on screen (never a fixed
//! sleep), with a generous limit.

use crate::common;

use common::pty::{Frames, Session, recordings};
use serde_json::Value;

/// The row of the round table that starts with `role`.
fn row_of<'a>(text: &'a str, role: &str) -> Option<&'a str> {
    text.lines()
        .find(|line| line.trim_start_matches('│').starts_with(role))
}

#[test]
fn the_screen_under_test_never_shows_half_a_frame() {
    let mut frames = Frames::default();
    assert_eq!(frames.take(b"\x1b[?1049h"), b"\x1b[?1049h", "not a frame");
    // A frame's beginning cut in two, then half a frame: nothing shows.
    assert_eq!(frames.take(b"A\x1b[?20"), b"A");
    assert_eq!(frames.take(b"26hhalf"), b"");
    // The end lets the whole frame through, and what follows it up to the
    // next frame.
    assert_eq!(
        frames.take(b" whole\x1b[?2026lB\x1b[?2026hnext"),
        b"\x1b[?2026hhalf whole\x1b[?2026lB"
    );
    assert_eq!(frames.pending, b"\x1b[?2026hnext");
}

#[test]
fn launch_pause_step_toggle_a_flag_and_quit() {
    let home = tempfile::tempdir().unwrap();
    let mut session = Session::start(
        &["tui", "scenarios/checkout_v2_launch.json", "--paused"],
        home.path(),
    );

    session.wait_text("PAUSED BEFORE ROUND 1");
    session.wait_text("demand_analyst");

    // Step one gate: round 1 runs, risk blocks, the run waits before round 2.
    session.press("s");
    session.wait_text("PAUSED BEFORE ROUND 2");
    let text = session.text();
    assert!(
        row_of(&text, "risk_analyst").is_some_and(|r| r.contains("block")),
        "{text}"
    );
    assert!(
        row_of(&text, "demand_analyst").is_some_and(|r| r.contains("go")),
        "{text}"
    );
    assert!(
        row_of(&text, "legal_analyst").is_none(),
        "legal is not at the table yet:\n{text}"
    );

    // Turn legal_analyst on in the flags overlay.
    session.press("f");
    session.wait_text("Enter/space toggles");
    session.press("\r");
    session.wait_for("the flag to be on", |t| t.contains("legal_analyst ● on"));
    session.press("\x1b");
    session.wait_for("the overlay to close", |t| {
        !t.contains("Enter/space toggles")
    });

    // Resume: legal speaks in round 2 and the team decides.
    session.press(" ");
    session.wait_text("FINISHED");
    let text = session.text();
    let legal = row_of(&text, "legal_analyst").unwrap_or_else(|| panic!("legal joined:\n{text}"));
    assert!(legal.contains("caution"), "{legal}");
    assert!(text.contains("GO WITH CAUTION"), "{text}");

    session.press("q");
    let status = session.wait_exit();
    assert!(status.success(), "{status:?}");

    // The terminal is given back: main screen, cursor shown, mouse released.
    let screen = session.screen.lock().unwrap();
    assert!(
        !screen.screen().alternate_screen(),
        "left the alternate screen"
    );
    assert!(!screen.screen().hide_cursor(), "cursor shown");
    let raw = String::from_utf8_lossy(&session.raw.lock().unwrap()).into_owned();
    assert!(raw.rfind("\x1b[?1049l") > raw.rfind("\x1b[?1049h"));
    assert!(raw.contains("\x1b[?1000l"), "mouse capture released");
    // Every frame is one synchronized update, and none is left open.
    assert!(raw.contains("\x1b[?2026h"), "frames are synchronized");
    assert_eq!(
        raw.matches("\x1b[?2026h").count() + 1,
        raw.matches("\x1b[?2026l").count(),
        "each frame ends, and the way out ends one more"
    );
    drop(screen);

    // The recording is complete: every seq, the flag change, legal in round
    // 2, the finish.
    let files = recordings(home.path());
    assert_eq!(files.len(), 1, "{files:?}");
    let events: Vec<Value> = std::fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (i, event) in events.iter().enumerate() {
        assert_eq!(event["seq"], i as u64 + 1);
    }
    assert!(
        events.iter().any(|e| e["type"] == "flag_changed"
            && e["name"] == "legal_analyst"
            && e["on"] == true)
    );
    assert!(events.iter().any(|e| {
        e["type"] == "round_started"
            && e["round"] == 2
            && e["speakers"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s == "legal_analyst")
    }));
    let last = events.last().unwrap();
    assert_eq!(last["type"], "run_finished");
    assert_eq!(last["result"]["final_decision"], "go_with_caution");
}

#[test]
fn model_text_cannot_steer_the_terminal() {
    let home = tempfile::tempdir().unwrap();
    let mut scenario: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scenarios/checkout_v2_launch.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let hostile = "Fine\u{1b}]52;c;cHduZWQ=\u{07} plan\u{1b}]0;pwned\u{07}\u{1b}[2J\u{9b}31m ok";
    for round in scenario["provider"]["responses"]["demand_analyst"]
        .as_array_mut()
        .unwrap()
    {
        round["summary"] = Value::from(hostile);
        round["actions"][0] = Value::from(hostile);
    }
    scenario["title"] = Value::from("Hostile\u{1b}]0;title\u{07} text");
    let file = home.path().join("hostile.json");
    std::fs::write(&file, scenario.to_string()).unwrap();

    let mut session = Session::start(&["tui", file.to_str().unwrap(), "--no-record"], home.path());
    session.wait_text("FINISHED");
    session.press("q");
    assert!(session.wait_exit().success());
    let raw = String::from_utf8_lossy(&session.raw.lock().unwrap()).into_owned();
    assert!(
        !raw.contains("\x1b]52"),
        "no clipboard write reached the terminal"
    );
    assert!(
        !raw.contains("\x1b]0;"),
        "no title change reached the terminal"
    );
    assert!(
        !raw.contains('\u{9b}'),
        "no 8-bit control sequence reached the terminal"
    );
    assert!(
        recordings(home.path()).is_empty(),
        "--no-record records nothing"
    );
}

#[test]
fn signals_restore_the_terminal_keep_the_recording_and_exit_128_plus_the_signal() {
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        signal_ends_cleanly(signal);
    }
}

fn signal_ends_cleanly(signal: libc::c_int) {
    let home = tempfile::tempdir().unwrap();
    let mut session = Session::start(
        &["tui", "scenarios/checkout_v2_launch.json", "--paused"],
        home.path(),
    );
    session.wait_text("PAUSED BEFORE ROUND 1");
    let pid = session.child.process_id().expect("a pid");
    // SAFETY: sending a signal to the child this test started.
    unsafe {
        libc::kill(pid as libc::pid_t, signal);
    }
    let status = session.wait_exit();
    assert_eq!(
        (status.signal(), status.exit_code()),
        (None, 128 + signal as u32),
        "the dashboard handles the signal and exits as a shell expects"
    );
    let screen = session.screen.lock().unwrap();
    assert!(!screen.screen().alternate_screen());
    assert!(!screen.screen().hide_cursor());
    drop(screen);
    let files = recordings(home.path());
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events[0]["type"], "run_started");
    assert_eq!(
        events.last().unwrap()["type"],
        "run_finished",
        "the cancelled run is closed"
    );
    assert_eq!(events.last().unwrap()["stop_reason"], "cancelled");
}

#[test]
fn a_swarm_steps_turn_by_turn_and_its_chain_grows_on_screen() {
    let home = tempfile::tempdir().unwrap();
    let mut session = Session::start(
        &["tui", "scenarios/support_swarm.json", "--paused"],
        home.path(),
    );
    session.wait_text("PAUSED BEFORE TURN 1 (TRIAGE)");
    session.wait_text("Swarm chain · handoffs 0/6");

    // One step: triage's turn hands the ticket to billing.
    session.press("s");
    session.wait_text("PAUSED BEFORE TURN 2 (BILLING)");
    session.wait_text("triage ─→ billing accepted");
    let text = session.text();
    assert!(text.contains("triage → "), "{text}");
    assert!(text.contains("billing holds control"), "{text}");

    // Resume: billing hands over to refunds, which replies.
    session.press(" ");
    session.wait_text("refunds replied after 2 turns");
    let text = session.text();
    assert!(text.contains("ANSWERED BY refunds"), "{text}");
    assert!(text.contains("handoffs 2/6"), "{text}");

    session.press("q");
    assert!(session.wait_exit().success());
}

#[test]
fn a_list_is_searched_with_slash_and_q_asks_while_a_run_is_live() {
    let home = tempfile::tempdir().unwrap();
    let mut session = Session::start(
        &["tui", "scenarios/vendor_outage.json", "--paused"],
        home.path(),
    );
    session.wait_text("PAUSED BEFORE");
    session.wait_text("us-enrich");

    // `/` searches the workers list: the selection moves to the first
    // match as it is typed (below the rows shown), Enter keeps it, and Enter opens that task.
    session.press("/jp-en");
    session.wait_text("Tab/↓ next match");
    session.press("\r");
    session.wait_text("G follows");
    session.press("\r");
    session.wait_text("\"task\": \"jp-enrich\"");
    // In the details, `/` searches too, and Esc clears, then closes.
    session.press("/worker");
    session.wait_text("match 1 of");
    session.press("\r\x1b");
    session.wait_for("the search to clear", |t| !t.contains("match 1 of"));
    session.press("\x1b");
    session.wait_for("the details to close", |t| {
        !t.contains("\"task\": \"jp-enrich\"")
    });

    // The run is live: q asks, any other key stays, y quits.
    session.press("q");
    session.wait_text("y quits");
    session.press("x");
    session.wait_text("not quitting");
    session.press("q");
    session.wait_text("y quits");
    session.press("y");
    let status = session.wait_exit();
    assert!(status.success(), "{status:?}");
    let files = recordings(home.path());
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(
        text.lines()
            .last()
            .unwrap()
            .contains("\"stop_reason\":\"cancelled\""),
        "quitting cancelled the run and closed its recording"
    );
}

/// What an operator does most with a list: zoom it to the whole screen,
/// find a row by typing, and copy that row's JSON to the clipboard
/// (through the terminal, as OSC 52, so it works over ssh too).
#[test]
fn zoom_a_list_search_it_and_copy_the_found_item() {
    use base64::Engine;
    let home = tempfile::tempdir().unwrap();
    let mut session = Session::start(
        &[
            "tui",
            "scenarios/vendor_outage.json",
            "--paused",
            "--no-record",
        ],
        home.path(),
    );
    session.wait_text("PAUSED BEFORE");
    session.wait_text("us-enrich");

    session.press("z");
    session.wait_for("the workers list alone on screen", |t| {
        t.contains("[2] Workers") && !t.contains("[3] Event log") && !t.contains("[4] Result")
    });

    session.press("/jp-en");
    session.wait_text("Tab/↓ next match");
    session.press("\r");
    session.wait_text("G follows");
    assert!(
        !session.text().contains("[3] Event log"),
        "the search keeps the zoom"
    );

    session.press("y");
    session.wait_text("copied ");
    let raw = String::from_utf8_lossy(&session.raw.lock().unwrap()).into_owned();
    let start = raw.find("\u{1b}]52;c;").expect("an OSC 52 sequence") + 7;
    let end = start + raw[start..].find('\u{07}').expect("the sequence ends");
    let copied = base64::engine::general_purpose::STANDARD
        .decode(&raw[start..end])
        .unwrap();
    let task: Value = serde_json::from_slice(&copied).expect("the task as JSON");
    assert_eq!(task["task"], "jp-enrich", "{task}");

    // z again brings the other panes back.
    session.press("z");
    session.wait_text("[3] Event log");
    session.press("q");
    session.wait_text("y quits");
    session.press("y");
    assert!(session.wait_exit().success());
}
