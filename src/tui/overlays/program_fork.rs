//! The fork dialog of a launched run's replay: its model calls (←/→ or
//! ↑/↓ picks the one that goes live), what is served and what goes live,
//! and the program the fork starts, shown before anything runs.

use super::frame_box;
use crate::launch::fork_offer::ForkOffer;
use crate::tui::layout::centered;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Where an edited answer is given: headless, from a file.
pub(crate) const EDITED_ANSWER: &str =
    "An edited answer: conclave fork REC --at \"model call N\" --answer FILE --headless";

/// Rows of calls the dialog shows at most; more scroll with the choice.
const CALL_ROWS: usize = 8;

/// A launched run's fork being set up: the call it goes live at.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramForkPrompt {
    pub(crate) offer: ForkOffer,
    /// The call chosen, by its place in the offer's.
    pub(crate) chosen: usize,
}

impl ProgramForkPrompt {
    /// The dialog at the first call after `at_ms` (what the replay
    /// shows), else at call 1.
    pub(crate) fn new(offer: ForkOffer, at_ms: u64) -> Self {
        let chosen = offer
            .calls
            .iter()
            .position(|call| call.at_ms > at_ms)
            .unwrap_or(0);
        ProgramForkPrompt { offer, chosen }
    }

    /// The call before or after the chosen one.
    pub(crate) fn step(&mut self, forward: bool) {
        let last = self.offer.calls.len().saturating_sub(1);
        self.chosen = if forward {
            (self.chosen + 1).min(last)
        } else {
            self.chosen.saturating_sub(1)
        };
    }

    /// The number of the call the fork goes live at.
    pub(crate) fn at(&self) -> u64 {
        self.offer.calls.get(self.chosen).map_or(1, |c| c.number)
    }

    /// What the fork serves and what it sends live, in words.
    pub(crate) fn plan_words(&self) -> String {
        let at = self.at();
        let served = match at {
            1 => "no call served from the recording".to_string(),
            2 => "call 1 served from the recording".to_string(),
            _ => format!("calls 1–{} served from the recording", at - 1),
        };
        format!(
            "{served}, call {at} and later live against {}",
            self.offer.upstream
        )
    }
}

/// The variables the program runs without, in words (blank when none).
fn unset_words(unset: &[String]) -> String {
    if unset.is_empty() {
        return String::new();
    }
    format!(
        "kept by name only and not set here, so the program runs without: {}",
        unset.join(", ")
    )
}

/// The dialog over `screen`.
pub(crate) fn draw(frame: &mut Frame, screen: Rect, prompt: &ProgramForkPrompt) {
    let shown = prompt.offer.calls.len().min(CALL_ROWS);
    let area = centered(screen, 100, u16::try_from(shown).unwrap_or(8) + 10);
    let title = format!("Fork at model call {}", prompt.at());
    let hint = "←/→ or ↑/↓ call · Enter runs the program · Esc cancels";
    let inner = frame_box(frame, area, &title, hint);
    let width = usize::from(inner.width);
    let first = prompt.chosen.saturating_sub(CALL_ROWS - 1);
    let mut lines = vec![Line::raw(fit(
        &prompt.offer.recording.display().to_string(),
        width,
    ))];
    for (i, call) in prompt
        .offer
        .calls
        .iter()
        .enumerate()
        .skip(first)
        .take(shown)
    {
        let row = format!(
            "{} {:>3}  {}  {}  {}",
            if i == prompt.chosen { "▶" } else { " " },
            call.number,
            call.api,
            call.model,
            call.answer
        );
        let line = Line::raw(fit(&row, width));
        lines.push(if i == prompt.chosen {
            line.patch_style(theme::selected())
        } else {
            line
        });
    }
    lines.extend([
        Line::raw(""),
        Line::styled(fit(&prompt.plan_words(), width), theme::bold()),
        Line::from(vec![
            Span::styled("runs  ", theme::bold()),
            Span::raw(fit(&prompt.offer.command, width.saturating_sub(6))),
        ]),
        Line::from(vec![
            Span::styled("in    ", theme::bold()),
            Span::raw(fit(&prompt.offer.folder, width.saturating_sub(6))),
        ]),
        Line::styled(
            fit(&unset_words(&prompt.offer.unset_env), width),
            theme::dim(),
        ),
        Line::styled(
            fit(
                "Enter allows this program to run, for this fork alone.",
                width,
            ),
            theme::dim(),
        ),
        Line::styled(fit(EDITED_ANSWER, width), theme::dim()),
    ]);
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn screen(prompt: &ProgramForkPrompt, size: (u16, u16)) -> String {
        let mut terminal = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
        terminal
            .draw(|frame| draw(frame, frame.area(), prompt))
            .unwrap();
        crate::tui::buffer_text::text(terminal.backend().buffer())
    }

    #[test]
    fn the_dialog_shows_the_calls_what_is_served_and_the_program_before_it_runs() {
        let offer = ForkOffer {
            command: "python3 app.py --key=[redacted]".into(),
            unset_env: vec!["SUPPORT_TOKEN".into()],
            ..ForkOffer::sample(12, 100, ("chat.completions", "test-model"))
        };
        let mut prompt = ProgramForkPrompt::new(offer, 1050);
        assert_eq!(prompt.at(), 11);
        let shown = screen(&prompt, (120, 30));
        for words in [
            "Fork at model call 11",
            "▶  11  chat.completions  test-model  answer 11",
            "calls 1–10 served from the recording, call 11 and later live against http://127.0.0.1:9/v1",
            "runs  python3 app.py --key=[redacted]",
            "in    /home/ada/apps",
            "--answer FILE --headless",
            "so the program runs without: SUPPORT_TOKEN",
        ] {
            assert!(shown.contains(words), "{words}\n{shown}");
        }
        assert!(
            !shown.contains("  3  chat.completions"),
            "the list scrolls with the choice"
        );
        prompt.step(false);
        assert!(screen(&prompt, (120, 30)).contains("▶  10  chat.completions"));
        // Small screens cut, never panic.
        screen(&prompt, (20, 5));
    }
}
