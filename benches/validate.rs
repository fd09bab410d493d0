//! Validating large scenarios: the shipped checkout launch with a `context`
//! of about 50 MB (a list of small objects, then one of short strings),
//! loaded from a file as `conclave validate` does, and one scenario whose
//! errors sit at the far end of a large file (the places of errors are
//! found by one pass over the text).

use conclave::scenario;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Duration;

#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const TARGET_BYTES: usize = 50 << 20;

fn checkout() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/checkout_v2_launch.json"
    );
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Write `document` with `context.rows` a list of `item(i)` long enough
/// to make the file about [`TARGET_BYTES`].
fn write_large(path: &Path, mut document: Value, item: impl Fn(usize) -> String) {
    document["context"] = json!({"report_date": "2026-03-02", "region": "US", "rows": "@rows@"});
    let text = serde_json::to_string_pretty(&document).unwrap();
    let (head, tail) = text.split_once("\"@rows@\"").unwrap();
    let mut out = BufWriter::new(std::fs::File::create(path).unwrap());
    out.write_all(head.as_bytes()).unwrap();
    out.write_all(b"[").unwrap();
    let mut written = head.len() + tail.len();
    let mut i = 0;
    while written < TARGET_BYTES {
        let item = item(i);
        if i > 0 {
            out.write_all(b",").unwrap();
        }
        out.write_all(item.as_bytes()).unwrap();
        written += item.len() + 1;
        i += 1;
    }
    out.write_all(b"]").unwrap();
    out.write_all(tail.as_bytes()).unwrap();
}

fn validate(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let objects = dir.path().join("objects.json");
    write_large(&objects, checkout(), |i| {
        format!("{{\"i\":{},\"v\":{}}}", i % 1000, i % 7)
    });
    let strings = dir.path().join("strings.json");
    write_large(&strings, checkout(), |i| format!("\"s{}\"", i % 100));
    let mut broken = checkout();
    broken["team"]["sequence"] = json!(["demand_analyst", "nobody", "risk_analyst"]);
    broken["zz_unknown"] = json!(true);
    let errors_at_the_end = dir.path().join("errors.json");
    write_large(&errors_at_the_end, broken, |i| format!("{}", i % 10));

    let mut group = c.benchmark_group("validate");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for (name, path, valid) in [
        ("50MB_context_of_small_objects", &objects, true),
        ("50MB_context_of_short_strings", &strings, true),
        (
            "50MB_with_errors_after_the_context",
            &errors_at_the_end,
            false,
        ),
    ] {
        let size = std::fs::metadata(path).unwrap().len();
        group.throughput(Throughput::Bytes(size));
        group.bench_function(name, |b| {
            b.iter(|| assert_eq!(scenario::load(path).is_ok(), valid));
        });
    }
    group.finish();
}

criterion_group!(benches, validate);
criterion_main!(benches);
