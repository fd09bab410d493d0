//! `conclave watch`: other frameworks' runs, received as OpenTelemetry
//! traces and drawn in Conclave's panes.

pub mod receive;
