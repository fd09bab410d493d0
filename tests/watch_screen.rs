//! `conclave watch` through the real binary in a pseudo-terminal, with
//! ten watched runs, at 160x48 and at 80x24: they are runs of the
//! dashboard, the selected run's tab always in its run list and
//! highlighted, with `n of N`; every pane of a run scrolls to its last
//! row (`G`, and `PgDn` a page at a time, the last row at the pane's
//! bottom with the row before it above); `?` opens help listing the keys
//! that act on a watched run and none that cannot; the footer has the
//! receiver's counts; the runs' recordings open in `conclave replay`
//! and `conclave compare` without `--headless`.

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
    session.wait_text("Waiting for the first span");
    for n in 1..=RUNS {
        post(port, run(n));
    }
    session.wait_text(&format!("1 of {RUNS}"));
    session.wait_for("every run recorded", |_| {
        recorded(dir).len() == RUNS as usize
    });
    session.wait_text("1 ✓ watch_support_bot · workflow 1");
    session
}

fn recorded(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

/// Every tab in turn: `n of N`, its own tab shown and highlighted.
fn every_tab_is_shown_when_selected(session: &mut Session) {
    for n in 1..=RUNS {
        if n > 1 {
            session.press("]");
        }
        session.wait_text(&format!("{n} of {RUNS}"));
        let tab = format!("{n} ✓ watch_support_bot · workflow {n}");
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
    session.wait_text(&format!("1 of {RUNS}"));
    assert!(
        session.reversed("1 ✓ watch_support_bot · workflow 1"),
        "{}",
        session.text()
    );
}

/// Whether a row of the span tree names `name` (the event log's lines of
/// the same spans say `span_arrived`).
fn in_tree(screen: &str, name: &str) -> bool {
    screen
        .lines()
        .any(|l| l.contains(name) && l.contains('─') && !l.contains("span_arrived"))
}

/// Each pane of the run on screen, focused by its number, to its last
/// row and back.
fn every_pane_scrolls_to_its_last_row(session: &mut Session) {
    // [2] the pattern pane: its one list (agents, handoffs, tool calls,
    // then the span tree) ends with the tree's last row at its bottom.
    session.press("2");
    session.press("\x1b[F");
    session.wait_for("the tree's last row", |t| in_tree(t, "tool call 9-5"));
    assert!(
        in_tree(&session.text(), "tool call 9-4"),
        "{}",
        session.text()
    );
    session.press("g");
    session.wait_for("the list from its top", |t| !in_tree(t, "tool call 9-5"));
    page_down_to(
        session,
        |t| in_tree(t, "tool call 9-5"),
        |t| in_tree(t, "tool call 9-4"),
    );
    // [3] the event log follows its newest line (the run's end) until
    // scrolled up, and from `G` again.
    session.press("3");
    session.wait_text("run_finished ok: success");
    session.press("g");
    session.wait_for("the log from its first line", |t| {
        t.contains("run_started") && !t.contains("run_finished")
    });
    page_down_to(
        session,
        |t| t.contains("run_finished ok: success"),
        |t| t.contains("tool_used turn 10"),
    );
    session.press("g");
    session.wait_for("the log from its first line", |t| {
        !t.contains("run_finished")
    });
    session.press("G");
    session.wait_text("run_finished ok: success");
    // [5] the tools: the last of 51 (the model and 50 tools) is the last
    // row (the event log names the tools too: a tool's row is its name
    // and its error rate).
    let row = |t: &str, tool: &str| t.contains(&format!(" {tool} err"));
    session.press("5");
    session.wait_for("the last tool off the pane", |t| !row(t, "lookup_95"));
    // End: the last tool (`G` follows the sick ones there).
    session.press("\x1b[F");
    session.wait_for("the last tool", |t| row(t, "lookup_95"));
    session.press("g");
    session.wait_for("the tools from the top", |t| !row(t, "lookup_95"));
    page_down_to(session, |t| row(t, "lookup_95"), |t| row(t, "lookup_94"));
    session.press("2");
}

/// Press PgDn until the last row shows (a page at a time, never more
/// presses than there are rows), then the row before it shows with it:
/// the last row at the pane's bottom, not alone at its top.
fn page_down_to(session: &mut Session, last: impl Fn(&str) -> bool, before: impl Fn(&str) -> bool) {
    for _ in 0..300 {
        if last(&session.text()) {
            break;
        }
        session.press("\x1b[6~");
        std::thread::sleep(std::time::Duration::from_millis(30));
    }
    session.wait_for("the last row by pages", &last);
    assert!(before(&session.text()), "{}", session.text());
}

/// `?` lists the keys that act on a watched run, none that cannot (the
/// help read whole, page by page); Esc closes it.
fn help_lists_the_keys_that_work(session: &mut Session) {
    session.press("?");
    session.wait_text("Keys");
    let mut help = session.text();
    for _ in 0..40 {
        if !session.text().contains("more lines below") {
            break;
        }
        session.press("\x1b[6~");
        std::thread::sleep(std::time::Duration::from_millis(50));
        help.push_str(&session.text());
    }
    for works in [
        "previous run",
        "next run",
        "next pane",
        "page down",
        "zoom pane",
        "new run",
        "event log",
        "pin run",
    ] {
        assert!(help.contains(works), "{works} missing:\n{help}");
    }
    for idle in [
        "pause/resume",
        "restart run",
        "fork at this gate",
        "Fork of a replay",
        "A person's answer",
        "Replay (before",
        "Goal editor",
        "edit goal",
        "flags",
        "step one gate",
        "stop the run",
        "unavailable",
    ] {
        assert!(!help.contains(idle), "{idle} offered:\n{help}");
    }
    session.press("\x1b");
    session.wait_for("help closed", |t| !t.contains("Esc closes"));
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
    // a watched run has beside its chain; `x` forks only a launched
    // program's recording, and this one's footer says why not.
    replay.press(">");
    replay.wait_text("stop: success");
    replay.wait_text("Span tree · ");
    replay.press("x");
    replay.wait_text("holds no program");
    let shown = replay.text();
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
