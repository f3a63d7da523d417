//! The written lines against `serde_json`'s of the same records: every record
//! of whole runs, and a table of every kind of record, detail and extra.

use std::sync::Arc;

use super::*;
use crate::engine::Until;
use crate::trace::{
    AuthenticationDetail, CrashBackoffDetail, Detail, EventObject, ExitDetail, FitDetail,
    NetworkDetail, Outcome, ProbeDetail, SandboxDetail, Shortfall, StageName, VolumeDetail,
};

fn line(record: &TraceRecord) -> String {
    let mut out = Vec::new();
    write(&mut out, record);
    String::from_utf8(out).unwrap()
}

fn assert_as_serde_writes(records: &[TraceRecord]) {
    for record in records {
        assert_eq!(line(record), serde_json::to_string(record).unwrap());
    }
}

fn at(seq: u64, body: Record) -> TraceRecord {
    TraceRecord {
        seq,
        t_ms: seq * 7,
        body,
    }
}

#[test]
fn every_record_of_the_default_story_reads_as_serde_writes_it() {
    let mut engine = crate::testing::nginx_engine();
    let mut records = engine.run_until(Until::Idle);
    records.push(engine.final_record());
    assert!(records.len() > 100);
    assert_as_serde_writes(&records);
}

#[test]
fn every_record_of_a_crash_loop_and_a_deployment_reads_as_serde_writes_it() {
    let steps = [
        format!("apply -f {}", crate::testing::fixture("crasher-pod.yaml")),
        format!("apply -f {}", crate::testing::fixture("web-service.yaml")),
        "get pods".to_owned(),
    ];
    let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
    let mut engine = crate::testing::engine(&steps, None);
    let records = engine.run_until(Until::Time(crate::clock::SimTime(120_000)));
    assert!(records.len() > 1000);
    assert_as_serde_writes(&records);
}

/// Text with every kind of byte that escapes, on both sides of a word.
const AWKWARD: &str = "say \"hi\"\\ then\ttab\nline\r\u{1}\u{1f}\u{7f} é 日本 🙂 end";

fn node() -> crate::trace::NodeName {
    Arc::from("node-\"1\"")
}

#[test]
fn every_kind_of_record_reads_as_serde_writes_it() {
    let records = [
        Record::message(Actor::Kubectl, Actor::ApiServer, AWKWARD),
        Record::Message {
            from: Actor::Kubelet(node()),
            to: Actor::ApiServer,
            label: "PATCH".into(),
            request: Some(std::num::NonZeroU64::new(42).unwrap()),
        },
        Record::Response {
            to: Actor::Client(Arc::from("kube-rs/5.0.0")),
            code: 409,
            message: AWKWARD.into(),
            request: std::num::NonZeroU64::new(u64::MAX).unwrap(),
        },
        Record::Watch(Box::new(WatchRecord {
            watcher: Actor::KubeProxy(node()),
            event_type: "MODIFIED".into(),
            resource: "pods".into(),
            namespace: Some("default".into()),
            name: AWKWARD.into(),
            resource_version: "12".into(),
            fields: vec!["spec.nodeName".into(), AWKWARD.into()],
        })),
        Record::Watch(Box::new(WatchRecord {
            watcher: Actor::Scheduler,
            event_type: "ADDED".into(),
            resource: "nodes".into(),
            namespace: None,
            name: "n".into(),
            resource_version: "1".into(),
            fields: Vec::new(),
        })),
        Record::Event(Box::new(EventRecord {
            event_type: "Warning".into(),
            reason: "BackOff".into(),
            message: AWKWARD.into(),
            object: EventObject {
                kind: "Pod".into(),
                namespace: Some("default".into()),
                name: "web".into(),
                field_path: Some("spec.containers{nginx}".into()),
            },
            source: "kubelet".into(),
        })),
        Record::Event(Box::new(EventRecord {
            event_type: "Normal".into(),
            reason: "RegisteredNode".into(),
            message: String::new(),
            object: EventObject {
                kind: "Node".into(),
                namespace: None,
                name: "node-1".into(),
                field_path: None,
            },
            source: "node-controller".into(),
        })),
        Record::Log {
            component: Actor::Containerd(node()),
            node: Some("node-1".into()),
            line: AWKWARD.into(),
        },
        Record::Log {
            component: Actor::Etcd,
            node: None,
            line: String::new(),
        },
    ];
    let records: Vec<TraceRecord> = records
        .into_iter()
        .enumerate()
        .map(|(n, body)| at(n as u64, body))
        .collect();
    assert_as_serde_writes(&records);
}

fn details() -> Vec<Detail> {
    vec![
        Detail::from(AWKWARD),
        Detail::from(""),
        AuthenticationDetail {
            user: AWKWARD.into(),
            groups: vec!["system:masters".into(), "a\"b".into()],
            method: "bearer token".into(),
        }
        .into(),
        NetworkDetail {
            ip: "10.244.1.2".into(),
            cidr: "10.244.1.0/24".into(),
        }
        .into(),
        SandboxDetail {
            id: "abcdef0123456".into(),
            ip: "10.244.1.2".into(),
        }
        .into(),
        VolumeDetail {
            name: "data".into(),
            plugin: "kubernetes.io/csi".into(),
            error: Some(AWKWARD.into()),
        }
        .into(),
        ExitDetail {
            container: "app".into(),
            code: 137,
            reason: "OOMKilled".into(),
            tail: vec![AWKWARD.into()],
            memory_bytes: Some(1 << 30),
            limit_bytes: Some(1 << 29),
        }
        .into(),
        CrashBackoffDetail {
            container: "app".into(),
            delay: "2m40s".into(),
            delay_ms: 160_000,
            restart_at_ms: 1,
        }
        .into(),
        ProbeDetail {
            container: "app".into(),
            message: AWKWARD.into(),
            failures: 3,
            failure_threshold: 3,
        }
        .into(),
        FitDetail {
            reasons: vec!["Insufficient cpu".into(), "Insufficient memory".into()],
            shortfalls: vec![Shortfall {
                resource: "cpu".into(),
                requested: 100,
                used: 31_950,
                allocatable: 32_000,
            }],
        }
        .into(),
    ]
}

#[test]
fn every_detail_reads_as_serde_writes_it() {
    let records: Vec<TraceRecord> = details()
        .into_iter()
        .enumerate()
        .map(|(n, detail)| {
            let stage = Stage::new(
                Actor::Kubelet(node()),
                StageName::Container,
                Outcome::Failed,
                detail,
            );
            at(n as u64, Record::from(stage))
        })
        .collect();
    assert_as_serde_writes(&records);
}

/// A stage with each extra set alone, then with all of them.
#[test]
fn every_extra_of_a_stage_reads_as_serde_writes_it() {
    type Set = fn(&mut StageExtra);
    let sets: [Set; 15] = [
        |e| e.pod = Some(AWKWARD.into()),
        |e| e.node = Some("node-1".into()),
        |e| e.code = Some("NotFound".into()),
        |e| e.reason = Some(AWKWARD.into()),
        |e| e.raw = Some(-3),
        |e| e.score = Some(100),
        |e| e.weight = Some(i64::MIN),
        |e| e.key = Some("/registry/pods/default/web".into()),
        |e| e.revision = Some(u64::MAX),
        |e| e.object = Some(serde_json::json!({"b": [1, 2.5, null, true], "a": AWKWARD})),
        |e| e.item = Some("default/web".into()),
        |e| e.size = Some(0),
        |e| e.rules = Some(vec!["-A KUBE-SERVICES".into(), AWKWARD.into()]),
        |e| {
            e.resources = Some(vec![
                crate::trace::ResourcePart {
                    resource: "cpu".into(),
                    requested: 100,
                    allocatable: 32_000,
                    score: Some(99),
                    weight: 1,
                },
                crate::trace::ResourcePart {
                    resource: "memory".into(),
                    requested: -1,
                    allocatable: 0,
                    score: None,
                    weight: 2,
                },
            ]);
        },
        |e| {
            e.nodes_to_score = Some(NodesToScore {
                feasible: 420,
                nodes: 1000,
                percentage: 42,
                adaptive: true,
            });
        },
    ];
    let stage = || {
        Stage::new(
            Actor::Scheduler,
            StageName::Score,
            Outcome::Ok,
            "scored".to_owned(),
        )
        .plugin("NodeResourcesFit")
    };
    let mut records = Vec::new();
    let mut all = stage();
    for (n, set) in sets.iter().enumerate() {
        let mut one = stage();
        set(one.extra_mut());
        set(all.extra_mut());
        records.push(at(n as u64, Record::from(one)));
    }
    records.push(at(99, Record::from(all)));
    let mut phased = stage();
    phased.phase = Some("mutating".into());
    records.push(at(100, Record::from(phased)));
    // An extras box with nothing in it writes as none.
    let mut empty = stage();
    empty.extra_mut();
    records.push(at(101, Record::from(empty)));
    assert_as_serde_writes(&records);
}
