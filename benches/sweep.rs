//! A sweep on all cores against its runs one by one: the sum of the
//! single runs' CPU time (in this process, and as `conclave run`
//! commands), the sweep's wall time (in this process and as the
//! `conclave sweep --headless` command), and the ratio of the command's
//! wall time to that CPU time spread over the cores (1.0 is a perfect
//! split; under 1.2 is the aim). In this process the single runs pay no
//! process start, which the command pays once (about 10 ms).
//!
//! `cargo bench --bench sweep`; SWEEP_SEEDS=N changes the seeds per
//! combination (200 by default).

use conclave::sweep::{SweepPlan, default_parallelism, run_job, run_local};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

// The same allocator as the command's, so that both sides pay the same.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const SCENARIO: &str = "scenarios/checkout_v2_launch.json";

/// CPU time (user and system) this thread has used.
fn thread_cpu() -> Duration {
    cpu(libc::RUSAGE_THREAD)
}

/// CPU time (user and system) of `who`: this thread, or the children
/// waited for.
fn cpu(who: libc::c_int) -> Duration {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(who, &mut usage);
        usage
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

fn main() {
    let seeds: u64 = std::env::var("SWEEP_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenario = Arc::new(conclave::scenario::load(&root.join(SCENARIO)).expect("the scenario"));
    let plan = SweepPlan::new(1..=seeds, vec![("legal_analyst".into(), vec![true, false])])
        .expect("the plan");
    let cores = default_parallelism();

    // Warm the allocator and the caches, as both sides then find them.
    for job in plan.jobs().take(20) {
        run_job(&scenario, None, &job, Vec::new()).expect("a run");
    }

    let mut single_cpu = Duration::ZERO;
    let single_wall = Instant::now();
    for job in plan.jobs() {
        let before = thread_cpu();
        run_job(&scenario, None, &job, Vec::new()).expect("a run");
        single_cpu += thread_cpu() - before;
    }
    let single_wall = single_wall.elapsed();

    let in_process = Instant::now();
    let mut results = 0;
    run_local(&scenario, None, plan.jobs(), cores, |_| results += 1).expect("the sweep");
    let in_process = in_process.elapsed();
    assert_eq!(results, plan.total());

    let seeds_arg = format!("1..{seeds}");
    let children_before = cpu(libc::RUSAGE_CHILDREN);
    let command = Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_conclave"))
        .args([
            "sweep",
            SCENARIO,
            "--seeds",
            &seeds_arg,
            "--flag",
            "legal_analyst=on,off",
            "--headless",
        ])
        .current_dir(root)
        .output()
        .expect("the command runs");
    let command = command.elapsed();
    let command_cpu = cpu(libc::RUSAGE_CHILDREN) - children_before;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The same runs as a user runs them one by one: a `conclave run` each.
    let children_before = cpu(libc::RUSAGE_CHILDREN);
    let commands_wall = Instant::now();
    for job in plan.jobs() {
        let seed = job.seed.to_string();
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_conclave"));
        command.args(["run", SCENARIO, "--headless", "--seed", &seed]);
        for (flag, on) in &job.flags {
            command.args([
                "--flag",
                &format!("{flag}={}", if *on { "on" } else { "off" }),
            ]);
        }
        let out = command.current_dir(root).output().expect("a run runs");
        assert!(
            matches!(out.status.code(), Some(0 | 3)),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let commands_wall = commands_wall.elapsed();
    let commands_cpu = cpu(libc::RUSAGE_CHILDREN) - children_before;

    let ideal = single_cpu.as_secs_f64() / cores as f64;
    println!(
        "sweep of {} runs ({SCENARIO}, seeds 1..{seeds}, legal_analyst on/off), {cores} cores",
        plan.total()
    );
    println!(
        "  single runs one by one: CPU {:.3} s (wall {:.3} s), {:.2} ms a run",
        single_cpu.as_secs_f64(),
        single_wall.as_secs_f64(),
        single_cpu.as_secs_f64() * 1000.0 / plan.total() as f64
    );
    println!("  CPU / cores:            {ideal:.3} s");
    println!(
        "  sweep in process:       {:.3} s  (ratio {:.2})",
        in_process.as_secs_f64(),
        in_process.as_secs_f64() / ideal
    );
    println!(
        "  sweep command:          {:.3} s  (ratio {:.2}; aim < 1.20), CPU {:.3} s",
        command.as_secs_f64(),
        command.as_secs_f64() / ideal,
        command_cpu.as_secs_f64()
    );
    let commands_ideal = commands_cpu.as_secs_f64() / cores as f64;
    println!(
        "  as `conclave run` commands one by one: CPU {:.3} s (wall {:.3} s); CPU / cores {commands_ideal:.3} s; sweep command's ratio to it {:.2}",
        commands_cpu.as_secs_f64(),
        commands_wall.as_secs_f64(),
        command.as_secs_f64() / commands_ideal
    );
    // Other work on the machine stretches every wall time: the single runs'
    // wall time against their CPU time says by how much.
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "  load average: {}; single runs' wall / CPU {:.2}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
        single_wall.as_secs_f64() / single_cpu.as_secs_f64()
    );
}
