//! `conclave watch`: other frameworks' runs, received as OpenTelemetry
//! traces and drawn in Conclave's panes. The receiver (`receive`) hands
//! decoded batches on; the compact spans (`span`) go into one forest per
//! trace (`forest`), runs are assembled and settled (`runs`), each span is
//! read by one table of vocabularies (`vocab`, `read`, both pure) and a
//! finished run is summed up (`summary`), printed (`--headless`) and
//! recorded (`record`). The network, the clock and the dashboard stay
//! outside the reader: `consume` is the loop that joins them.

pub(crate) mod acting;
pub(crate) mod answer;
pub mod consume;
pub(crate) mod forest;
pub(crate) mod framework;
pub mod gateway_calls;
pub(crate) mod handoffs;
pub(crate) mod journal;
pub(crate) mod journals;
pub mod output_line;
pub(crate) mod read;
pub mod receive;
pub mod record;
pub mod replay;
pub(crate) mod run;
pub mod runs;
pub mod start;
pub mod steer;
pub mod summary;
pub(crate) mod translate;
pub(crate) mod vocab;
pub(crate) mod vocab_words;

#[cfg(test)]
pub(crate) mod tests;

#[cfg(test)]
pub(crate) mod fixture_tests;

#[cfg(test)]
mod fixture_js_tests;
