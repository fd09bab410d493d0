//! A watched run of ten agents, nine handoffs and 95 tool calls, recorded
//! by `conclave watch --headless` and opened in `conclave replay` through
//! the real binary in a pseudo-terminal, at 160x48 and at 80x24: every
//! pane of the run scrolls to its last row. The pattern pane's one list
//! shows every agent, handoff and tool call on the way down by pages and
//! ends with the span tree's last row at the pane's bottom, the row
//! before it above (by `PgDn`, `End` and `G`); the event log and the
//! result pane reach by pages the page `G` shows.

use crate::common;
use crate::watch_dashboard::{free_port, post, span_of, text};

use common::pty::Session;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const AGENTS: u64 = 10;
const PAGE_DOWN: &str = "\x1b[6~";
const END: &str = "\x1b[F";
const TITLE: &str = "Watched agents: agent_0, agent_1";

fn span(id: u64, parent: Option<u64>, name: &str, ms: (u64, u64), attrs: Vec<KeyValue>) -> Span {
    const TRACE: u128 = 0x7e57_0000_0000_0000_0000_0000_0000_0095;
    span_of(TRACE, id, parent, name, ms, attrs)
}

/// Tool calls of agent `a`: ten for the first five, nine for the rest.
fn tools(a: u64) -> u64 {
    if a < 5 { 10 } else { 9 }
}

/// A root, ten agents one after the other, each with its tool calls
/// (`tool call A-T`, the tool `lookup_A_T`) and, but the last, a handoff
/// to the next; children first, the root last.
fn spans() -> Vec<Span> {
    let mut spans = Vec::new();
    for a in 0..AGENTS {
        let agent = 100 + a;
        let at = a * 1000;
        for t in 1..=tools(a) {
            let start = at + 10 + t * 80;
            spans.push(span(
                1000 + a * 20 + t,
                Some(agent),
                &format!("tool call {a}-{t}"),
                (start, start + 50),
                vec![
                    text("gen_ai.operation.name", "execute_tool"),
                    text("gen_ai.tool.name", &format!("lookup_{a}_{t}")),
                ],
            ));
        }
        if a + 1 < AGENTS {
            spans.push(span(
                1000 + a * 20 + 19,
                Some(agent),
                "agent_handoff",
                (at + 880, at + 890),
                vec![
                    text("gen_ai.handoff.from_agent", &format!("agent_{a}")),
                    text("gen_ai.handoff.to_agent", &format!("agent_{}", a + 1)),
                ],
            ));
        }
        spans.push(span(
            agent,
            Some(1),
            &format!("invoke_agent agent_{a}"),
            (at, at + 900),
            vec![
                text("gen_ai.operation.name", "invoke_agent"),
                text("gen_ai.agent.name", &format!("agent_{a}")),
            ],
        ));
    }
    spans.push(span(1, None, "workflow", (0, AGENTS * 1000), Vec::new()));
    spans
}

/// The run recorded into `dir` by a headless watch that stops after it.
fn record(home: &Path, dir: &Path) -> PathBuf {
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let mut watch = Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(["watch", "--headless", "--runs", "1", "--no-grpc"])
        .args(["--listen", &listen, "--settle-ms", "200"])
        .args(["--record-dir", dir.to_str().unwrap()])
        .env("XDG_STATE_HOME", home)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let until = Instant::now() + common::pty::LIMIT;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < until, "the watch never listened");
        std::thread::sleep(Duration::from_millis(20));
    }
    for batch in spans().chunks(20) {
        post(port, batch.to_vec());
    }
    assert!(
        watch.wait().unwrap().success(),
        "the watch ended after its run"
    );
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

/// The rows inside the pane titled `title` (its frame found around the
/// title), as drawn.
fn pane(screen: &str, title: &str) -> Vec<String> {
    let grid: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let Some((top, at)) = grid.iter().enumerate().find_map(|(y, row)| {
        let line: String = row.iter().collect();
        let byte = line.find(title)?;
        Some((y, line[..byte].chars().count()))
    }) else {
        return Vec::new();
    };
    let corner = |y: usize, x: usize, c: char| grid[y].get(x) == Some(&c);
    let Some(left) = (0..at).rev().find(|x| corner(top, *x, '┌')) else {
        return Vec::new();
    };
    let Some(right) = (at..grid[top].len()).find(|x| corner(top, *x, '┐')) else {
        return Vec::new();
    };
    let Some(bottom) = (top + 1..grid.len()).find(|y| corner(*y, left, '└')) else {
        return Vec::new();
    };
    (top + 1..bottom)
        .map(|y| {
            grid[y]
                .get(left + 1..right)
                .unwrap_or_default()
                .iter()
                .collect()
        })
        .collect()
}

fn rows(session: &Session, title: &str) -> Vec<String> {
    pane(&session.text(), title)
}

/// Whether the pane's bottom row shows `last` with `before` above it.
fn at_bottom(rows: &[String], last: &str, before: &str) -> bool {
    let n = rows.len();
    n >= 2 && rows[n - 1].contains(last) && rows[n - 2].contains(before)
}

/// `PgDn` until the pane's bottom row shows `last` (a page at a time,
/// each press waited for), every row shown on the way kept.
fn pages_to(session: &mut Session, title: &str, last: &str) -> Vec<String> {
    let mut seen = Vec::new();
    for _ in 0..200 {
        let now = rows(session, title);
        seen.extend(now.iter().cloned());
        if now.last().is_some_and(|r| r.contains(last)) {
            return seen;
        }
        session.press(PAGE_DOWN);
        session.wait_for("the next page", |t| pane(t, title) != now);
    }
    panic!("{title}: {last} never at the bottom by pages");
}

fn the_pattern_pane_scrolls(session: &mut Session) {
    session.press("2");
    // From the top, a page at a time.
    session.press("g");
    session.wait_for("the pane from its first row", |t| {
        pane(t, TITLE)
            .first()
            .is_some_and(|r| r.contains("agent_0"))
    });
    let seen = pages_to(session, TITLE, "tool call 9-9");
    let shown = rows(session, TITLE);
    assert!(
        at_bottom(&shown, "tool call 9-9", "tool call 9-8"),
        "{}",
        session.text()
    );
    let seen: BTreeSet<String> = seen.into_iter().collect();
    let all = seen.iter().cloned().collect::<Vec<_>>().join("\n");
    for a in 0..AGENTS {
        let tally = format!("1 turn · {} tool calls", tools(a));
        assert!(
            seen.iter()
                .any(|r| r.contains(&format!("agent_{a} ")) && r.contains(&tally)),
            "agent {a}:\n{all}"
        );
        for t in 1..=tools(a) {
            let call = format!("called lookup_{a}_{t}");
            assert!(all.contains(&call), "{call}:\n{all}");
        }
        if a + 1 < AGENTS {
            let handoff = format!("agent_{a} ─→ agent_{}", a + 1);
            assert!(all.contains(&handoff), "{handoff}:\n{all}");
        }
    }
    assert!(all.contains("Span tree · 115 spans"), "{all}");
    // End and G: the same last page.
    for last in [END, "G"] {
        session.press("g");
        session.wait_for("the pane from its first row", |t| {
            pane(t, TITLE)
                .first()
                .is_some_and(|r| r.contains("agent_0"))
        });
        session.press(last);
        session.wait_for("the last row at the bottom", |t| {
            at_bottom(&pane(t, TITLE), "tool call 9-9", "tool call 9-8")
        });
    }
}

/// The event log and the result pane reach by pages the page `G` shows.
fn the_log_and_the_result_scroll(session: &mut Session) {
    let panes = [
        ("3", "Event log", "#1 ", "run_finished"),
        ("4", "Result", "WATCHED", "spans       115"),
    ];
    for (key, title, first, last) in panes {
        session.press(key);
        session.press("G");
        // The last row shown (the result pane, taller than its rows at
        // 160x48, leaves rows empty under it).
        session.wait_for("the pane's end", |t| {
            let rows = pane(t, title);
            let shown = rows.iter().rev().find(|r| !r.trim().is_empty());
            shown.is_some_and(|r| r.contains(last))
        });
        let end = rows(session, title);
        session.press("g");
        session.wait_for("the pane's top", |t| {
            pane(t, title).first().is_some_and(|r| r.contains(first))
        });
        for _ in 0..200 {
            let now = rows(session, title);
            if now == end {
                break;
            }
            session.press(PAGE_DOWN);
            session.wait_for("the next page", |t| pane(t, title) != now);
        }
        assert_eq!(rows(session, title), end, "{title}: {}", session.text());
    }
}

fn every_pane_scrolls_at(size: (u16, u16)) {
    let home = tempfile::tempdir().unwrap();
    let file = record(home.path(), &home.path().join("watched"));
    let mut replay =
        Session::start_sized(&["replay", file.to_str().unwrap()], home.path(), &[], size);
    replay.wait_text("REPLAY");
    replay.press(">");
    replay.wait_text("stop: success");
    the_pattern_pane_scrolls(&mut replay);
    the_log_and_the_result_scroll(&mut replay);
    replay.press("q");
    assert!(replay.wait_exit().success());
}

#[test]
fn every_pane_of_a_recorded_watched_run_scrolls_to_its_last_row_at_160_by_48() {
    every_pane_scrolls_at((160, 48));
}

#[test]
fn every_pane_of_a_recorded_watched_run_scrolls_to_its_last_row_at_80_by_24() {
    every_pane_scrolls_at((80, 24));
}
