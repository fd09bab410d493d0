//! Where each pane goes, for any terminal size: on wide screens the
//! pattern pane and the result side by side over the event log and the
//! resilience pane; on narrow ones the pattern pane, a strip of the
//! resilience pane (a row per tool) under it, and log and result below;
//! fewer rows of chrome on tiny ones. Never panics, whatever the size.

use super::keymap::PaneId;
use ratatui::layout::{Constraint, Layout, Rect};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Areas {
    pub(crate) header: Rect,
    pub(crate) runs: Rect,
    pub(crate) pattern: Rect,
    pub(crate) resilience: Rect,
    pub(crate) log: Rect,
    pub(crate) result: Rect,
    /// The replay timeline (empty for a live run).
    pub(crate) timeline: Rect,
    pub(crate) footer: Rect,
}

/// Wide enough to put the result beside the pattern pane.
const WIDE: u16 = 120;

impl Areas {
    /// `pattern_rows` is how tall the pattern pane would like to be;
    /// `strip_rows` how tall the resilience strip would (a title row and a
    /// row per tool); `timeline` asks for the replay's timeline row.
    pub(crate) fn compute(area: Rect, pattern_rows: u16, strip_rows: u16, timeline: bool) -> Areas {
        let header_rows = match area.height {
            0..=2 => 0,
            3..=11 => 1,
            _ => 2,
        };
        let footer_rows = u16::from(area.height >= 4);
        let runs_rows = u16::from(area.height >= 8);
        let timeline_rows = u16::from(timeline && area.height >= 6);
        let [header, runs, body, timeline, footer] = Layout::vertical([
            Constraint::Length(header_rows),
            Constraint::Length(runs_rows),
            Constraint::Min(0),
            Constraint::Length(timeline_rows),
            Constraint::Length(footer_rows),
        ])
        .areas(area);

        let top_rows = pattern_rows
            .min(body.height.saturating_mul(3) / 5)
            .max(body.height.min(6));
        let [top, bottom] =
            Layout::vertical([Constraint::Length(top_rows), Constraint::Min(0)]).areas(body);
        let (pattern, resilience, log, result) = if area.width >= WIDE {
            let [pattern, result] =
                Layout::horizontal([Constraint::Percentage(62), Constraint::Percentage(38)])
                    .areas(top);
            let [log, resilience] =
                Layout::horizontal([Constraint::Percentage(56), Constraint::Percentage(44)])
                    .areas(bottom);
            (pattern, resilience, log, result)
        } else {
            // The strip takes what the log and result can spare: at most a
            // fifth of the body, and never their last five rows.
            let strip = strip_rows
                .min((body.height / 5).max(2))
                .min(bottom.height.saturating_sub(5));
            let [resilience, rest] =
                Layout::vertical([Constraint::Length(strip), Constraint::Min(0)]).areas(bottom);
            let [log, result] = if area.width >= 60 {
                Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
                    .areas(rest)
            } else {
                Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)])
                    .areas(rest)
            };
            (top, resilience, log, result)
        };
        Areas {
            header,
            runs,
            pattern,
            resilience,
            log,
            result,
            timeline,
            footer,
        }
    }

    pub(crate) fn pane(&self, pane: PaneId) -> Rect {
        match pane {
            PaneId::Runs => self.runs,
            PaneId::Pattern => self.pattern,
            PaneId::Log => self.log,
            PaneId::Result => self.result,
            PaneId::Resilience => self.resilience,
        }
    }

    /// The pane under a mouse position.
    pub(crate) fn pane_at(&self, x: u16, y: u16) -> Option<PaneId> {
        PaneId::ALL
            .into_iter()
            .find(|p| self.pane(*p).contains(ratatui::layout::Position { x, y }))
    }
}

/// A centred rectangle of at most `width` × `height` inside `area`.
pub(crate) fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_gets_areas_inside_the_screen() {
        let widths = (0..=220u16)
            .step_by(7)
            .chain([1, 2, 59, 60, 79, 80, 119, 120]);
        for width in widths {
            for height in (0..=70u16).step_by(3).chain([1, 2, 4, 5, 8, 11, 12, 24]) {
                let screen = Rect::new(0, 0, width, height);
                let areas = Areas::compute(screen, 20, 5, width % 2 == 0);
                for rect in [
                    areas.header,
                    areas.runs,
                    areas.pattern,
                    areas.resilience,
                    areas.log,
                    areas.result,
                    areas.timeline,
                    areas.footer,
                ] {
                    assert!(
                        screen.union(rect) == screen || rect.area() == 0,
                        "{width}x{height}: {rect:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn wide_screens_put_the_result_beside_the_pattern_pane() {
        let areas = Areas::compute(Rect::new(0, 0, 160, 48), 14, 5, false);
        assert_eq!(areas.pattern.y, areas.result.y);
        assert_eq!(areas.log.y, areas.resilience.y, "resilience beside the log");
        assert_eq!(areas.log.width + areas.resilience.width, 160);
        let narrow = Areas::compute(Rect::new(0, 0, 80, 24), 14, 5, true);
        assert_eq!(narrow.log.y, narrow.result.y);
        assert_eq!(narrow.pattern.width, 80);
    }

    #[test]
    fn at_80x24_the_strip_sits_under_the_pattern_pane_and_leaves_it_whole() {
        for (strip, tools_shown) in [(2, 1), (5, 2), (12, 2)] {
            let with = Areas::compute(Rect::new(0, 0, 80, 24), 12, strip, false);
            let without = Areas::compute(Rect::new(0, 0, 80, 24), 12, 0, false);
            assert_eq!(
                with.pattern, without.pattern,
                "the pattern pane keeps its rows"
            );
            assert_eq!(with.resilience.y, with.pattern.bottom());
            assert_eq!(with.resilience.width, 80);
            assert_eq!(with.resilience.height, tools_shown + 1);
            assert!(with.log.height >= 5, "{:?}", with.log);
        }
    }
}
