//! Replay at scale: a generated recording of 1,000,000 events (a round table
//! of 12 agents over 16,000 rounds), opened and drawn at its last frame, and
//! a step back from its end.

use conclave::bus::{BudgetKind, CallOutcome, ClockMode, Event, EventKind, RunStarted};
use conclave::patterns::events::PatternEvent;
use conclave::patterns::events::RoundEvent;
use conclave::patterns::events::{Conflict, Stance};
use conclave::scenario::Scenario;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::keymap::Action;
use conclave::tui::replay::Replay;
use conclave::tui::view;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const EVENTS: usize = 1_000_000;
const AGENTS: usize = 12;

fn write_recording(path: &Path) {
    let roles: Vec<String> = (0..AGENTS).map(|i| format!("analyst_{i:02}")).collect();
    let scenario: Arc<Scenario> = Arc::new(
        serde_json::from_value(json!({
            "name": "long_table", "pattern": "collaboration", "goal": "Decide.", "context": {},
            "team": {"roles": roles.iter().map(|r| (r.clone(), json!({}))).collect::<serde_json::Map<_, _>>(),
                     "sequence": roles},
            "budget": {"max_rounds": 100000, "max_messages": 10000000},
            "provider": {"kind": "sim", "responses": roles.iter().map(|r| (r.clone(), json!("{}"))).collect::<serde_json::Map<_, _>>()}
        }))
        .unwrap(),
    );
    let mut out = BufWriter::new(std::fs::File::create(path).unwrap());
    let mut seq = 0u64;
    let mut emit = |kind: EventKind, out: &mut BufWriter<std::fs::File>| {
        seq += 1;
        let event = Event {
            run: 1,
            seq,
            t_ms: seq * 3,
            kind,
        };
        serde_json::to_writer(&mut *out, &event).unwrap();
        out.write_all(b"\n").unwrap();
        seq as usize
    };
    emit(
        EventKind::RunStarted(RunStarted {
            pattern: scenario.pattern,
            seed: 1,
            goal: "Decide.".into(),
            clock: ClockMode::Virtual,
            flags: vec![],
            source: None,
            started_at_ms: 0,
            model: None,
            scenario: Arc::clone(&scenario),
            forked_from: None,
        }),
        &mut out,
    );
    let stances = [Stance::Go, Stance::Caution, Stance::Block];
    let mut round = 0u32;
    let mut call = 0u64;
    'rounds: loop {
        round += 1;
        if emit(
            EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundStarted {
                round,
                speakers: roles.clone(),
            })),
            &mut out,
        ) >= EVENTS
        {
            break;
        }
        for (i, role) in roles.iter().enumerate() {
            call += 1;
            let kinds = [
                EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionRequested {
                    round,
                    agent: role.clone(),
                })),
                EventKind::CallStarted {
                    call,
                    tool: "model".into(),
                    attempt: 1,
                    label: format!("round {round} · {role}"),
                    agent: None,
                },
                EventKind::CallFinished {
                    call,
                    tool: "model".into(),
                    attempt: 1,
                    latency_ms: 250,
                    outcome: CallOutcome::Ok,
                    usage: None,
                    error: None,
                    http_status: None,
                    first_token_ms: None,
                    tokens_per_s: None,
                    reasoning: None,
                    record: None,
                    served: false,
                    extracted: None,
                    fallback: false,
                },
                EventKind::BudgetConsumed {
                    budget: BudgetKind::Messages,
                    used: call,
                    limit: 10_000_000,
                },
                EventKind::Pattern(PatternEvent::Round(RoundEvent::ContributionAccepted {
                    round,
                    agent: role.clone(),
                    stance: stances[(i + round as usize) % 3],
                    confidence: 0.62,
                    summary: format!(
                        "{role} weighs round {round}: the facts hold, with one open risk."
                    ),
                    actions: vec!["Watch the failure rate".into(), "Stage the rollout".into()],
                })),
            ];
            for kind in kinds {
                if emit(kind, &mut out) >= EVENTS {
                    break 'rounds;
                }
            }
        }
        let finished = EventKind::Pattern(PatternEvent::Round(RoundEvent::RoundFinished {
            round,
            conflicts: vec![Conflict::BlockingVsNonBlock, Conflict::HighDivergence],
            decision: None,
        }));
        if emit(finished, &mut out) >= EVENTS {
            break;
        }
    }
    out.flush().unwrap();
}

fn replay(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("million.jsonl");
    write_recording(&path);

    let mut group = c.benchmark_group("replay_1m");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.bench_function("open_and_draw_last_frame", |b| {
        b.iter(|| {
            let mut app = App::new(AppOptions::default());
            conclave::tui::world::open_replay(&mut app, &path).unwrap();
            // The end is read from the file as the loop reads it.
            let seek = app.playback(Action::End);
            conclave::tui::world::settle(&mut app, seek);
            let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
            terminal.draw(|f| view::draw(f, &app)).unwrap();
            assert_eq!(app.run().unwrap().state.last_seq, EVENTS as u64);
        })
    });

    // Opened as the dashboard opens it: its events read again from the file.
    let (replay, _) = Replay::open_file(&path).unwrap().unwrap();
    group.bench_function("step_back_from_the_end", |b| {
        b.iter_batched(
            || {
                let mut at_end = replay.clone();
                at_end.seek(at_end.len());
                at_end
            },
            |mut at_end| at_end.step_back().last_seq,
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, replay);
criterion_main!(benches);
