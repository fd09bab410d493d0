//! A handoff chain's memory, guarded: the binary runs a swarm of four
//! agents handing control round a ring (`benches/common/shapes.rs`, the
//! side-by-side bench's chain) at two lengths, three processes each, and
//! what a handoff adds to the run's peak resident memory (the medians'
//! difference over the handoffs between them) stays under a ceiling. The
//! start-up's memory cancels out, so the figure is what each model call
//! of the chain leaves held: its chain entry, its transfer, its trace and
//! history entries and its share of the result's text. Each test runs in
//! a process of its own (`common::alone`), as `fan_out_memory`'s do.

use crate::common;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The chains' lengths: the difference is what is measured.
const SHORT: usize = 1_000;
const LONG: usize = 6_000;

/// Processes per length; their median is held.
const PROCESSES: usize = 3;

/// The unoptimised binary's ceiling, in bytes a handoff. The chain held
/// about 1,920 bytes a handoff when its history was kept as trees of
/// values and each agent's name was copied into every chain, transfer and
/// trace entry (2,000 to 10,000 handoffs: 57.0 to 71.3 MiB); its history
/// kept as the text it is written as, the names shared, 1,264 (2,000 to
/// 12,000: 53.6 to 65.7 MiB, medians of three, beside compiles). A
/// ceiling between the two, about 20% from each.
const CEILING_BYTES: f64 = 1_500.0;

fn alone(name: &str) -> bool {
    common::alone::here(module_path!(), name, &[])
}

#[test]
fn a_handoff_adds_less_than_its_ceiling_to_the_chains_peak() {
    if !alone("a_handoff_adds_less_than_its_ceiling_to_the_chains_peak") {
        return;
    }
    let own = common::bounded::own_peak_kib();
    assert!(
        own < 32 * 1024,
        "this test process is too big to measure from: {own} KiB"
    );
    let work = tempfile::tempdir().unwrap();
    let short = median_peak_kib(work.path(), SHORT);
    let long = median_peak_kib(work.path(), LONG);
    let per_handoff = (long - short) as f64 * 1024.0 / (LONG - SHORT) as f64;
    eprintln!(
        "chain of {SHORT}: {short} KiB, of {LONG}: {long} KiB; {per_handoff:.0} bytes a handoff"
    );
    assert!(
        per_handoff <= CEILING_BYTES,
        "a handoff added {per_handoff:.0} bytes to the chain's peak ({short} KiB at {SHORT} handoffs, {long} KiB at {LONG}; medians of {PROCESSES}), over its ceiling of {CEILING_BYTES} bytes"
    );
}

/// The median peak of [`PROCESSES`] runs of the chain of `handoffs`, each
/// checked afterwards to have made every handoff and replied.
fn median_peak_kib(work: &Path, handoffs: usize) -> i64 {
    let scenario = work.join(format!("chain_{handoffs}.json"));
    crate::shapes::write_chain(&scenario, handoffs);
    let mut peaks = Vec::new();
    for i in 0..PROCESSES {
        let out = work.join(format!("chain_{handoffs}_{i}.json"));
        let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
        command
            .args(["run", "--headless"])
            .arg(&scenario)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(Stdio::null());
        let finished = common::bounded::run(command, Duration::from_secs(300), "the chain");
        assert_eq!(
            (finished.exit, finished.signal),
            (Some(0), None),
            "the chain ends well"
        );
        peaks.push(finished.max_rss_kib);
        let result: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        assert_eq!(result["status"], "ok", "the chain's result");
        assert_eq!(result["answer"], "Agreed.", "the last agent replied");
        assert_eq!(
            result["handoffs"].as_array().map(Vec::len),
            Some(handoffs),
            "every handoff made"
        );
        assert_eq!(
            result["chain"].as_array().map(Vec::len),
            Some(handoffs + 1),
            "every holder in the chain"
        );
    }
    peaks.sort_unstable();
    peaks[PROCESSES / 2]
}
