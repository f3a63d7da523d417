//! Shared helpers for the engine scenario tests: run a setup headless, as
//! `podflow trace` does, and look at what it recorded.

#![allow(dead_code)]

use podflow_engine::trace::Outcome;
use podflow_engine::trace::{Actor, StageName};
use std::sync::atomic::{AtomicUsize, Ordering};

use podflow_engine::engine::{Engine, Until};
use podflow_engine::setup::{SetupArgs, build_setup};
use podflow_engine::trace::{Record, TraceRecord};

/// The repository's root, where `assets/` and `tests/fixtures/` are.
pub const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The path of a fixture file.
pub fn fixture(name: &str) -> String {
    format!("{REPO}/tests/fixtures/{name}")
}

/// Runs kubectl's `steps` (cluster-language commands) on `cluster` (a fixture, or
/// the default cluster) until idle; returns every record, the final one last.
pub fn run(
    cluster: Option<&str>,
    steps: &[&str],
    configure: impl FnOnce(&mut SetupArgs),
) -> Vec<TraceRecord> {
    let mut args = SetupArgs {
        cluster: cluster.map(fixture),
        steps: steps.iter().map(|s| (*s).to_owned()).collect(),
        seed: 1,
        ..SetupArgs::default()
    };
    configure(&mut args);
    let mut engine = Engine::new(build_setup(&args).expect("the setup builds"));
    let mut records = engine.run_until(Until::Idle);
    records.push(engine.final_record());
    records
}

/// `apply -f FIXTURE`.
pub fn apply(name: &str) -> String {
    format!("apply -f {}", fixture(name))
}

/// The `response` records sent to kubectl: (code, message).
pub fn kubectl_answers(records: &[TraceRecord]) -> Vec<(u16, String)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Response {
                to, code, message, ..
            } if *to == Actor::Kubectl => Some((*code, message.clone())),
            _ => None,
        })
        .collect()
}

/// What kubectl printed, line by line.
pub fn kubectl_output(records: &[TraceRecord]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Log {
                component, line, ..
            } if *component == Actor::Kubectl => Some(line.clone()),
            _ => None,
        })
        .collect()
}

/// The etcd `persist` stages that changed the store, in order: (revision,
/// key, object written or `None` for a delete).
pub fn writes(records: &[TraceRecord]) -> Vec<(u64, String, Option<serde_json::Value>)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Stage(s) if s.component == Actor::Etcd && s.stage == StageName::Persist => {
                let key = s.extra().key.clone()?;
                let revision = s.extra().revision?;
                match s.outcome {
                    Outcome::Ok => Some((revision, key, s.extra().object.clone())),
                    Outcome::Delete => Some((revision, key, None)),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect()
}

/// What a rollout of the Pods and `ReplicaSets` under `prefix` (`default/web-`)
/// reached over every write of the trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RolloutBounds {
    /// The most the `ReplicaSets` `spec.replicas` asked for together.
    pub max_asked: i64,
    /// The most Pods at once that were not being deleted.
    pub max_live: usize,
    /// The fewest Ready Pods once `replicas` had been Ready (`None`: never were).
    pub min_ready: Option<usize>,
}

/// [`RolloutBounds`] of the trace for a Deployment of `replicas`.
pub fn rollout_bounds(records: &[TraceRecord], prefix: &str, replicas: usize) -> RolloutBounds {
    let is_ready = |pod: &serde_json::Value| {
        pod["metadata"]["deletionTimestamp"].is_null()
            && pod["status"]["conditions"].as_array().is_some_and(|c| {
                c.iter()
                    .any(|c| c["type"] == "Ready" && c["status"] == "True")
            })
    };
    let (sets, pods) = (
        format!("/registry/replicasets/{prefix}"),
        format!("/registry/pods/{prefix}"),
    );
    let mut store = std::collections::BTreeMap::new();
    let mut bounds = RolloutBounds {
        max_asked: 0,
        max_live: 0,
        min_ready: None,
    };
    for (_, key, object) in writes(records) {
        match object {
            Some(object) => store.insert(key, object),
            None => store.remove(&key),
        };
        let asked: i64 = store
            .iter()
            .filter(|(k, _)| k.starts_with(&sets))
            .map(|(_, rs)| rs["spec"]["replicas"].as_i64().unwrap_or(0))
            .sum();
        let pods: Vec<_> = store
            .iter()
            .filter(|(k, _)| k.starts_with(&pods))
            .map(|(_, p)| p)
            .collect();
        let live = pods
            .iter()
            .filter(|p| p["metadata"]["deletionTimestamp"].is_null())
            .count();
        let ready = pods.iter().filter(|p| is_ready(p)).count();
        bounds.max_asked = bounds.max_asked.max(asked);
        bounds.max_live = bounds.max_live.max(live);
        if bounds.min_ready.is_some() || ready >= replicas {
            bounds.min_ready = Some(bounds.min_ready.map_or(ready, |m| m.min(ready)));
        }
    }
    bounds
}

/// The objects of the `final` record.
pub fn final_objects(records: &[TraceRecord]) -> Vec<serde_json::Value> {
    match records.last().map(|r| &r.body) {
        Some(Record::Final { objects }) => objects.iter().map(|o| o.to_json()).collect(),
        _ => panic!("the last record is not `final`"),
    }
}

/// The final objects of `kind`.
pub fn of_kind(records: &[TraceRecord], kind: &str) -> Vec<serde_json::Value> {
    final_objects(records)
        .into_iter()
        .filter(|o| o["kind"] == kind)
        .collect()
}

/// The final object of `kind` named `name`.
pub fn final_object(records: &[TraceRecord], kind: &str, name: &str) -> serde_json::Value {
    final_objects(records)
        .into_iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name} in the final store"))
}

/// Every record as a line of text, as `--format text` prints it.
pub fn text(records: &[TraceRecord]) -> String {
    let mut out = Vec::new();
    podflow_engine::export::text::write(&mut out, records).expect("writing to memory");
    String::from_utf8(out).expect("the text trace is UTF-8")
}

/// Every record as JSON lines, as `--format jsonl` prints it.
pub fn jsonl(records: &[TraceRecord]) -> String {
    let mut out = Vec::new();
    podflow_engine::export::jsonl::write(&mut out, records).expect("writing to memory");
    String::from_utf8(out).expect("jsonl is UTF-8")
}

/// The kubelet's events about Pod `pod`: (`t_ms`, type, reason, message).
pub fn kubelet_events(records: &[TraceRecord], pod: &str) -> Vec<(u64, String, String, String)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Event(e) if e.source == "kubelet" && e.object.name == pod => Some((
                r.t_ms,
                e.event_type.clone(),
                e.reason.clone(),
                e.message.clone(),
            )),
            _ => None,
        })
        .collect()
}

/// A file under the temporary directory, unique to this process and call,
/// removed when dropped.
pub struct TempFile(std::path::PathBuf);

impl TempFile {
    pub fn new(stem: &str, text: &str) -> TempFile {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "podflow-test-{}-{n}-{stem}.yaml",
            std::process::id()
        ));
        std::fs::write(&path, text).expect("the temporary directory is writable");
        TempFile(path)
    }

    pub fn path(&self) -> String {
        self.0.to_string_lossy().into_owned()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
