//! What travels on a run's control subject: a command from a viewer on
//! another machine, and the engine's reply. JSON both ways, so that any
//! NATS client can pause a run; a command is the same [`Control`] a local
//! key sends, never anything of its own.

pub use crate::control::Control;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A request on `conclave.control.<engine>.<run>`: one of the [`Control`]s
/// a local key sends, in its JSON (`{"command": "pause"}`), or a ping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RemoteCommand {
    Control(Control),
    /// Whether the run's engine is there: answered without touching the
    /// run (a viewer lists only runs whose engine answers).
    Ping,
}

impl RemoteCommand {
    /// The local control this command is; `None` for a ping.
    pub(crate) fn control(self) -> Option<Control> {
        match self {
            RemoteCommand::Control(control) => Some(control),
            RemoteCommand::Ping => None,
        }
    }
}

/// A ping's JSON: `{"command": "ping"}`.
#[derive(Serialize)]
#[serde(tag = "command", rename_all = "snake_case")]
enum PingCommand {
    Ping,
}

impl Serialize for RemoteCommand {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RemoteCommand::Control(control) => control.serialize(serializer),
            RemoteCommand::Ping => PingCommand::Ping.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for RemoteCommand {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if value.get("command").and_then(Value::as_str) == Some("ping") {
            return Ok(RemoteCommand::Ping);
        }
        Control::deserialize(value)
            .map(RemoteCommand::Control)
            .map_err(D::Error::custom)
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
            let text = serde_json::to_string(&RemoteCommand::Control(control.clone())).unwrap();
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
