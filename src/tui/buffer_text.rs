//! A drawn buffer as the text a person reads, each row's trailing blanks
//! cut: what the tests of the panes compare.

use ratatui::buffer::Buffer;

/// The rows of `buffer`, one a line.
pub(crate) fn text(buffer: &Buffer) -> String {
    let area = buffer.area;
    (0..area.height)
        .map(|y| {
            let line: String = (0..area.width).map(|x| buffer[(x, y)].symbol()).collect();
            line.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}
