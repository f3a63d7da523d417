//! End to end (issue 9): a Deployment run from `kubectl apply` until every
//! Pod is Running, headless, as `podflow trace --detail summary --format
//! jsonl` runs it (records handed on step by step, not kept). Prints the
//! simulated Pods brought to Running per second of wall time, the records
//! made and the process's peak memory.
//!
//! `cargo bench --bench end_to_end` runs 2,000 replicas on 200 nodes;
//! `PODFLOW_BENCH_REPLICAS=10000` runs 10,000 on 1,000 (one node per ten replicas).

mod allocator;

mod common;

use std::time::Instant;

use podflow_engine::engine::Until;

const ZONES: usize = 10;

/// The process's peak resident memory in MiB (`VmHWM`), where Linux tells it.
fn peak_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

fn main() {
    podflow::memory::no_huge_pages();
    let replicas = common::env_or("PODFLOW_BENCH_REPLICAS", 2_000);
    let nodes = replicas.div_ceil(10);
    let mut engine = common::deployment_engine(nodes, ZONES, replicas);
    let started = Instant::now();
    let mut records = 0;
    engine
        .run_until_with(Until::Idle, |step| {
            records += step.len();
            Ok::<(), std::convert::Infallible>(())
        })
        .unwrap_or_else(|never| match never {});
    let seconds = started.elapsed().as_secs_f64();
    let running = engine
        .store()
        .iter()
        .filter_map(|(_, e)| e.object.as_pod())
        .filter(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"))
        .count();
    assert_eq!(running, replicas, "every Pod ends Running");
    #[allow(clippy::cast_precision_loss)]
    let rate = replicas as f64 / seconds;
    println!(
        "end to end: {replicas} Pods on {nodes} nodes to Running in {seconds:.2} s \
         = {rate:.0} pods/s ({records} records; peak memory {} MiB)",
        peak_mib().map_or_else(|| "?".to_owned(), |m| m.to_string())
    );
    // Freed by the process's exit, as `podflow trace` leaves it.
    std::mem::forget(engine);
}
