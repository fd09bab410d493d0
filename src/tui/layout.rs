//! Where each pane goes, for any terminal size: the pattern pane and the
//! result side by side over a full-width log on wide screens, the pattern
//! pane over log and result on narrow ones, and fewer rows of chrome on
//! tiny ones. Never panics, whatever the size.

use super::keymap::PaneId;
use ratatui::layout::{Constraint, Layout, Rect};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Areas {
    pub header: Rect,
    pub runs: Rect,
    pub pattern: Rect,
    pub log: Rect,
    pub result: Rect,
    /// The replay timeline (empty for a live run).
    pub timeline: Rect,
    pub footer: Rect,
}

/// Wide enough to put the result beside the pattern pane.
const WIDE: u16 = 120;

impl Areas {
    /// `pattern_rows` is how tall the pattern pane would like to be;
    /// `timeline` asks for the replay's timeline row.
    pub fn compute(area: Rect, pattern_rows: u16, timeline: bool) -> Areas {
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
        let (pattern, log, result) = if area.width >= WIDE {
            let [pattern, result] =
                Layout::horizontal([Constraint::Percentage(62), Constraint::Percentage(38)])
                    .areas(top);
            (pattern, bottom, result)
        } else if area.width >= 60 {
            let [log, result] =
                Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
                    .areas(bottom);
            (top, log, result)
        } else {
            let [log, result] =
                Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)])
                    .areas(bottom);
            (top, log, result)
        };
        Areas {
            header,
            runs,
            pattern,
            log,
            result,
            timeline,
            footer,
        }
    }

    pub fn pane(&self, pane: PaneId) -> Rect {
        match pane {
            PaneId::Runs => self.runs,
            PaneId::Pattern => self.pattern,
            PaneId::Log => self.log,
            PaneId::Result => self.result,
        }
    }

    /// The pane under a mouse position.
    pub fn pane_at(&self, x: u16, y: u16) -> Option<PaneId> {
        PaneId::ALL
            .into_iter()
            .find(|p| self.pane(*p).contains(ratatui::layout::Position { x, y }))
    }
}

/// A centred rectangle of at most `width` × `height` inside `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
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
                let areas = Areas::compute(screen, 20, width % 2 == 0);
                for rect in [
                    areas.header,
                    areas.runs,
                    areas.pattern,
                    areas.log,
                    areas.result,
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
        let areas = Areas::compute(Rect::new(0, 0, 160, 48), 14, false);
        assert_eq!(areas.pattern.y, areas.result.y);
        assert_eq!(areas.log.width, 160);
        let narrow = Areas::compute(Rect::new(0, 0, 80, 24), 14, true);
        assert_eq!(narrow.log.y, narrow.result.y);
        assert_eq!(narrow.pattern.width, 80);
    }
}
