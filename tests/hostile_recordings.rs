//! A corpus of damaged recordings of real runs, replayed by the real binary
//! (`conclave replay FILE --headless`): every shipped scenario recorded by
//! `conclave run --record`, each damaged every way files get damaged. No
//! panic, the documented exit code every time, the run's result whenever
//! its finish line is intact, every damaged line named; and files that are
//! no recording at all exit 2.

use crate::common;

use common::damage::{self, Damage, Damaged};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn conclave(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn replay(path: &Path) -> Output {
    conclave(&["replay", path.to_str().unwrap(), "--headless"])
}

/// A run of the shipped scenario, recorded by the binary.
struct Run {
    name: String,
    lines: Vec<Vec<u8>>,
    result: Value,
    code: i32,
}

fn recorded_runs(dir: &Path) -> Vec<Run> {
    damage::scenario_files()
        .iter()
        .map(|file| record(dir, file))
        .collect()
}

/// Run `file` with `--headless --record` into `dir`.
fn record(dir: &Path, file: &Path) -> Run {
    let name = file.file_stem().unwrap().to_string_lossy().into_owned();
    let path = dir.join(format!("{name}.jsonl"));
    let output = conclave(&[
        "run",
        file.to_str().unwrap(),
        "--headless",
        "--record",
        path.to_str().unwrap(),
    ]);
    let code = output.status.code().unwrap();
    assert!(matches!(code, 0 | 3), "{name}: {output:?}");
    let result = serde_json::from_slice(&output.stdout).unwrap();
    let lines = std::fs::read(&path)
        .unwrap()
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    Run {
        name,
        lines,
        result,
        code,
    }
}

/// Numbers from a fixed seed, so that the corpus is the same every time.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn damage(&mut self, kind: usize) -> Damage {
        let at = self.next() as usize;
        match kind {
            0 => Damage::FlipByte {
                at,
                byte: self.next() as u8,
            },
            1 => Damage::InvalidUtf8 {
                at,
                byte: [0x80, 0xc0, 0xfe, 0xff][at % 4],
            },
            2 => Damage::CorruptSeq {
                seq: if at.is_multiple_of(2) {
                    self.next() % 500
                } else {
                    self.next()
                },
            },
            3 => Damage::SwapWithNext,
            4 => Damage::Delete,
            5 => Damage::TruncateMidLine { at },
            _ => Damage::Duplicate,
        }
    }
}

/// Every kind of damage twice on each run (the second time on its last
/// line, the finish), and a few damages at once.
fn corpus(runs: &[Run]) -> Vec<(&Run, Damaged)> {
    let mut rng = SplitMix(12);
    let mut corpus = Vec::new();
    for run in runs {
        for kind in 0..damage::KINDS.len() {
            for on_finish in [false, true] {
                let line = if on_finish {
                    run.lines.len() - if kind == 3 { 2 } else { 1 }
                } else {
                    rng.next() as usize
                };
                let damages = [(line, rng.damage(kind))];
                corpus.push((run, damage::apply(&run.lines, &damages)));
            }
        }
        for _ in 0..2 {
            let damages: Vec<(usize, Damage)> = (0..4)
                .map(|_| {
                    let kind = rng.next() as usize % damage::KINDS.len();
                    (rng.next() as usize, rng.damage(kind))
                })
                .collect();
            corpus.push((run, damage::apply(&run.lines, &damages)));
        }
    }
    corpus
}

fn no_panic(output: &Output, what: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "{what}: {stderr}"
    );
    assert!(
        output.status.code().is_some(),
        "{what}: ended by a signal: {output:?}"
    );
    assert!(
        !stderr
            .chars()
            .any(|c| c != '\n' && conclave::sanitize::needs_cleaning(c)),
        "{what}: stderr is clean: {stderr:?}"
    );
}

#[test]
fn damaged_recordings_of_real_runs_replay_with_what_they_keep() {
    let dir = tempfile::tempdir().unwrap();
    let runs = recorded_runs(dir.path());
    for run in &runs {
        let path = dir.path().join(format!("{}.jsonl", run.name));
        let output = replay(&path);
        assert_eq!(output.status.code(), Some(run.code), "{}", run.name);
        let replayed: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(replayed, run.result, "{}", run.name);
    }
    let corpus = corpus(&runs);
    assert!(corpus.len() >= 200, "{} damaged recordings", corpus.len());
    let mut kinds_seen = std::collections::BTreeMap::new();
    for (i, (run, damaged)) in corpus.iter().enumerate() {
        let path = dir.path().join(format!("damaged-{i}.jsonl"));
        std::fs::write(&path, &damaged.bytes).unwrap();
        let what = format!("{} with {:?}", run.name, damaged.applied);
        let output = replay(&path);
        no_panic(&output, &what);
        let code = output.status.code().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        for line in &damaged.must_report {
            let named = format!("{}:{line}: ", path.display());
            assert!(stderr.contains(&named), "{what}: {named} in\n{stderr}");
        }
        if damaged.finish_intact {
            assert_eq!(code, run.code, "{what}: {stderr}");
            let result: Value = serde_json::from_slice(&output.stdout)
                .unwrap_or_else(|e| panic!("{what}: stdout is the result ({e}): {stderr}"));
            assert_eq!(result, run.result, "{what}");
        } else if damaged.intact.is_empty() {
            assert!(matches!(code, 2 | 3), "{what}: {code}: {stderr}");
        } else {
            // The finish is damaged: kept as written, or the run reads as
            // cut short (3, nothing on stdout).
            match code {
                3 if output.stdout.is_empty() => {
                    assert!(stderr.contains("no finish event"), "{what}: {stderr}")
                }
                0 | 3 => {
                    serde_json::from_slice::<Value>(&output.stdout)
                        .unwrap_or_else(|e| panic!("{what}: stdout is a result ({e})"));
                }
                other => panic!("{what}: exit {other}: {stderr}"),
            }
        }
        for (_, damage) in &damaged.applied {
            *kinds_seen.entry(damage.kind()).or_insert(0) += 1;
        }
    }
    for kind in damage::KINDS {
        assert!(
            kinds_seen.get(kind).copied().unwrap_or(0) >= 20,
            "{kind}: {kinds_seen:?}"
        );
    }
}

#[test]
fn files_that_are_not_recordings_exit_2_and_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, bytes: &[u8]| -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let mut rng = SplitMix(7);
    let noise: Vec<u8> = (0..4096).map(|_| rng.next() as u8).collect();
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/checkout_v2_launch.json");
    let cases = [
        file("empty.jsonl", b""),
        file("blank.jsonl", b"\n \n\t\r\n"),
        file(
            "page.html",
            b"<!doctype html>\n<html><body>hi</body></html>\n",
        ),
        file("table.csv", b"name,score\nada,3\n"),
        file("numbers.jsonl", b"[1, 2]\n{\"seq\": 1}\n\"text\"\n"),
        file("noise.bin", &noise),
        file("nul.jsonl", &[0u8; 100]),
        file("bom.jsonl", "\u{feff}{\"run\":1}\n".as_bytes()),
        scenario,
        dir.path().to_path_buf(),
        dir.path().join("missing.jsonl"),
    ];
    for path in &cases {
        let output = replay(path);
        let what = path.display().to_string();
        no_panic(&output, &what);
        assert_eq!(output.status.code(), Some(2), "{what}: {output:?}");
        assert!(output.stdout.is_empty(), "{what}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(&what), "{what}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{what}: {stderr}");
    }
}
