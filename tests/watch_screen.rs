//! The watch's screen through the real binary in a pseudo-terminal, with
//! ten watched runs, at 160x48 and at 80x24: the selected run's tab is
//! always in the bar and highlighted, with `run n of N`; every pane of a
//! run scrolls to its last row (`G`, and `PgDn` a page at a time, the
//! last row at the pane's bottom with the row before it above); `?` opens
//! help listing the watch's keys and none of the dashboard's that cannot
//! act on another process's run; the runs' recordings open in `conclave
//! replay` and `conclave compare` without `--headless`.

use crate::common;
use crate::watch_dashboard::{free_port, post, text};

use common::pty::Session;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use std::path::{Path, PathBuf};

const RUNS: u64 = 10;
const AGENTS: u64 = 10;
const TOOLS: u64 = 5;

fn span(trace: u64, id: u64, parent: Option<u64>, name: &str, ms: (u64, u64)) -> Span {
    let base = 1_700_000_000_000_000_000u64 + trace * 100_000_000_000;
    let trace_id =
        (0x7e57_0000_0000_0000_0000_0000_0000_0000u128 + u128::from(trace)).to_be_bytes();
    Span {
        trace_id: trace_id.to_vec(),
        span_id: id.to_be_bytes().to_vec(),
        parent_span_id: parent.map(|p| p.to_be_bytes().to_vec()).unwrap_or_default(),
        name: name.into(),
        start_time_unix_nano: base + ms.0 * 1_000_000,
        end_time_unix_nano: base + ms.1 * 1_000_000,
        ..Default::default()
    }
}

fn with(mut span: Span, attrs: Vec<KeyValue>) -> Span {
    span.attributes = attrs;
    span
}

/// Run `n`: a root `workflow n`, ten agents in a chain of graph nodes
/// (`agent_0` … `agent_9`), each with a model call and five tool calls
/// (`tool call A-T`, the tool `lookup_AT`); children first, the root last.
fn run(n: u64) -> Vec<Span> {
    let mut spans = Vec::new();
    for a in 0..AGENTS {
        let agent_id = 100 + a;
        let at = a * 1000;
        let call = |k: u64| 1000 + a * 10 + k;
        spans.push(with(
            span(
                n,
                call(0),
                Some(agent_id),
                "chat gpt-4o",
                (at + 10, at + 100),
            ),
            vec![
                text("gen_ai.operation.name", "chat"),
                text("gen_ai.request.model", "gpt-4o"),
            ],
        ));
        for t in 1..=TOOLS {
            let start = at + 100 + t * 100;
            spans.push(with(
                span(
                    n,
                    call(t),
                    Some(agent_id),
                    &format!("tool call {a}-{t}"),
                    (start, start + 50),
                ),
                vec![
                    text("gen_ai.operation.name", "execute_tool"),
                    text("gen_ai.tool.name", &format!("lookup_{a}{t}")),
                ],
            ));
        }
        let name = format!("agent_{a}");
        let mut attrs = vec![
            text("gen_ai.operation.name", "invoke_agent"),
            text("gen_ai.agent.name", &name),
            text("graph.node.id", &name),
        ];
        if a > 0 {
            attrs.push(text("graph.node.parent_id", &format!("agent_{}", a - 1)));
        }
        spans.push(with(
            span(n, agent_id, Some(1), &format!("agent {a}"), (at, at + 900)),
            attrs,
        ));
    }
    spans.push(span(
        n,
        1,
        None,
        &format!("workflow {n}"),
        (0, AGENTS * 1000),
    ));
    spans
}

/// A watch on a fresh port of a `(cols, rows)` terminal, recording into
/// `dir`, with the ten runs sent and settled.
fn watch_ten(home: &Path, dir: &Path, size: (u16, u16)) -> Session {
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let args = [
        "watch",
        "--listen",
        &listen,
        "--no-grpc",
        "--settle-ms",
        "300",
        "--record-dir",
        dir.to_str().unwrap(),
    ];
    let session = Session::start_sized(&args, home, &[], size);
    session.wait_text("waiting for the first span");
    for n in 1..=RUNS {
        post(port, run(n));
    }
    session.wait_text(&format!("run 1 of {RUNS}"));
    session.wait_for("every run recorded", |_| {
        recorded(dir).len() == RUNS as usize
    });
    session.wait_text("1 ✓ finished workflow 1");
    session
}

fn recorded(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

/// Every tab in turn: `run n of N`, its own tab shown and highlighted.
fn every_tab_is_shown_when_selected(session: &mut Session) {
    for n in 1..=RUNS {
        if n > 1 {
            session.press("]");
        }
        session.wait_text(&format!("run {n} of {RUNS}"));
        let tab = format!("{n} ✓ finished workflow {n}");
        session.wait_text(&tab);
        assert!(
            session.reversed(&tab),
            "tab {n} not highlighted:\n{}",
            session.text()
        );
    }
    // And back to the first.
    for _ in 1..RUNS {
        session.press("[");
    }
    session.wait_text(&format!("run 1 of {RUNS}"));
    assert!(
        session.reversed("1 ✓ finished workflow 1"),
        "{}",
        session.text()
    );
}

/// Each pane of the run on screen, focused by its number, to its last
/// row and back.
fn every_pane_scrolls_to_its_last_row(session: &mut Session) {
    // [1] the agents: the last tool call is the last row.
    session.press("1");
    session.wait_for("the last tool call off the pane", |t| {
        !t.contains("lookup_95")
    });
    session.press("G");
    session.wait_text("✓ lookup_95 · agent_9");
    assert!(session.text().contains("lookup_94"), "{}", session.text());
    session.press("g");
    session.wait_for("the agents from the top", |t| !t.contains("lookup_95"));
    page_down_to(
        session,
        |t| t.contains("lookup_95"),
        |t| t.contains("lookup_94"),
    );
    // [2] the graph: its last node.
    session.press("2");
    session.press("G");
    // Its boxes (`agent·agent_9`) or, in a small pane, its list (`agent_9 done`).
    let node = |t: &str, n: u64| {
        t.contains(&format!("agent·agent_{n}")) || t.contains(&format!("agent_{n} done"))
    };
    session.wait_for("the graph's last node", |t| node(t, 9));
    session.press("g");
    session.wait_for("the graph's first node", |t| node(t, 0) && !node(t, 9));
    // [3] the span tree: the last agent's last tool call is the last row.
    session.press("3");
    session.wait_for("the tree from the top", |t| !in_tree(t, "tool call 9-5"));
    session.press("G");
    session.wait_for("the tree's last row", |t| in_tree(t, "tool call 9-5"));
    assert!(
        in_tree(&session.text(), "tool call 9-4"),
        "{}",
        session.text()
    );
    session.press("g");
    session.wait_for("the tree from the top", |t| !in_tree(t, "tool call 9-5"));
    page_down_to(
        session,
        |t| in_tree(t, "tool call 9-5"),
        |t| in_tree(t, "tool call 9-4"),
    );
    // [4] the event log follows its newest line (the root, `[generic]`)
    // until scrolled up, and from `G` again.
    session.press("4");
    session.wait_text("[generic]");
    session.press("g");
    session.wait_for("the log from its first line", |t| !t.contains("[generic]"));
    page_down_to(
        session,
        |t| t.contains("[generic]"),
        |t| t.contains("tool call 9-5 [tool]"),
    );
    session.press("g");
    session.wait_for("the log from its first line", |t| !t.contains("[generic]"));
    session.press("G");
    session.wait_text("[generic]");
}

/// Whether a line of the span tree names `name` (the event log's lines
/// of the same spans say `[tool]`).
fn in_tree(screen: &str, name: &str) -> bool {
    screen
        .lines()
        .any(|l| l.contains(name) && !l.contains("[tool]"))
}

/// Press PgDn until the last row shows (a page at a time, never more
/// presses than there are rows), then the row before it shows with it:
/// the last row at the pane's bottom, not alone at its top.
fn page_down_to(session: &mut Session, last: impl Fn(&str) -> bool, before: impl Fn(&str) -> bool) {
    for _ in 0..80 {
        if last(&session.text()) {
            break;
        }
        session.press("\x1b[6~");
        std::thread::sleep(std::time::Duration::from_millis(30));
    }
    session.wait_for("the last row by pages", &last);
    assert!(before(&session.text()), "{}", session.text());
}

/// `?` lists the watch's keys, none it cannot act on; Esc closes it.
fn help_lists_the_keys_that_work(session: &mut Session) {
    session.press("?");
    session.wait_text("Help: watched runs");
    let help = session.text();
    for works in [
        "previous run",
        "next run",
        "next pane",
        "page down",
        "last row",
        "span tree",
        "event log",
    ] {
        assert!(help.contains(works), "{works} missing:\n{help}");
    }
    for idle in [
        "pause",
        "restart",
        "fork",
        "new run",
        "flags",
        "edit goal",
        "zoom",
    ] {
        assert!(!help.contains(idle), "{idle} offered:\n{help}");
    }
    session.press("\x1b");
    session.wait_for("help closed", |t| !t.contains("Help: watched runs"));
}

fn quit(session: &mut Session) {
    session.press("q");
    assert!(session.wait_exit().success());
}

fn ten_runs_at(size: (u16, u16)) {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("watched");
    let mut session = watch_ten(home.path(), &dir, size);
    every_tab_is_shown_when_selected(&mut session);
    every_pane_scrolls_to_its_last_row(&mut session);
    help_lists_the_keys_that_work(&mut session);
    let footer = session.text();
    assert!(footer.contains(&format!("in {RUNS} requests")), "{footer}");
    quit(&mut session);
    // The recordings open without --headless, in the dashboard's own
    // replay (with its timeline) and comparison.
    let files = recorded(&dir);
    let mut replay = Session::start_sized(
        &["replay", files[0].to_str().unwrap()],
        home.path(),
        &[],
        size,
    );
    replay.wait_text("REPLAY");
    replay.wait_text("seq 1/");
    // To the end: every span told, the run finished; the span tree only
    // a watched run has beside its chain; no fork of another framework's
    // run offered.
    replay.press(">");
    replay.wait_text("stop: success");
    replay.wait_text("Span tree · ");
    let shown = replay.text();
    assert!(!shown.contains("fork at this gate"), "{shown}");
    let header = shown.lines().next().unwrap_or_default();
    assert!(header.contains("watched · "), "{shown}");
    assert!(
        !header.contains("seed") && !header.contains("swarm"),
        "{shown}"
    );
    assert!(shown.contains("Watched agents: "), "{shown}");
    quit(&mut replay);
    let (a, b) = (files[0].to_str().unwrap(), files[1].to_str().unwrap());
    let mut compare = Session::start_sized(&["compare", a, b], home.path(), &[], size);
    compare.wait_text("Compare · A:");
    compare.wait_text("First divergence");
    compare.press("q");
    compare.wait_for("the comparison closed", |t| !t.contains("Compare · A:"));
    compare.wait_text("REPLAY");
    quit(&mut compare);
}

#[test]
fn ten_watched_runs_at_160_by_48() {
    ten_runs_at((160, 48));
}

#[test]
fn ten_watched_runs_at_80_by_24() {
    ten_runs_at((80, 24));
}
