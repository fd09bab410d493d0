//! The chain pane's lists as shown, in the order they grew: a swarm's
//! transfers, following the newest; a coordinator's member calls,
//! following a member still running in the latest turn, else the newest
//! call. The text each is searched by.

use super::state::{Chain, HandoffView, MemberState, MemberView};
use crate::tui::selection::Shown;

/// The transfers, following the newest.
pub(super) fn handoffs(chain: &Chain) -> Shown {
    let len = chain.handoffs.len();
    Shown::all(len, len.checked_sub(1))
}

/// The member calls, following the first still running in the latest
/// turn, else the newest.
pub(super) fn members(chain: &Chain) -> Shown {
    let len = chain.members.len();
    let latest = chain.members.last().map(|m| m.turn);
    let running = chain
        .members
        .iter()
        .position(|m| Some(m.turn) == latest && m.state == MemberState::Running);
    Shown::all(len, running.or(len.checked_sub(1)))
}

/// A transfer as searched: who to whom, and why it was refused.
pub(super) fn handoff_text(handoff: &HandoffView) -> String {
    match &handoff.rejected {
        Some(reason) => format!("{} {} refused {reason}", handoff.from, handoff.to),
        None => format!("{} {} accepted", handoff.from, handoff.to),
    }
}

/// A member call as searched: the member, its task and its reply or why
/// it failed; a member team's call also by its summary (`/billing` finds
/// the swarm billing works in).
pub(super) fn member_text(member: &MemberView) -> String {
    let outcome = match &member.state {
        MemberState::Running => String::new(),
        MemberState::Done { reply, .. } => reply.clone(),
        MemberState::Failed { reason, .. } => {
            reason.as_ref().map(ToString::to_string).unwrap_or_default()
        }
    };
    let team = member.team_summary().unwrap_or_default();
    format!("{} {} {outcome} {team}", member.member, member.task)
}
