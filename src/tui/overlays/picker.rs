//! The scenario picker: every scenario with its title and pattern, then
//! the recent recordings with the run they hold and how it ended; the
//! selected one's description. `/` narrows the list to what matches as it
//! is typed, `o` sorts it, `v` keeps the scenarios or the failed runs;
//! Enter launches or replays the selected entry. Under `conclave attach`
//! it lists the live runs of every engine instead, and Enter attaches one.
//! It is drawn and paged in the room above the dashboard's key line, which
//! stays in sight: a list longer than the room scrolls.

use super::frame_box;
use crate::tui::catalog::{Entry, Item};
use crate::tui::keymap::Action;
use crate::tui::layout::centered;
use crate::tui::search;
use crate::tui::selection::{ListView, Show, Shown, Sort};
use crate::tui::text::{fit, pad};
use crate::tui::theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

/// The sorts `o` cycles through.
const SORTS: &[Sort] = &[Sort::Natural, Sort::State, Sort::Name];

/// What the title calls the entries `v` keeps besides all of them.
const SHOW_WORDS: [&str; 2] = ["scenarios", "failed"];

/// Rows under the list for the selected entry's description.
const ABOUT_ROWS: u16 = 5;

/// The picker's selection, sort, filter and the text that narrows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PickerView {
    /// The selection among the catalog's entries.
    pub(crate) list: ListView,
    /// What the list is narrowed to; empty for every entry.
    pub(crate) filter: String,
    /// Whether the filter is being typed.
    pub(crate) typing: bool,
    /// The entries are the live runs of other engines (`conclave attach`).
    pub(crate) remote: bool,
}

impl PickerView {
    /// The picker with entry `selected` selected.
    pub(crate) fn new(selected: usize) -> PickerView {
        PickerView {
            list: ListView::at(selected),
            ..PickerView::default()
        }
    }

    /// The entries as shown: narrowed by the filter and `v`, sorted by `o`.
    pub(crate) fn shown(&self, entries: &[Entry]) -> Shown {
        let mut order: Vec<usize> = (0..entries.len())
            .filter(|i| {
                let entry = &entries[*i];
                let kept = match self.list.show {
                    Show::All => true,
                    Show::Active => {
                        matches!(
                            entry.item,
                            Item::Scenario(Ok(_)) | Item::Remote(_) | Item::Program(_)
                        )
                    }
                    Show::Failed => failed(entry),
                };
                kept && (self.filter.is_empty() || search::contains(&text(entry), &self.filter))
            })
            .collect();
        match self.list.sort {
            Sort::State => order.sort_by_key(|i| state_rank(&entries[*i])),
            Sort::Name => order.sort_by_key(|i| entries[*i].title().to_lowercase()),
            _ => {}
        }
        Shown { order, lead: None }
    }

    /// The selected entry.
    pub(crate) fn selected<'a>(&self, entries: &'a [Entry]) -> Option<&'a Entry> {
        entries.get(self.list.item(&self.shown(entries))?)
    }

    /// Apply a key of the picker on a `screen` of that size.
    pub(crate) fn navigate(&mut self, action: Action, entries: &[Entry], screen: Rect) {
        let page = usize::from(areas(screen, entries.len()).0.height);
        let shown = self.shown(entries);
        self.list.navigate(action, &shown, page, SORTS);
    }
}

/// An entry as the filter reads it: title, pattern, state and origin.
fn text(entry: &Entry) -> String {
    format!(
        "{} {} {} {}",
        entry.title(),
        entry.kind(),
        entry.state(),
        entry.origin
    )
}

/// A scenario that cannot be launched, or a run that stopped, was cut
/// short or finished with work undone.
fn failed(entry: &Entry) -> bool {
    match &entry.item {
        Item::Scenario(scenario) => scenario.is_err(),
        Item::Recording(recorded) => recorded.failed(),
        Item::Remote(_) | Item::Program(_) => false,
    }
}

/// Scenarios to launch first, then runs that ended well, then partial
/// ones, then failures.
fn state_rank(entry: &Entry) -> u8 {
    match &entry.item {
        Item::Scenario(Ok(_)) | Item::Remote(_) | Item::Program(_) => 0,
        Item::Recording(recorded) if !recorded.failed() => 1,
        Item::Recording(recorded) if recorded.partial() => 2,
        Item::Recording(_) => 3,
        Item::Scenario(Err(_)) => 4,
    }
}

/// The picker's list and description areas (inside its frame), and its
/// frame, on a `screen` of that size.
fn areas(screen: Rect, entries: usize) -> (Rect, Rect, Rect) {
    let height = u16::try_from(entries + 2).unwrap_or(u16::MAX);
    let frame = centered(screen, 96, height.saturating_add(ABOUT_ROWS + 1));
    let inner = Rect {
        x: frame.x.saturating_add(1),
        y: frame.y.saturating_add(1),
        width: frame.width.saturating_sub(2),
        height: frame.height.saturating_sub(2),
    };
    let about = ABOUT_ROWS.min(inner.height / 2);
    let list = Rect {
        height: inner.height - about,
        ..inner
    };
    let about = Rect {
        y: list.bottom(),
        height: about,
        ..inner
    };
    (list, about, frame)
}

/// The pattern's column.
const KIND_W: usize = 13;

/// How many columns of `room` a row's title and state get: both whole
/// when they fit with two spaces between them; else the state up to a
/// third of the room and the title the rest.
fn columns(room: usize, title: usize, state: usize) -> (usize, usize) {
    if state == 0 {
        return (title.min(room), 0);
    }
    if title + state + 2 <= room {
        return (title, state);
    }
    let state_w = state.min(room / 3);
    let title_w = title.min(room.saturating_sub(state_w + 2));
    (title_w, state.min(room.saturating_sub(title_w + 2)))
}

fn text_width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

pub(crate) fn draw(frame: &mut Frame, screen: Rect, entries: &[Entry], view: &PickerView) {
    let shown = view.shown(entries);
    let (list, about, area) = areas(screen, entries.len());
    let remote = view.remote || entries.iter().any(|e| matches!(e.item, Item::Remote(_)));
    frame_box(
        frame,
        area,
        &title(entries, view, &shown, remote),
        if remote {
            "j/k select · / filter · o sort · Enter attaches · Esc closes · q quits"
        } else {
            "j/k select · / filter · o sort · v show · Enter launches · Esc closes · q quits"
        },
    );
    let input_rows = usize::from(view.typing || !view.filter.is_empty());
    let rows = usize::from(list.height).saturating_sub(input_rows);
    let mut lines = listed(entries, view, &shown, usize::from(list.width), rows);
    if input_rows > 0 {
        lines.resize(rows, Line::raw(""));
        lines.push(filter_line(view, usize::from(list.width)));
    }
    frame.render_widget(Paragraph::new(lines), list);
    let about_lines = view
        .selected(entries)
        .map(|entry| about_entry(entry, usize::from(about.width)))
        .unwrap_or_default();
    frame.render_widget(
        Paragraph::new(about_lines).wrap(Wrap { trim: false }),
        about,
    );
}

/// The box's title: what picking does, how many entries the filter
/// keeps, and the list's sort and view.
fn title(entries: &[Entry], view: &PickerView, shown: &Shown, remote: bool) -> String {
    let mut title = if remote {
        "Attach: pick a live run of any engine".to_string()
    } else {
        "New run: pick a scenario or a recording".to_string()
    };
    if shown.len() < entries.len() {
        title.push_str(&format!(" · {} of {}", shown.len(), entries.len()));
    }
    let mut words = view.list.title_words(SHOW_WORDS);
    if let Some(follow) = words.find(" · G follows") {
        words.truncate(follow);
    }
    title.push_str(&words);
    title
}

/// The list's `rows` rows at `width` columns, or why it is empty.
fn listed(
    entries: &[Entry],
    view: &PickerView,
    shown: &Shown,
    width: usize,
    rows: usize,
) -> Vec<Line<'static>> {
    // Each row: the pattern, the title as wide as it needs, the state at
    // the right edge. Where both do not fit, the state keeps up to a third
    // of the room and the title the rest.
    let room = width.saturating_sub(KIND_W + 2);
    let first = view.list.first(shown, rows);
    let selected = view.list.item(shown);
    let query = Some(view.filter.as_str());
    let mut titles: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for entry in entries {
        *titles.entry(entry.title()).or_default() += 1;
    }
    let mut lines: Vec<Line> = shown
        .order
        .iter()
        .copied()
        .skip(first)
        .take(rows)
        .map(|i| {
            let twin = titles.get(&entries[i].title()).is_some_and(|n| *n > 1);
            search::mark(row(&entries[i], room, twin), query, Some(i) == selected)
        })
        .collect();
    let empty = if entries.is_empty() && view.remote {
        Some("No live run on the server yet: the list is read again every 2 s.")
    } else if entries.is_empty() {
        Some("No scenarios found.")
    } else if shown.is_empty() {
        Some("Nothing matches (Esc clears the filter).")
    } else {
        None
    };
    lines.extend(empty.map(|why| Line::styled(why, theme::dim())));
    lines
}

/// One entry's row in `room` columns after its pattern; a recording whose
/// title another entry shares (two runs started in the same second with
/// the same seed) is told apart by its file's name.
fn row(entry: &Entry, room: usize, twin: bool) -> Line<'static> {
    let style = match &entry.item {
        Item::Scenario(Ok(_)) | Item::Program(_) => theme::bold(),
        Item::Scenario(Err(_)) => theme::error(),
        Item::Recording(recorded) if recorded.partial() => theme::bold().fg(theme::CAUTION),
        Item::Recording(recorded) if recorded.failed() => theme::error(),
        Item::Recording(_) => Style::default().fg(theme::GO),
        Item::Remote(_) => Style::default().fg(theme::ACCENT),
    };
    let (mut title, state) = (entry.title(), entry.state());
    if twin && let Item::Recording(recorded) = &entry.item {
        // First, where a narrow row still shows it.
        let name = recorded.path.file_name().unwrap_or_default();
        let rest = title.strip_prefix("replay ").unwrap_or(&title);
        title = format!("replay {} · {rest}", name.to_string_lossy());
    }
    let (title_w, state_w) = columns(room, text_width(&title), text_width(&state));
    Line::from(vec![
        Span::styled(format!("{}  ", pad(&entry.kind(), KIND_W)), theme::dim()),
        Span::styled(pad(&title, title_w), theme::bold()),
        Span::raw(" ".repeat(room.saturating_sub(title_w + state_w))),
        Span::styled(fit(&state, state_w), style),
    ])
}

/// The filter being typed or kept, under the list.
fn filter_line(view: &PickerView, width: usize) -> Line<'static> {
    let mut input = vec![
        Span::styled("/", Style::default().fg(theme::ACCENT)),
        Span::raw(fit(&view.filter, width.saturating_sub(24))),
    ];
    if view.typing {
        input.push(Span::styled("▏", Style::default().fg(theme::ACCENT)));
        input.push(Span::styled(" Enter keeps · Esc clears", theme::dim()));
    }
    Line::from(input)
}

/// Under the list, the selected entry: where it comes from and what it is.
fn about_entry(entry: &Entry, width: usize) -> Vec<Line<'static>> {
    let text = match &entry.item {
        Item::Recording(recorded) => Line::raw(fit(
            &format!("Replay the run: {}.", recorded.outcome()),
            2000,
        )),
        Item::Scenario(Ok(scenario)) => Line::raw(fit(
            scenario
                .description
                .as_deref()
                .unwrap_or("(no description)"),
            2000,
        )),
        Item::Scenario(Err(error)) => Line::styled(fit(error, 2000), theme::error()),
        Item::Program(program) => Line::raw(fit(&program_words(program), 2000)),
        Item::Remote(live) => Line::raw(fit(
            &format!(
                "Attach to run {}: its panes from its first event, live after that; space, s and f reach its engine.",
                live.id
            ),
            2000,
        )),
    };
    vec![
        Line::raw(""),
        Line::styled(fit(&entry.origin, width), theme::dim()),
        text,
    ]
}

/// A program scenario in the picker: its description, then the command
/// line it starts (as the file gives it, cleaned for the screen).
fn program_words(program: &crate::launch::LoadedProgram) -> String {
    let s = &program.scenario;
    let command = crate::sanitize::clean(&s.command.join(" ")).into_owned();
    match s.description.as_deref() {
        Some(about) => format!("{} · runs: {command}", crate::sanitize::clean(about)),
        None => format!("Launch the program: {command}"),
    }
}

#[cfg(test)]
mod tests {
    use super::columns;

    #[test]
    fn the_title_takes_what_the_state_leaves() {
        // Both fit: both whole.
        assert_eq!(columns(80, 30, 20), (30, 20));
        // No state: the title may fill the row.
        assert_eq!(columns(80, 100, 0), (80, 0));
        // Too long together: the state keeps up to a third.
        assert_eq!(columns(78, 59, 21), (55, 21));
        assert_eq!(columns(78, 48, 58), (48, 28));
        assert_eq!(columns(78, 70, 58), (50, 26));
        // A row too narrow for anything.
        assert_eq!(columns(1, 10, 10), (0, 0));
    }
}
