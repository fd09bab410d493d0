//! A graph's team nodes through real runs on the sim, on the paused
//! clock: the team runs nested and its answer flows on, each visit of a
//! loop runs it again under a path of its own, its tokens count to the
//! node, a stop of the team's own fails the node naming it while the
//! run's shared stops stop the run, and a team node naming no team exits
//! 2 naming its place and the teams there are.

use crate::common;

use common::graph::{graph_events, run};

use common::real::Sandbox;
use conclave::bus::{Event, EventKind};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::{GraphEvent, PatternEvent, TeamEvent};
use serde_json::{Value, json};

/// A graph `start → work (team T) → check → done` on the sim, `T` being
/// `team`, scripted by `turns` beside the check's verdicts.
fn with_team(team: Value, turns: Value, output: Option<Value>) -> Value {
    let mut work = json!({"id": "work", "team": "crew", "max_visits": 3});
    if let Some(output) = output {
        work["output"] = output;
    }
    let mut turns = turns;
    turns["check"] = json!([{"verdict": "again"}, {"verdict": "ok"}]);
    json!({
        "name": "graph_team_test", "pattern": "graph", "goal": "g", "context": {},
        "agents": {"a": {"description": "any node"}},
        "teams": {"crew": team},
        "graph": {
            "entry": "start",
            "nodes": [
                {"id": "start", "agent": "a", "output": {"brief": "string"}},
                work,
                {"id": "check", "agent": "a", "output": {"verdict": ["ok", "again"]}},
                {"id": "done", "end": true}
            ],
            "edges": [
                {"from": "start", "to": "work"}, {"from": "work", "to": "check"},
                {"from": "check", "to": "done", "when": {"field": "/verdict", "eq": "ok"}},
                {"from": "check", "to": "work", "when": {"visits": "work", "lt": 3}},
                {"from": "check", "to": "done", "default": true}
            ]
        },
        "provider": {"kind": "sim", "latency_ms": 100, "turns": turns}
    })
}

/// A swarm `crew`: `lead` hands to `hand`, which replies with `replies`
/// in turn.
fn swarm(replies: Value) -> (Value, Value) {
    let team = json!({
        "pattern": "swarm", "entry": "lead",
        "agents": {"lead": {"description": "passes on"}, "hand": {"description": "answers"}}
    });
    let turns = json!({
        "crew/lead": {"transfer_to": "hand"},
        "crew/hand": replies,
    });
    (team, turns)
}

fn team_events(events: &[Event]) -> Vec<&TeamEvent> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Pattern(PatternEvent::Team(t)) => Some(t),
            _ => None,
        })
        .collect()
}

/// The inputs and outputs of each activation of `node`, in order.
fn activations<'e>(events: &'e [&GraphEvent], node: &str) -> Vec<(&'e str, &'e str)> {
    let inputs = events.iter().filter_map(|e| match e {
        GraphEvent::NodeStarted { node: n, input, .. } if n == node => Some(input.as_str()),
        _ => None,
    });
    let outputs = events.iter().filter_map(|e| match e {
        GraphEvent::NodeFinished {
            node: n, output, ..
        } if n == node => Some(output.as_str()),
        _ => None,
    });
    inputs.zip(outputs).collect()
}

/// Each team pattern runs as a node: its answer is the node's output
/// (`{"answer": TEXT}` without `output`, the fields read from the answer
/// with one), and flows to the next node as its input; a loop runs the
/// team again, each visit under a path of its own.
#[tokio::test(start_paused = true)]
async fn a_team_node_runs_its_team_and_its_answer_flows_on() {
    let coordinator = json!({
        "pattern": "coordinator", "entry": "boss",
        "agents": {"boss": {"description": "asks"}, "hand": {"description": "answers"}}
    });
    let coordinator_turns = json!({
        "crew/boss": [
            {"call_members": [{"member": "hand", "task": "do it"}]}, {"reply": "first"},
            {"call_members": [{"member": "hand", "task": "again"}]}, {"reply": "second"}
        ],
        "crew/hand": {"reply": "done"},
    });
    let (swarm_team, swarm_turns) = swarm(json!([{"reply": "first"}, {"reply": "second"}]));
    let (typed, typed_turns) = swarm(json!([
        {"reply": "```json\n{\"grade\": 3}\n```"},
        {"reply": "{\"grade\": 4}"}
    ]));
    let cases = [
        (
            "coordinator",
            coordinator,
            coordinator_turns,
            None,
            ["first", "second"].map(|a| json!({"answer": a})),
        ),
        (
            "swarm",
            swarm_team,
            swarm_turns,
            None,
            ["first", "second"].map(|a| json!({"answer": a})),
        ),
        (
            "swarm with output",
            typed,
            typed_turns,
            Some(json!({"grade": "integer"})),
            [json!({"grade": 3}), json!({"grade": 4})],
        ),
    ];
    for (what, team, turns, output, answers) in cases {
        let entry = team["entry"].as_str().unwrap().to_string();
        let (result, events) = run(&with_team(team, turns, output)).await;
        assert_eq!(result["stop_reason"], "completed", "{what}: {result}");
        assert_eq!(
            result["path"],
            json!(["start", "work", "check", "work", "check", "done"]),
            "{what}"
        );
        let graph = graph_events(&events);
        let work = activations(&graph, "work");
        let outputs: Vec<Value> = work
            .iter()
            .map(|(_, o)| serde_json::from_str(o).unwrap())
            .collect();
        assert_eq!(outputs, answers, "{what}: each visit's answer");
        let checks = activations(&graph, "check");
        assert_eq!(checks[0].0, work[0].1, "{what}: the team's output flows on");
        assert_eq!(
            work[0].0, r#"{"brief":"start: brief"}"#,
            "{what}: the team's task"
        );
        let teams: Vec<(u32, String)> = graph
            .iter()
            .filter_map(|e| match e {
                GraphEvent::NodeStarted {
                    visit,
                    team: Some(t),
                    ..
                } => Some((*visit, t.path.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            teams,
            [(1, "work".to_string()), (2, "work#2".to_string())],
            "{what}"
        );
        let speakers: Vec<&str> = team_events(&events)
            .iter()
            .filter_map(|e| match e {
                TeamEvent::TurnStarted { agent, .. } => Some(agent.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            speakers.first(),
            Some(&format!("work/{entry}").as_str()),
            "{what}"
        );
        assert!(
            speakers
                .iter()
                .all(|s| s.starts_with("work/") || s.starts_with("work#2/")),
            "{what}: {speakers:?}"
        );
        assert!(
            speakers.iter().any(|s| s.starts_with("work#2/")),
            "{what}: the second visit's turns"
        );
        let turns: Vec<u32> = team_events(&events)
            .iter()
            .filter_map(|e| match e {
                TeamEvent::TurnStarted { turn, .. } => Some(*turn),
                _ => None,
            })
            .collect();
        let numbered: Vec<u32> = (1..=turns.len() as u32).collect();
        assert_eq!(
            turns, numbered,
            "{what}: one run's turn numbers over both visits"
        );
    }
}

/// The tokens of a team node's activation are its team's calls', as the
/// usage by agent counts them under the visit's path.
#[tokio::test(start_paused = true)]
async fn a_team_nodes_tokens_are_its_teams_calls() {
    let (result, events) =
        run(&serde_json::to_value(&*common::shipped("graph_team_draft.json")).unwrap()).await;
    let by_agent = result["usage"]["by_agent"].as_object().unwrap();
    let tokens_under = |path: &str| -> u64 {
        by_agent
            .iter()
            .filter(|(name, _)| name.starts_with(&format!("{path}/")))
            .map(|(_, u)| {
                u["input_tokens"].as_u64().unwrap() + u["output_tokens"].as_u64().unwrap()
            })
            .sum()
    };
    let drafts: Vec<(u32, u64)> = graph_events(&events)
        .iter()
        .filter_map(|e| match e {
            GraphEvent::NodeFinished {
                node,
                visit,
                tokens,
                ..
            } if node == "draft" => Some((*visit, *tokens)),
            _ => None,
        })
        .collect();
    assert_eq!(drafts.len(), 2);
    assert!(drafts[0].1 > 0);
    assert_eq!(drafts[0].1, tokens_under("draft"));
    assert_eq!(drafts[1].1, tokens_under("draft#2"));
}

/// A team that stops on its own stop fails its node, naming the team and
/// its stop; the run's shared stops stop the whole run instead.
#[tokio::test(start_paused = true)]
async fn a_teams_own_stop_fails_the_node_and_a_shared_stop_stops_the_run() {
    // lead and hand hand control back and forth until the team's call
    // budget (30 a visit) is spent.
    let looping = json!({
        "pattern": "swarm", "entry": "lead",
        "agents": {"lead": {"description": "passes on"}, "hand": {"description": "passes back"}},
        "limits": {"max_handoffs": 0, "repetitive_handoff_window": 0}
    });
    let turns = json!({"crew/lead": {"transfer_to": "hand"}, "crew/hand": {"transfer_to": "lead"}});
    let (result, events) = run(&with_team(looping.clone(), turns.clone(), None)).await;
    assert_eq!(result["stop_reason"], "node_failed:work", "{result}");
    assert_eq!(result["details"]["failed"]["node"], "work");
    let error = result["details"]["failed"]["error"].as_str().unwrap();
    assert_eq!(error, "team crew stopped: max_llm_calls");
    let failed = graph_events(&events).into_iter().any(|e| {
        matches!(e, GraphEvent::NodeFinished { node, error: Some(said), .. } if node == "work" && said == error)
    });
    assert!(failed, "the node's end says the team's stop");

    let mut short = with_team(looping, turns, None);
    short["budget"] = json!({"max_seconds": 1});
    let (result, _) = run(&short).await;
    assert_eq!(
        result["stop_reason"], "max_seconds",
        "the run's time stops the run: {result}"
    );
}

/// An answer that does not fit the node's `output` is repaired by one
/// call of the node; a repair that does not fit stops `invalid_output`.
#[tokio::test(start_paused = true)]
async fn an_answer_that_does_not_fit_is_repaired_once() {
    let (team, turns) = swarm(json!({"reply": "grade three"}));
    let (result, events) = run(&with_team(team, turns, Some(json!({"grade": "integer"})))).await;
    assert_eq!(result["stop_reason"], "completed", "{result}");
    assert_eq!(
        result["outputs"]["work"],
        json!({"grade": 1}),
        "the sim's repair from the fields"
    );
    let repairs = events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::CallStarted { label, .. } if label == "node:work[repair]"))
        .count();
    assert_eq!(repairs, 2, "one repair a visit");
}

/// A team node naming no team of `teams` exits 2 naming its place and
/// the teams declared.
#[test]
fn a_team_node_naming_no_team_exits_2() {
    let (team, turns) = swarm(json!({"reply": "x"}));
    let mut document = with_team(team, turns, None);
    document["graph"]["nodes"][1]["team"] = json!("crow");
    let sandbox = Sandbox::new();
    let file = sandbox.write("graph.json", &document);
    let out = sandbox.run(&["validate", file.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{said}");
    let line = said
        .lines()
        .find(|l| l.contains("graph.nodes[1].team"))
        .unwrap_or_else(|| panic!("{said}"));
    assert!(
        line.contains(r#"node "work": expected a team declared in teams (crew), found "crow""#),
        "{line}"
    );
}

/// A team declared in a graph scenario that no node runs exits 2 naming
/// the team's place and the graph's nodes, not a coordinator.
#[test]
fn a_team_no_node_runs_exits_2_naming_the_graph() {
    let (team, mut turns) = swarm(json!({"reply": "x"}));
    let mut document = with_team(team.clone(), turns.clone(), None);
    document["teams"]["spare"] = team;
    turns["spare/lead"] = json!({"transfer_to": "hand"});
    turns["spare/hand"] = json!({"reply": "x"});
    turns["check"] = document["provider"]["turns"]["check"].clone();
    document["provider"]["turns"] = turns;
    let sandbox = Sandbox::new();
    let file = sandbox.write("graph.json", &document);
    let out = sandbox.run(&["validate", file.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{said}");
    let line = said
        .lines()
        .find(|l| l.contains("teams.spare"))
        .unwrap_or_else(|| panic!("{said}"));
    assert!(line.contains("graph.json:"), "{line}");
    assert!(
        line.ends_with(
            r#"teams.spare: team "spare" is run by no node of this graph (nor by a coordinator of a team it runs): name it in a node of graph.nodes as {"id": …, "team": "spare"}, or remove it"#
        ),
        "{line}"
    );
    assert!(!said.contains("coordinator of this scenario"), "{said}");
}

/// The dashboard on a finished run of the shipped team loop: Enter on the
/// team node opens its team's own pane, the latest visit's member calls
/// under its path; `←` shows the first visit; Esc returns to the graph.
#[tokio::test(start_paused = true)]
async fn enter_on_a_team_node_opens_its_teams_pane() {
    use common::screen::of_app as screen;
    use conclave::tui::app::{App, AppOptions};
    use conclave::tui::keymap::Action;
    let (_, events) = common::run(
        common::shipped("graph_team_draft.json"),
        LaunchOptions::default(),
    )
    .await;
    let events: Vec<std::sync::Arc<Event>> = events.into_iter().map(std::sync::Arc::new).collect();
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events, Some("scenarios/graph_team_draft.json".into()))
        .expect("events start with run_started");
    app.update(Action::Focus(2));
    app.update(Action::Top);
    app.update(Action::Down);
    app.update(Action::Details);
    let shown = screen(&app, 120, 40);
    assert!(
        shown.contains("node draft · team drafting (coordinator) · visit 2 of 2, draft#2"),
        "{shown}"
    );
    assert!(
        shown.contains("Coordinator editor · LLM calls 4/30"),
        "the team's own pane:\n{shown}"
    );
    assert!(
        shown.contains("fact_checker") && shown.contains("writer"),
        "its member calls:\n{shown}"
    );
    assert!(!shown.contains("\"activations\""), "no JSON: {shown}");
    app.update(Action::Left);
    let shown = screen(&app, 120, 40);
    assert!(shown.contains("visit 1 of 2, draft ·"), "{shown}");
    // The line wraps at its words rather than losing its keys at the
    // pane's edge, at 160 columns as at 80.
    for width in [160, 80] {
        let shown = screen(&app, width, 40);
        assert!(
            shown.contains("Esc back to the graph"),
            "{width} columns:\n{shown}"
        );
    }
    app.update(Action::Close);
    let shown = screen(&app, 120, 40);
    assert!(
        shown.contains("Graph · 5 nodes"),
        "back to the graph:\n{shown}"
    );
    assert!(!shown.contains("visit 1 of 2"), "{shown}");
}

/// The transfer a swarm's pane shows selected (its row drawn reversed):
/// its number, `handoff N`.
fn selected_transfer(app: &conclave::tui::app::App) -> Option<String> {
    use ratatui::style::Modifier;
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).unwrap();
    terminal
        .draw(|frame| conclave::tui::view::draw(frame, app))
        .unwrap();
    let buffer = terminal.backend().buffer();
    (0..buffer.area.height).find_map(|y| {
        let cells: Vec<_> = (0..buffer.area.width).map(|x| &buffer[(x, y)]).collect();
        let text: String = cells.iter().map(|c| c.symbol()).collect();
        let reversed = cells
            .iter()
            .any(|c| c.modifier.contains(Modifier::REVERSED));
        let at = text.find("· handoff ")?;
        reversed.then(|| {
            text[at + 2..]
                .split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" ")
        })
    })
}

/// A swarm team node's pane: `k` and `j` move along the swarm's chain of
/// transfers as in a swarm's own run (from the latest, which it follows).
#[tokio::test(start_paused = true)]
async fn j_and_k_move_along_a_swarm_team_nodes_chain() {
    use conclave::tui::app::{App, AppOptions};
    use conclave::tui::keymap::Action;
    let (mut team, mut turns) = swarm(json!([{"transfer_to": "lead"}, {"reply": "done"}]));
    team["limits"] = json!({"repetitive_handoff_window": 0, "repetitive_handoff_min_unique": 0});
    turns["crew/lead"] = json!({"transfer_to": "hand"});
    let mut document = with_team(team, turns, None);
    document["provider"]["turns"]["check"] = json!({"verdict": "ok"});
    let (result, events) = run(&document).await;
    assert_eq!(result["stop_reason"], "completed", "{result:#}");
    let events: Vec<std::sync::Arc<Event>> = events.into_iter().map(std::sync::Arc::new).collect();
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events, None)
        .expect("events start with run_started");
    app.update(Action::Focus(2));
    app.update(Action::Top);
    app.update(Action::Down);
    app.update(Action::Details);
    let shown = common::screen::of_app(&app, 120, 40);
    assert!(shown.contains("team crew (swarm)"), "{shown}");
    assert_eq!(
        selected_transfer(&app).as_deref(),
        Some("handoff 3"),
        "{shown}"
    );
    app.update(Action::Up);
    assert_eq!(selected_transfer(&app).as_deref(), Some("handoff 2"));
    app.update(Action::Up);
    assert_eq!(selected_transfer(&app).as_deref(), Some("handoff 1"));
    app.update(Action::Down);
    assert_eq!(selected_transfer(&app).as_deref(), Some("handoff 2"));
}

/// The real binary in a pseudo-terminal: the team loop runs, Enter on the
/// team node opens its team's pane, Esc returns to the graph.
#[test]
fn the_live_dashboard_opens_a_team_nodes_pane() {
    use crate::common::pty::Session;
    let home = tempfile::tempdir().unwrap();
    let mut session = Session::start(&["run", "scenarios/graph_team_draft.json"], home.path());
    session.wait_text("GRAPH COMPLETED");
    session.press("2g");
    session.press("j");
    session.wait_text("· draft");
    session.press("\r");
    session.wait_for("the drafting team's pane", |t| {
        t.contains("team drafting (coordinator) · visit 2 of 2") && t.contains("Coordinator editor")
    });
    session.press("\u{1b}");
    session.wait_for("the graph again", |t| {
        t.contains("Graph · 5 nodes") && !t.contains("visit 2 of 2")
    });
    session.press("q");
    assert!(session.wait_exit().success());
}

/// A fork from a gate inside a team node's second visit: the recording
/// serves the calls before it, the run goes on live from the team's turn,
/// and ends as the parent did.
#[test]
fn a_fork_starts_at_a_turn_inside_the_team_node() {
    let sandbox = Sandbox::new();
    let scenario =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/graph_team_draft.json");
    let parent = sandbox.path("parent.jsonl");
    let ran = sandbox.run(&[
        "run",
        scenario.to_str().unwrap(),
        "--headless",
        "--record",
        parent.to_str().unwrap(),
    ]);
    assert_eq!(ran.status.code(), Some(0));
    let text = std::fs::read_to_string(&parent).unwrap();
    // The event that starts the second visit's writer's turn.
    let seq = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "turn_started" && e["agent"] == "draft#2/writer")
        .map(|e| e["seq"].as_u64().unwrap())
        .expect("the second visit's writer takes a turn");
    let turn = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["seq"] == seq)
        .unwrap()["turn"]
        .as_u64()
        .unwrap();
    let child = sandbox.path("fork.jsonl");
    let at = format!("#{seq}");
    let forked = sandbox.run(&[
        "fork",
        parent.to_str().unwrap(),
        "--at",
        &at,
        "--headless",
        "--record",
        child.to_str().unwrap(),
    ]);
    assert_eq!(
        forked.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&forked.stderr)
    );
    let first: Value = serde_json::from_str(
        std::fs::read_to_string(&child)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        first["forked_from"]["gate"],
        format!("turn {turn}"),
        "{first}"
    );
    let result: Value = serde_json::from_slice(&forked.stdout).unwrap();
    let parent_result: Value = serde_json::from_slice(&ran.stdout).unwrap();
    assert_eq!(result["path"], parent_result["path"]);
    assert_eq!(result["outputs"], parent_result["outputs"]);
    assert!(
        String::from_utf8_lossy(&forked.stderr).contains("served"),
        "calls before the gate are served"
    );
}

/// The nested teams' checks hold under a graph: a team node's team is one
/// level below the graph, so a line of member teams five deep is refused,
/// naming its place, as under a coordinator.
#[test]
fn teams_nest_at_most_four_levels_below_a_graph() {
    let (team, turns) = swarm(json!({"reply": "x"}));
    let mut document = with_team(team, turns, None);
    let coordinator = |member: &str| {
        json!({"pattern": "coordinator", "entry": "lead",
               "agents": {"lead": {"description": "asks"}, "m": {"team": member}}})
    };
    document["teams"]["crew"] = coordinator("t2");
    for (name, member) in [("t2", "t3"), ("t3", "t4"), ("t4", "t5")] {
        document["teams"][name] = coordinator(member);
    }
    document["teams"]["t5"] =
        json!({"pattern": "swarm", "entry": "x", "agents": {"x": {"description": "x"}}});
    let sandbox = Sandbox::new();
    let file = sandbox.write("graph.json", &document);
    let out = sandbox.run(&["validate", file.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("teams.t4.agents.m.team"), "{said}");
    assert!(
        said.contains("team \"t5\" is nested 5 levels deep here"),
        "{said}"
    );
}
