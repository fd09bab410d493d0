//! The tree of teams in the real binary, in a pseudo-terminal: the shipped
//! team of teams launched paused and stepped turn by turn until the
//! support swarm has handed over to billing, its call opened with `l` in
//! the chain pane while the run waits, and the finished tree once resumed.

use crate::common;

use common::pty::Session;

/// The gate the header says the run waits at (`PAUSED BEFORE TURN 3
/// (…)`), if it waits.
fn paused_at(text: &str) -> Option<String> {
    let at = text.find("PAUSED BEFORE TURN ")?;
    text[at..].split(')').next().map(str::to_string)
}

#[test]
fn a_member_swarm_opens_under_its_call_while_the_run_waits_and_stays_open_to_the_end() {
    let home = tempfile::tempdir().unwrap();
    let mut session = Session::start(
        &["tui", "scenarios/nested_launch_team.json", "--paused"],
        home.path(),
    );
    session.wait_text("PAUSED BEFORE TURN 1 (LAUNCH)");
    session.wait_text("Coordinator launch");

    // Step gate by gate until the swarm's triage has handed over.
    let handed = "▸ support_swarm (swarm) triage → billing";
    for _ in 0..12 {
        if session.text().contains(handed) {
            break;
        }
        let before = paused_at(&session.text());
        session.press("s");
        session.wait_for("the next gate", |text| {
            paused_at(text).is_some_and(|now| Some(now) != before)
        });
    }
    session.wait_text(handed);
    let text = session.text();
    assert!(
        text.contains("▸ research_team (coordinator) research_lead"),
        "{text}"
    );
    assert!(
        !text.contains("triage ─→ billing"),
        "collapsed, the swarm shows its summary only:\n{text}"
    );

    // The pattern pane follows the first member still running, the
    // research team; one down is the swarm, which `l` opens.
    session.press("2");
    session.press("j");
    session.press("l");
    session.wait_text("▾ support_swarm (swarm) triage → billing");
    session.wait_text("triage ─→ billing accepted");
    let text = session.text();
    assert!(
        paused_at(&text).is_some(),
        "the run still waits at a gate:\n{text}"
    );
    assert!(text.contains("«Launch support load"), "{text}");

    // Resume: the teams answer, the launch lead replies, and the swarm's
    // call stays open with its final state.
    session.press(" ");
    session.wait_text("launch answered after 3 member calls");
    session.wait_text("▾ support_swarm (swarm) triage → billing · 2 turns · done");
    let text = session.text();
    assert!(text.contains("triage ─→ billing accepted"), "{text}");
    assert!(
        text.contains("▸ research_team (coordinator) research_lead · 2 member calls, 2 answered"),
        "{text}"
    );
    assert!(
        !text.contains("holds control"),
        "nothing runs any more:\n{text}"
    );

    session.press("q");
    assert!(session.wait_exit().success());
}
