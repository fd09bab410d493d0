//! The lines of the graph within the pane's view: each cell keeps which
//! ways its lines leave it (up, down, left, right), so lines that meet
//! join into one box-drawing character (`┼`, `┬`, `╰`) instead of
//! overwriting each other. Only the view's cells exist; a line is clipped
//! to them before it is walked, so a long edge costs what shows of it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;

pub(crate) const UP: u8 = 1;
pub(crate) const DOWN: u8 = 2;
pub(crate) const LEFT: u8 = 4;
pub(crate) const RIGHT: u8 = 8;

#[derive(Clone, Copy, Debug, Default)]
struct Cell {
    ways: u8,
    glyph: Option<char>,
    style: Style,
}

/// The view's cells, the plane's column `left` and row `top` at its
/// corner.
pub(crate) struct Canvas {
    left: u32,
    top: u32,
    width: u32,
    height: u32,
    cells: Vec<Cell>,
}

impl Canvas {
    pub(crate) fn new(left: u32, top: u32, width: u16, height: u16) -> Self {
        Canvas {
            left,
            top,
            width: u32::from(width),
            height: u32::from(height),
            cells: vec![Cell::default(); usize::from(width) * usize::from(height)],
        }
    }

    fn cell(&mut self, x: u32, y: u32) -> Option<&mut Cell> {
        let (cx, cy) = (x.checked_sub(self.left)?, y.checked_sub(self.top)?);
        if cx >= self.width || cy >= self.height {
            return None;
        }
        self.cells.get_mut((cy * self.width + cx) as usize)
    }

    /// Lines leave the cell at (`x`, `y`) the `ways` given.
    pub(crate) fn mark(&mut self, x: u32, y: u32, ways: u8, style: Style) {
        if let Some(cell) = self.cell(x, y) {
            cell.ways |= ways;
            cell.style = style;
        }
    }

    /// A character of its own at (`x`, `y`): an arrowhead.
    pub(crate) fn glyph(&mut self, x: u32, y: u32, glyph: char, style: Style) {
        if let Some(cell) = self.cell(x, y) {
            cell.glyph = Some(glyph);
            cell.style = style;
        }
    }

    /// A line along row `y` between columns `a` and `b`, both included.
    pub(crate) fn across(&mut self, y: u32, a: u32, b: u32, style: Style) {
        let (from, to) = (a.min(b), a.max(b));
        if y < self.top || y >= self.top + self.height || from == to {
            return;
        }
        let first = from.max(self.left);
        let last = to.min((self.left + self.width).saturating_sub(1));
        for x in first..=last {
            let ways = if x == from {
                RIGHT
            } else if x == to {
                LEFT
            } else {
                LEFT | RIGHT
            };
            self.mark(x, y, ways, style);
        }
    }

    /// A line down column `x` between rows `a` and `b`, both included.
    pub(crate) fn along(&mut self, x: u32, a: u32, b: u32, style: Style) {
        let (from, to) = (a.min(b), a.max(b));
        if x < self.left || x >= self.left + self.width || from == to {
            return;
        }
        let first = from.max(self.top);
        let last = to.min((self.top + self.height).saturating_sub(1));
        for y in first..=last {
            let ways = if y == from {
                DOWN
            } else if y == to {
                UP
            } else {
                UP | DOWN
            };
            self.mark(x, y, ways, style);
        }
    }

    /// Write the lines into `buffer` at `area`, the view's corner at its
    /// corner.
    pub(crate) fn paint(&self, buffer: &mut Buffer, area: Rect) {
        for (i, cell) in self.cells.iter().enumerate() {
            let symbol = match cell.glyph {
                Some(glyph) => glyph,
                None if cell.ways == 0 => continue,
                None => line(cell.ways),
            };
            let (x, y) = (i as u32 % self.width, i as u32 / self.width);
            let (Ok(x), Ok(y)) = (u16::try_from(x), u16::try_from(y)) else {
                continue;
            };
            if x < area.width && y < area.height {
                buffer[(area.x + x, area.y + y)]
                    .set_char(symbol)
                    .set_style(cell.style);
            }
        }
    }
}

/// The box-drawing character for lines leaving a cell the `ways` given.
fn line(ways: u8) -> char {
    match ways {
        w if w == UP | DOWN | LEFT | RIGHT => '┼',
        w if w == UP | DOWN | RIGHT => '├',
        w if w == UP | DOWN | LEFT => '┤',
        w if w == DOWN | LEFT | RIGHT => '┬',
        w if w == UP | LEFT | RIGHT => '┴',
        w if w == DOWN | RIGHT => '╭',
        w if w == DOWN | LEFT => '╮',
        w if w == UP | RIGHT => '╰',
        w if w == UP | LEFT => '╯',
        w if w & (LEFT | RIGHT) != 0 && w & (UP | DOWN) == 0 => '─',
        _ => '│',
    }
}
