//! etcd store throughput (issue 9), two figures to quote:
//!
//! - writes per second: 100,000 Pod creates and updates into `Store`;
//! - watch fan-out: 1,000 watchers (kubelets' `spec.nodeName=` Pod watches,
//!   namespace-scoped and cluster-wide Pod watches, and other kinds' watches)
//!   and 10,000 Pod writes, each write's change taken from the store as the
//!   API server takes it (`changes_since(rev - 1)`), offered to every
//!   watcher's filter and queued per watcher with the engine's in-order
//!   jitter (`Engine::serve`), then popped as the engine pops them. The
//!   watchers are indexed as the engine indexes them (`engine::watches`):
//!   a Pod's change is offered to the watches of its kind whose trigger
//!   field (`spec.nodeName`) it can match, not to all 1,000.
//!
//! `cargo bench --bench store`; a plain `main` that prints, as `benches/scheduler.rs`.

mod allocator;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{Container, Pod, PodSpec, PodStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use podflow_engine::clock::SimTime;
use podflow_engine::component::ComponentId;
use podflow_engine::queue::EventQueue;
use podflow_engine::rng::Rng;
use podflow_engine::store::{HISTORY_WINDOW, Store, WatchEvent, WatchFilter, key_for};
use podflow_engine::watches::{Subscription, Watches};
use podflow_model::Object;
use podflow_model::kinds::kind_of;

/// Writes for the throughput figure: `PODS` creates, the rest updates.
const WRITES: usize = 100_000;
const PODS: usize = 10_000;
/// Writes for the fan-out figure: each Pod created, bound, Running, deleted.
const FANOUT_PODS: usize = 2_500;
const WATCHERS: usize = 1_000;
/// Kubelets (one `spec.nodeName=` Pod watch each) among the watchers.
const KUBELETS: usize = 800;
const NAMESPACES: usize = 10;
/// The engine's `HOP_MS`: a watch event arrives 1–3 ms after the write.
const HOP_MS: u64 = 1;

fn pod(name: &str, namespace: &str, node: Option<&str>, phase: Option<&str>) -> Object {
    Object::Pod(Pod {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            namespace: Some(namespace.to_owned()),
            labels: Some([("app".to_owned(), "web".to_owned())].into()),
            ..ObjectMeta::default()
        },
        spec: Some(PodSpec {
            node_name: node.map(str::to_owned),
            containers: vec![Container {
                name: "web".into(),
                image: Some("nginx:1.27".into()),
                ..Container::default()
            }],
            ..PodSpec::default()
        }),
        status: Some(PodStatus {
            phase: phase.map(str::to_owned),
            ..PodStatus::default()
        }),
    })
}

fn per_second(count: usize, elapsed: Duration) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let count = count as f64;
    count / elapsed.as_secs_f64()
}

/// `1234567.8` as `1,234,568`.
fn grouped(value: f64) -> String {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let whole = value.round() as u64;
    thousands(whole.try_into().unwrap_or(usize::MAX))
}

/// `1000` as `1,000`.
fn thousands(value: usize) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// 100,000 writes: every Pod created, then updated round-robin (bound,
/// then its phase flipping) until the count is reached. The objects are
/// built before the clock starts: the figure is the store's.
fn writes() -> Duration {
    let kind = kind_of("Pod");
    let names: Vec<(String, String)> = (0..PODS)
        .map(|p| {
            let name = format!("web-{p:05}");
            (key_for(kind, Some("default"), &name), name)
        })
        .collect();
    let objects: Vec<Object> = (0..WRITES)
        .map(|w| {
            let (_, name) = &names[w % PODS];
            let round = w / PODS;
            let node = (round > 0).then(|| format!("node-{:03}", w % 100));
            let phase = ["Pending", "Running"][round % 2];
            pod(name, "default", node.as_deref(), Some(phase))
        })
        .collect();
    let mut store = Store::new();
    let started = Instant::now();
    for (w, object) in objects.into_iter().enumerate() {
        let (key, _) = &names[w % PODS];
        if w < PODS {
            store.create(key, object).expect("create");
        } else {
            let expected = store.get(key).map(|e| e.mod_revision);
            store.update(key, object, expected).expect("update");
        }
    }
    let elapsed = started.elapsed();
    assert_eq!(store.revision(), WRITES as u64);
    elapsed
}

/// The watchers, as `Engine::start_informers` registers them: each kubelet
/// its node's Pods (and Services, `ConfigMaps`, `Secrets` of every
/// namespace), namespace-scoped Pod watches, the scheduler's and the
/// controller manager's cluster-wide Pod watches.
fn watchers() -> Vec<Subscription> {
    let pods = kind_of("Pod");
    let mut subs = Vec::with_capacity(WATCHERS);
    subs.push((ComponentId::Scheduler, WatchFilter::all(pods)));
    subs.push((ComponentId::ControllerManager, WatchFilter::all(pods)));
    for n in 0..KUBELETS {
        let node = format!("node-{n:03}");
        subs.push((
            ComponentId::Kubelet(node.clone()),
            WatchFilter::all(pods).with_field("spec.nodeName", &node),
        ));
    }
    let others = ["Service", "ConfigMap", "Secret"];
    let mut n = 0;
    while subs.len() < WATCHERS {
        let me = ComponentId::Kubelet(format!("node-{:03}", n % KUBELETS));
        let filter = match n % 4 {
            3 => WatchFilter::all(kind_of(others[n % others.len()])),
            _ => WatchFilter {
                namespace: Some(format!("ns-{}", n % NAMESPACES)),
                ..WatchFilter::all(pods)
            },
        };
        subs.push((me, filter));
        n += 1;
    }
    subs.into_iter()
        .map(|(watcher, filter)| Subscription { watcher, filter })
        .collect()
}

/// One fan-out run's figures.
struct FanOut {
    writes: usize,
    delivered: usize,
    elapsed: Duration,
    /// Of `elapsed`, the time spent finding each write's change (`changes_since`).
    lookup: Duration,
}

/// The fan-out run.
fn fan_out(watches: &Watches) -> FanOut {
    let kind = kind_of("Pod");
    let mut objects = Vec::with_capacity(FANOUT_PODS * 3);
    let mut keys = Vec::with_capacity(FANOUT_PODS);
    for p in 0..FANOUT_PODS {
        let (name, ns) = (format!("web-{p:05}"), format!("ns-{}", p % NAMESPACES));
        let node = format!("node-{:03}", p % KUBELETS);
        keys.push(key_for(kind, Some(&ns), &name));
        objects.push([
            pod(&name, &ns, None, Some("Pending")),
            pod(&name, &ns, Some(&node), Some("Pending")),
            pod(&name, &ns, Some(&node), Some("Running")),
        ]);
    }
    let mut store = Store::new();
    let mut rng = Rng::new(1);
    let mut queue: EventQueue<(ComponentId, WatchEvent)> = EventQueue::default();
    let mut last_delivery: BTreeMap<ComponentId, SimTime> = BTreeMap::new();
    let (mut writes, mut delivered, mut lookup) = (0, 0, Duration::ZERO);
    let started = Instant::now();
    for (p, [created, bound, running]) in objects.into_iter().enumerate() {
        let now = SimTime(p as u64 * 10);
        let key = &keys[p];
        let mut changes = Vec::with_capacity(4);
        for write in [Some(created), Some(bound), Some(running), None] {
            match write {
                Some(object) if store.get(key).is_none() => {
                    store.create(key, object).map(|_| ()).expect("create");
                }
                Some(object) => store.update(key, object, None).map(|_| ()).expect("update"),
                None => store.delete(key).map(|_| ()).expect("delete"),
            }
            writes += 1;
            // As the API server collects each write's change (`push_last_change`).
            let looking = Instant::now();
            let rev = store.revision();
            let change = store.changes_since(rev - 1).expect("not compacted").next();
            changes.push(change.expect("the write's change").clone());
            lookup += looking.elapsed();
        }
        for change in &changes {
            for Subscription { watcher, filter } in watches.candidates(change) {
                if let Some(event) = filter.event_for(change) {
                    let jittered = now.plus(HOP_MS + rng.below(3));
                    let last = last_delivery.entry(watcher.clone()).or_default();
                    *last = (*last).max(jittered);
                    queue.push(*last, (watcher.clone(), event), false);
                }
            }
        }
        // The engine pops every event before the next write's moment.
        while let Some((_, (_to, event))) = queue.pop() {
            std::hint::black_box(&event);
            delivered += 1;
        }
    }
    FanOut {
        writes,
        delivered,
        elapsed: started.elapsed(),
        lookup,
    }
}

fn main() {
    podflow::memory::no_huge_pages();
    let best = (0..3).map(|_| writes()).min().expect("three runs");
    println!(
        "store: {} writes/s ({WRITES} Pod writes: {PODS} creates, {} updates, in {:.3} s, best of 3)",
        grouped(per_second(WRITES, best)),
        WRITES - PODS,
        best.as_secs_f64()
    );

    let subs = watchers();
    assert_eq!(subs.len(), WATCHERS);
    let watches = Watches::new(subs);
    let best = (0..3)
        .map(|_| fan_out(&watches))
        .min_by_key(|run| run.elapsed)
        .expect("three runs");
    let FanOut {
        writes,
        delivered,
        elapsed,
        lookup,
    } = best;
    println!(
        "watch fan-out: {} watchers, {} events/s ({writes} Pod writes → {delivered} events \
         in {:.3} s = {} writes/s fanned out, best of 3)",
        thousands(WATCHERS),
        grouped(per_second(delivered, elapsed)),
        elapsed.as_secs_f64(),
        grouped(per_second(writes, elapsed)),
    );
    println!(
        "  of which finding each write's change (changes_since(rev - 1), history of up to \
         {} changes): {:.3} s",
        writes.min(HISTORY_WINDOW),
        lookup.as_secs_f64()
    );
    let without = elapsed.saturating_sub(lookup);
    println!(
        "  fan-out alone: {} events/s",
        grouped(per_second(delivered, without))
    );
}
