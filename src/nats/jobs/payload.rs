//! What a sweep's jobs carry to the workers besides the job: the
//! scenario's text, or for a sweep from a point the recording's and the
//! gate; and the check that a job fits in one message of the server.

use super::queue::ScenarioText;
use super::sweep_error::RemoteSweepError;
use crate::nats::Nats;
use crate::scenario::Scenario;
use crate::sweep::JobSetup;
use std::sync::Arc;

/// The text every job carries and, for a sweep from a point, the gate
/// its runs go live at: such a sweep sends the recording, which the
/// worker forks.
pub(super) fn carried(
    scenario: &Arc<Scenario>,
    source: Option<&str>,
    setup: &JobSetup,
) -> Result<(ScenarioText, Option<String>), RemoteSweepError> {
    let text = match &setup.fork {
        Some(fork) => ScenarioText {
            source: fork.source(),
            text: fork.text().ok_or(RemoteSweepError::NoText)?.to_string(),
        },
        None => ScenarioText {
            source: source.unwrap_or(scenario.origin.file()).to_string(),
            text: scenario
                .origin
                .text()
                .ok_or(RemoteSweepError::NoText)?
                .to_string(),
        },
    };
    let fork_at = setup.fork.as_ref().map(|fork| fork.gate().to_string());
    Ok((text, fork_at))
}

/// A job the server would refuse for its size is the user's to fix: a
/// recording too big to travel in one message (JetStream's default limit
/// is 1 MB a message).
pub(super) fn fits(
    nats: &Nats,
    text: &ScenarioText,
    fork: bool,
    size: usize,
) -> Result<(), RemoteSweepError> {
    let limit = match nats.client.server_info().max_payload {
        0 => DEFAULT_MAX_PAYLOAD,
        limit => limit,
    };
    if size <= limit {
        return Ok(());
    }
    Err(RemoteSweepError::TooBig {
        file: crate::sanitize::clean(&text.source).into_owned(),
        what: if fork { "recording" } else { "scenario" },
        text: text.text.len(),
        size,
        limit,
    })
}

/// The NATS server's limit on a message when it says none (its default).
const DEFAULT_MAX_PAYLOAD: usize = 1024 * 1024;
