//! The terminal: raw mode, the alternate screen and mouse capture on the way
//! in, all undone on the way out, whether by quitting, a signal or a panic
//! (the panic hook restores the terminal before the message prints). Writes
//! are buffered, and a last filter keeps control characters out of every
//! cell that reaches the terminal.

use crate::sanitize::{clean, needs_cleaning};
use crossterm::cursor::{Hide, Show};
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::queue;
use crossterm::terminal::{
    BeginSynchronizedUpdate, EndSynchronizedUpdate, EnterAlternateScreen, LeaveAlternateScreen,
    disable_raw_mode, enable_raw_mode,
};
use ratatui::backend::{Backend, ClearType, CrosstermBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};
use ratatui::{Frame, Terminal};
use std::io::{self, BufWriter, Stdout, Write};
use std::sync::Once;

pub(crate) type Screen = Terminal<SafeBackend<CrosstermBackend<BufWriter<Stdout>>>>;

/// Take over the terminal.
pub(crate) fn init() -> io::Result<Screen> {
    install_panic_hook();
    enable_raw_mode()?;
    let mut out = io::stdout();
    if let Err(e) = execute!(out, EnterAlternateScreen, EnableMouseCapture, Hide) {
        restore();
        return Err(e);
    }
    let backend = CrosstermBackend::new(BufWriter::with_capacity(1 << 16, io::stdout()));
    Terminal::new(SafeBackend(backend)).inspect_err(|_| restore())
}

/// Draw one frame as one synchronized update: a terminal that knows the
/// mode shows the frame whole, never half of it, however the bytes arrive.
/// Terminals without the mode ignore it.
pub(crate) fn draw(screen: &mut Screen, render: impl FnOnce(&mut Frame)) -> io::Result<()> {
    queue!(screen.backend_mut().0, BeginSynchronizedUpdate)?;
    screen.draw(render)?;
    execute!(screen.backend_mut().0, EndSynchronizedUpdate)
}

/// Give the terminal back as it was. Safe to call more than once.
pub(crate) fn restore() {
    let mut out = io::stdout();
    let _ = execute!(
        out,
        EndSynchronizedUpdate,
        DisableMouseCapture,
        LeaveAlternateScreen,
        Show
    );
    let _ = disable_raw_mode();
    let _ = out.flush();
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// A backend that cleans every cell's text before writing it.
pub(crate) struct SafeBackend<B>(pub B);

impl<B: Backend> Backend for SafeBackend<B> {
    type Error = B::Error;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        let cells: Vec<(u16, u16, Cell)> = content
            .map(|(x, y, cell)| {
                if cell.symbol().chars().any(needs_cleaning) {
                    let mut safe = cell.clone();
                    let text = clean(cell.symbol());
                    safe.set_symbol(if text.is_empty() { " " } else { &text });
                    (x, y, safe)
                } else {
                    (x, y, cell.clone())
                }
            })
            .collect();
        self.0.draw(cells.iter().map(|(x, y, c)| (*x, *y, c)))
    }

    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.0.hide_cursor()
    }

    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.0.show_cursor()
    }

    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        self.0.get_cursor_position()
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        self.0.set_cursor_position(position)
    }

    fn clear(&mut self) -> Result<(), Self::Error> {
        self.0.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.0.clear_region(clear_type)
    }

    fn size(&self) -> Result<Size, Self::Error> {
        self.0.size()
    }

    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        self.0.window_size()
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::backend::TestBackend;

    #[test]
    fn no_control_character_reaches_the_backend() {
        let mut terminal = Terminal::new(SafeBackend(TestBackend::new(20, 2))).unwrap();
        terminal
            .draw(|frame| {
                frame.buffer_mut()[(0, 0)].set_symbol("\u{1b}]52;c;x\u{07}");
                frame.buffer_mut()[(1, 0)].set_symbol("\u{9b}2J");
                frame.buffer_mut()[(0, 1)].set_symbol("k");
            })
            .unwrap();
        let buffer = terminal.backend().0.buffer();
        for cell in buffer.content() {
            assert!(
                !cell.symbol().chars().any(needs_cleaning),
                "{:?}",
                cell.symbol()
            );
        }
        assert_eq!(buffer[(0, 1)].symbol(), "k");
    }
}
