//! Steering a watched run from the dashboard, through the real binary in
//! a pseudo-terminal and a real hook (`conclave_steer`, driven line by
//! line by tests/fixtures/steer/screen_hook.py), with the keys a run of
//! Conclave's takes: the run's tab comes with its hook's first call;
//! space pauses it at its next gate and the header says where it waits;
//! `s` lets exactly one gate pass; `f` toggles a flag
//! the hook then reads; a tool call's approval opens a dialog showing the
//! agent, the tool and its arguments whole, approved with Enter and
//! approved with its arguments edited (the hook receives those), rejected
//! with a reason typed, approved for the rest of the run (the next call
//! passes at once); `b` sets a breakpoint that holds the run before its
//! named gate; space runs on; `x`, a reason typed and Enter stop the
//! run, which its hook learns as `Stopped` at its next call.
//! Each decision is a line of the run's event log.

use crate::common;
use crate::watch_dashboard::free_port;

use common::pty::Session;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

const TRACE: &str = "5ee7000000000000000000000000c0de";

/// The hook's process: a line in, JSON lines out.
struct Hook {
    child: Child,
    stdin: ChildStdin,
    out: Receiver<Value>,
}

impl Hook {
    fn start(port: u16) -> Hook {
        let root = env!("CARGO_MANIFEST_DIR");
        let mut child = Command::new("python3")
            .arg(format!("{root}/tests/fixtures/steer/screen_hook.py"))
            .arg(TRACE)
            .env("PYTHONPATH", format!("{root}/hooks/python"))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("CONCLAVE_STEER_URL", format!("http://127.0.0.1:{port}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the hook");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, out) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let value = serde_json::from_str(&line).unwrap_or(Value::String(line));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        Hook { child, stdin, out }
    }

    fn send(&mut self, what: &str) {
        writeln!(self.stdin, "{what}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn next(&self) -> Value {
        match self.out.recv_timeout(Duration::from_secs(60)) {
            Ok(value) => value,
            Err(RecvTimeoutError::Timeout) => panic!("the hook said nothing"),
            Err(RecvTimeoutError::Disconnected) => panic!("the hook ended"),
        }
    }

    /// Nothing said so far (what it is doing is held by the watch).
    fn quiet(&self) {
        if let Ok(value) = self.out.try_recv() {
            panic!("the hook went on while held: {value}");
        }
    }
}

impl Drop for Hook {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_steered_run_is_paused_stepped_flagged_approved_and_stopped_from_the_screen() {
    let home = tempfile::tempdir().unwrap();
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let args = ["watch", "--listen", &listen, "--no-grpc"];
    let mut screen = Session::start_sized(&args, home.path(), &[], (160, 48));
    screen.wait_text("Waiting for the first span");
    let mut hook = Hook::start(port);

    // The hook's first call opens the run's tab, before any span.
    hook.send("flag");
    assert_eq!(hook.next()["legal_analyst"], true);
    screen.wait_text("▶ steered · 0 gates · space pauses");
    screen.wait_text("1 ▶ watch_");
    // The hook's keys are offered: the stop among them.
    screen.wait_text("x stop the run (asks first)");

    // space: paused; the next gate is held and the header says where.
    screen.press(" ");
    screen.wait_text("⏸ PAUSED: holds at its next gate");
    hook.send("gate");
    screen.wait_text("⏸ PAUSED at tool lookup_invoice · Billing Agent");
    hook.quiet();
    // s: exactly one gate passes, and the next is held again.
    screen.press("s");
    assert_eq!(hook.next()["gate"], 1);
    screen.wait_text("⏸ PAUSED: holds at its next gate");
    hook.send("gate");
    screen.wait_text("⏸ PAUSED at tool lookup_invoice");
    hook.quiet();
    screen.press("s");
    assert_eq!(hook.next()["gate"], 2);

    // f: the flag toggled; the hook reads it off.
    screen.press("f");
    screen.wait_text("[x] legal_analyst");
    screen.press("\r");
    screen.wait_text("[ ] legal_analyst");
    screen.press("\x1b");
    screen.wait_for("the flags closed", |t| !t.contains("Flags of this run"));
    hook.send("flag");
    assert_eq!(hook.next()["legal_analyst"], false);

    // An approval: the dialog shows the agent, the tool, the arguments whole.
    hook.send("approve");
    screen.wait_text("Approve this tool call?");
    let shown = screen.text();
    for part in [
        "Billing Agent",
        "refund_invoice",
        "\"invoice\": \"INV-7\"",
        "\"amount\": 120.5",
        "\"note\": \"customer was charged twice\"",
    ] {
        assert!(shown.contains(part), "{part} not shown:\n{shown}");
    }
    hook.quiet();
    screen.press("\r");
    let approved = hook.next();
    assert_eq!(approved["approved"], true, "{approved}");
    screen.wait_for("the dialog closed", |t| {
        !t.contains("Approve this tool call?")
    });
    // Approved with the arguments edited: the tool receives those.
    hook.send("approve");
    screen.wait_text("Approve this tool call?");
    // Tab: the next answer (one byte, where an arrow's escape sequence
    // may reach the screen in two reads).
    screen.press("\t\t");
    screen.wait_for("edit chosen", |t| {
        t.contains("▶ approve with the arguments")
    });
    screen.press(r#"{"invoice": "INV-7", "amount": 60}"#);
    screen.wait_text(r#""amount": 60}"#);
    screen.press("\r");
    let edited = hook.next();
    assert_eq!(edited["approved"], true, "{edited}");
    assert_eq!(edited["edited"], true, "{edited}");
    assert_eq!(
        edited["arguments"],
        serde_json::json!({"invoice": "INV-7", "amount": 60})
    );
    screen.wait_for("the dialog closed", |t| {
        !t.contains("Approve this tool call?")
    });
    // Rejected, with the reason typed.
    hook.send("approve");
    screen.wait_text("Approve this tool call?");
    screen.press("\t\t\t");
    screen.wait_for("reject chosen", |t| t.contains("▶ reject"));
    screen.press("too large for a refund");
    screen.wait_text("too large for a refund");
    screen.press("\r");
    let rejected = hook.next();
    assert_eq!(rejected["approved"], false, "{rejected}");
    assert_eq!(rejected["reason"], "too large for a refund");
    assert_eq!(rejected["by"], "person");
    screen.wait_for("the dialog closed", |t| {
        !t.contains("Approve this tool call?")
    });
    // Approved for the rest of the run: its next call passes at once.
    hook.send("approve");
    screen.wait_text("Approve this tool call?");
    screen.press("\t");
    screen.wait_for("for the run chosen", |t| {
        t.contains("▶ approve this tool for the rest of the run")
    });
    screen.press("\r");
    assert_eq!(hook.next()["approved"], true);
    screen.wait_for("the dialog closed", |t| {
        !t.contains("Approve this tool call?")
    });
    hook.send("approve");
    let standing = hook.next();
    assert_eq!(standing["approved"], true, "{standing}");
    assert_eq!(standing["edited"], false, "{standing}");

    // b: a breakpoint before lookup_invoice, the gate the run is at
    // offered; space runs on, and the next such gate holds it again.
    screen.press("b");
    screen.wait_text("Breakpoints");
    screen.press("lookup_invoice");
    screen.wait_text("lookup_invoice▏");
    screen.press("\r");
    screen.wait_for("the breakpoints closed", |t| !t.contains("Breakpoints"));
    screen.press(" ");
    screen.wait_text("▶ steered");
    hook.send("gate");
    screen.wait_text("⏸ PAUSED at tool lookup_invoice");
    hook.quiet();
    // space: runs on; the held gate passes.
    screen.press(" ");
    assert_eq!(hook.next()["gate"], 3);
    screen.wait_text("▶ steered");

    // The decisions are lines of the run's event log: its first ones at
    // its top, its newest at its bottom.
    screen.press("3");
    screen.press("g");
    for said in [
        "steered flags declared: legal_analyst on",
        "steered paused",
        "steered held at tool lookup_invoice · Billing Agent",
        "steered stepped 1 gate(s)",
    ] {
        screen.wait_text(said);
    }
    screen.press("G");
    for said in [
        "steered flag legal_analyst off",
        "steered approved refund_invoice (by a person)",
        "steered approved refund_invoice (by a person) with arguments",
        "steered rejected refund_invoice (by a person)",
        "steered approved refund_invoice (by a person, for the rest of the run)",
        "steered paused at the breakpoint lookup_invoice",
        "steered ran on",
    ] {
        screen.wait_text(said);
    }

    // x, a reason typed, Enter: stopped; the hook learns it at its next call.
    screen.press("x");
    screen.wait_text("Stop this run?");
    screen.press("loops on refunds");
    screen.wait_text("loops on refunds");
    screen.press("\r");
    let said = "stopped by a person: loops on refunds";
    screen.wait_text(&format!("⏹ stopped: {said}"));
    // An approval always asks (a gate may still be inside its lease).
    hook.send("approve");
    assert_eq!(hook.next()["stopped"], said);
    screen.press("q");
    assert!(screen.wait_exit().success());
}
