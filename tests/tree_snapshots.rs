//! The chain pane's tree of teams, drawn into ratatui's TestBackend from a
//! nested run of the shipped `nested_launch_team` scenario, its events
//! written as the engine's contract names them (agents by path, one turn
//! counter over the run) so that the drawings hold still: the member teams
//! collapsed to a summary line each, the swarm and the research team
//! opened with `→` (and closed with `←`), the finished tree, a team in a
//! team opened two levels, and the keys in the footer, help and details;
//! and a real run of the scenario folded into the same tree.

use crate::common::{self, screen};
use conclave::bus::{BudgetKind, CallOutcome, ClockMode, Event, EventKind, RunStarted, RunStatus};
use conclave::engine::LaunchOptions;
use conclave::patterns::events::PatternEvent;
use conclave::patterns::events::{MemberTeam, TeamEvent, TurnOutcome};
use conclave::scenario::{self, Scenario};
use conclave::stop::StopReason;
use conclave::tui::app::{App, AppOptions};
use conclave::tui::panes;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::sync::Arc;

const SHIPPED: &str = "scenarios/nested_launch_team.json";

fn shipped() -> Arc<Scenario> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SHIPPED);
    Arc::new(scenario::load(&path).unwrap_or_else(|e| panic!("{e}")))
}

fn started(scenario: Arc<Scenario>) -> EventKind {
    EventKind::RunStarted(RunStarted {
        pattern: scenario.pattern,
        seed: 11,
        goal: scenario.goal.clone(),
        clock: ClockMode::Virtual,
        flags: vec![],
        source: None,
        started_at_ms: 0,
        model: None,
        forked_from: None,
        scenario,
    })
}

fn team(name: &str, pattern: &str, entry: &str, path: &str) -> Option<MemberTeam> {
    Some(MemberTeam {
        name: name.into(),
        pattern: pattern.into(),
        entry: entry.into(),
        path: path.into(),
    })
}

fn call(turn: u32, member: &str, deadline: u64, team: Option<MemberTeam>) -> EventKind {
    EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallStarted {
        turn,
        member: member.into(),
        task: format!("task of {}", member.rsplit('/').next().unwrap()),
        deadline_ms: Some(deadline),
        team,
    }))
}

fn answered(turn: u32, member: &str, latency_ms: u64, reply: &str) -> EventKind {
    EventKind::Pattern(PatternEvent::Team(TeamEvent::MemberCallFinished {
        turn,
        member: member.into(),
        outcome: CallOutcome::Ok,
        latency_ms,
        reply: Some(reply.into()),
        reason: None,
    }))
}

fn turn(turn: u32, agent: &str) -> EventKind {
    EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnStarted {
        turn,
        agent: agent.into(),
    }))
}

fn turned(turn: u32, agent: &str, outcome: TurnOutcome, latency_ms: u64) -> EventKind {
    EventKind::Pattern(PatternEvent::Team(TeamEvent::TurnFinished {
        turn,
        agent: agent.into(),
        outcome,
        latency_ms,
    }))
}

fn llm_calls(used: u64) -> EventKind {
    EventKind::BudgetConsumed {
        budget: BudgetKind::LlmCalls,
        used,
        limit: 30,
    }
}

const TRIAGE: &str = "launch/support_swarm/triage";
const BILLING: &str = "launch/support_swarm/billing";
const LEAD: &str = "launch/research_team/research_lead";
const ANALYST: &str = "launch/research_team/analyst";
const RISK: &str = "launch/research_team/risk_analyst";

/// The scenario's run up to the legal reviewer's answer: the swarm has
/// handed over to billing, the research lead waits for its analysts.
fn mid_run() -> Vec<(u64, EventKind)> {
    vec![
        (0, started(shipped())),
        (0, turn(1, "launch")),
        (600, turned(1, "launch", TurnOutcome::CallMembers, 600)),
        (600, llm_calls(1)),
        (
            600,
            call(
                1,
                "research_team",
                20_600,
                team(
                    "research_team",
                    "coordinator",
                    "research_lead",
                    "launch/research_team",
                ),
            ),
        ),
        (
            600,
            call(
                1,
                "support_swarm",
                20_600,
                team("support_swarm", "swarm", "triage", "launch/support_swarm"),
            ),
        ),
        (600, call(1, "legal_reviewer", 20_600, None)),
        (600, turn(2, LEAD)),
        (600, turn(3, TRIAGE)),
        (600, turn(4, "legal_reviewer")),
        (1100, turned(3, TRIAGE, TurnOutcome::Transfer, 500)),
        (
            1100,
            EventKind::Pattern(PatternEvent::Team(TeamEvent::TransferRequested {
                turn: 3,
                from: TRIAGE.into(),
                to: BILLING.into(),
                message: Some("Launch support load: mostly payment questions".into()),
            })),
        ),
        (
            1100,
            EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
                from: TRIAGE.into(),
                to: BILLING.into(),
                handoffs: 1,
                window: vec![BILLING.into()],
                deadline_ms: None,
            })),
        ),
        (1100, turn(5, BILLING)),
        (1300, turned(2, LEAD, TurnOutcome::CallMembers, 700)),
        (1300, call(2, ANALYST, 4_300, None)),
        (1300, call(2, RISK, 4_300, None)),
        (1300, turn(6, ANALYST)),
        (1300, turn(7, RISK)),
        (1400, turned(4, "legal_reviewer", TurnOutcome::Reply, 800)),
        (
            1400,
            answered(1, "legal_reviewer", 800, "Show a consent line."),
        ),
        (1400, llm_calls(4)),
    ]
}

/// The rest of the run: the analysts, billing and the research lead
/// answer, and the launch lead replies.
fn to_the_end() -> Vec<(u64, EventKind)> {
    let mut events = mid_run();
    events.extend([
        (1700, turned(7, RISK, TurnOutcome::ToolCall, 400)),
        (
            2000,
            EventKind::Pattern(PatternEvent::Team(TeamEvent::ToolUsed {
                turn: 7,
                agent: RISK.into(),
                tool: "incident_feed".into(),
                args: r#"{"region":"US"}"#.into(),
                result: r#"{"open_incidents":0}"#.into(),
                ok: true,
            })),
        ),
        (1900, turned(6, ANALYST, TurnOutcome::Reply, 600)),
        (1900, answered(2, ANALYST, 600, "Conversion +3.1%.")),
        (2000, turned(5, BILLING, TurnOutcome::Reply, 900)),
        (
            2000,
            answered(1, "support_swarm", 1_400, "About 5% more refund questions."),
        ),
        (2000, turn(8, RISK)),
        (2500, turned(8, RISK, TurnOutcome::Reply, 500)),
        (2500, answered(2, RISK, 1_200, "No open incidents.")),
        (2500, turn(9, LEAD)),
        (3000, turned(9, LEAD, TurnOutcome::Reply, 500)),
        (
            3000,
            answered(1, "research_team", 2_400, "Conversion +3.1%; no incidents."),
        ),
        (3000, turn(10, "launch")),
        (3700, turned(10, "launch", TurnOutcome::Reply, 700)),
        (3700, llm_calls(10)),
        (
            3700,
            EventKind::RunFinished {
                status: RunStatus::Ok,
                stop_reason: StopReason::Success,
                phase: None,
                result: Arc::new(json!({"status": "ok"}).into()),
                summary: Box::default(),
                error: None,
            },
        ),
    ]);
    events
}

fn app_with(kinds: Vec<(u64, EventKind)>) -> App {
    let events: Vec<Arc<Event>> = (1..)
        .zip(kinds)
        .map(|(seq, (t_ms, kind))| {
            Arc::new(Event {
                run: 1,
                seq,
                t_ms,
                kind,
            })
        })
        .collect();
    let mut app = App::new(AppOptions::default());
    app.add_from_events(&events, Some(SHIPPED.into()))
        .expect("events start with run_started");
    app
}

fn press(app: &mut App, code: KeyCode) {
    let effects = app.key(KeyEvent::new(code, KeyModifiers::NONE));
    conclave::tui::world::settle(app, effects);
}

fn chain_pane(app: &App, width: u16, height: u16) -> String {
    let run = app.run().unwrap().view();
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| {
            let area = frame.area();
            panes::pattern::draw(frame, area, run.unit, run.state, run.ui, run.now_ms, true)
        })
        .unwrap();
    screen::text(terminal.backend().buffer())
}

#[test]
fn member_teams_show_collapsed_and_open_with_right_to_their_own_chains() {
    let mut app = app_with(mid_run());
    let pane = chain_pane(&app, 110, 16);
    insta::assert_snapshot!("tree_mid_run_collapsed", pane);
    assert!(
        pane.contains("▸ support_swarm (swarm) triage → billing · 2 turns · running"),
        "{pane}"
    );
    assert!(
        !pane.contains("─→"),
        "no transfer of a team shows before it is opened:\n{pane}"
    );

    // Following, the first member still running is selected: the research
    // team; one down is the support swarm.
    press(&mut app, KeyCode::Char('2'));
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Right);
    let pane = chain_pane(&app, 110, 16);
    insta::assert_snapshot!("tree_mid_run_swarm_open", pane);
    assert!(pane.contains("▾ support_swarm (swarm)"), "{pane}");
    assert!(pane.contains("triage ─→ billing accepted"), "{pane}");
    assert!(
        pane.contains("▶ billing holds control · turn 5 thinking"),
        "{pane}"
    );
    assert!(pane.contains("▸ research_team (coordinator)"), "{pane}");

    // The research team opened too: its lead's two calls, running.
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Char('l'));
    let pane = chain_pane(&app, 110, 24);
    insta::assert_snapshot!("tree_mid_run_both_open", pane);
    assert!(
        pane.contains("▾ research_team (coordinator) research_lead · 2 member calls, 0 answered")
    );
    assert!(pane.contains("analyst"), "{pane}");
    assert!(pane.contains("risk_analyst"), "{pane}");

    // ← closes the selected team only.
    press(&mut app, KeyCode::Left);
    let pane = chain_pane(&app, 110, 24);
    assert!(pane.contains("▸ research_team"), "{pane}");
    assert!(pane.contains("▾ support_swarm"), "{pane}");
}

#[test]
fn the_finished_tree_shows_each_teams_answer() {
    let mut app = app_with(to_the_end());
    let pane = chain_pane(&app, 110, 16);
    insta::assert_snapshot!("tree_finished_collapsed", pane);
    assert!(
        pane.contains("▸ support_swarm (swarm) triage → billing · 2 turns · done"),
        "{pane}"
    );
    assert!(
        pane.contains(
            "▸ research_team (coordinator) research_lead · 2 member calls, 2 answered · 5 turns · done"
        ),
        "{pane}"
    );
    press(&mut app, KeyCode::Char('2'));
    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::Right);
    let pane = chain_pane(&app, 110, 20);
    insta::assert_snapshot!("tree_finished_research_open", pane);
    assert!(pane.contains("✓ done"), "{pane}");
    assert!(!pane.contains("thinking"), "nothing runs any more:\n{pane}");
}

#[test]
fn the_keys_are_in_the_footer_and_help_and_enter_shows_the_team() {
    let mut app = app_with(mid_run());
    press(&mut app, KeyCode::Char('2'));
    let shown = screen::of_app(&app, 160, 40);
    assert!(shown.contains("open team"), "the footer:\n{shown}");
    // Help lists the keys the coordinator adds to the pattern pane's,
    // further down than one screen.
    press(&mut app, KeyCode::Char('?'));
    let mut seen = String::new();
    for _ in 0..80 {
        seen.push_str(&screen::of_app(&app, 160, 50));
        press(&mut app, KeyCode::Char('j'));
    }
    let listed = |key: &str, help: &str| {
        seen.lines()
            .any(|line| line.contains(&format!("  {key}    {help}")))
    };
    assert!(
        listed("l/→", "open team") && listed("h/←", "close team"),
        "{seen}"
    );
    press(&mut app, KeyCode::Esc);

    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    let details = screen::of_app(&app, 160, 60);
    for want in [
        r#""name": "support_swarm""#,
        r#""pattern": "swarm""#,
        r#""path": "launch/support_swarm""#,
        r#""summary": "support_swarm (swarm) triage → billing · 2 turns · running""#,
    ] {
        assert!(details.contains(want), "{want} in:\n{details}");
    }
}

/// A team in a team: the research team's deep team opens at the second
/// `→`, its own transfer under it.
#[test]
fn a_team_in_a_team_opens_one_level_at_a_time() {
    let mut document: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(SHIPPED).unwrap()).unwrap();
    document["teams"]["research_team"]["agents"]["deep_team"] = json!({"team": "deep_team"});
    document["teams"]["deep_team"] = json!({
        "pattern": "swarm", "entry": "scout",
        "agents": {"scout": {}, "checker": {}}
    });
    let scenario: Scenario = serde_json::from_value(document).unwrap();
    let deep = "launch/research_team/deep_team";
    let mut app = app_with(vec![
        (0, started(Arc::new(scenario))),
        (
            0,
            call(
                1,
                "research_team",
                20_000,
                team(
                    "research_team",
                    "coordinator",
                    "research_lead",
                    "launch/research_team",
                ),
            ),
        ),
        (0, turn(2, LEAD)),
        (
            500,
            call(2, deep, 3_500, team("deep_team", "swarm", "scout", deep)),
        ),
        (500, turn(3, &format!("{deep}/scout"))),
        (
            900,
            EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
                from: format!("{deep}/scout"),
                to: format!("{deep}/checker"),
                handoffs: 1,
                window: vec![format!("{deep}/checker")],
                deadline_ms: None,
            })),
        ),
        (900, turn(4, &format!("{deep}/checker"))),
    ]);
    press(&mut app, KeyCode::Char('2'));
    press(&mut app, KeyCode::Right);
    let pane = chain_pane(&app, 100, 16);
    assert!(
        pane.contains("  ▸ deep_team (swarm) scout → checker · 2 turns · running"),
        "{pane}"
    );
    assert!(!pane.contains("─→"), "{pane}");
    press(&mut app, KeyCode::Right);
    let pane = chain_pane(&app, 100, 16);
    insta::assert_snapshot!("tree_team_in_a_team_open", pane);
    assert!(pane.contains("  ▾ deep_team (swarm)"), "{pane}");
    assert!(pane.contains("scout ─→ checker accepted"), "{pane}");
    assert!(pane.contains("▾ research_team"), "{pane}");
    // Opened two levels deep, the tree fits any pane, however small,
    // cut rather than spilled.
    for (width, height) in [(80, 24), (40, 12), (12, 4), (3, 3)] {
        let small = chain_pane(&app, width, height);
        assert_eq!(small.lines().count(), usize::from(height));
        assert!(
            small
                .lines()
                .all(|l| l.chars().count() <= usize::from(width)),
            "{small}"
        );
    }
    screen::of_app(&app, 80, 24);
}

/// The engine's own run of the scenario folds into the tree the drawings
/// above assume: no team's agent in the top chain, each team's under its
/// call.
#[tokio::test(start_paused = true)]
async fn a_real_run_of_the_team_of_teams_folds_into_the_same_tree() {
    let (_, events) = common::run(shipped(), LaunchOptions::default()).await;
    let handed = events
        .iter()
        .position(|e| {
            matches!(
                &e.kind,
                EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted { .. }))
            )
        })
        .expect("the swarm hands over");
    let kinds = |events: &[Event]| {
        events
            .iter()
            .map(|e| (e.t_ms, e.kind.clone()))
            .collect::<Vec<_>>()
    };
    let mut app = app_with(kinds(&events[..=handed]));
    press(&mut app, KeyCode::Char('2'));
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Right);
    let pane = chain_pane(&app, 110, 24);
    assert!(
        pane.contains("▾ support_swarm (swarm) triage → billing · 1 turn · running"),
        "{pane}"
    );
    assert!(pane.contains("triage ─→ billing accepted"), "{pane}");
    assert!(
        !pane.contains("launch/"),
        "every name is relative to its team:\n{pane}"
    );

    let app = app_with(kinds(&events));
    let pane = chain_pane(&app, 110, 16);
    let states = pane.lines().find(|l| l.contains("✓ done")).unwrap();
    assert_eq!(
        states.matches(" tok").count(),
        3,
        "each card with what its agents spent, a team's all together:\n{pane}"
    );
    for want in [
        "▸ research_team (coordinator) research_lead · 2 member calls, 2 answered · 5 turns · done",
        "▸ support_swarm (swarm) triage → billing · 2 turns · done",
        "■ launch answered after 3 member calls",
    ] {
        assert!(pane.contains(want), "{want} in:\n{pane}");
    }
}

/// One team called twice in one turn: each call's tree holds its own
/// agents' turns, as the engine names them apart (`support_swarm#2`).
#[tokio::test(start_paused = true)]
async fn a_team_called_twice_at_once_folds_each_call_under_itself() {
    let mut doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scenarios/nested_launch_team.json"
        ))
        .unwrap(),
    )
    .unwrap();
    doc["provider"]["turns"]["launch"][0] = serde_json::json!({"call_members": [
        {"member": "support_swarm", "task": "Refund load"},
        {"member": "support_swarm", "task": "Chargeback load"}
    ]});
    let (_, events) = common::run(common::scenario(&doc), LaunchOptions::default()).await;
    let app = app_with(events.iter().map(|e| (e.t_ms, e.kind.clone())).collect());
    let pane = chain_pane(&app, 110, 20);
    assert_eq!(
        pane.matches("▸ support_swarm (swarm) triage → billing · 2 turns · done")
            .count(),
        2,
        "each call with its own two turns:\n{pane}"
    );
}

/// Names under a team come from the scenario and the model: the tree
/// cleans them as every pane does.
#[test]
fn a_hostile_name_in_a_team_is_drawn_clean() {
    let hostile = "launch/support_swarm/bill\u{1b}]52;c;eA==\u{7}ing\u{1b}[2J";
    let mut app = app_with(vec![
        (0, started(shipped())),
        (
            0,
            call(
                1,
                "support_swarm",
                20_000,
                team("support_swarm", "swarm", "triage", "launch/support_swarm"),
            ),
        ),
        (0, turn(2, TRIAGE)),
        (
            500,
            EventKind::Pattern(PatternEvent::Team(TeamEvent::HandoffAccepted {
                from: TRIAGE.into(),
                to: hostile.into(),
                handoffs: 1,
                window: vec![hostile.into()],
                deadline_ms: None,
            })),
        ),
    ]);
    press(&mut app, KeyCode::Char('2'));
    press(&mut app, KeyCode::Right);
    let pane = chain_pane(&app, 110, 16);
    assert!(pane.contains("triage → billing · 1 turn"), "{pane}");
    assert!(pane.contains("triage ─→ billing accepted"), "{pane}");
    assert!(
        !pane.contains('\u{1b}') && !pane.contains('\u{7}'),
        "{pane:?}"
    );
}
