//! The real binary in a pseudo-terminal: `z` zooms the result to the whole
//! screen and `Esc` brings the panes back; under `NO_COLOR` no colour
//! reaches the terminal but the focused pane stays bold and the selection
//! in reverse video; an unknown theme is refused before the screen opens.

use crate::common;

use common::cli::conclave;
use common::pty::Session;

/// The screen's words, borders left out, one space between them.
fn words(text: &str) -> String {
    text.replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn z_zooms_the_result_and_esc_brings_the_panes_back() {
    let home = tempfile::tempdir().unwrap();
    let mut session = Session::start(
        &["tui", "scenarios/support_swarm.json", "--no-record"],
        home.path(),
    );
    session.wait_text("ANSWERED BY refunds");
    session.press("4");
    session.press("z");
    session.wait_for("the whole answer, zoomed", |t| {
        !t.contains("[2] Swarm chain")
            && words(t).contains("Sorry about the double charge on order A-1042. We refunded the duplicate $49.99 (refund R-88120); it reaches your card within 3 business days.")
    });
    let text = session.text();
    assert!(text.contains("CONCLAVE"), "the header stays:\n{text}");
    session.press("\x1b");
    session.wait_text("[2] Swarm chain");
    session.press("q");
    assert!(session.wait_exit().success());
}

#[test]
fn no_color_keeps_bold_and_reverse_video_and_drops_colours() {
    let home = tempfile::tempdir().unwrap();
    let mut session = Session::start_with(
        &["tui", "scenarios/support_swarm.json", "--no-record"],
        home.path(),
        &[("NO_COLOR", "1")],
    );
    session.wait_text("ANSWERED BY refunds");
    // Focus the chain and select the first transfer.
    session.press("2");
    session.press("k");
    session.wait_for("the selection", |_| {
        let parser = session.screen.lock().unwrap();
        let screen = parser.screen();
        (0..40).any(|row| {
            (0..140).any(|col| {
                screen
                    .cell(row, col)
                    .is_some_and(|c| c.inverse() && c.contents() == "t")
            })
        })
    });
    {
        let parser = session.screen.lock().unwrap();
        let screen = parser.screen();
        let cells: Vec<vt100::Cell> = (0..40)
            .flat_map(|row| (0..140).filter_map(move |col| screen.cell(row, col).cloned()))
            .collect();
        assert!(
            cells
                .iter()
                .all(|c| c.fgcolor() == vt100::Color::Default
                    && c.bgcolor() == vt100::Color::Default),
            "no colour under NO_COLOR"
        );
        assert!(cells.iter().any(|c| c.bold()), "the focused pane is bold");
    }
    session.press("q");
    assert!(session.wait_exit().success());
}

#[test]
fn an_unknown_theme_is_a_usage_error() {
    let output = conclave(&["tui", "scenarios/support_swarm.json", "--theme", "neon"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unknown theme \"neon\""), "{stderr}");
    assert!(stderr.contains("default, high-contrast"), "{stderr}");

    let output = std::process::Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(["replay", "missing.jsonl"])
        .env("CONCLAVE_THEME", "neon")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("CONCLAVE_THEME: unknown theme \"neon\""),
        "{stderr}"
    );
}
