//! The board, on tokio's paused clock (the long poll and the leases are
//! `long_poll_tests`).

use super::protocol::{Answer, Ask, By, Decision, FlagDecl, Refused, Ruling};
use super::state::{Board, Limits, Policy, Reply};
use std::time::Duration;
use tokio::time::Instant;

const RUN: u128 = 0xabc;
const OTHER: u128 = 0xdef;

fn gate(name: &str) -> Ask {
    Ask::Gate {
        kind: "tool_call".into(),
        name: name.into(),
        agent: Some("Billing Agent".into()),
        arguments: Some(serde_json::json!({"invoice": 7})),
    }
}

fn approval(tool: &str) -> Ask {
    Ask::Approval {
        tool: tool.into(),
        agent: Some("Billing Agent".into()),
        arguments: serde_json::json!({"amount": 12}),
    }
}

fn approve() -> Ruling {
    Ruling::Approve {
        arguments: None,
        for_the_run: false,
    }
}

fn go(reply: Reply) -> bool {
    matches!(reply, Reply::Now(Answer::Go { .. }, _))
}

fn board() -> Board {
    Board::new(Limits::default(), Policy::default())
}

#[tokio::test(start_paused = true)]
async fn nobody_steering_every_gate_goes_at_once_and_approvals_pass() {
    let mut board = board();
    let now = Instant::now();
    for n in 0..1000 {
        assert!(go(board
            .arrive(RUN, "s", gate(&format!("g{n}")), now)
            .unwrap()));
    }
    let reply = board.arrive(RUN, "s", approval("refund"), now).unwrap();
    assert!(matches!(reply, Reply::Now(Answer::Approved { .. }, _)));
    let question = Ask::Question {
        question: "Which city?".into(),
        options: vec![],
        agent: None,
    };
    let reply = board.arrive(RUN, "s", question, now).unwrap();
    assert!(matches!(reply, Reply::Now(Answer::Unanswered, _)));
    let summary = board.finish(RUN).unwrap();
    assert_eq!(summary.gates, 1001 - 1);
    assert!(
        summary
            .decisions
            .iter()
            .any(|t| matches!(t.decision, Decision::Approved { by: By::Nobody, .. }))
    );
}

#[tokio::test(start_paused = true)]
async fn paused_a_run_holds_its_gates_and_three_steps_let_three_pass() {
    let mut board = board();
    let now = Instant::now();
    assert!(go(board.arrive(RUN, "s", gate("first"), now).unwrap()));
    board.pause(Some(RUN), now).unwrap();
    let ids: Vec<u64> = (0..5)
        .map(
            |n| match board.arrive(RUN, "s", gate(&format!("g{n}")), now).unwrap() {
                Reply::Wait(id) => id,
                other => panic!("a paused run's gate waits: {other:?}"),
            },
        )
        .collect();
    board.step(RUN, 3, now).unwrap();
    let passed: Vec<bool> = ids
        .iter()
        .map(|id| go(board.poll(RUN, "s", *id, now).unwrap()))
        .collect();
    assert_eq!(passed, [true, true, true, false, false]);
    board.run_on(Some(RUN), now).unwrap();
    assert!(go(board.poll(RUN, "s", ids[3], now).unwrap()));
    assert!(go(board.poll(RUN, "s", ids[4], now).unwrap()));
    // The waits are over: a poll after that names nothing.
    assert_eq!(
        board.poll(RUN, "s", ids[0], now),
        Err(Refused::NoSuchWait(ids[0]))
    );
}

#[tokio::test(start_paused = true)]
async fn steps_given_before_the_gates_come_let_that_many_pass() {
    let mut board = board();
    let now = Instant::now();
    board.pause(None, now).unwrap();
    // Held from its first gate: the pause came before the run.
    assert!(matches!(
        board.arrive(RUN, "s", gate("a"), now).unwrap(),
        Reply::Wait(_)
    ));
    board.step(RUN, 2, now).unwrap();
    assert!(go(board.arrive(RUN, "s", gate("b"), now).unwrap()));
    assert!(matches!(
        board.arrive(RUN, "s", gate("c"), now).unwrap(),
        Reply::Wait(_)
    ));
    assert_eq!(board.step(OTHER, 1, now), Err(Refused::NoSuchRun));
}

#[tokio::test(start_paused = true)]
async fn flags_take_the_rule_over_the_default_and_a_person_over_both() {
    let policy = Policy {
        flags: [("legal_analyst".to_string(), true)].into(),
        ..Policy::default()
    };
    let mut board = Board::new(Limits::default(), policy);
    let now = Instant::now();
    let flags = vec![
        FlagDecl {
            name: "legal_analyst".into(),
            default: false,
            description: "the legal analyst's tool".into(),
        },
        FlagDecl {
            name: "refunds".into(),
            default: true,
            description: String::new(),
        },
    ];
    let values = board.declare(RUN, "s", flags, now).unwrap();
    assert!(values["legal_analyst"]);
    assert!(values["refunds"]);
    board.set_flag(RUN, "refunds", false, now).unwrap();
    let Reply::Now(Answer::Go { .. }, flags) = board.arrive(RUN, "s", gate("g"), now).unwrap()
    else {
        panic!("the gate goes");
    };
    assert!(!flags["refunds"]);
    assert_eq!(
        board.set_flag(RUN, "nope", true, now),
        Err(Refused::NoSuchFlag("nope".into()))
    );
    let many: Vec<FlagDecl> = (0..65)
        .map(|n| FlagDecl {
            name: format!("f{n}"),
            default: false,
            description: String::new(),
        })
        .collect();
    assert!(matches!(
        board.declare(RUN, "s", many, now),
        Err(Refused::TooMany(_))
    ));
    assert_eq!(board.list(now)[0].flags.len(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_steered_runs_approval_waits_for_the_person_and_a_rejection_carries_the_reason() {
    let policy = Policy {
        approve: vec!["lookup".into()],
        reject: vec!["wire_money".into()],
        ..Policy::default()
    };
    let mut board = Board::new(Limits::default(), policy);
    let now = Instant::now();
    assert!(go(board.arrive(RUN, "s", gate("g"), now).unwrap()));
    board.run_on(Some(RUN), now).unwrap();
    let Reply::Wait(id) = board.arrive(RUN, "s", approval("refund"), now).unwrap() else {
        panic!("a steered run's approval waits");
    };
    assert_eq!(board.list(now)[0].waiting[0].id, id);
    board
        .decide_approval(RUN, id, Ruling::Reject("over the limit".into()), now)
        .unwrap();
    assert_eq!(
        board.decide_approval(RUN, id, approve(), now),
        Err(Refused::Decided(id))
    );
    let Reply::Now(Answer::Rejected { reason, .. }, _) = board.poll(RUN, "s", id, now).unwrap()
    else {
        panic!("rejected");
    };
    assert_eq!(reason, "over the limit");
    let reply = board.arrive(RUN, "s", approval("lookup"), now).unwrap();
    assert!(matches!(reply, Reply::Now(Answer::Approved { .. }, _)));
    let reply = board.arrive(RUN, "s", approval("wire_money"), now).unwrap();
    assert!(matches!(reply, Reply::Now(Answer::Rejected { .. }, _)));
    let by: Vec<By> = board
        .finish(RUN)
        .unwrap()
        .decisions
        .iter()
        .filter_map(|t| match &t.decision {
            Decision::Approved { by, .. } | Decision::Rejected { by, .. } => Some(*by),
            _ => None,
        })
        .collect();
    assert_eq!(by, [By::Person, By::Rule, By::Rule]);
}

#[tokio::test(start_paused = true)]
async fn a_question_is_answered_by_one_of_its_options_and_a_stop_answers_everything() {
    let mut board = board();
    let now = Instant::now();
    board.arrive(RUN, "s", gate("g"), now).unwrap();
    board.pause(Some(RUN), now).unwrap();
    let question = Ask::Question {
        question: "Refund or credit?".into(),
        options: vec!["refund".into(), "credit".into()],
        agent: None,
    };
    let Reply::Wait(q) = board.arrive(RUN, "s", question, now).unwrap() else {
        panic!("a steered run's question waits");
    };
    assert!(matches!(
        board.answer(RUN, q, "cash".into(), now),
        Err(Refused::NotAnOption(_))
    ));
    board.answer(RUN, q, "credit".into(), now).unwrap();
    let Reply::Now(Answer::Answered { text }, _) = board.poll(RUN, "s", q, now).unwrap() else {
        panic!("answered");
    };
    assert_eq!(text, "credit");
    let Reply::Wait(held) = board.arrive(RUN, "s", gate("h"), now).unwrap() else {
        panic!("paused");
    };
    board.stop(RUN, "stopped by a person".into(), now).unwrap();
    let stopped = |r: Reply| matches!(r, Reply::Now(Answer::Stopped { .. }, _));
    assert!(stopped(board.poll(RUN, "s", held, now).unwrap()));
    assert!(stopped(board.arrive(RUN, "s", gate("i"), now).unwrap()));
    let summary = board.finish(RUN).unwrap();
    assert_eq!(summary.stopped.as_deref(), Some("stopped by a person"));
}

#[tokio::test(start_paused = true)]
async fn another_hook_naming_the_trace_changes_nothing_and_floods_are_bounded() {
    let mut board = board();
    let now = Instant::now();
    board.arrive(RUN, "mine", gate("g"), now).unwrap();
    board.pause(Some(RUN), now).unwrap();
    assert_eq!(
        board.arrive(RUN, "intruder", gate("x"), now),
        Err(Refused::OtherHook)
    );
    assert_eq!(board.poll(RUN, "intruder", 1, now), Err(Refused::OtherHook));
    let limit = Limits::default().max_waiting;
    let mut refused = 0;
    for n in 0..10_000 {
        match board.arrive(RUN, "mine", gate(&format!("g{n}")), now) {
            Ok(Reply::Wait(_)) => {}
            Err(Refused::TooMany(_)) => refused += 1,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(refused, 10_000 - limit);
    assert_eq!(board.list(now)[0].waiting.len(), limit);
    // Another run is untouched: it goes at once.
    assert!(go(board.arrive(OTHER, "theirs", gate("g"), now).unwrap()));
    // Waits whose hook stopped asking are let go.
    let later = now + Limits::default().forget;
    assert_eq!(board.expire(later), limit);
    assert!(board.list(later)[0].waiting.is_empty());
}

#[tokio::test(start_paused = true)]
async fn more_runs_than_the_limit_let_the_idlest_go() {
    let limits = Limits {
        max_runs: 2,
        ..Limits::default()
    };
    let mut board = Board::new(limits, Policy::default());
    let now = Instant::now();
    board.arrive(1, "a", gate("g"), now).unwrap();
    board
        .arrive(2, "b", gate("g"), now + Duration::from_secs(1))
        .unwrap();
    board
        .arrive(3, "c", gate("g"), now + Duration::from_secs(2))
        .unwrap();
    let held: Vec<String> = board.list(now).into_iter().map(|r| r.trace_id).collect();
    assert_eq!(held.len(), 2);
    assert!(!held.contains(&crate::span::trace_hex(1)));
}

#[test]
fn a_replayed_decision_is_one_clean_log_line() {
    let decision = Decision::Rejected {
        tool: "refund".into(),
        agent: Some("Billing\u{1b}[31m Agent".into()),
        reason: "no\nway".into(),
        by: By::Person,
    };
    let line = super::replayed::log_line(1200, &decision);
    assert!(line.starts_with("+1200 ms  steered rejected  {"), "{line}");
    assert!(!line.contains('\u{1b}') && !line.contains('\n'), "{line:?}");
    assert_eq!(
        super::replayed::log_line(5, &Decision::Paused),
        "+5 ms  steered paused"
    );
}

#[tokio::test(start_paused = true)]
async fn an_edited_approval_carries_the_arguments_and_one_for_the_run_approves_later_calls() {
    let mut board = board();
    let now = Instant::now();
    assert!(go(board.arrive(RUN, "s", gate("g"), now).unwrap()));
    board.run_on(Some(RUN), now).unwrap();
    let wait = |board: &mut Board, tool: &str| match board.arrive(RUN, "s", approval(tool), now) {
        Ok(Reply::Wait(id)) => id,
        other => panic!("a steered run's approval waits: {other:?}"),
    };
    let id = wait(&mut board, "refund");
    let edited = serde_json::json!({"amount": 5});
    let ruling = Ruling::Approve {
        arguments: Some(edited.clone()),
        for_the_run: false,
    };
    board.decide_approval(RUN, id, ruling, now).unwrap();
    let Reply::Now(Answer::Approved { arguments }, _) = board.poll(RUN, "s", id, now).unwrap()
    else {
        panic!("approved");
    };
    assert_eq!(arguments, Some(edited));
    // Approved for the rest of the run: the next call passes at once.
    let id = wait(&mut board, "lookup");
    let ruling = Ruling::Approve {
        arguments: None,
        for_the_run: true,
    };
    board.decide_approval(RUN, id, ruling, now).unwrap();
    let again = board.arrive(RUN, "s", approval("lookup"), now).unwrap();
    assert!(matches!(
        again,
        Reply::Now(Answer::Approved { arguments: None }, _)
    ));
    // Another tool still waits for the person.
    wait(&mut board, "refund");
    let said: Vec<String> = board
        .decisions(RUN, 0)
        .iter()
        .map(|t| super::words::decision_words(&t.decision))
        .collect();
    assert!(
        said.contains(&"approved refund (by a person) with arguments {\"amount\":5}".to_string()),
        "{said:?}"
    );
    let standing = said
        .iter()
        .filter(|s| *s == "approved lookup (by a person, for the rest of the run)")
        .count();
    assert_eq!(standing, 2, "{said:?}");
}
