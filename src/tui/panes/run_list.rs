//! The run list: one tab per run with its state, the selected one
//! highlighted and always in view (the tabs scroll with it, saying how
//! many are hidden either side); `[`/`]` or the arrows (when focused)
//! switch runs. A replay shows whether it plays or is paused.

use crate::bus::RunStatus;
use crate::tui::keymap::PaneId;
use crate::tui::runs::Runs;
use crate::tui::search;
use crate::tui::slot::RunSlot;
use crate::tui::state::Activity;
use crate::tui::text::fit;
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// `search` is the run list's search, highlighted where it matches.
pub fn draw(frame: &mut Frame, area: Rect, runs: &Runs, focused: bool, search: Option<&str>) {
    let head = Span::styled(
        format!("[{}] runs ", PaneId::Runs.number()),
        if focused {
            theme::border(true)
        } else {
            theme::dim()
        },
    );
    if runs.is_empty() {
        let none = Span::styled(" none yet: n opens the picker", theme::dim());
        frame.render_widget(Paragraph::new(Line::from(vec![head, none])), area);
        return;
    }
    let what = what_each_is(runs);
    let tabs: Vec<Line<'static>> = runs
        .iter()
        .zip(what)
        .enumerate()
        .map(|(i, (slot, what))| {
            let marks = Marks {
                number: i + 1,
                selected: i == runs.selected,
                pinned: runs.pinned() == Some(i),
                what,
            };
            tab(slot, &marks, search)
        })
        .collect();
    let widths: Vec<usize> = tabs.iter().map(|t| t.width() + 1).collect();
    let room = usize::from(area.width).saturating_sub(head.width());
    let window_of = |room| window(&widths, runs.selected, room);
    let (mut first, mut last) = window_of(room);
    // Where some tabs are hidden, which run of how many is shown.
    let mut count = None;
    if first > 0 || last < tabs.len() {
        let said = format!("{} of {} ", runs.selected + 1, tabs.len());
        (first, last) = window_of(room.saturating_sub(said.chars().count()));
        count = Some(Span::styled(said, theme::bold()));
    }
    let mut spans = vec![head];
    spans.extend(count);
    if first > 0 {
        spans.push(Span::styled(format!("‹{first} "), theme::dim()));
    }
    for tab in &tabs[first..last] {
        spans.extend(tab.spans.iter().cloned());
        spans.push(Span::styled("│", theme::dim()));
    }
    if last < tabs.len() {
        spans.push(Span::styled(
            format!(" {}›", tabs.len() - last),
            theme::dim(),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Room the marks of hidden tabs take at most (`‹12 ` and ` 12›`).
const MARKS: usize = 8;

/// The tabs `first..last` that fit in `room` columns with `selected`
/// among them: as many before it as fit, then as many after.
fn window(widths: &[usize], selected: usize, room: usize) -> (usize, usize) {
    if widths.iter().sum::<usize>() <= room {
        return (0, widths.len());
    }
    let room = room.saturating_sub(MARKS);
    let selected = selected.min(widths.len().saturating_sub(1));
    let mut used = widths.get(selected).copied().unwrap_or(0);
    let (mut first, mut last) = (selected, selected + 1);
    while first > 0 && used + widths[first - 1] <= room {
        first -= 1;
        used += widths[first];
    }
    while last < widths.len() && used + widths[last] <= room {
        used += widths[last];
        last += 1;
    }
    (first, last)
}

/// How a tab is marked besides its run's state.
struct Marks {
    selected: bool,
    /// The run `c` compares the selected run with.
    pinned: bool,
    /// The tab's own number, from 1: two tabs never share one (a replay
    /// and its fork both ran as run 1).
    number: usize,
    /// What the run is, where its scenario and flags alone would not tell
    /// it from another tab's: a fork (always), a replay, a live run.
    what: Option<String>,
}

/// Per tab, what the run is: `fork of #1 at round 2` for a fork (the
/// parent by its tab where it has one, else by its file); for tabs that
/// would otherwise read the same (one scenario, the same flags), what
/// tells them apart: `replay FILE`, `seed 7` where their seeds differ,
/// `live` while the run goes on, else the time it started.
fn what_each_is(runs: &Runs) -> Vec<Option<String>> {
    let slots: Vec<&RunSlot> = runs.iter().collect();
    let same = |a: &RunSlot, b: &RunSlot| {
        a.scenario.name == b.scenario.name && changed_flags(a) == changed_flags(b)
    };
    slots
        .iter()
        .enumerate()
        .map(|(i, slot)| {
            let live = slot.replay.is_none() && slot.is_live();
            // A watched run is named by its top span (`support workflow`),
            // once that arrived.
            if let Some(root) = &slot.state.root_span {
                let mut words = fit(root, 24);
                if live {
                    words.push_str(" · live");
                }
                return Some(words);
            }
            if let Some(from) = slot
                .state
                .info
                .as_ref()
                .and_then(|i| i.forked_from.as_ref())
            {
                let parent = slots
                    .iter()
                    .position(|s| s.recording.as_deref() == Some(std::path::Path::new(&from.file)))
                    .map_or_else(
                        || fit(&file_name(&from.file), 24),
                        |p| format!("#{}", p + 1),
                    );
                let mut words = format!("fork of {parent} at {}", fit(&from.gate, 16));
                if live {
                    words.push_str(" · live");
                }
                return Some(words);
            }
            let twins: Vec<&&RunSlot> = slots
                .iter()
                .enumerate()
                .filter(|(j, other)| *j != i && same(slot, other))
                .map(|(_, other)| other)
                .collect();
            if twins.is_empty() {
                return None;
            }
            let mut words = Vec::new();
            match (&slot.replay, &slot.recording) {
                (Some(_), Some(path)) => {
                    words.push(format!(
                        "replay {}",
                        fit(&file_name(&path.to_string_lossy()), 24)
                    ));
                }
                (Some(_), None) => words.push("replay".to_string()),
                (None, _) => {}
            }
            let seed = seed_of(slot);
            if seed.is_some() && twins.iter().any(|t| seed_of(t) != seed) {
                words.push(format!("seed {}", seed.unwrap_or_default()));
            }
            if live {
                words.push("live".to_string());
            } else if words.is_empty() {
                words.extend(started_at(slot));
            }
            (!words.is_empty()).then(|| words.join(" · "))
        })
        .collect()
}

/// The seed the run started with, once it started.
fn seed_of(slot: &RunSlot) -> Option<u64> {
    slot.state.info.as_ref().map(|info| info.seed)
}

/// `started 14:03:22`, in the machine's time zone.
fn started_at(slot: &RunSlot) -> Option<String> {
    let ms = slot.state.info.as_ref()?.started_at_ms;
    let at = jiff::Timestamp::from_millisecond(i64::try_from(ms).ok()?).ok()?;
    (ms > 0).then(|| {
        let local = at.to_zoned(jiff::tz::TimeZone::system());
        format!("started {}", local.strftime("%H:%M:%S"))
    })
}

fn file_name(path: &str) -> String {
    std::path::Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}

/// The flags `slot`'s run changed from its scenario's defaults:
/// `+legal_analyst`.
fn changed_flags(slot: &RunSlot) -> Vec<String> {
    crate::tui::text::flag_changes(
        slot.state.flags.iter().map(|f| (f.name.as_str(), f.on)),
        &slot.scenario,
    )
}

/// One run's tab: its number, its state's glyph and its scenario, and
/// what the run is where that tells it apart; ◆ marks the pinned run.
fn tab(slot: &RunSlot, marks: &Marks, search: Option<&str>) -> Line<'static> {
    let (selected, pinned) = (marks.selected, marks.pinned);
    let playing = slot.replay.as_ref().map(|r| r.playing);
    let (glyph, style) = match (&slot.state.activity, &slot.state.outcome, playing) {
        // Finished, with work undone: partial, in its own colour.
        (Activity::Finished, Some(o), _) if o.status == RunStatus::Ok && slot.partial() => {
            ("◐", theme::bold().fg(theme::CAUTION))
        }
        (Activity::Finished, Some(o), _) if o.status == RunStatus::Ok => {
            ("✓", Style::default().fg(theme::GO))
        }
        (Activity::Finished, _, _) => ("✗", theme::error()),
        // It waits for a person's answer.
        (Activity::Paused { .. }, _, None)
            if slot.state.asked.as_ref().is_some_and(|e| e.waiting()) =>
        {
            ("?", theme::bold().fg(theme::CAUTION))
        }
        // A watched run its hook holds.
        (Activity::Starting | Activity::Running, None, None) if slot.held => {
            ("⏸", Style::default().fg(theme::CAUTION))
        }
        // A replay shows its own playback, not the run's state then.
        (_, _, Some(false)) | (Activity::Paused { .. }, _, _) => {
            ("⏸", Style::default().fg(theme::CAUTION))
        }
        _ => ("▶", Style::default().fg(theme::ACCENT)),
    };
    let pin = if pinned { "◆" } else { "" };
    // An attached run is named as its engine names it.
    let number = match slot.remote() {
        Some(id) => fit(&id.to_string(), 24),
        None => marks.number.to_string(),
    };
    // Runs of one scenario told apart by the flags they run with, where
    // those differ from the scenario's defaults: `+legal_analyst`.
    let changed = changed_flags(slot);
    let flags = if changed.is_empty() {
        String::new()
    } else {
        format!(" {}", fit(&changed.join(" "), 24))
    };
    let what = marks
        .what
        .as_ref()
        .map_or_else(String::new, |what| format!(" · {what}"));
    let label = format!(
        " {pin}{number} {glyph} {}{flags}{what} ",
        fit(&slot.scenario.name, 28)
    );
    let style = if selected {
        style.patch(theme::selected())
    } else {
        style
    };
    search::highlight(Line::from(Span::styled(label, style)), search)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selected_tab_is_always_in_view() {
        let widths = vec![10; 12];
        assert_eq!(window(&widths, 0, 200), (0, 12), "all fit");
        assert_eq!(window(&widths, 0, 68), (0, 6));
        assert_eq!(window(&widths, 8, 68), (3, 9), "past the sixth");
        assert_eq!(window(&widths, 11, 68), (6, 12));
        assert_eq!(window(&widths, 11, 5), (11, 12), "at least the selected");
        assert_eq!(window(&[], 0, 10), (0, 0));
    }
}
