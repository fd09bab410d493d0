//! The swarm's and the coordinator's part of the dashboard: the chain of
//! agents, the transfers and the member calls (`state`, one fold for both),
//! the selected transfer or member call, and the chain pane, drawn as a
//! swarm's chain (`swarm`) or as a coordinator with its members side by
//! side (`members`).

mod events;
mod list;
pub(crate) mod log;
mod member_row;
pub(crate) mod members;
pub(crate) mod members_view;
pub(crate) mod nested;
pub(crate) mod state;
pub(crate) mod swarm;
mod tree;

use super::unit::{Seen, Shortfall, Unit};
use crate::bus::{RunStarted, RunStatus};
use crate::patterns::team::figures::FINAL_AGENT;
use crate::scenario::Scenario;
use crate::tui::keymap::{Action, Scope, UnitKeys};
use crate::tui::selection::{Find, ListView};
use crate::tui::state::outcome::Outcome;
use crate::tui::text::fit;
use crate::tui::widgets::plural;
use crate::tui::{theme, widgets};
use members_view::MembersView;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use serde_json::{Value, json};
use state::{Chain, MemberState, MemberView};

/// A swarm: agents hand control to each other.
pub(crate) struct SwarmUnit;

/// A coordinator: one agent calls the others as tools, several at once.
pub(crate) struct CoordinatorUnit;

impl Unit for SwarmUnit {
    type Fold = Chain;
    type Selection = ListView;

    fn seat(&self, started: &RunStarted) -> Chain {
        Chain::seated(&started.scenario, false)
    }

    fn gate_word(&self) -> &'static str {
        "turn"
    }

    fn navigate(&self, selection: &mut ListView, action: Action, chain: &Chain, page: usize) {
        swarm::navigate(selection, action, chain, page);
    }

    fn find(
        &self,
        selection: &mut ListView,
        query: &str,
        how: Find,
        chain: &Chain,
        page: usize,
    ) -> bool {
        let rows = swarm::list_rows(page);
        selection.find(query, how, &list::handoffs(chain), rows, |i| {
            list::handoff_text(&chain.handoffs[i])
        })
    }

    fn query(&self, selection: &ListView) -> Option<String> {
        selection.search.clone()
    }

    fn wanted_height(&self, chain: &Chain) -> u16 {
        swarm::wanted_height(chain)
    }

    fn draw(&self, frame: &mut Frame, area: Rect, chain: &Chain, list: &ListView, seen: Seen) {
        swarm::draw(frame, area, chain, list, seen);
    }

    /// The selected transfer.
    /// The selected transfer with the tools its agent called while it held
    /// control, their arguments and results whole (the pane cuts them to
    /// a line); with no transfer yet, every tool call kept.
    fn details(&self, chain: &Chain, selection: &ListView) -> Option<Value> {
        let selected = selection.item(&list::handoffs(chain));
        let Some((i, h)) = selected.and_then(|i| Some((i, chain.handoffs.get(i)?))) else {
            let calls: Vec<Value> = chain.tool_calls.iter().map(tool_call_json).collect();
            return (!calls.is_empty()).then(|| json!({ "tool_calls": calls }));
        };
        let since = i.checked_sub(1).map_or(0, |p| chain.handoffs[p].at_ms);
        let calls: Vec<Value> = chain
            .tool_calls
            .iter()
            .filter(|c| c.agent == h.from && (since..=h.at_ms).contains(&c.at_ms))
            .map(tool_call_json)
            .collect();
        let mut details = json!({
            "from": h.from, "to": h.to, "at_ms": h.at_ms, "accepted": h.rejected.is_none(),
            "reason": h.rejected, "handoffs": h.counted, "window": h.window,
            "message": h.message, "tool_calls": calls,
        });
        // The last transfer also holds what its receiver did after it: no
        // later transfer would show those calls.
        if i + 1 == chain.handoffs.len() {
            let holder = if h.rejected.is_none() { &h.to } else { &h.from };
            let after: Vec<Value> = chain
                .tool_calls
                .iter()
                .filter(|c| &c.agent == holder && c.at_ms > h.at_ms)
                .map(tool_call_json)
                .collect();
            details["then"] = json!({"holder": holder, "tool_calls": after});
        }
        Some(details)
    }

    fn headline(&self, _chain: &Chain, outcome: &Outcome) -> Line<'static> {
        answered_by(outcome)
    }

    /// The chain, the transfers and the model calls.
    fn tally(&self, chain: &Chain, _outcome: &Outcome) -> Vec<Line<'static>> {
        let (asked, refused) = chain.transfers();
        let mut agents: Vec<String> = chain.links.iter().map(|l| l.agent.clone()).collect();
        if chain.earlier.links > 0 {
            agents.insert(0, format!("… {} earlier", chain.earlier.links));
        }
        vec![
            row("chain       ", fit(&agents.join(" → "), 200)),
            row(
                "handoffs    ",
                format!(
                    "{asked} asked, {} accepted, {refused} refused",
                    asked - refused
                ),
            ),
            row("llm calls   ", chain.llm_calls.to_string()),
        ]
    }

    /// Refused transfers, counted; the run went on without them.
    fn shortfall(&self, chain: &Chain) -> Option<Shortfall> {
        let (_, refused) = chain.transfers();
        (refused > 0).then(|| Shortfall {
            words: format!("{} refused", plural(refused as u64, "transfer")),
            lacking: false,
        })
    }
}

/// A tool call as its details show it: the arguments and the result as
/// JSON where they read as JSON, else as the text they are.
fn tool_call_json(call: &state::ToolCallView) -> Value {
    let read = |text: &str| serde_json::from_str(text).unwrap_or_else(|_| Value::from(text));
    json!({
        "turn": call.turn, "agent": call.agent, "tool": call.tool,
        "args": read(&call.args), "result": read(&call.result), "ok": call.ok,
    })
}

impl Unit for CoordinatorUnit {
    type Fold = Chain;
    type Selection = MembersView;

    fn seat(&self, started: &RunStarted) -> Chain {
        Chain::seated(&started.scenario, true)
    }

    fn gate_word(&self) -> &'static str {
        "turn"
    }

    /// Opening and closing member teams, when the scenario has teams.
    fn keys(&self, scenario: &Scenario) -> Option<Scope> {
        (!scenario.teams.is_empty()).then_some(Scope::Unit(UnitKeys::Members))
    }

    fn navigate(&self, selection: &mut MembersView, action: Action, chain: &Chain, page: usize) {
        selection.navigate(action, chain, page);
    }

    fn find(
        &self,
        selection: &mut MembersView,
        query: &str,
        how: Find,
        chain: &Chain,
        page: usize,
    ) -> bool {
        selection
            .list
            .find(query, how, &list::members(chain), page, |i| {
                list::member_text(&chain.members[i])
            })
    }

    fn query(&self, selection: &MembersView) -> Option<String> {
        selection.list.search.clone()
    }

    fn wanted_height(&self, chain: &Chain) -> u16 {
        members::wanted_height(chain)
    }

    fn draw(&self, frame: &mut Frame, area: Rect, chain: &Chain, view: &MembersView, seen: Seen) {
        members::draw(frame, area, chain, view, seen);
    }

    /// The selected member call; a member team's with the team, its place
    /// in the tree and what it did.
    fn details(&self, chain: &Chain, selection: &MembersView) -> Option<Value> {
        let m = chain
            .members
            .get(selection.list.item(&list::members(chain))?)?;
        Some(member_details(m))
    }

    fn headline(&self, _chain: &Chain, outcome: &Outcome) -> Line<'static> {
        answered_by(outcome)
    }

    /// The member calls and the model calls.
    fn tally(&self, chain: &Chain, _outcome: &Outcome) -> Vec<Line<'static>> {
        let (calls, done) = chain.member_calls();
        vec![
            row(
                "members     ",
                format!(
                    "{}, {done} answered, {} failed",
                    plural(calls as u64, "call"),
                    calls - done
                ),
            ),
            row("llm calls   ", chain.llm_calls.to_string()),
        ]
    }

    /// Member calls that gave no answer; the coordinator's answer lacks
    /// their part.
    fn shortfall(&self, chain: &Chain) -> Option<Shortfall> {
        // Once the run is over, every call that did not answer failed.
        let failed = chain.earlier.members - chain.earlier.members_done
            + chain
                .members
                .iter()
                .filter(|m| matches!(m.state, MemberState::Failed { .. }))
                .count();
        (failed > 0).then(|| Shortfall {
            words: format!("{} failed", plural(failed as u64, "member call")),
            lacking: true,
        })
    }
}

/// A member call as `Enter` shows it.
fn member_details(m: &MemberView) -> Value {
    let (status, latency_ms, reply, reason) = match &m.state {
        MemberState::Running => ("running", None, None, None),
        MemberState::Done { latency_ms, reply } => {
            ("done", Some(*latency_ms), Some(reply.clone()), None)
        }
        MemberState::Failed {
            latency_ms, reason, ..
        } => (
            "failed",
            *latency_ms,
            None,
            reason.as_ref().map(ToString::to_string),
        ),
    };
    let mut details = json!({
        "turn": m.turn, "member": m.member, "task": m.task, "status": status,
        "started_ms": m.started_ms, "deadline_ms": m.deadline_ms, "turns": m.turns,
        "latency_ms": latency_ms, "reply": reply, "reason": reason,
    });
    if let Some(team) = &m.team {
        let (transfers, refused) = team.chain.transfers();
        let (calls, answered) = team.chain.member_calls();
        details["team"] = json!({
            "name": team.name, "pattern": team.pattern, "path": team.path,
            "summary": m.team_summary(),
            "chain": team.chain.links.iter().map(|l| &l.agent).collect::<Vec<_>>(),
            "transfers": transfers, "refused": refused,
            "member_calls": calls, "answered": answered,
        });
    }
    details
}

/// Who held control at the end, and whether it answered.
fn answered_by(outcome: &Outcome) -> Line<'static> {
    let Some(agent) = &outcome.summary.read::<String>(FINAL_AGENT) else {
        return widgets::no_decision(outcome.status, "NO ANSWER");
    };
    let (words, style) = match outcome.status {
        RunStatus::Ok => ("ANSWERED BY", theme::headline(theme::GO)),
        RunStatus::Stopped => ("STOPPED WITH", theme::headline(theme::BLOCK)),
    };
    Line::styled(format!("{words} {}", fit(agent, 30)), style)
}

fn row(label: &'static str, text: String) -> Line<'static> {
    Line::from(vec![Span::styled(label, theme::dim()), Span::raw(text)])
}
