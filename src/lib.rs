//! Conclave: a terminal dashboard and engine for multi-agent runs.
//!
//! A scenario file describes one run of one pattern. The engine runs the
//! pattern through the gateway, publishes every step on the bus, and viewers
//! (the dashboard, the recorder, the headless printer) read the bus.

#![warn(unreachable_pub)]

#[cfg(test)]
pub(crate) mod arbitrary_json;
pub mod bus;
pub mod cassette;
pub mod clock;
pub mod compare;
pub(crate) mod control;
pub mod duration;
pub mod engine;
pub mod exit;
pub(crate) mod figures;
pub(crate) mod gateway;
pub mod headless;
pub mod known_secrets;
pub mod launch;
pub mod nats;
pub mod output;
pub mod patterns;
pub mod pricing;
pub mod provider;
pub(crate) mod pycompat;
pub mod record;
pub(crate) mod rng;
pub(crate) mod runtime;
pub mod sanitize;
pub mod scenario;
pub mod secrets;
pub(crate) mod signals;
pub(crate) mod span;
pub(crate) mod state_dir;
pub mod stop;
pub mod sweep;
pub mod telemetry;
pub mod toolbox;
pub mod trust;
pub mod tui;
pub mod watch;
pub(crate) mod words;
