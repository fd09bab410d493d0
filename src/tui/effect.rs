//! What the dashboard's decisions ask of the world, and what the world
//! says came of them. The app's update only changes the app and returns
//! [`Effect`]s; the loop carries them out (the engines, NATS, files and
//! the terminal are its) and hands back a [`Done`] where the app has
//! something to learn: a run started, a command refused, a file written or
//! not, a file read. The app never reads a file itself: folders scanned,
//! recordings read and replays moved in their files are effects too,
//! carried out on the loop's blocking threads, telling their progress as
//! they go. So the update is tested without a terminal or an engine, and
//! a large file never holds the screen still.

use super::catalog::Entry;
use super::launch::Launch;
use super::recording::Opened;
use super::replay::{Seeker, Sought};
use crate::bus::{Event, RunId};
use crate::clock::RunClock;
use crate::control::Control;
use crate::nats::subjects::RemoteRunId;
use crate::scenario::Scenario;
use crate::trust::{Consent, TrustStore};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Start `launch` as the dashboard's run `run`.
    Launch {
        run: RunId,
        launch: Launch,
    },
    /// Start `launch` as run `run` in place of run `old`, whose engine is
    /// cancelled once the new one started.
    Restart {
        old: RunId,
        run: RunId,
        launch: Launch,
    },
    /// Send run `run`'s engine, here or on another machine, a command.
    Control {
        run: RunId,
        command: Control,
    },
    /// Follow run `id` of another engine from its first event, as the
    /// dashboard's run `run`.
    Follow {
        run: RunId,
        id: RemoteRunId,
    },
    /// List the picker's entries: the scenarios of `scenarios` (the
    /// built-in ones when it has none) and the most recent recordings of
    /// `recordings`.
    ScanCatalog {
        scenarios: PathBuf,
        recordings: Option<PathBuf>,
    },
    /// Read a recording, to replay it; `job` numbers its progress and its
    /// result.
    OpenRecording {
        job: u64,
        path: PathBuf,
    },
    /// Compare two runs, reading what either side keeps in a file.
    Compare {
        job: u64,
        a: CompareSide,
        b: CompareSide,
    },
    /// Fold a replay read from its file to its first `position` events.
    Seek {
        seeker: Seeker,
        position: usize,
    },
    /// Read `count` events of a playing replay's file from `from` on.
    ReadAhead {
        seeker: Seeker,
        from: usize,
        count: usize,
    },
    /// Write this OSC 52 sequence through to the terminal, which puts a
    /// copy on its clipboard.
    Copy(String),
    /// Write `contents` to the file at `path`.
    Write {
        path: PathBuf,
        contents: String,
    },
    /// Remember in `store` that what `consent` covers may run.
    RememberTrust {
        store: TrustStore,
        consent: Consent,
    },
    /// Wait until run `run` (which finished) has its recording complete
    /// on disk.
    AwaitRecording {
        run: RunId,
    },
    /// Run this job of the sweep again, recorded to `record` (runs are
    /// deterministic: the same run), and open the recording to replay it.
    ReplaySweepRun {
        job: crate::sweep::Job,
        record: PathBuf,
    },
    /// Steer the watched run of `trace` through its hook; no trace: every
    /// run (a pause that holds new runs too, a breakpoint).
    Steer {
        trace: Option<crate::span::TraceId>,
        op: crate::watch::steer::ControlOp,
    },
    /// Launch a program scenario as run `run` (docs/launch.md).
    LaunchProgram {
        run: RunId,
        program: Arc<crate::launch::LoadedProgram>,
    },
    /// Read what the launched run's `recording` offers to fork (its
    /// model calls, its program), for the dialog; the replay stands at
    /// `at_ms` after the launch.
    OfferProgramFork {
        recording: PathBuf,
        at_ms: u64,
    },
    /// Fork the launched run's `recording` at model call `at` as run
    /// `run`: calls before it served, the rest live (docs/fork_and_cassettes.md).
    ForkProgram {
        run: RunId,
        recording: PathBuf,
        at: u64,
    },
    /// Stop run `run`'s program: SIGINT, SIGTERM, SIGKILL to its group.
    StopProgram {
        run: RunId,
    },
    Quit,
}

/// What came of an effect, told back to the app.
#[derive(Debug)]
pub enum Done {
    /// A run started.
    Started(Started),
    /// A program scenario's run started: its events come on the bus.
    ProgramStarted(Started),
    /// What a launched run's recording offers to fork, or why nothing
    /// (asked with the replay at `at_ms`).
    ProgramForkOffered {
        offer: Result<crate::launch::fork_offer::ForkOffer, String>,
        at_ms: u64,
    },
    /// Run `run` of `name` did not start (in place of `in_place_of`, for a
    /// restart): why.
    NotStarted {
        run: RunId,
        name: String,
        in_place_of: Option<RunId>,
        why: String,
    },
    /// Run `run`'s engine did not take `command`: why.
    Refused {
        run: RunId,
        command: Control,
        why: String,
    },
    /// The watch's steering did not take what was asked of a hooked
    /// run: why.
    NotSteered(String),
    /// The picker's entries, listed.
    Scanned(Vec<Entry>),
    /// How far the reading of `job` has come: `read` of `total`.
    Progress {
        job: u64,
        read: u64,
        total: u64,
        unit: Unit,
    },
    /// A recording read to replay, or why it cannot be.
    Opened {
        job: u64,
        opened: Result<Box<Opened>, String>,
    },
    /// Two runs compared, or why they cannot be.
    Compared {
        job: u64,
        comparison: Result<Box<crate::compare::Comparison>, String>,
    },
    /// A replay folded to `position` (asked by [`Effect::Seek`]).
    Sought {
        seeker: Seeker,
        position: usize,
        sought: Box<Sought>,
    },
    /// Events of a replay's file from `from` on, or why they cannot be
    /// read (asked by [`Effect::ReadAhead`]).
    ReadAhead {
        seeker: Seeker,
        from: usize,
        events: Result<Vec<Arc<Event>>, String>,
    },
    /// `bytes` were written to `path`.
    Wrote { path: PathBuf, bytes: usize },
    /// Nothing was written to `path`: why.
    NotWritten { path: PathBuf, why: String },
    /// An allowance to run a scenario's programs was not remembered: why.
    NotRemembered(String),
    /// Run `run`'s engine ended and its recording is complete, or
    /// writing it failed: why.
    Recorded { run: RunId, failed: Option<String> },
    /// The sweep's run of `seed` ran again: its recording, opened, or why
    /// there is none.
    SweepRunReplayed {
        seed: u64,
        opened: Result<Box<Opened>, String>,
    },
}

/// A run that started: what the app shows it with.
#[derive(Debug)]
pub struct Started {
    pub run: RunId,
    /// The run it replaces, for a restart.
    pub in_place_of: Option<RunId>,
    pub scenario: Arc<Scenario>,
    /// The scenario file, if it came from one.
    pub source: Option<String>,
    /// The file it records to.
    pub recording: Option<PathBuf>,
    /// Its engine's clock, which shows its time between events.
    pub clock: RunClock,
    /// The recording it is a fork of, for a fork.
    pub forked_from: Option<PathBuf>,
}

/// What a reading counts: bytes of a file, or events of a replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    Events,
}

/// One side of a comparison, as the world reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareSide {
    /// How the comparison names it.
    pub label: String,
    pub events: SideEvents,
}

/// Where a side's events are.
#[derive(Clone, Debug, PartialEq)]
pub enum SideEvents {
    /// Held by the app already (a live run's log).
    Held(Vec<Arc<Event>>),
    /// A replay's, read from its file when it is not held.
    Replay(Seeker),
    /// A recording's file, read whole.
    File(PathBuf),
}
