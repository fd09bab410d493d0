//! Text being written, in the panes: a real run of a shipped scenario cut
//! at a model call, then that call's `call_delta`s as a streaming endpoint
//! would publish them. The round table marks the asked agent as writing
//! and shows its summary so far, the swarm's chain the holder's reply, the
//! coordinator's cards a running member's answer, the research pane the
//! synthesis; the validated result replaces it when the call finishes, and
//! replay shows the same. The model's row shows the time to the first
//! token and the tokens a second.

use crate::common;
use conclave::patterns::events::PatternEvent;

use conclave::bus::{CallOutcome, Event, EventKind, TokenUsage};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::RoundEvent;
use conclave::record::read_recording;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::keymap::Action;
use conclave::tui::panes;
use conclave::tui::replay::Replay;
use conclave::tui::state::RunState;
use conclave::tui::view;
use conclave::tui::view_state::Overlay;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::sync::Arc;

async fn full_run(file: &str) -> Vec<Arc<Event>> {
    let (_, events) = common::run(common::shipped(file), LaunchOptions::default()).await;
    events.into_iter().map(Arc::new).collect()
}

/// The events up to the `nth` model call started for `agent` (`None`: for
/// no agent, with `label`), and that call's id.
fn cut_at_call(
    events: &[Arc<Event>],
    agent: Option<&str>,
    label: Option<&str>,
) -> (Vec<Arc<Event>>, u64) {
    let at = events
        .iter()
        .position(|e| match &e.kind {
            EventKind::CallStarted {
                tool,
                agent: a,
                label: l,
                ..
            } => tool == "model" && a.as_deref() == agent && label.is_none_or(|want| l == want),
            _ => false,
        })
        .expect("the model call");
    let EventKind::CallStarted { call, .. } = &events[at].kind else {
        unreachable!()
    };
    (events[..=at].to_vec(), *call)
}

/// `events` and then `pieces` of call `call`'s text, 60 ms apart.
fn with_deltas(events: &[Arc<Event>], call: u64, pieces: &[&str]) -> Vec<Arc<Event>> {
    let mut events = events.to_vec();
    let last = events.last().unwrap().clone();
    for (i, text) in pieces.iter().enumerate() {
        events.push(Arc::new(Event {
            run: last.run,
            seq: last.seq + 1 + i as u64,
            t_ms: last.t_ms + 60 * (i as u64 + 1),
            kind: EventKind::CallDelta {
                call,
                text: text.to_string(),
                reasoning: false,
                arguments: false,
            },
        }));
    }
    events
}

fn app_with(events: &[Arc<Event>]) -> App {
    let mut app = App::new(AppOptions::default());
    app.add_from_events(events, Some("scenarios/test.json".into()))
        .expect("events start with run_started");
    app
}

fn text(buffer: &Buffer) -> String {
    let area = buffer.area;
    let mut out = String::new();
    for y in 0..area.height {
        let line: String = (0..area.width).map(|x| buffer[(x, y)].symbol()).collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| view::draw(frame, app)).unwrap();
    text(terminal.backend().buffer())
}

fn pattern_pane(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| {
            let run = app.run().unwrap().view();
            let area = Rect::new(0, 0, width, height);
            panes::pattern::draw(frame, area, run.unit, run.state, run.ui, run.now_ms, true);
        })
        .unwrap();
    text(terminal.backend().buffer())
}

/// A contribution as an endpoint streams it: a few characters at a time.
const FINANCE: [&str; 6] = [
    "{\"agent\": \"finance_analyst\", \"stan",
    "ce\": \"go\", \"confidence\": 0.74, \"sum",
    "mary\": \"Margins hold at the new ",
    "price point; the refund reserve ",
    "covers a 2% return rate\\u00a0and the ",
    "card fees drop by a third",
];

#[tokio::test(start_paused = true)]
async fn the_round_table_shows_the_summary_being_written_then_the_contribution() {
    let events = full_run("checkout_v2_launch.json").await;
    let (cut, call) = cut_at_call(
        &events,
        Some("finance_analyst"),
        Some("round 2 · finance_analyst"),
    );
    let streaming = with_deltas(&cut, call, &FINANCE);

    // The reducer keeps the call's text so far with the call.
    let state = RunState::from_events(1, &streaming);
    let written = state.text_in_flight();
    assert_eq!(written.len(), 1);
    assert_eq!(
        (written[0].0, written[0].1),
        (call, Some("finance_analyst"))
    );
    assert_eq!(
        written[0].2.chars(),
        FINANCE.concat().chars().count() as u64
    );
    assert_eq!(
        state.log.len(),
        cut.len(),
        "deltas are not lines of the log"
    );

    let app = app_with(&streaming);
    let pane = pattern_pane(&app, 90, 14);
    assert!(pane.contains("✎ writing"), "{pane}");
    assert!(
        pane.contains("card fees drop by a third"),
        "the summary so far, read from the JSON: {pane}"
    );
    assert!(!pane.contains("\\u00a0"), "{pane}");
    insta::assert_snapshot!("streaming_round_table_pane", pane);
    insta::assert_snapshot!("streaming_round_table_80x24", screen(&app, 80, 24));

    // The call finishes and its contribution replaces the text.
    let finished: Vec<Arc<Event>> = events[..cut.len()]
        .iter()
        .chain(events[cut.len()..].iter().take_while(|e| {
            !matches!(e.kind, EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRequested { .. })))
                || matches!(&e.kind, EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRequested { agent, .. })) if agent == "finance_analyst")
        }))
        .cloned()
        .collect();
    let done = RunState::from_events(1, &finished);
    assert!(done.text_in_flight().is_empty(), "dropped at call_finished");
    let pane = pattern_pane(&app_with(&finished), 90, 14);
    assert!(!pane.contains("✎"), "{pane}");
    insta::assert_snapshot!("streaming_round_table_finished_pane", pane);
}

#[tokio::test(start_paused = true)]
async fn the_swarm_chain_shows_the_holders_turn_being_written() {
    let events = full_run("support_swarm.json").await;
    let (cut, call) = cut_at_call(&events, Some("refunds"), None);
    let app = app_with(&with_deltas(
        &cut,
        call,
        &[
            "{\"reply\": \"Refund of $42.10 issued to the card ",
            "ending 4417; it shows in 3–5 days",
        ],
    ));
    let pane = pattern_pane(&app, 100, 14);
    assert!(pane.contains("✎ Refund of $42.10 issued"), "{pane}");
    insta::assert_snapshot!("streaming_swarm_chain_pane", pane);
}

#[tokio::test(start_paused = true)]
async fn a_member_card_shows_its_answer_being_written() {
    let events = full_run("launch_coordinator.json").await;
    let (cut, call) = cut_at_call(&events, Some("market_analyst"), None);
    let app = app_with(&with_deltas(
        &cut,
        call,
        &[
            "{\"reply\": \"One-click checkout should lift ",
            "conversion by about 3",
        ],
    ));
    let pane = pattern_pane(&app, 120, 14);
    assert!(pane.contains("conversion by about 3"), "{pane}");
    insta::assert_snapshot!("streaming_member_cards_pane", pane);
    // Too narrow for cards: a row per member, the answer so far in it.
    let narrow = pattern_pane(&app, 60, 10);
    assert!(narrow.contains("✎"), "{narrow}");
}

#[tokio::test(start_paused = true)]
async fn the_research_pane_shows_the_synthesis_being_written() {
    let events = full_run("payments_incident_research.json").await;
    let (cut, call) = cut_at_call(&events, None, Some("synthesis"));
    let app = app_with(&with_deltas(
        &cut,
        call,
        &[
            "{\"answer\": \"Card payments failed for ",
            "about forty minutes on 7 March after a",
        ],
    ));
    let pane = pattern_pane(&app, 110, 24);
    assert!(pane.contains("being written"), "{pane}");
    assert!(pane.contains("forty minutes on 7 March after a"), "{pane}");
    insta::assert_snapshot!("streaming_research_pane", pane);
}

#[tokio::test(start_paused = true)]
async fn the_models_row_shows_the_time_to_the_first_token_and_tokens_a_second() {
    let events = full_run("checkout_v2_launch.json").await;
    let (cut, call) = cut_at_call(&events, Some("finance_analyst"), None);
    let mut streamed = with_deltas(&cut, call, &FINANCE);
    let last = streamed.last().unwrap().clone();
    streamed.push(Arc::new(Event {
        run: last.run,
        seq: last.seq + 1,
        t_ms: last.t_ms + 10,
        kind: EventKind::CallFinished {
            call,
            tool: "model".into(),
            attempt: 1,
            latency_ms: 420 + 2000,
            outcome: CallOutcome::Ok,
            usage: Some(TokenUsage {
                input: 300,
                output: 76,
                ..TokenUsage::default()
            }),
            error: None,
            http_status: None,
            first_token_ms: Some(420),
            tokens_per_s: Some(38.0),
            reasoning: None,
            record: None,
            served: false,
            extracted: None,
            fallback: false,
        },
    }));
    let app = app_with(&streamed);
    let wide = screen(&app, 160, 48);
    assert!(wide.contains("ttft 420ms · 38 tok/s"), "{wide}");
    insta::assert_snapshot!("streaming_model_row_160x48", wide);
    let mut app = app;
    app.update(Action::Focus(5));
    app.update(Action::Details);
    let details = match &app.overlay {
        Some(Overlay::Details(details)) => details.text(),
        _ => panic!("Enter opens the tool's details"),
    };
    let tool: serde_json::Value = serde_json::from_str(&details).unwrap();
    assert_eq!(tool["tool"], "model", "{tool}");
    assert_eq!(tool["first_token_ms"], 420);
    assert_eq!(tool["tokens_per_s"], 38.0);
}

#[tokio::test(start_paused = true)]
async fn replay_shows_the_text_being_written_where_the_live_run_did() {
    let events = full_run("checkout_v2_launch.json").await;
    let (cut, call) = cut_at_call(&events, Some("finance_analyst"), None);
    let streaming = with_deltas(&cut, call, &FINANCE);
    let mut all = streaming.clone();
    // The rest of the run after the deltas, renumbered after them.
    let offset = FINANCE.len() as u64;
    for event in &events[cut.len()..] {
        let mut event = (**event).clone();
        event.seq += offset;
        event.t_ms += 60 * offset;
        all.push(Arc::new(event));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let lines: Vec<String> = all
        .iter()
        .map(|e| serde_json::to_string(&**e).unwrap())
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();

    let recording = read_recording(&path).unwrap();
    assert!(recording.problems.is_empty(), "{:?}", recording.problems);
    // Opened as the dashboard opens it: read again from the file.
    let (mut replay, _) = Replay::open_file(&path).unwrap().unwrap();
    let mid = replay.seek(streaming.len());
    let live = RunState::from_events(1, &streaming);
    assert_eq!(
        mid.text_in_flight(),
        live.text_in_flight(),
        "the live run's text"
    );
    assert_eq!(mid.pattern, live.pattern);
    // The log as the live run's: a call's deltas are not lines of it.
    assert_eq!(mid.log, live.log);
    assert_eq!(
        replay.seek(all.len()).log,
        RunState::from_events(1, &all).log
    );
    assert_eq!(
        mid.text_in_flight()[0].2.chars(),
        FINANCE.concat().chars().count() as u64
    );
    let end = replay.seek(all.len());
    assert!(end.text_in_flight().is_empty());
    // Stepping back over the stream lands on it again.
    assert_eq!(replay.seek(streaming.len()), mid);
}

/// `events` and then `pieces` of call `call`'s reasoning, 60 ms apart.
fn with_reasoning(events: &[Arc<Event>], call: u64, pieces: &[&str]) -> Vec<Arc<Event>> {
    let mut events = with_deltas(events, call, pieces);
    for event in events.iter_mut().rev().take(pieces.len()) {
        let mut marked = (**event).clone();
        if let EventKind::CallDelta { reasoning, .. } = &mut marked.kind {
            *reasoning = true;
        }
        *event = Arc::new(marked);
    }
    events
}

/// Where `needle` starts on the screen of `buffer`, and whether every cell
/// of it is drawn dimmed.
fn dimmed(buffer: &Buffer, needle: &str) -> Option<bool> {
    let width = needle.chars().count() as u16;
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width.saturating_sub(width) {
            let cells: Vec<&ratatui::buffer::Cell> =
                (x..x + width).map(|x| &buffer[(x, y)]).collect();
            if cells.iter().map(|c| c.symbol()).collect::<String>() == needle {
                return Some(cells.iter().all(|c| {
                    c.modifier.contains(ratatui::style::Modifier::DIM)
                        && c.fg == ratatui::style::Color::DarkGray
                }));
            }
        }
    }
    None
}

#[tokio::test(start_paused = true)]
async fn a_reasoning_model_s_reasoning_shows_dimmed_until_its_answer_begins() {
    let events = full_run("support_swarm.json").await;
    let (cut, call) = cut_at_call(&events, Some("refunds"), None);
    let thinking = with_reasoning(
        &cut,
        call,
        &[
            "The card ending 4417 was charged twice; ",
            "refund the second charge",
        ],
    );
    let state = RunState::from_events(1, &thinking);
    assert_eq!(
        state.text_in_flight()[0].2.chars(),
        0,
        "reasoning is not the answer"
    );
    let draw = |events: &[Arc<Event>]| {
        let app = app_with(events);
        let mut terminal = Terminal::new(TestBackend::new(100, 14)).unwrap();
        terminal
            .draw(|frame| {
                let run = app.run().unwrap().view();
                let area = Rect::new(0, 0, 100, 14);
                panes::pattern::draw(frame, area, run.unit, run.state, run.ui, run.now_ms, true);
            })
            .unwrap();
        terminal.backend().buffer().clone()
    };
    let screen = draw(&thinking);
    assert_eq!(
        dimmed(&screen, "refund the second charge"),
        Some(true),
        "the reasoning so far, dimmed: {}",
        text(&screen)
    );

    // The answer begins: it replaces the reasoning, not dimmed.
    let answering = with_deltas(&thinking, call, &["{\"reply\": \"Refund of $42.10 issued"]);
    let screen = draw(&answering);
    let shown = text(&screen);
    assert!(!shown.contains("second charge"), "{shown}");
    assert_eq!(
        dimmed(&screen, "Refund of $42.10 issued"),
        Some(false),
        "{shown}"
    );
}
