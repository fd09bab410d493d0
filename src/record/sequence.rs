//! Putting a recording's events back in their run's order. A line whose seq
//! does not continue the sequence is judged by the lines after it: if they
//! go on from it, lines are missing before it (a gap, reported, everything
//! kept); if they go on from the last kept event, its seq is damaged (that
//! one line is skipped); two adjacent lines in swapped order are both kept.
//! One pass with a bounded look-ahead, so reading stays linear and a
//! recording can be read without being held whole.

use crate::bus::{Event, RunId};
use std::collections::VecDeque;
use std::sync::Arc;

/// How many lines after a seq that does not follow are looked at to judge
/// it. A real gap is confirmed by the very next line; the rest of the window
/// only helps when that line is damaged as well.
const LOOK_AHEAD: usize = 8;

/// An event with where it was read.
#[derive(Debug)]
pub(super) struct Placed {
    /// Its line number in the file, for reports.
    pub(crate) line: usize,
    /// Its place among the file's non-blank lines (from 1): each line holds
    /// at most one seq, so a seq can grow by at most the lines between.
    pub(crate) slot: u64,
    /// Where its text is in the file: the byte it starts at and its length
    /// (without the line break).
    pub(crate) span: (u64, u32),
    pub(crate) event: Arc<Event>,
}

/// The last event kept, where the sequence goes on from.
#[derive(Clone, Copy, Debug, Default)]
struct Anchor {
    seq: u64,
    slot: u64,
    line: usize,
}

impl Anchor {
    /// Whether an event of `seq` at `slot` can follow this one: a higher seq,
    /// higher by no more than the lines between (lines reported as damaged
    /// account for the seqs they held).
    fn continued_by(self, seq: u64, slot: u64) -> bool {
        seq > self.seq && seq - self.seq <= slot.saturating_sub(self.slot)
    }
}

enum Verdict {
    /// Lines are missing before this one: keep it.
    Gap,
    /// Its seq is damaged: skip it.
    Outlier,
    /// It and the event on the next line are in swapped order: keep both.
    Swapped,
}

/// The events of the recording's run in seq order; every line left out is
/// reported in `problems` with its line number.
#[cfg(test)]
pub(super) fn in_sequence(
    placed: Vec<Placed>,
    problems: &mut Vec<(usize, String)>,
) -> Vec<Arc<Event>> {
    let mut events = Vec::new();
    let mut sequence = Sequence::default();
    for event in placed {
        sequence.push(event, problems, &mut |p| events.push(p.event));
    }
    sequence.finish(problems, &mut |p| events.push(p.event));
    events
}

/// Events put back in order as they are read: each is judged once
/// [`LOOK_AHEAD`] more have come (or the file has ended), so that a whole
/// recording is never held.
#[derive(Default)]
pub(super) struct Sequence {
    /// Read, not judged yet, in file order.
    pending: VecDeque<Placed>,
    /// The recording's run, once known.
    run: Option<RunId>,
    /// The last event kept; before the first line, the run starts at seq 1.
    last: Anchor,
}

impl Sequence {
    /// The next event read; `kept` gets those judged to be in order.
    pub(super) fn push(
        &mut self,
        event: Placed,
        problems: &mut Vec<(usize, String)>,
        kept: &mut impl FnMut(Placed),
    ) {
        self.pending.push_back(event);
        self.judge_pending(false, problems, kept);
    }

    /// The file has ended: judge what is left.
    pub(super) fn finish(
        mut self,
        problems: &mut Vec<(usize, String)>,
        kept: &mut impl FnMut(Placed),
    ) {
        self.judge_pending(true, problems, kept);
    }

    fn judge_pending(
        &mut self,
        ended: bool,
        problems: &mut Vec<(usize, String)>,
        kept: &mut impl FnMut(Placed),
    ) {
        let run = match self.run {
            Some(run) => run,
            None => match recording_run(self.pending.make_contiguous(), ended) {
                Some(run) => *self.run.insert(run),
                None => return,
            },
        };
        // The first event waits for the look-ahead behind it.
        while !self.pending.is_empty() && (ended || self.pending.len() > LOOK_AHEAD + 1) {
            self.judge_first(run, problems, kept);
        }
    }

    fn judge_first(
        &mut self,
        run: RunId,
        problems: &mut Vec<(usize, String)>,
        kept: &mut impl FnMut(Placed),
    ) {
        let last = self.last;
        let here = &self.pending[0];
        let (seq, slot, line) = (here.event.seq, here.slot, here.line);
        let here_anchor = Anchor { seq, slot, line };
        if here.event.run != run {
            let message = format!(
                "an event of run {} in a recording of run {run}; skipped",
                here.event.run
            );
            problems.push((line, message));
        } else if seq == 0 {
            problems.push((line, "seq 0: seqs start at 1; skipped".into()));
        } else if seq == last.seq {
            let message = format!("seq {seq} again (line {} has it); skipped", last.line);
            problems.push((line, message));
        } else if seq < last.seq {
            let message = format!("seq {seq} after seq {}: out of order; skipped", last.seq);
            problems.push((line, message));
        } else if last.continued_by(seq, slot) {
            self.last = here_anchor;
            let here = self.pending.pop_front();
            here.into_iter().for_each(&mut *kept);
            return;
        } else {
            match judge(self.pending.make_contiguous(), 0, run, last) {
                Verdict::Gap => {
                    problems.push((line, gap(last, here_anchor)));
                    self.last = here_anchor;
                    let here = self.pending.pop_front();
                    here.into_iter().for_each(&mut *kept);
                    return;
                }
                Verdict::Outlier => {
                    let message = format!(
                        "seq {seq} out of place: the lines after it go on from seq {}; skipped",
                        last.seq
                    );
                    problems.push((line, message));
                }
                Verdict::Swapped => {
                    let other = &self.pending[1];
                    let message = format!(
                        "seq {seq} before seq {} on line {}: the two lines are swapped; both kept, in seq order",
                        other.event.seq, other.line
                    );
                    problems.push((line, message));
                    self.last = Anchor {
                        slot: other.slot,
                        ..here_anchor
                    };
                    let here = self.pending.pop_front();
                    let other = self.pending.pop_front();
                    other.into_iter().chain(here).for_each(&mut *kept);
                    return;
                }
            }
        }
        self.pending.pop_front();
    }
}

/// "seq jumps from A to B: N events missing", for an event kept after a gap.
fn gap(last: Anchor, here: Anchor) -> String {
    // Lines reported as damaged in between account for some of the seqs.
    let missing = here.seq - last.seq - (here.slot - last.slot);
    let missing = crate::words::plural(missing, "event");
    if last.seq == 0 {
        format!(
            "the recording starts at seq {}: {missing} missing before it",
            here.seq
        )
    } else {
        format!(
            "seq jumps from {} to {}: {missing} missing",
            last.seq, here.seq
        )
    }
}

/// The run a recording is of: that of the first two adjacent events that
/// agree, so one damaged run id on the first line does not disown the rest;
/// without such a pair, the first event's once the file has `ended`.
fn recording_run(placed: &[Placed], ended: bool) -> Option<RunId> {
    placed
        .windows(2)
        .find(|pair| pair[0].event.run == pair[1].event.run)
        .map(|pair| pair[0].event.run)
        .or_else(|| ended.then(|| placed.first().map(|p| p.event.run)).flatten())
}

/// Judge the event at `i`, whose seq jumps ahead of `last`, by the events
/// after it.
fn judge(placed: &[Placed], i: usize, run: RunId, last: Anchor) -> Verdict {
    let here = &placed[i];
    let mut first = true;
    let mut own_seen = false;
    for later in placed.iter().skip(i + 1).take(LOOK_AHEAD) {
        if later.event.run != run {
            continue;
        }
        own_seen = true;
        let (seq, slot) = (later.event.seq, later.slot);
        if first
            && slot == here.slot + 1
            && seq.checked_add(1) == Some(here.event.seq)
            && last.continued_by(seq, here.slot)
        {
            // Adjacent non-blank lines: `later` is `placed[i + 1]`.
            return Verdict::Swapped;
        }
        first = false;
        let from_here = Anchor {
            seq: here.event.seq,
            slot: here.slot,
            line: here.line,
        };
        if from_here.continued_by(seq, slot) {
            return Verdict::Gap;
        }
        if last.continued_by(seq, slot) {
            return Verdict::Outlier;
        }
    }
    let at_end = placed.len() <= i + 1 + LOOK_AHEAD;
    if at_end && !own_seen {
        // The last event: nothing says its seq is wrong.
        Verdict::Gap
    } else {
        Verdict::Outlier
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::EventKind;

    /// Events of run 1 with these seqs, one a line.
    fn lines(seqs: &[u64]) -> Vec<Placed> {
        seqs.iter()
            .enumerate()
            .map(|(i, &seq)| Placed {
                line: i + 1,
                slot: i as u64 + 1,
                span: (0, 0),
                event: Arc::new(Event {
                    run: 1,
                    seq,
                    t_ms: 0,
                    kind: EventKind::FlagChanged {
                        name: "f".into(),
                        on: true,
                        gate: None,
                    },
                }),
            })
            .collect()
    }

    fn kept(seqs: &[u64]) -> (Vec<u64>, Vec<usize>) {
        let mut problems = Vec::new();
        let events = in_sequence(lines(seqs), &mut problems);
        (
            events.iter().map(|e| e.seq).collect(),
            problems.iter().map(|p| p.0).collect(),
        )
    }

    #[test]
    fn one_damaged_seq_costs_its_line_only() {
        for bad in [0, 1, 3, 4, 5, 9, 1_000_000, u64::MAX] {
            let (seqs, reported) = kept(&[1, 2, bad, 4, 5, 6]);
            if bad == 3 {
                assert_eq!(seqs, [1, 2, 3, 4, 5, 6]);
                assert!(reported.is_empty());
            } else {
                assert_eq!(seqs, [1, 2, 4, 5, 6], "seq 3 damaged into {bad}");
                assert_eq!(reported, [3], "seq 3 damaged into {bad}");
            }
        }
        // The first and the last line.
        assert_eq!(kept(&[77, 2, 3, 4]), (vec![2, 3, 4], vec![1]));
        assert_eq!(kept(&[1, 2, 3, 0]), (vec![1, 2, 3], vec![4]));
    }

    #[test]
    fn a_swapped_pair_is_put_back_in_order() {
        assert_eq!(kept(&[1, 2, 4, 3, 5, 6]), (vec![1, 2, 3, 4, 5, 6], vec![3]));
        assert_eq!(kept(&[2, 1, 3]), (vec![1, 2, 3], vec![1]));
        assert_eq!(kept(&[1, 2, 3, 5, 4]), (vec![1, 2, 3, 4, 5], vec![4]));
    }

    #[test]
    fn missing_lines_are_a_gap_and_the_rest_is_kept() {
        assert_eq!(kept(&[1, 2, 6, 7, 8]), (vec![1, 2, 6, 7, 8], vec![3]));
        assert_eq!(kept(&[1, 2, 3, 9]), (vec![1, 2, 3, 9], vec![4]));
        assert_eq!(kept(&[40, 41, 42]), (vec![40, 41, 42], vec![1]));
        let mut problems = Vec::new();
        in_sequence(lines(&[1, 2, 5, 6]), &mut problems);
        assert_eq!(
            problems,
            [(3, "seq jumps from 2 to 5: 2 events missing".to_string())]
        );
    }

    #[test]
    fn repeated_and_displaced_lines_are_skipped() {
        assert_eq!(kept(&[1, 2, 2, 3]), (vec![1, 2, 3], vec![3]));
        assert_eq!(
            kept(&[1, 2, 3, 4, 2, 3, 5]),
            (vec![1, 2, 3, 4, 5], vec![5, 6])
        );
    }

    #[test]
    fn two_damaged_seqs_in_a_row_cost_two_lines() {
        assert_eq!(
            kept(&[1, 2, 900, 800, 5, 6]),
            (vec![1, 2, 5, 6], vec![3, 4])
        );
    }

    #[test]
    fn one_damaged_run_id_does_not_disown_the_recording() {
        let mut placed = lines(&[1, 2, 3]);
        Arc::get_mut(&mut placed[0].event).unwrap().run = 9;
        let mut problems = Vec::new();
        let events = in_sequence(placed, &mut problems);
        assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(
            problems,
            [(
                1,
                "an event of run 9 in a recording of run 1; skipped".to_string()
            )]
        );
    }
}
