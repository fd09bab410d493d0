//! The dashboard drawn to a test backend and read back as text, a line per
//! row with trailing blanks trimmed.

use conclave::tui::app::App;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

/// `app`'s whole screen at `width`×`height`.
pub fn of_app(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| conclave::tui::view::draw(frame, app))
        .unwrap();
    text(terminal.backend().buffer())
}

/// What `buffer` shows.
pub fn text(buffer: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let line: String = (0..buffer.area.width)
            .map(|x| buffer[(x, y)].symbol())
            .collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
