//! What travels on a run's control subject: a command from a viewer on
//! another machine, and the engine's reply. JSON both ways, so that any
//! NATS client can pause a run; the engine maps a command onto the same
//! [`Control`] a local key sends, never onto anything of its own.

use crate::bus::HumanChoice;
use crate::control::Control;
use serde::{Deserialize, Serialize};

/// A request on `conclave.control.<engine>.<run>`, e.g.
/// `{"command": "pause"}` or `{"command": "set_flag", "name": "legal_analyst", "on": true}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum RemoteCommand {
    Pause,
    Resume,
    Step,
    SetFlag {
        name: String,
        on: bool,
    },
    Cancel,
    Decide {
        choice: HumanChoice,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// Whether the run's engine is there: answered without touching the
    /// run (a viewer lists only runs whose engine answers).
    Ping,
}

impl RemoteCommand {
    /// The local control this command is; `None` for a ping.
    pub(crate) fn control(self) -> Option<Control> {
        Some(match self {
            RemoteCommand::Pause => Control::Pause,
            RemoteCommand::Resume => Control::Resume,
            RemoteCommand::Step => Control::Step,
            RemoteCommand::SetFlag { name, on } => Control::SetFlag { name, on },
            RemoteCommand::Cancel => Control::Cancel,
            RemoteCommand::Decide { choice, note } => Control::Decide { choice, note },
            RemoteCommand::Ping => return None,
        })
    }

    /// The command a local control is sent as.
    pub(crate) fn of(control: Control) -> RemoteCommand {
        match control {
            Control::Pause => RemoteCommand::Pause,
            Control::Resume => RemoteCommand::Resume,
            Control::Step => RemoteCommand::Step,
            Control::SetFlag { name, on } => RemoteCommand::SetFlag { name, on },
            Control::Cancel => RemoteCommand::Cancel,
            Control::Decide { choice, note } => RemoteCommand::Decide { choice, note },
        }
    }
}

/// The engine's answer: `{"ok": true}`, or `{"ok": false, "error": "..."}`
/// saying why the command was refused (an unknown flag, a finished run, a
/// request that is not a command).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply {
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Reply {
    pub(crate) fn ok() -> Reply {
        Reply {
            ok: true,
            error: None,
        }
    }

    pub(crate) fn refused(error: impl Into<String>) -> Reply {
        Reply {
            ok: false,
            error: Some(error.into()),
        }
    }

    /// The reply as a result: the refusal's words as the error.
    pub(crate) fn into_result(self) -> Result<(), String> {
        match (self.ok, self.error) {
            (true, _) => Ok(()),
            (false, error) => Err(error.unwrap_or_else(|| "refused".to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_read_as_documented_and_map_to_the_local_controls() {
        let read = |text: &str| serde_json::from_str::<RemoteCommand>(text).unwrap();
        assert_eq!(
            read(r#"{"command":"pause"}"#).control(),
            Some(Control::Pause)
        );
        assert_eq!(
            read(r#"{"command":"set_flag","name":"legal_analyst","on":true}"#).control(),
            Some(Control::SetFlag {
                name: "legal_analyst".into(),
                on: true
            })
        );
        assert_eq!(read(r#"{"command":"ping"}"#).control(), None);
        for control in [
            Control::Pause,
            Control::Resume,
            Control::Step,
            Control::Cancel,
            Control::SetFlag {
                name: "x".into(),
                on: false,
            },
        ] {
            let text = serde_json::to_string(&RemoteCommand::of(control.clone())).unwrap();
            assert_eq!(read(&text).control(), Some(control));
        }
        assert!(serde_json::from_str::<RemoteCommand>(r#"{"command":"explode"}"#).is_err());
    }

    #[test]
    fn replies_carry_the_refusal() {
        let text = serde_json::to_string(&Reply::refused("the run has finished")).unwrap();
        assert_eq!(text, r#"{"ok":false,"error":"the run has finished"}"#);
        let back: Reply = serde_json::from_str(&text).unwrap();
        assert_eq!(back.into_result(), Err("the run has finished".to_string()));
        assert_eq!(
            serde_json::to_string(&Reply::ok()).unwrap(),
            r#"{"ok":true}"#
        );
    }
}
