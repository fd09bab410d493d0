//! Launching another framework's program as a run: a program scenario
//! (`scenario`), the environment that joins everything it emits to its
//! run (`environment`), its process and output (`process`, `output`),
//! the run from start to end over the watch's receiver and steering
//! (`run`), and its result, recording and headless printing. It sits
//! between the watch, which it reuses, and the fronts; it never draws.

pub mod cassette;
mod ended;
pub mod environment;
pub mod fork;
pub(crate) mod fork_offer;
pub mod gateway;
pub mod headless;
mod journal;
pub mod launched_as;
mod live;
pub mod output;
pub mod prepare;
pub mod process;
mod receiver;
pub mod recording;
pub mod result;
pub mod run;
pub mod scenario;
mod start;
pub mod sweep;

pub use cassette::LaunchCassette;
pub use headless::{HeadlessLaunch, Recording, headless};
pub use journal::RecordAt;
pub use run::LaunchSettings;
pub use scenario::{LoadedProgram, sniff};
