//! The dashboard's costs: drawing the full screen at 200×60 for a round
//! table of 12 agents × 10 rounds with 5,000 events in the log, folding
//! events into run state (events per second), and the graph pane's first
//! frame (its graph laid out and drawn) for a map over 10,000 items and
//! for 10,000 declared nodes in 100 layers, at most 50 ms each.

use conclave::bus::{BudgetKind, CallOutcome, ClockMode, Event, EventKind, FlagState, RunStarted};
use conclave::patterns::events::PatternEvent;
use conclave::patterns::events::RoundEvent;
use conclave::patterns::events::{Conflict, Stance};
use conclave::patterns::events::{GraphEvent, GraphNodeKind, PlannedEdge, PlannedNode};
use conclave::scenario::{PatternKind, Scenario};
use conclave::tui::app::{App, AppOptions};
use conclave::tui::state::RunState;
use conclave::tui::view;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::sync::Arc;

#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const AGENTS: usize = 12;
const ROUNDS: u32 = 10;

/// The round table's roles, in speaking order.
fn roles() -> Vec<String> {
    (0..AGENTS).map(|i| format!("analyst_{i:02}")).collect()
}

fn scenario() -> Arc<Scenario> {
    let roles = roles();
    let responses: serde_json::Map<String, serde_json::Value> =
        roles.iter().map(|r| (r.clone(), json!("{}"))).collect();
    Arc::new(
        serde_json::from_value(json!({
            "name": "bench_table", "pattern": "collaboration", "goal": "Decide.", "context": {},
            "team": {"roles": roles.iter().map(|r| (r.clone(), json!({}))).collect::<serde_json::Map<_, _>>(),
                     "sequence": roles},
            "budget": {"max_rounds": ROUNDS, "max_messages": 1000},
            "provider": {"kind": "sim", "responses": responses}
        }))
        .unwrap(),
    )
}

/// A collaboration run of 12 agents over `rounds` rounds, each contribution
/// with its request, model call, budget and acceptance, padded with model
/// call events to `total` events.
fn events(rounds: u32, total: usize) -> Vec<Arc<Event>> {
    let scenario = scenario();
    let roles = roles();
    let mut kinds = vec![EventKind::RunStarted(RunStarted {
        pattern: PatternKind::Collaboration,
        seed: 1,
        goal: "Decide.".into(),
        clock: ClockMode::Virtual,
        flags: Vec::<FlagState>::new(),
        source: None,
        started_at_ms: 0,
        model: None,
        scenario: Arc::clone(&scenario),
        forked_from: None,
    })];
    let stances = [Stance::Go, Stance::Caution, Stance::Block];
    let mut call = 0u64;
    for round in 1..=rounds {
        kinds.push(EventKind::Pattern(PatternEvent::Round(
            RoundEvent::RoundStarted {
                round,
                speakers: roles.clone(),
            },
        )));
        for (i, role) in roles.iter().enumerate() {
            call += 1;
            kinds.push(EventKind::Pattern(PatternEvent::Round(
                RoundEvent::ContributionRequested {
                    round,
                    agent: role.clone(),
                },
            )));
            kinds.push(EventKind::CallStarted {
                call,
                tool: "model".into(),
                attempt: 1,
                label: format!("round {round} · {role}"),
                agent: None,
            });
            kinds.push(EventKind::CallFinished {
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
            });
            kinds.push(EventKind::BudgetConsumed {
                budget: BudgetKind::Messages,
                used: call,
                limit: 1000,
            });
            kinds.push(EventKind::Pattern(PatternEvent::Round(
                RoundEvent::ContributionAccepted {
                    round,
                    agent: role.clone(),
                    stance: stances[(i + round as usize) % 3],
                    confidence: 0.5 + (i as f64) / 40.0,
                    summary: format!(
                        "{role} weighs round {round}: the facts hold, with one open risk to watch."
                    ),
                    actions: vec!["Watch the failure rate".into(), "Stage the rollout".into()],
                },
            )));
        }
        kinds.push(EventKind::Pattern(PatternEvent::Round(
            RoundEvent::RoundFinished {
                round,
                conflicts: vec![Conflict::BlockingVsNonBlock, Conflict::HighDivergence],
                decision: None,
            },
        )));
    }
    while kinds.len() < total {
        call += 1;
        kinds.push(EventKind::CallStarted {
            call,
            tool: "model".into(),
            attempt: 1,
            label: "final brief".into(),
            agent: None,
        });
    }
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| {
            Arc::new(Event {
                run: 1,
                seq: i as u64 + 1,
                t_ms: i as u64 * 10,
                kind,
            })
        })
        .collect()
}

fn render(c: &mut Criterion) {
    let events = events(ROUNDS, 5_000);
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events, None).unwrap();
    assert_eq!(app.run().unwrap().state.log.len(), 5_000);
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
    let mut group = c.benchmark_group("render_200x60");
    group.bench_function("frame", |b| {
        b.iter(|| terminal.draw(|frame| view::draw(frame, &app)).unwrap().area)
    });
    group.bench_function("full_repaint", |b| {
        b.iter(|| {
            terminal.clear().unwrap();
            terminal.draw(|frame| view::draw(frame, &app)).unwrap().area
        })
    });
    group.finish();
}

fn reduce(c: &mut Criterion) {
    let events = events(1_600, 0);
    let mut group = c.benchmark_group("reducer");
    group.throughput(Throughput::Elements(events.len() as u64));
    group.bench_function("fold", |b| {
        b.iter_batched(
            || RunState::new(1),
            |mut state| {
                for event in &events {
                    state.apply(Arc::clone(event));
                }
                state.last_seq
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

/// A graph run's first events: its start and its plan of `nodes` and
/// `edges`, then `more`.
fn graph_run(
    nodes: Vec<PlannedNode>,
    edges: Vec<PlannedEdge>,
    more: Vec<GraphEvent>,
) -> Vec<Arc<Event>> {
    let text = std::fs::read_to_string("scenarios/graph_review_loop.json").unwrap();
    let scenario: Arc<Scenario> = Arc::new(serde_json::from_str(&text).unwrap());
    let mut kinds = vec![EventKind::RunStarted(RunStarted {
        pattern: PatternKind::Graph,
        seed: 1,
        goal: "Publish.".into(),
        clock: ClockMode::Virtual,
        flags: Vec::<FlagState>::new(),
        source: None,
        started_at_ms: 0,
        model: None,
        scenario,
        forked_from: None,
    })];
    let planned = GraphEvent::GraphPlanned {
        nodes,
        edges,
        max_steps: 60_000,
    };
    kinds.extend(
        std::iter::once(planned)
            .chain(more)
            .map(|e| EventKind::Pattern(PatternEvent::Graph(e))),
    );
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| {
            Arc::new(Event {
                run: 1,
                seq: i as u64 + 1,
                t_ms: i as u64,
                kind,
            })
        })
        .collect()
}

fn graph_node(id: String, kind: GraphNodeKind, label: &str) -> PlannedNode {
    PlannedNode {
        id,
        kind,
        label: label.into(),
        wait: None,
        max_visits: None,
    }
}

fn graph_edge(from: &str, to: &str) -> PlannedEdge {
    PlannedEdge {
        from: from.into(),
        to: to.into(),
        when: None,
        default: false,
        back: false,
    }
}

/// The review loop whose research maps over 10,000 items, half done.
fn graph_map() -> Vec<Arc<Event>> {
    let ids = ["plan", "research", "draft", "review", "done"];
    let kinds = [
        GraphNodeKind::Agent,
        GraphNodeKind::Map,
        GraphNodeKind::Agent,
        GraphNodeKind::Agent,
        GraphNodeKind::End,
    ];
    let nodes = ids
        .iter()
        .zip(kinds)
        .map(|(id, kind)| graph_node(id.to_string(), kind, "state.steps"))
        .collect();
    let edges = ids.windows(2).map(|w| graph_edge(w[0], w[1])).collect();
    let more = vec![
        GraphEvent::NodeStarted {
            node: "research".into(),
            visit: 1,
            step: 2,
            input: "[]".into(),
            team: None,
            read: None,
        },
        GraphEvent::MapProgress {
            node: "research".into(),
            done: 5_000,
            failed: 0,
            running: 4,
            of: 10_000,
        },
    ];
    graph_run(nodes, edges, more)
}

/// 10,000 declared nodes in 100 layers of 100, each node leading to the
/// node under it and the one right of that.
fn graph_layers() -> Vec<Arc<Event>> {
    const SIDE: usize = 100;
    let id = |layer: usize, i: usize| format!("n{layer:03}_{i:03}");
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for layer in 0..SIDE {
        for i in 0..SIDE {
            nodes.push(graph_node(id(layer, i), GraphNodeKind::Agent, "worker"));
            if layer + 1 < SIDE {
                edges.push(graph_edge(&id(layer, i), &id(layer + 1, i)));
                edges.push(graph_edge(&id(layer, i), &id(layer + 1, (i + 1) % SIDE)));
            }
        }
    }
    let more = vec![GraphEvent::NodeStarted {
        node: id(50, 50),
        visit: 1,
        step: 1,
        input: "{}".into(),
        team: None,
        read: None,
    }];
    graph_run(nodes, edges, more)
}

/// The first frame of a graph run's dashboard: its events folded (the
/// graph laid out) and the screen drawn.
fn graph(c: &mut Criterion) {
    let mut group = c.benchmark_group("graph_first_frame");
    for (name, events) in [("map_10000", graph_map()), ("layers_10000", graph_layers())] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut app = App::new(AppOptions::default());
                app.add_from_events(&events, None).unwrap();
                let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
                terminal.draw(|frame| view::draw(frame, &app)).unwrap().area
            })
        });
    }
    group.finish();
}

criterion_group!(benches, render, reduce, graph);
criterion_main!(benches);
