//! docs/architecture.md, rule 1: the same inputs and seed give a byte-identical trace.

use crate::common::{jsonl, run};

fn trace(seed: u64) -> String {
    let manifest = format!("{}/assets/manifests/nginx-pod.yaml", crate::common::REPO);
    jsonl(&run(
        None,
        &[&format!("apply -f {manifest}"), "get pods"],
        |a| a.seed = seed,
    ))
}

#[test]
fn same_seed_same_bytes() {
    assert_eq!(trace(7), trace(7));
}

#[test]
fn another_seed_changes_what_is_random() {
    assert_ne!(trace(7), trace(8), "UIDs and IPs come from the seed");
}

#[test]
fn jsonl_records_are_numbered_and_time_never_goes_back() {
    let text = trace(1);
    let mut last_t = 0;
    for (i, line) in text.lines().enumerate() {
        let record: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
        assert_eq!(record["seq"], i as u64);
        let t = record["t_ms"].as_u64().expect("t_ms");
        assert!(t >= last_t, "time went back at seq {i}");
        last_t = t;
        assert!(record["kind"].is_string());
    }
    assert!(
        text.lines()
            .last()
            .is_some_and(|l| l.contains(r#""kind":"final""#))
    );
}
