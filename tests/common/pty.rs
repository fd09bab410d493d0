//! Driving the real binary in a pseudo-terminal, read through a terminal
//! emulator: what a person at the keyboard sees. The dashboard runs on the
//! real clock, so each step waits for what should appear on screen (never a
//! fixed sleep), with a generous limit.

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::num::NonZero;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const LIMIT: Duration = Duration::from_secs(60);
pub const ROWS: u16 = 40;
pub const COLS: u16 = 140;

pub struct Session {
    pub screen: Arc<Mutex<vt100::Parser>>,
    pub raw: Arc<Mutex<Vec<u8>>>,
    writer: Box<dyn Write + Send>,
    pub child: Box<dyn Child + Send + Sync>,
    _master: Box<dyn MasterPty + Send>,
    /// The thread that reads the terminal: done once the dashboard and
    /// whatever shares its terminal have closed it.
    reader: std::thread::JoinHandle<()>,
}

impl Session {
    pub fn start(args: &[&str], state_home: &Path) -> Session {
        Session::start_with(args, state_home, &[])
    }

    /// Start the binary with `env` set over the test's environment.
    pub fn start_with(args: &[&str], state_home: &Path, env: &[(&str, &str)]) -> Session {
        Session::start_sized(args, state_home, env, (COLS, ROWS))
    }

    /// Start the binary on a terminal of `(cols, rows)`.
    pub fn start_sized(
        args: &[&str],
        state_home: &Path,
        env: &[(&str, &str)],
        size: (u16, u16),
    ) -> Session {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        Session::start_in(root, args, state_home, env, size)
    }

    /// Start the binary in folder `cwd` (its picker lists `cwd/scenarios`).
    pub fn start_in(
        cwd: &Path,
        args: &[&str],
        state_home: &Path,
        env: &[(&str, &str)],
        (cols, rows): (u16, u16),
    ) -> Session {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_conclave"));
        command.args(args);
        command.cwd(cwd);
        command.env("XDG_STATE_HOME", state_home);
        command.env("TERM", "xterm-256color");
        for (name, value) in env {
            command.env(name, value);
        }
        let child = pair
            .slave
            .spawn_command(command)
            .expect("the binary starts");
        drop(pair.slave);
        let screen = Arc::new(Mutex::new(vt100::Parser::new(
            NonZero::new(rows).unwrap(),
            NonZero::new(cols).unwrap(),
            0,
        )));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let mut reader = pair.master.try_clone_reader().unwrap();
        let (screen_in, raw_in) = (Arc::clone(&screen), Arc::clone(&raw));
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            let mut frames = Frames::default();
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                raw_in.lock().unwrap().extend_from_slice(&buf[..n]);
                let whole = frames.take(&buf[..n]);
                screen_in.lock().unwrap().process(&whole);
            }
            screen_in.lock().unwrap().process(&frames.pending);
        });
        let writer = pair.master.take_writer().unwrap();
        Session {
            screen,
            raw,
            writer,
            child,
            _master: pair.master,
            reader,
        }
    }

    /// The foreground colour of the first cell of the first place `needle`
    /// shows on screen, as the terminal was told to draw it.
    pub fn colour_of(&self, needle: &str) -> Option<vt100::Color> {
        self.cell_of(needle, |cell| cell.fgcolor())
    }

    /// Whether the first place `needle` shows on screen starts in a cell
    /// drawn in reverse video (a highlighted tab, a selected row).
    pub fn reversed(&self, needle: &str) -> bool {
        self.cell_of(needle, |cell| cell.inverse()).unwrap_or(false)
    }

    /// `look` at the first cell of the first place `needle` shows on screen.
    fn cell_of<T>(&self, needle: &str, look: impl Fn(&vt100::Cell) -> T) -> Option<T> {
        let parser = self.screen.lock().unwrap();
        let screen = parser.screen();
        let (rows, cols) = screen.size();
        let (rows, cols) = (rows.get(), cols.get());
        for row in 0..rows {
            let line: Vec<(u16, String)> = (0..cols)
                .filter_map(|col| {
                    let cell = screen.cell(row, col)?;
                    Some((col, cell.contents().to_string()))
                })
                .collect();
            let text: String = line.iter().map(|(_, c)| c.as_str()).collect();
            if let Some(at) = text.find(needle) {
                // The column of the cell where the match starts.
                let mut seen = 0;
                for (col, contents) in &line {
                    if seen >= at {
                        return screen.cell(row, *col).map(&look);
                    }
                    seen += contents.len();
                }
            }
        }
        None
    }

    pub fn text(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// Wait until the screen satisfies `ready`; fail with the screen if it
    /// does not within the limit.
    pub fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) {
        let start = Instant::now();
        loop {
            let text = self.text();
            if ready(&text) {
                return;
            }
            assert!(
                start.elapsed() < LIMIT,
                "timed out waiting for {what}; the screen shows:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn wait_text(&self, needle: &str) {
        self.wait_for(needle, |text| text.contains(needle));
    }

    pub fn press(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    pub fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // What the dashboard wrote last (the terminal given back)
                // is on the screen once the reader has read it all; on a
                // loaded machine that can come after the exit is seen.
                while !self.reader.is_finished() && start.elapsed() < LIMIT {
                    std::thread::sleep(Duration::from_millis(10));
                }
                return status;
            }
            assert!(
                start.elapsed() < LIMIT,
                "the dashboard did not exit:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

const BEGIN_FRAME: &[u8] = b"\x1b[?2026h";
const END_FRAME: &[u8] = b"\x1b[?2026l";

/// The bytes from the dashboard, let through a frame at a time. The
/// dashboard draws each frame as a synchronized update; a terminal that
/// knows the mode shows it only once its end arrives, and so does the
/// screen the tests read, which never shows half a frame.
#[derive(Default)]
pub struct Frames {
    pub pending: Vec<u8>,
}

impl Frames {
    /// Take `bytes` in; return what may be shown now: everything up to the
    /// last frame's end, and after it whatever precedes the next frame's
    /// beginning (or a beginning still cut in two).
    pub fn take(&mut self, bytes: &[u8]) -> Vec<u8> {
        self.pending.extend_from_slice(bytes);
        let done = find_last(&self.pending, END_FRAME).map_or(0, |at| at + END_FRAME.len());
        let rest = &self.pending[done..];
        let held = match find(rest, BEGIN_FRAME) {
            Some(at) => at,
            None => rest.len() - cut_beginning(rest),
        };
        self.pending.drain(..done + held).collect()
    }
}

fn find(bytes: &[u8], needle: &[u8]) -> Option<usize> {
    bytes.windows(needle.len()).position(|w| w == needle)
}

fn find_last(bytes: &[u8], needle: &[u8]) -> Option<usize> {
    bytes.windows(needle.len()).rposition(|w| w == needle)
}

/// How many bytes at the end of `bytes` are the start of a frame's
/// beginning that the next read completes.
fn cut_beginning(bytes: &[u8]) -> usize {
    (1..BEGIN_FRAME.len())
        .rev()
        .find(|&n| bytes.ends_with(&BEGIN_FRAME[..n]))
        .unwrap_or(0)
}

pub fn recordings(state_home: &Path) -> Vec<PathBuf> {
    let dir = state_home.join("conclave").join("runs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}
