//! Shared helpers for the engine scenario tests: run a setup headless, as
//! `podflow trace` does, and look at what it recorded.

#![allow(dead_code)]

use podflow::cli::{SetupArgs, build_setup};
use podflow::engine::engine::{Engine, Until};
use podflow::engine::trace::{Record, TraceRecord};

/// The path of a fixture file.
pub fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
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
            Record::Response { to, code, message } if to == "kubectl" => {
                Some((*code, message.clone()))
            }
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
            } if component == "kubectl" => Some(line.clone()),
            _ => None,
        })
        .collect()
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
    podflow::export::text::write(&mut out, records).expect("writing to memory");
    String::from_utf8(out).expect("the text trace is UTF-8")
}

/// Every record as JSON lines, as `--format jsonl` prints it.
pub fn jsonl(records: &[TraceRecord]) -> String {
    let mut out = Vec::new();
    podflow::export::jsonl::write(&mut out, records).expect("writing to memory");
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
