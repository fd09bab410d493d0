//! What the dashboard is started with: the command line's choices,
//! gathered for `tui::run`.

use crate::tui::{app, theme};
use std::path::PathBuf;

#[derive(Clone, Debug, Default)]
pub struct TuiOptions {
    /// Launch this scenario at once; without it the picker opens.
    pub scenario: Option<PathBuf>,
    /// Launch this program scenario at once (`conclave run app.json`),
    /// its flags and seed as given.
    pub program: Option<std::sync::Arc<crate::launch::LoadedProgram>>,
    /// Seed, flags and goal for that launch.
    pub overrides: app::Overrides,
    /// Launch this fork of a recording at once instead (`conclave fork`):
    /// the parent's scenario, with `overrides`' recording file.
    pub fork: Option<crate::engine::ForkRequest>,
    /// Record every run (to the runs folder).
    pub record: bool,
    /// Runs wait at their first gate.
    pub start_paused: bool,
    /// Replay this recording instead of launching.
    pub replay: Option<PathBuf>,
    /// Open these two recordings side by side instead (`conclave compare`).
    pub compare: Option<(PathBuf, PathBuf)>,
    /// The model runs use, over each scenario's.
    pub provider: crate::engine::ProviderChoice,
    /// How the screen looks.
    pub theme: theme::Theme,
    /// `--allow-exec`: scenarios may run their programs without asking.
    pub allow_exec: bool,
    /// `--cache DIR`: where the tools' last good answers are kept.
    pub cache: Option<PathBuf>,
    /// `--otlp`: send every run as an OpenTelemetry trace.
    pub otlp: Option<crate::telemetry::OtlpConfig>,
    /// `--nats URL`: runs publish their events to this server and answer
    /// control requests from other machines.
    pub nats: Option<crate::nats::publish::PublishTo>,
    /// `conclave attach --nats URL`: show the live runs of other engines
    /// from this server instead of launching any.
    pub attach: Option<String>,
    /// Run this sweep and show its outcomes (`conclave sweep`).
    pub sweep: Option<crate::sweep::SweepArgs>,
    /// `conclave watch`: show other frameworks' runs, received as
    /// OpenTelemetry traces, as runs of the dashboard.
    pub watch: Option<crate::watch::start::WatchSettings>,
}
