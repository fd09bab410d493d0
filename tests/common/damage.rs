//! Real recordings damaged the ways files get damaged (a flipped byte, an
//! invalid UTF-8 byte, a corrupt seq, two lines swapped, a line lost, a file
//! cut mid-line, a line written twice), with what a reader must still make
//! of them: which lines it must report, which it may, and which events are
//! intact.

use conclave::bus::Event;
use conclave::engine::LaunchOptions;
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Damages this many lines apart do not meet: each is judged on its own.
pub const SPACING: usize = 12;

/// One way to damage one line. Positions are taken modulo the line's
/// length, so any number will do.
#[derive(Clone, Debug)]
pub enum Damage {
    /// Replace one byte (the line break after the line included) by another.
    FlipByte {
        at: usize,
        byte: u8,
    },
    /// Insert a byte that is never valid UTF-8 where it stands.
    InvalidUtf8 {
        at: usize,
        byte: u8,
    },
    /// Another number in the line's `seq`.
    CorruptSeq {
        seq: u64,
    },
    SwapWithNext,
    Delete,
    /// Cut the file inside this line (what follows is gone).
    TruncateMidLine {
        at: usize,
    },
    /// The line written twice.
    Duplicate,
}

/// What the damage kinds are called in reports.
pub const KINDS: [&str; 7] = [
    "flip",
    "invalid_utf8",
    "corrupt_seq",
    "swap",
    "delete",
    "truncate",
    "duplicate",
];

impl Damage {
    pub fn kind(&self) -> &'static str {
        match self {
            Damage::FlipByte { .. } => KINDS[0],
            Damage::InvalidUtf8 { .. } => KINDS[1],
            Damage::CorruptSeq { .. } => KINDS[2],
            Damage::SwapWithNext => KINDS[3],
            Damage::Delete => KINDS[4],
            Damage::TruncateMidLine { .. } => KINDS[5],
            Damage::Duplicate => KINDS[6],
        }
    }
}

pub fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Damage::FlipByte { at, byte }),
        (
            any::<usize>(),
            prop::sample::select(vec![0x80u8, 0xbf, 0xc0, 0xc1, 0xf5, 0xfe, 0xff])
        )
            .prop_map(|(at, byte)| Damage::InvalidUtf8 { at, byte }),
        prop_oneof![0u64..400, any::<u64>()].prop_map(|seq| Damage::CorruptSeq { seq }),
        Just(Damage::SwapWithNext),
        Just(Damage::Delete),
        any::<usize>().prop_map(|at| Damage::TruncateMidLine { at }),
        Just(Damage::Duplicate),
    ]
}

/// Up to `most` damages at lines (as seeds, taken modulo the length).
pub fn damages(most: usize) -> impl Strategy<Value = Vec<(usize, Damage)>> {
    prop::collection::vec((any::<usize>(), damage()), 1..=most)
}

/// One line of a damaged file.
#[derive(Clone, Debug)]
struct Line {
    bytes: Vec<u8>,
    /// The original line's index, while the line is unchanged.
    intact: Option<usize>,
    must_report: bool,
    may_report: bool,
}

/// A damaged recording and what reading it must give.
#[derive(Clone, Debug)]
pub struct Damaged {
    pub bytes: Vec<u8>,
    /// The damages applied, at their original line numbers (from 1).
    pub applied: Vec<(usize, Damage)>,
    /// Lines (from 1) that must be reported.
    pub must_report: BTreeSet<usize>,
    /// Lines that may be reported (those that must among them).
    pub may_report: BTreeSet<usize>,
    /// Events whose lines are unchanged: every one is read.
    pub intact: Vec<Event>,
    /// Changed lines, by line number: read either as a reported problem or
    /// as an event kept as the line says.
    pub changed: Vec<(usize, Vec<u8>)>,
    /// Whether the run's finish line is unchanged.
    pub finish_intact: bool,
}

/// Apply `damages` to the lines of a recording. Damages closer than
/// [`SPACING`] lines to one already placed, and any after a cut, are left
/// out, so that each is judged alone.
pub fn apply(original: &[Vec<u8>], damages: &[(usize, Damage)]) -> Damaged {
    let n = original.len();
    let mut placed: Vec<(usize, Damage)> = Vec::new();
    for (seed, damage) in damages {
        let at = seed % n;
        if matches!(damage, Damage::SwapWithNext) && at + 1 >= n {
            continue;
        }
        if placed
            .iter()
            .all(|(other, _)| other.abs_diff(at) >= SPACING)
        {
            placed.push((at, damage.clone()));
        }
    }
    if let Some(cut) = placed
        .iter()
        .filter(|(_, d)| matches!(d, Damage::TruncateMidLine { .. }))
        .map(|(at, _)| *at)
        .min()
    {
        placed.retain(|(at, _)| *at <= cut);
    }
    // From the last line up, so that each damage finds its line in place.
    placed.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    let mut lines: Vec<Line> = original
        .iter()
        .enumerate()
        .map(|(i, bytes)| Line {
            bytes: bytes.clone(),
            intact: Some(i),
            must_report: false,
            may_report: false,
        })
        .collect();
    let mut line_break_at_end = true;
    let changed = |bytes: Vec<u8>, must: bool| Line {
        bytes,
        intact: None,
        must_report: must,
        may_report: true,
    };
    for (at, damage) in &placed {
        let at = *at;
        match damage {
            Damage::FlipByte { at: pos, byte } => {
                let len = lines[at].bytes.len();
                let pos = pos % (len + 1);
                let old = lines[at].bytes.get(pos).copied().unwrap_or(b'\n');
                let new = if *byte == old {
                    byte.wrapping_add(1)
                } else {
                    *byte
                };
                if pos == len {
                    // The line break itself: the line runs into the next.
                    if at + 1 < lines.len() && new != b'\n' {
                        let next = lines.remove(at + 1);
                        let mut joined = std::mem::take(&mut lines[at].bytes);
                        joined.push(new);
                        joined.extend(next.bytes);
                        lines[at] = changed(joined, true);
                        // Two events on one line: the next line's seq
                        // jumps by one more than the lines account for.
                        if let Some(next) = lines.get_mut(at + 1) {
                            next.may_report = true;
                        }
                    }
                } else if new == b'\n' {
                    let mut first = std::mem::take(&mut lines[at].bytes);
                    let second = first.split_off(pos + 1);
                    first.pop();
                    lines[at] = changed(first, false);
                    lines.insert(at + 1, changed(second, false));
                } else {
                    let mut bytes = std::mem::take(&mut lines[at].bytes);
                    bytes[pos] = new;
                    lines[at] = changed(bytes, false);
                }
            }
            Damage::InvalidUtf8 { at: pos, byte } => {
                let mut bytes = std::mem::take(&mut lines[at].bytes);
                let pos = pos % (bytes.len() + 1);
                bytes.insert(pos, *byte);
                lines[at] = changed(bytes, true);
            }
            Damage::CorruptSeq { seq } => {
                let text = String::from_utf8(lines[at].bytes.clone()).unwrap();
                let start = text.find("\"seq\":").unwrap() + 6;
                let end = start + text[start..].find(',').unwrap();
                let old: u64 = text[start..end].parse().unwrap();
                let new = if *seq == old {
                    seq.wrapping_add(1)
                } else {
                    *seq
                };
                let bytes = format!("{}{new}{}", &text[..start], &text[end..]).into_bytes();
                lines[at] = changed(bytes, true);
            }
            Damage::SwapWithNext => {
                lines.swap(at, at + 1);
                lines[at].must_report = true;
                lines[at].may_report = true;
                lines[at + 1].may_report = true;
            }
            Damage::Delete => {
                lines.remove(at);
                if let Some(next) = lines.get_mut(at) {
                    next.must_report = true;
                    next.may_report = true;
                }
            }
            Damage::TruncateMidLine { at: pos } => {
                let mut bytes = std::mem::take(&mut lines[at].bytes);
                let len = bytes.len();
                bytes.truncate(1 + pos % (len - 1));
                lines.truncate(at);
                lines.push(changed(bytes, true));
                line_break_at_end = false;
            }
            Damage::Duplicate => {
                let copy = lines[at].bytes.clone();
                lines.insert(at + 1, changed(copy, true));
            }
        }
    }
    let mut bytes = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        bytes.extend(&line.bytes);
        if i + 1 < lines.len() || line_break_at_end {
            bytes.push(b'\n');
        }
    }
    let numbered = || lines.iter().enumerate().map(|(i, l)| (i + 1, l));
    let event = |i: usize| serde_json::from_slice::<Event>(&original[i]).unwrap();
    Damaged {
        bytes,
        applied: placed.iter().map(|(at, d)| (at + 1, d.clone())).collect(),
        must_report: numbered()
            .filter(|(_, l)| l.must_report)
            .map(|(i, _)| i)
            .collect(),
        may_report: numbered()
            .filter(|(_, l)| l.may_report)
            .map(|(i, _)| i)
            .collect(),
        intact: lines.iter().filter_map(|l| l.intact).map(event).collect(),
        changed: numbered()
            .filter(|(_, l)| l.intact.is_none())
            .map(|(i, l)| (i, l.bytes.clone()))
            .collect(),
        finish_intact: lines.iter().any(|l| l.intact == Some(n - 1)),
    }
}

/// The shipped scenarios whose workers are all simulated (those with real
/// workers need `conclave toolbox serve`: `real_examples.rs` runs them).
pub fn scenario_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| conclave::scenario::load(p).is_ok_and(|s| !s.has_real_calls()))
        .collect();
    files.sort();
    files
}

/// A recording of every shipped scenario, run by the engine on the
/// virtual clock: its name and its lines.
pub fn real_recordings() -> Vec<(String, Vec<Vec<u8>>)> {
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    scenario_files()
        .iter()
        .map(|file| {
            let name = file.file_stem().unwrap().to_string_lossy().into_owned();
            let path = dir.path().join(format!("{name}.jsonl"));
            let scenario = std::sync::Arc::new(conclave::scenario::load(file).unwrap());
            let options = LaunchOptions {
                record: Some(path.clone()),
                ..LaunchOptions::default()
            };
            runtime.block_on(super::run(scenario, options));
            let lines = std::fs::read(&path)
                .unwrap()
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(<[u8]>::to_vec)
                .collect();
            (name, lines)
        })
        .collect()
}
