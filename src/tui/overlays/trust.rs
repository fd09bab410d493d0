//! Trust before execution: before a scenario runs programs, every program
//! it would start (its argv, the folder it runs in, the files it would
//! run as found now) and every URL off this machine it would call, what
//! changed since the file was last allowed, with `y` to allow (remembered
//! for this file and these programs as they are) and any other key to
//! cancel. Everything shown comes from the scenario, so it is cleaned and
//! quoted where a space could hide.

use super::frame_box;
use crate::sanitize::shell_word;
use crate::trust::Consent;
use crate::tui::layout::centered;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

pub(crate) fn draw(
    frame: &mut Frame,
    area: Rect,
    scenario: &str,
    consent: &Consent,
    changes: &[String],
) {
    let changed = if changes.is_empty() {
        0
    } else {
        changes.len() + 1
    };
    let body = 6
        + changed
        + consent.programs.len() * 2
        + consent.cover.files.len()
        + consent.endpoints.len();
    let extra = if consent.endpoints.is_empty() { 0 } else { 2 };
    let height = u16::try_from(body + extra + 2).unwrap_or(u16::MAX);
    let area = centered(area, 96, height);
    let inner = frame_box(
        frame,
        area,
        "Run this scenario's programs?",
        "y allows · any other key cancels",
    );
    let width = usize::from(inner.width).saturating_sub(4);
    let mut lines = vec![
        Line::from(vec![
            Span::styled(fit(scenario, width.saturating_sub(30)), theme::bold()),
            Span::raw(" would start these programs:"),
        ]),
        Line::raw(""),
    ];
    for change in changes {
        lines.push(Line::styled(
            format!("! {}", fit(&crate::sanitize::clean(change), width)),
            Style::default().fg(theme::CAUTION),
        ));
    }
    if !changes.is_empty() {
        lines.push(Line::raw(""));
    }
    for program in &consent.programs {
        let argv: Vec<String> = program.argv.iter().map(|a| shell_word(a)).collect();
        lines.push(Line::from(vec![
            Span::styled("  $ ", theme::dim()),
            Span::styled(
                fit(&argv.join(" "), width),
                Style::default().fg(theme::CAUTION),
            ),
        ]));
        lines.push(Line::styled(
            format!("    in {}", fit(&program.cwd.display().to_string(), width)),
            theme::dim(),
        ));
        let at = program.path.to_string();
        for covered in consent.cover.files.iter().filter(|f| f.at == at) {
            let shown = crate::sanitize::clean(&crate::trust::described(covered)).into_owned();
            lines.push(Line::styled(
                format!("    runs {}", fit(&shown, width.saturating_sub(9))),
                theme::dim(),
            ));
        }
    }
    if !consent.endpoints.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::raw("and call these addresses off this machine:"));
        for endpoint in &consent.endpoints {
            lines.push(Line::from(vec![
                Span::styled("  → ", theme::dim()),
                Span::raw(fit(&endpoint.url, width)),
            ]));
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("y", theme::bold()),
        Span::raw(
            " runs it and remembers this file where it is and these programs as they are: a change to any of them asks again.",
        ),
    ]));
    lines.push(Line::from(vec![
        Span::styled("Any other key", theme::bold()),
        Span::raw(" cancels: nothing runs."),
    ]));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_quoted_when_a_space_could_hide() {
        assert_eq!(shell_word("tools/inventory.py"), "tools/inventory.py");
        assert_eq!(shell_word("a b"), "\"a b\"");
        assert_eq!(shell_word(""), "\"\"");
        assert_eq!(shell_word("$(rm -rf ~)"), "\"$(rm -rf ~)\"");
    }
}
