//! What the observation keeps for a large cluster: 5,000 Running Pods
//! (each as `podflow serve` writes nginx's, with four managedFields
//! entries), listed, then each modified twice. Measured as the growth of
//! the process's resident set (`/proc/self/statm`, Linux), once with every
//! Pod kept whole and once past a cap of 1,000 (the rest as summaries).
//! The figures are printed (`--nocapture`) and bounded loosely here;
//! docs/attach.md states them (debug build).

use serde_json::{Value, json};

use podflow_attach::observer::Observer;
use podflow_attach::{Input, Watched};

const PODS: usize = 5_000;
const RECORDING: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/observed-nginx.jsonl"
);

/// The nginx Pod of the recording's final record, with managed fields.
fn template() -> Value {
    let text = std::fs::read_to_string(RECORDING).expect("the recording");
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let mut pod = last["objects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "Pod")
        .cloned()
        .expect("a Pod");
    let entry = |manager: &str, sub: &str| {
        json!({"manager": manager, "operation": "Update", "subresource": sub,
               "time": "2026-12-05T10:00:00Z", "fieldsType": "FieldsV1",
               "fieldsV1": {"f:status": {"f:conditions": {}, "f:phase": {}, "f:podIP": {}}}})
    };
    pod["metadata"]["managedFields"] = json!([
        entry("kubectl-client-side-apply", ""),
        entry("kube-controller-manager", ""),
        entry("kube-scheduler", "status"),
        entry("kubelet", "status"),
    ]);
    pod
}

fn resident_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4
}

fn observe(cap: usize, template: &Value) -> (Observer, u64) {
    let before = resident_kib();
    let mut observer = Observer::with_cap(cap);
    let mut records = 0usize;
    let pod = |i: usize, rv: usize| {
        let mut pod = template.clone();
        pod["metadata"]["name"] = json!(format!("web-{i}"));
        pod["metadata"]["uid"] = json!(format!("uid-{i}"));
        pod["metadata"]["resourceVersion"] = json!(rv.to_string());
        pod["status"]["podIP"] = json!(format!("10.244.{}.{}", i / 250, i % 250));
        pod
    };
    records += observer.observe(0, Input::ListStart(Watched::Pods)).len();
    for i in 0..PODS {
        records += observer
            .observe(0, Input::Listed(Watched::Pods, pod(i, i + 1)))
            .len();
    }
    records += observer.observe(0, Input::ListDone(Watched::Pods)).len();
    for round in 1..=2 {
        for i in 0..PODS {
            let mut changed = pod(i, round * PODS + i + 1);
            changed["status"]["phase"] = json!(if round == 1 { "Running" } else { "Succeeded" });
            records += observer
                .observe(1, Input::Applied(Watched::Pods, changed))
                .len();
        }
    }
    // ADDED (each after its writer's message), then MODIFIED twice.
    assert_eq!(records, PODS * 4);
    let grown = resident_kib().saturating_sub(before);
    (observer, grown)
}

/// Each figure is right only in a process of its own (run the two tests
/// one at a time, `cargo test -p podflow-attach --test memory whole --
/// --nocapture`): freed memory is not given back, so a second run in the
/// same process grows little.
#[test]
fn five_thousand_pods_kept_whole() {
    let (observer, kib) = observe(usize::MAX, &template());
    assert_eq!(observer.census(), (PODS, PODS));
    println!(
        "5,000 Pods kept whole: {kib} KiB ({} bytes a Pod)",
        kib * 1024 / PODS as u64
    );
    // One version each, never the history.
    assert!(kib < 200 * 1024, "{kib} KiB");
}

#[test]
fn five_thousand_pods_past_a_cap_of_1000() {
    let (observer, kib) = observe(1_000, &template());
    assert_eq!(observer.census(), (PODS, 1_000));
    println!(
        "5,000 Pods past a cap of 1,000: {kib} KiB ({} bytes a Pod)",
        kib * 1024 / PODS as u64
    );
    assert!(kib < 200 * 1024, "{kib} KiB");
}
