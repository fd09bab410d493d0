//! A handoff chain's memory and a coordinator's members', guarded: the
//! binary runs a swarm of four agents handing control round a ring, and a
//! coordinator calling many distinct members once each
//! (`benches/common/shapes.rs`, the side-by-side bench's shapes), at two
//! sizes, three processes each, and what a handoff or a member adds to the
//! run's peak resident memory (the medians' difference over the handoffs
//! or members between them) stays under a ceiling. The start-up's memory
//! cancels out, so the figure is what each model call leaves held: its
//! chain or member record, its trace and history entries and its share of
//! the result's text. Each test runs in a process of its own
//! (`common::alone`), as `fan_out_memory`'s do.

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

/// A coordinator's members called, the difference measured.
const FEW_MEMBERS: usize = 1_000;
const MANY_MEMBERS: usize = 4_000;

/// The unoptimised binary's ceiling, in bytes a member called once: about
/// 6,550 when each member's asks (its payload's head and its purpose, a
/// kilobyte) were kept to the run's end (1,000 to 4,000 members: 62.3 to
/// 81.5 MB, medians of three, beside compiles); 4,930 with at most 1,024
/// agents' asks kept (61.9 to 76.4 MB). A ceiling between the two.
const MEMBER_CEILING_BYTES: f64 = 6_000.0;

#[test]
fn a_handoff_adds_less_than_its_ceiling_to_the_chains_peak() {
    if !alone("a_handoff_adds_less_than_its_ceiling_to_the_chains_peak") {
        return;
    }
    growth_under_ceiling("chain", (SHORT, LONG), "handoff", CEILING_BYTES);
}

#[test]
fn a_member_called_adds_less_than_its_ceiling_to_the_coordinators_peak() {
    if !alone("a_member_called_adds_less_than_its_ceiling_to_the_coordinators_peak") {
        return;
    }
    growth_under_ceiling(
        "members",
        (FEW_MEMBERS, MANY_MEMBERS),
        "member called",
        MEMBER_CEILING_BYTES,
    );
}

/// The bytes one more `unit` of `shape` adds to its run's peak, between
/// the run of `few` and the run of `many` (medians of [`PROCESSES`]), held
/// under `ceiling`.
fn growth_under_ceiling(shape: &str, (few, many): (usize, usize), unit: &str, ceiling: f64) {
    let work = small_enough_to_measure_from();
    let low = median_peak_kib(work.path(), shape, few);
    let high = median_peak_kib(work.path(), shape, many);
    let per_unit = (high - low) as f64 * 1024.0 / (many - few) as f64;
    eprintln!("{shape} of {few}: {low} KiB, of {many}: {high} KiB; {per_unit:.0} bytes a {unit}");
    assert!(
        per_unit <= ceiling,
        "a {unit} added {per_unit:.0} bytes to the {shape} run's peak ({low} KiB at {few}, {high} KiB at {many}; medians of {PROCESSES}), over its ceiling of {ceiling} bytes"
    );
}

/// A folder to work in, once this process is known to be small beside
/// what it measures.
fn small_enough_to_measure_from() -> tempfile::TempDir {
    let own = common::bounded::own_peak_kib();
    assert!(
        own < 32 * 1024,
        "this test process is too big to measure from: {own} KiB"
    );
    tempfile::tempdir().unwrap()
}

/// The median peak of [`PROCESSES`] runs of `shape` (`chain` of `size`
/// handoffs, or `members`: a coordinator calling `size` members), each
/// checked afterwards to have done all of it.
fn median_peak_kib(work: &Path, shape: &str, size: usize) -> i64 {
    let scenario = work.join(format!("{shape}_{size}.json"));
    match shape {
        "chain" => crate::shapes::write_chain(&scenario, size),
        _ => crate::shapes::write_members(&scenario, size),
    }
    let mut peaks = Vec::new();
    for i in 0..PROCESSES {
        let out = work.join(format!("{shape}_{size}_{i}.json"));
        let mut command = Command::new(env!("CARGO_BIN_EXE_conclave"));
        command
            .args(["run", "--headless"])
            .arg(&scenario)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(Stdio::null());
        let finished = common::bounded::run(command, Duration::from_secs(300), shape);
        assert_eq!(
            (finished.exit, finished.signal),
            (Some(0), None),
            "the {shape} run ends well"
        );
        peaks.push(finished.max_rss_kib);
        let result: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        assert_eq!(result["status"], "ok", "the {shape} run's result");
        match shape {
            "chain" => chain_done(&result, size),
            _ => members_done(&result, size),
        }
    }
    peaks.sort_unstable();
    peaks[PROCESSES / 2]
}

/// The chain made every handoff, and its last agent replied.
fn chain_done(result: &serde_json::Value, handoffs: usize) {
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

/// Every member answered, and the coordinator replied.
fn members_done(result: &serde_json::Value, members: usize) {
    assert_eq!(result["answer"], "Done.", "the coordinator replied");
    let calls = result["member_calls"].as_array().expect("member calls");
    assert_eq!(calls.len(), members, "every member called");
    let last = members - 1;
    assert_eq!(calls[last]["reply"], format!("m{last} is done."));
    assert!(calls.iter().all(|c| c["status"] == "done"), "all answered");
}
