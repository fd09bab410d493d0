//! What a person sees of how a run ended, in the real binary on a pseudo-
//! terminal: a run that finished with work undone reads partial, in the
//! caution colour, in its tab, in the picker (and its failed-only view)
//! and in a sweep's outcome bars; and at 80×24 the header keeps what the
//! run cost and its budget once the run has ended.

use crate::common;

use common::pty::Session;
use serde_json::Value;

/// The colour the dashboard draws caution in (yellow, the ANSI colour 3).
const CAUTION: vt100::Color = vt100::Color::Idx(3);

#[test]
fn a_partial_run_reads_partial_in_its_tab_and_the_picker() {
    let home = tempfile::tempdir().unwrap();
    let mut session = Session::start(&["run", "scenarios/vendor_outage.json"], home.path());
    session.wait_text("PARTIAL");
    session.wait_text("◐ vendor_outage");
    assert_eq!(
        session.colour_of("◐ vendor_outage"),
        Some(CAUTION),
        "the tab of a partial run is not green:\n{}",
        session.text()
    );
    assert!(
        !session.text().contains("✓ vendor_outage"),
        "{}",
        session.text()
    );

    // The picker lists the run's recording as partial, with its failed
    // tasks, and keeps it in the failed-only view.
    session.press("n");
    session.wait_text("replay vendor_outage");
    session.wait_text("◐ success");
    assert_eq!(session.colour_of("◐ success"), Some(CAUTION));
    session.press("/");
    session.press("replay vendor");
    session.press("\r");
    session.wait_text("tasks failed");
    session.press("v");
    session.press("v");
    session.wait_text("failed only");
    assert!(
        session.text().contains("replay vendor_outage"),
        "a partial run is among the failed:\n{}",
        session.text()
    );
    // Esc clears the filter, then closes the picker.
    session.press("\u{1b}");
    session.wait_for("the filter cleared", |t| !t.contains("/replay vendor"));
    session.press("\u{1b}");
    session.wait_for("the picker closed", |t| !t.contains("New run: pick"));
    session.press("q");
    session.wait_exit();
}

#[test]
fn a_sweep_colours_partial_outcomes_apart() {
    let home = tempfile::tempdir().unwrap();
    let mut session = Session::start(
        &[
            "sweep",
            "scenarios/vendor_outage.json",
            "--seeds",
            "1..3",
            "--flag",
            "breakers=on,off",
            "--parallel",
            "2",
        ],
        home.path(),
    );
    session.wait_text("ok/success/green/partial");
    session.wait_text("done");
    let drawn = session.text();
    let bar = drawn
        .lines()
        .find(|l| l.contains("ok/success/green/partial"))
        .unwrap();
    assert!(bar.contains('█'), "{drawn}");
    // The bar itself, not only its label, is in the caution colour.
    assert_eq!(session.colour_of("█"), Some(CAUTION), "{drawn}");
    session.press("q");
    session.wait_exit();
}

/// `checkout_v2_launch` priced, with a dollar budget it overruns and a
/// flag, its model answering at once: the file's path.
fn priced_checkout(dir: &std::path::Path) -> String {
    let shipped =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/checkout_v2_launch.json");
    let mut scenario: Value =
        serde_json::from_str(&std::fs::read_to_string(shipped).unwrap()).unwrap();
    scenario["provider"]["latency_ms"] = 0.into();
    scenario["provider"]["pricing"] = serde_json::json!({"sim": {"input": 0.4, "output": 1.6}});
    scenario["budget"]["max_cost_usd"] = 0.01.into();
    let path = dir.join("priced_checkout.json");
    std::fs::write(&path, serde_json::to_string_pretty(&scenario).unwrap()).unwrap();
    path.display().to_string()
}

#[test]
fn at_80_by_24_the_header_keeps_cost_and_budget_once_the_run_ends() {
    let home = tempfile::tempdir().unwrap();
    let file = priced_checkout(home.path());
    let mut session = Session::start_sized(&["run", &file], home.path(), &[], (80, 24));
    session.wait_text("FINISHED");
    let screen = session.text();
    let second = screen.lines().nth(1).unwrap_or_default();
    assert!(second.contains("stop: success"), "{screen}");
    assert!(
        second.contains("~$0."),
        "the cost stays on the header:\n{screen}"
    );
    assert!(second.contains("budget "), "and the budget:\n{screen}");
    assert!(second.contains('%'), "{screen}");
    session.press("q");
    session.wait_exit();
}
