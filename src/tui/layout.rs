//! Where each pane goes, for any terminal size: on wide screens the
//! pattern pane and the result side by side over the event log and the
//! resilience pane; on narrow ones the pattern pane, a strip of the
//! resilience pane (a row per tool) under it, and log and result below;
//! fewer rows of chrome on tiny ones. The panes that hold text take the
//! rows their content needs before the log takes the rest; a zoomed pane
//! takes every row between the header and the footer. Never panics,
//! whatever the size.

use super::keymap::PaneId;
use ratatui::layout::{Constraint, Layout, Rect};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Areas {
    /// The line naming runs of other tabs that need a person.
    pub(crate) attention: Rect,
    pub header: Rect,
    pub(crate) runs: Rect,
    pub pattern: Rect,
    pub(crate) resilience: Rect,
    pub log: Rect,
    pub result: Rect,
    /// The replay timeline (empty for a live run).
    pub(crate) timeline: Rect,
    pub footer: Rect,
}

/// What the panes would like: the rows their content takes.
#[derive(Clone, Copy)]
pub(crate) struct Wanted<'a> {
    /// How tall the pattern pane would like to be.
    pub(crate) pattern: u16,
    /// How tall the result would like to be at a width, its border
    /// included.
    pub(crate) result: &'a dyn Fn(u16) -> u16,
    /// How tall the resilience strip would (a title row and a row per
    /// tool).
    pub(crate) strip: u16,
    /// The replay's timeline row.
    pub(crate) timeline: bool,
    /// A run of another tab needs a person: a line across the top says so.
    pub(crate) attention: bool,
    /// The pane zoomed to the whole body, if one is (the runs bar does not
    /// zoom).
    pub(crate) zoom: Option<PaneId>,
}

impl Wanted<'_> {
    /// What a screen of fixed wants asks: `pattern` rows, a result of
    /// `result` rows at any width, a strip of `strip` rows.
    #[cfg(test)]
    pub(crate) fn fixed(pattern: u16, result: &dyn Fn(u16) -> u16, strip: u16) -> Wanted<'_> {
        Wanted {
            pattern,
            result,
            strip,
            timeline: false,
            attention: false,
            zoom: None,
        }
    }
}

/// Wide enough to put the result beside the pattern pane.
const WIDE: u16 = 120;
/// The fewest rows the log keeps while the text panes take theirs.
const LOG_MIN: u16 = 5;
/// The fewest rows the pattern pane gets when there are that many.
const PATTERN_MIN: u16 = 6;
/// On a narrow screen, the rows below the pattern pane it leaves to the
/// log and the resilience strip (up to half the body): the log keeps at
/// least seven of them, five events, at 80×24.
const BOTTOM_NARROW: u16 = 10;
/// The log's rows the strip never takes on a narrow screen.
const LOG_NARROW: u16 = 7;

impl Areas {
    pub(crate) fn compute(area: Rect, wanted: &Wanted) -> Areas {
        let header_rows = match area.height {
            0..=2 => 0,
            3..=11 => 1,
            _ => 2,
        };
        let footer_rows = u16::from(area.height >= 4);
        let runs_rows = u16::from(area.height >= 8);
        let timeline_rows = u16::from(wanted.timeline && area.height >= 6);
        let attention_rows = u16::from(wanted.attention && area.height >= 3);
        let [attention, header, runs, body, timeline, footer] = Layout::vertical([
            Constraint::Length(attention_rows),
            Constraint::Length(header_rows),
            Constraint::Length(runs_rows),
            Constraint::Min(0),
            Constraint::Length(timeline_rows),
            Constraint::Length(footer_rows),
        ])
        .areas(area);
        let chrome = Areas {
            attention,
            header,
            runs,
            timeline,
            footer,
            ..Areas::default()
        };
        if let Some(pane) = wanted.zoom.filter(|p| *p != PaneId::Runs) {
            // The runs bar's row goes to the zoomed pane too.
            let whole = runs.union(body);
            let mut areas = Areas {
                runs: Rect::default(),
                ..chrome
            };
            *areas.pane_mut(pane) = whole;
            return areas;
        }
        let (pattern, resilience, log, result) = if area.width >= WIDE {
            wide(body, wanted)
        } else {
            narrow(body, wanted)
        };
        Areas {
            pattern,
            resilience,
            log,
            result,
            ..chrome
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

    fn pane_mut(&mut self, pane: PaneId) -> &mut Rect {
        match pane {
            PaneId::Runs => &mut self.runs,
            PaneId::Pattern => &mut self.pattern,
            PaneId::Log => &mut self.log,
            PaneId::Result => &mut self.result,
            PaneId::Resilience => &mut self.resilience,
        }
    }

    /// The pane under a mouse position.
    pub(crate) fn pane_at(&self, x: u16, y: u16) -> Option<PaneId> {
        PaneId::ALL
            .into_iter()
            .find(|p| self.pane(*p).contains(ratatui::layout::Position { x, y }))
    }
}

/// Pattern pane and result side by side, as tall as the taller wants, over
/// the log and the resilience pane, which take the rest.
fn wide(body: Rect, wanted: &Wanted) -> (Rect, Rect, Rect, Rect) {
    let [_, result_columns] =
        Layout::horizontal([Constraint::Percentage(62), Constraint::Percentage(38)]).areas(body);
    let text = wanted.pattern.max((wanted.result)(result_columns.width));
    let log_keeps = LOG_MIN.max(body.height / 4);
    let top_rows = text
        .min(body.height.saturating_sub(log_keeps))
        .max(body.height.min(PATTERN_MIN));
    let [top, bottom] =
        Layout::vertical([Constraint::Length(top_rows), Constraint::Min(0)]).areas(body);
    let [pattern, result] =
        Layout::horizontal([Constraint::Percentage(62), Constraint::Percentage(38)]).areas(top);
    let [log, resilience] =
        Layout::horizontal([Constraint::Percentage(56), Constraint::Percentage(44)]).areas(bottom);
    (pattern, resilience, log, result)
}

/// The pattern pane, the resilience strip under it, and the log and the
/// result side by side below. The pattern pane takes its rows up to three
/// fifths of the body, less what the result's row needs (up to two
/// fifths) and never the ten rows (up to half the body) kept for the
/// strip and a log of five events; the strip takes what the log and
/// result can spare.
fn narrow(body: Rect, wanted: &Wanted) -> (Rect, Rect, Rect, Rect) {
    let side_by_side = body.width >= 60;
    let result_width = if side_by_side {
        body.width - body.width * 55 / 100
    } else {
        body.width
    };
    let result_rows = if side_by_side {
        (wanted.result)(result_width)
    } else {
        (wanted.result)(result_width).saturating_mul(2)
    };
    let bottom_needs = result_rows
        .max(LOG_MIN)
        .min(body.height * 2 / 5)
        .max(BOTTOM_NARROW.min(body.height / 2));
    let top_rows = wanted
        .pattern
        .min(body.height.saturating_mul(3) / 5)
        .min(body.height.saturating_sub(bottom_needs))
        .max(body.height.min(PATTERN_MIN));
    let [top, bottom] =
        Layout::vertical([Constraint::Length(top_rows), Constraint::Min(0)]).areas(body);
    // The strip takes at most a fifth of the body, and never the log's and
    // result's last seven rows.
    let strip = wanted
        .strip
        .min((body.height / 5).max(2))
        .min(bottom.height.saturating_sub(LOG_NARROW));
    let [resilience, rest] =
        Layout::vertical([Constraint::Length(strip), Constraint::Min(0)]).areas(bottom);
    let [log, result] = if side_by_side {
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(rest)
    } else {
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(rest)
    };
    (top, resilience, log, result)
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

    fn no_result(_: u16) -> u16 {
        0
    }

    fn panes(areas: &Areas) -> [Rect; 8] {
        [
            areas.header,
            areas.runs,
            areas.pattern,
            areas.resilience,
            areas.log,
            areas.result,
            areas.timeline,
            areas.footer,
        ]
    }

    #[test]
    fn every_size_gets_areas_inside_the_screen_that_do_not_overlap() {
        let widths = (0..=300u16)
            .step_by(7)
            .chain([1, 2, 20, 59, 60, 79, 80, 119, 120, 300]);
        let tall_result = |width: u16| 400 / width.max(1) + 3;
        for width in widths {
            for height in (0..=100u16)
                .step_by(3)
                .chain([1, 2, 4, 5, 8, 11, 12, 24, 100])
            {
                let screen = Rect::new(0, 0, width, height);
                for zoom in [None, Some(PaneId::Result), Some(PaneId::Runs)] {
                    let wanted = Wanted {
                        timeline: width % 2 == 0,
                        zoom,
                        ..Wanted::fixed(20, &tall_result, 5)
                    };
                    let areas = Areas::compute(screen, &wanted);
                    let rects = panes(&areas);
                    for (i, rect) in rects.iter().enumerate() {
                        assert!(
                            screen.union(*rect) == screen || rect.area() == 0,
                            "{width}x{height}: {rect:?}"
                        );
                        for other in &rects[i + 1..] {
                            assert!(
                                rect.intersection(*other).area() == 0,
                                "{width}x{height} {zoom:?}: {rect:?} overlaps {other:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn wide_screens_put_the_result_beside_the_pattern_pane() {
        let areas = Areas::compute(Rect::new(0, 0, 160, 48), &Wanted::fixed(14, &no_result, 5));
        assert_eq!(areas.pattern.y, areas.result.y);
        assert_eq!(areas.log.y, areas.resilience.y, "resilience beside the log");
        assert_eq!(areas.log.width + areas.resilience.width, 160);
        let narrow = Areas::compute(Rect::new(0, 0, 80, 24), &Wanted::fixed(14, &no_result, 5));
        assert_eq!(narrow.log.y, narrow.result.y);
        assert_eq!(narrow.pattern.width, 80);
    }

    #[test]
    fn text_panes_take_the_rows_they_need_and_the_log_the_rest() {
        let screen = Rect::new(0, 0, 160, 48);
        // A short pattern pane and a long answer: the answer's rows count.
        let long = |_: u16| 24;
        let areas = Areas::compute(screen, &Wanted::fixed(8, &long, 5));
        assert_eq!(areas.result.height, 24);
        assert_eq!(areas.log.height, 48 - 3 - 1 - 24);
        // A long answer leaves the log a quarter of the body.
        let endless = |_: u16| 400;
        let areas = Areas::compute(screen, &Wanted::fixed(8, &endless, 5));
        assert_eq!(areas.log.height, 11);
        // Short texts leave the log the rest.
        let short = |_: u16| 5;
        let areas = Areas::compute(screen, &Wanted::fixed(9, &short, 5));
        assert_eq!(areas.pattern.height, 9);
        assert_eq!(areas.log.height, 44 - 9);

        // On a narrow screen the result's row grows with its answer, up to
        // two fifths of the body, and the pattern pane yields that much.
        let screen = Rect::new(0, 0, 80, 24);
        let areas = Areas::compute(screen, &Wanted::fixed(12, &endless, 4));
        assert_eq!(areas.pattern.height, 10);
        assert_eq!(areas.result.height, 20 - 10 - 3);
        let areas = Areas::compute(screen, &Wanted::fixed(10, &short, 4));
        assert_eq!(areas.pattern.height, 10);
    }

    #[test]
    fn a_zoomed_pane_takes_the_body_and_keeps_header_and_footer() {
        let screen = Rect::new(0, 0, 80, 24);
        let wanted = Wanted {
            zoom: Some(PaneId::Result),
            ..Wanted::fixed(12, &no_result, 5)
        };
        let areas = Areas::compute(screen, &wanted);
        assert_eq!(areas.header.height, 2);
        assert_eq!(areas.footer, Rect::new(0, 23, 80, 1));
        assert_eq!(areas.result, Rect::new(0, 2, 80, 21));
        for rect in [areas.pattern, areas.log, areas.resilience, areas.runs] {
            assert_eq!(rect.area(), 0);
        }
        assert_eq!(areas.pane_at(10, 10), Some(PaneId::Result));
        let runs = Wanted {
            zoom: Some(PaneId::Runs),
            ..wanted
        };
        assert_eq!(
            Areas::compute(screen, &runs),
            Areas::compute(screen, &Wanted::fixed(12, &no_result, 5)),
            "the runs bar does not zoom"
        );
    }

    #[test]
    fn at_80x24_the_strip_sits_under_the_pattern_pane_and_leaves_it_whole() {
        for (strip, tools_shown) in [(2, 1), (5, 2), (12, 2)] {
            let screen = Rect::new(0, 0, 80, 24);
            let with = Areas::compute(screen, &Wanted::fixed(12, &no_result, strip));
            let without = Areas::compute(screen, &Wanted::fixed(12, &no_result, 0));
            assert_eq!(
                with.pattern, without.pattern,
                "the pattern pane keeps its rows"
            );
            assert_eq!(with.resilience.y, with.pattern.bottom());
            assert_eq!(with.resilience.width, 80);
            assert_eq!(with.resilience.height, tools_shown + 1);
            assert!(with.log.height >= 7, "{:?}", with.log);
        }
    }

    /// At 80×24 the log shows five events whatever the pattern pane wants,
    /// and the rows a small pattern pane does not need.
    #[test]
    fn at_80x24_the_log_keeps_five_events_and_takes_what_a_small_pattern_pane_leaves() {
        let screen = Rect::new(0, 0, 80, 24);
        let endless = |_: u16| 400;
        for strip in [0, 3, 12] {
            let areas = Areas::compute(screen, &Wanted::fixed(100, &endless, strip));
            assert!(areas.log.height >= 7, "strip {strip}: {:?}", areas.log);
        }
        let small = Areas::compute(screen, &Wanted::fixed(6, &endless, 3));
        assert_eq!(small.pattern.height, 6);
        assert_eq!(small.log.height, 20 - 6 - 3);
    }
}
