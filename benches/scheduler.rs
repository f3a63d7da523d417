//! Scheduler throughput: 10,000 pending pods onto 1,000 nodes in 10 zones with
//! the default profile, one scheduling cycle per pod as `ScheduleOne` runs
//! them (each bound pod assumed on its node while its binding is in flight).
//! Prints pods per second; `cargo bench --bench scheduler`.
//!
//! `PODFLOW_BENCH_PODS` and `PODFLOW_BENCH_ROUNDS` make a smaller run, for a
//! profile under callgrind (`PODFLOW_BENCH_PODS=2000 PODFLOW_BENCH_ROUNDS=1`);
//! `PODFLOW_BENCH_NODES` another cluster size (`5000`: Kubernetes' largest).

mod allocator;

use std::sync::Arc;
use std::time::Instant;

use podflow_engine::component::{ComponentId, Cx, RequestId};
use podflow_engine::rng::Rng;
use podflow_engine::scheduler::Scheduler;
use podflow_model::Object;
use serde_json::json;

const NODES: usize = 1_000;
const ZONES: usize = 10;

/// `NAME` from the environment, else `default`.
fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn cluster(nodes: usize, pods: usize) -> Vec<Arc<Object>> {
    let mut objects = Vec::with_capacity(nodes + pods);
    for n in 0..nodes {
        let node = json!({
            "metadata": {"name": format!("node-{n:04}"), "labels": {
                "kubernetes.io/hostname": format!("node-{n:04}"),
                "topology.kubernetes.io/zone": format!("zone-{}", n % ZONES),
            }},
            "status": {
                "capacity": {"cpu": "32", "memory": "128Gi", "pods": "110"},
                "allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"},
            },
        });
        objects.push(Arc::new(Object::Node(
            serde_json::from_value(node).expect("node"),
        )));
    }
    for p in 0..pods {
        let pod = json!({
            "metadata": {"name": format!("web-{p:05}"), "namespace": "default",
                         "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.27",
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]},
        });
        objects.push(Arc::new(Object::Pod(
            serde_json::from_value(pod).expect("pod"),
        )));
    }
    objects
}

fn main() {
    podflow::memory::no_huge_pages();
    let pods = env_or("PODFLOW_BENCH_PODS", 10_000);
    let rounds = env_or("PODFLOW_BENCH_ROUNDS", 3).max(1);
    let nodes = env_or("PODFLOW_BENCH_NODES", NODES);
    let objects = cluster(nodes, pods);
    let mut best = f64::MAX;
    for _ in 0..rounds {
        let mut scheduler = Scheduler::with_default_profile().summarised();
        scheduler.initial_list(&objects);
        let (mut rng, me) = (Rng::new(1), ComponentId::Scheduler);
        let (mut records, mut outgoing, mut next) = (Vec::new(), Vec::new(), RequestId::MIN);
        let started = Instant::now();
        let mut cycles = 0;
        loop {
            let mut cx = Cx::new(
                podflow_engine::clock::SimTime::ZERO,
                &mut rng,
                &me,
                &mut records,
                &mut outgoing,
                &mut next,
            );
            if !scheduler.schedule_next(&mut cx) {
                break;
            }
            cycles += 1;
            records.clear();
            outgoing.clear();
        }
        let seconds = started.elapsed().as_secs_f64();
        assert_eq!(cycles, pods, "every pod gets one cycle");
        best = best.min(seconds);
    }
    #[allow(clippy::cast_precision_loss)]
    let rate = pods as f64 / best;
    println!(
        "scheduler: {pods} pods onto {nodes} nodes (default profile) in {best:.3} s = {rate:.0} pods/s (best of {rounds})"
    );
}
