//! The question a run asks a person, from the command line: `--answer`
//! and its older name `--decide` are checked against the options of the
//! questions the scenario may ask before anything runs, and a value no
//! question takes exits 2 naming the options.

use crate::common;

use common::cli::{conclave, result};

const OPTIONS: &str = "go, go_with_caution, no_go, continue";

#[test]
fn an_answer_no_question_takes_exits_2_naming_the_options_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = common::escalating_deadlock(dir.path(), false);
    for flag in ["--decide", "--answer"] {
        let output = conclave(&["run", &file, "--headless", flag, "maybe"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "{file}: {flag}: \"maybe\" is not an answer to the table's question; it takes {OPTIONS}"
            )),
            "{stderr}"
        );
        assert!(output.stdout.is_empty(), "nothing ran");
    }
    let swept = conclave(&[
        "sweep",
        &file,
        "--seeds",
        "1..2",
        "--headless",
        "--decide",
        "Go",
    ]);
    let stderr = String::from_utf8_lossy(&swept.stderr);
    assert_eq!(swept.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(OPTIONS), "{stderr}");
    assert!(swept.stdout.is_empty(), "no run of the sweep started");
}

#[test]
fn answer_is_decide_by_its_generic_name_and_the_two_cannot_both_be_given() {
    let dir = tempfile::tempdir().unwrap();
    let file = common::escalating_deadlock(dir.path(), false);
    let output = conclave(&["run", &file, "--headless", "--answer", "no_go"]);
    assert_eq!(output.status.code(), Some(0));
    let r = result(&output);
    assert_eq!(r["final_decision"], "no_go");
    assert_eq!(r["decided_by"], "human");
    let both = conclave(&[
        "run",
        &file,
        "--headless",
        "--answer",
        "go",
        "--decide",
        "go",
    ]);
    assert_eq!(both.status.code(), Some(2));
    let never = conclave(&[
        "run",
        "scenarios/loyalty_program_deadlock.json",
        "--headless",
        "--answer",
        "go",
    ]);
    assert_eq!(never.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&never.stderr)
            .contains("--answer answers a round table that asks a person"),
        "the refusal names the flag typed"
    );
}

#[test]
fn run_help_says_the_answer_is_checked_against_the_question() {
    let help = conclave(&["run", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("--answer <OPTION>"), "{text}");
    assert!(text.contains("--decide <OPTION>"), "{text}");
    assert!(
        text.contains("checked against the options of the questions"),
        "{text}"
    );
    let man = conclave(&["man"]);
    let page = String::from_utf8_lossy(&man.stdout);
    assert!(
        page.contains("checked against the options"),
        "the man page says so too"
    );
}
