//! The observer on hand-made watcher events: a Pod's life (ADDED, the
//! scheduler's and kubelet's writes told by their managed fields), Events
//! as occurrences, a relist that finds a deletion, and the memory cap.

use serde_json::{Value, json};

use crate::observer::{Input, Observer};
use crate::watched::Watched;
use podflow_engine::trace::{Record, TraceRecord};

fn pod(rv: &str, node: Option<&str>, phase: &str, managers: &[(&str, &str, &str)]) -> Value {
    let managed: Vec<Value> = managers
        .iter()
        .map(|(m, sub, t)| json!({"manager": m, "operation": "Update", "subresource": sub, "time": t, "fieldsType": "FieldsV1", "fieldsV1": {}}))
        .collect();
    let mut pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "nginx", "namespace": "default", "resourceVersion": rv, "uid": "u1", "managedFields": managed},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]},
        "status": {"phase": phase}});
    if let Some(node) = node {
        pod["spec"]["nodeName"] = json!(node);
    }
    pod
}

fn lines(records: &[TraceRecord]) -> Vec<String> {
    records
        .iter()
        .map(|r| {
            let mut v: Value = serde_json::from_str(&r.to_json_line()).unwrap();
            let o = v.as_object_mut().unwrap();
            o.remove("seq");
            o.remove("t_ms");
            serde_json::to_string(&v).unwrap()
        })
        .collect()
}

#[test]
fn a_pods_life_is_told_with_its_writers_and_fields() {
    let mut observer = Observer::new();
    let created = [("kubectl-client-side-apply", "", "2026-12-05T10:00:00Z")];
    let scheduled = [
        created[0],
        ("kube-scheduler", "status", "2026-12-05T10:00:01Z"),
    ];
    let running = [
        scheduled[0],
        scheduled[1],
        ("kubelet", "status", "2026-12-05T10:00:04Z"),
    ];
    let mut out = observer.observe(0, Input::ListStart(Watched::Pods));
    out.extend(observer.observe(1, Input::ListDone(Watched::Pods)));
    out.extend(observer.observe(
        2,
        Input::Applied(Watched::Pods, pod("10", None, "Pending", &created)),
    ));
    out.extend(observer.observe(
        3,
        Input::Applied(
            Watched::Pods,
            pod("11", Some("node-1"), "Pending", &scheduled),
        ),
    ));
    out.extend(observer.observe(
        4,
        Input::Applied(
            Watched::Pods,
            pod("12", Some("node-1"), "Running", &running),
        ),
    ));
    // The same version again (a relist would send it): nothing new.
    out.extend(observer.observe(
        5,
        Input::Applied(
            Watched::Pods,
            pod("12", Some("node-1"), "Running", &running),
        ),
    ));
    out.extend(observer.observe(
        6,
        Input::Deleted(
            Watched::Pods,
            pod("13", Some("node-1"), "Running", &running),
        ),
    ));
    assert_eq!(
        lines(&out),
        [
            r#"{"from":"kubectl","kind":"message","label":"Update pods/default/nginx","to":"kube-apiserver"}"#,
            r#"{"kind":"watch","name":"nginx","namespace":"default","resource":"pods","resourceVersion":"10","type":"ADDED","watcher":"podflow-attach"}"#,
            r#"{"from":"kube-scheduler","kind":"message","label":"Update pods/default/nginx/status","to":"kube-apiserver"}"#,
            r#"{"fields":["spec.nodeName"],"kind":"watch","name":"nginx","namespace":"default","resource":"pods","resourceVersion":"11","type":"MODIFIED","watcher":"podflow-attach"}"#,
            r#"{"from":"kubelet/node-1","kind":"message","label":"Update pods/default/nginx/status","to":"kube-apiserver"}"#,
            r#"{"fields":["status.phase"],"kind":"watch","name":"nginx","namespace":"default","resource":"pods","resourceVersion":"12","type":"MODIFIED","watcher":"podflow-attach"}"#,
            r#"{"kind":"watch","name":"nginx","namespace":"default","resource":"pods","resourceVersion":"13","type":"DELETED","watcher":"podflow-attach"}"#,
        ]
    );
    let seqs: Vec<u64> = out.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, (0..7).collect::<Vec<_>>());
}

fn event(uid: &str, reason: &str, note: &str, count: Option<i64>) -> Value {
    let mut e = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": format!("nginx.{uid}"), "namespace": "default", "uid": uid},
        "reason": reason, "note": note, "type": "Normal",
        "reportingController": "kubelet", "reportingInstance": "node-1",
        "regarding": {"kind": "Pod", "namespace": "default", "name": "nginx", "fieldPath": "spec.containers{nginx}"}});
    if let Some(count) = count {
        e["series"] = json!({"count": count, "lastObservedTime": "2026-12-05T10:00:00.000000Z"});
    }
    e
}

#[test]
fn events_are_occurrences_from_their_reporters() {
    let mut observer = Observer::new();
    let mut out = observer.observe(
        0,
        Input::Applied(
            Watched::Events,
            event("e1", "Pulling", "Pulling image \"nginx:1.27\"", None),
        ),
    );
    // The same Event again (a relist): not a new occurrence.
    out.extend(observer.observe(
        1,
        Input::Listed(
            Watched::Events,
            event("e1", "Pulling", "Pulling image \"nginx:1.27\"", None),
        ),
    ));
    out.extend(observer.observe(
        2,
        Input::Applied(
            Watched::Events,
            event("e2", "BackOff", "Back-off pulling image", Some(2)),
        ),
    ));
    out.extend(observer.observe(
        3,
        Input::Applied(
            Watched::Events,
            event("e2", "BackOff", "Back-off pulling image", Some(3)),
        ),
    ));
    assert_eq!(
        lines(&out),
        [
            r#"{"from":"kubelet/node-1","kind":"message","label":"create event Pulling pod/nginx","to":"kube-apiserver"}"#,
            r#"{"kind":"event","message":"Pulling image \"nginx:1.27\"","object":{"fieldPath":"spec.containers{nginx}","kind":"Pod","name":"nginx","namespace":"default"},"reason":"Pulling","source":"kubelet","type":"Normal"}"#,
            r#"{"from":"kubelet/node-1","kind":"message","label":"create event BackOff pod/nginx","to":"kube-apiserver"}"#,
            r#"{"kind":"event","message":"Back-off pulling image","object":{"fieldPath":"spec.containers{nginx}","kind":"Pod","name":"nginx","namespace":"default"},"reason":"BackOff","source":"kubelet","type":"Normal"}"#,
            r#"{"from":"kubelet/node-1","kind":"message","label":"update event BackOff pod/nginx","to":"kube-apiserver"}"#,
            r#"{"kind":"event","message":"Back-off pulling image","object":{"fieldPath":"spec.containers{nginx}","kind":"Pod","name":"nginx","namespace":"default"},"reason":"BackOff","source":"kubelet","type":"Normal"}"#,
        ]
    );
}

#[test]
fn a_relist_finds_what_changed_and_what_went_while_away() {
    let mut observer = Observer::new();
    let other = |name: &str, rv: &str| json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "resourceVersion": rv}});
    observer.observe(0, Input::ListStart(Watched::Pods));
    observer.observe(0, Input::Listed(Watched::Pods, other("a", "1")));
    observer.observe(0, Input::Listed(Watched::Pods, other("b", "2")));
    assert!(
        observer
            .observe(0, Input::ListDone(Watched::Pods))
            .is_empty(),
        "the first list is no relist"
    );
    // After a 410: b changed, a went.
    observer.observe(1, Input::ListStart(Watched::Pods));
    let mut out = observer.observe(1, Input::Listed(Watched::Pods, other("b", "9")));
    out.extend(observer.observe(1, Input::ListDone(Watched::Pods)));
    let summary: Vec<String> = out
        .iter()
        .map(|r| match &r.body {
            Record::Watch(w) => format!("{} {} {}", w.event_type, w.name, w.resource_version),
            Record::Log { line, .. } => line.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        summary,
        [
            "MODIFIED b 9",
            "DELETED a 1",
            "pods relisted: 1 objects, 1 deleted while the watch was away",
        ]
    );
    assert_eq!(observer.census(), (1, 1));
    let kept: Vec<(&str, u64)> = observer
        .store()
        .iter()
        .map(|(k, e)| (k, e.mod_revision))
        .collect();
    assert_eq!(kept, [("/registry/pods/default/b", 9)]);
}

/// Past the cap, objects are kept as summaries: changes are still told
/// (with their fields), the final record holds the whole ones, and says so.
#[test]
fn memory_stays_bounded_past_the_cap() {
    let mut observer = Observer::with_cap(2);
    let node = |name: &str, rv: &str, ready: &str| {
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "resourceVersion": rv},
               "status": {"conditions": [{"type": "Ready", "status": ready}]}})
    };
    for (i, name) in ["n1", "n2", "n3"].iter().enumerate() {
        observer.observe(
            0,
            Input::Applied(Watched::Nodes, node(name, &i.to_string(), "True")),
        );
    }
    assert_eq!(observer.census(), (3, 2));
    let out = observer.observe(1, Input::Applied(Watched::Nodes, node("n3", "9", "False")));
    assert!(matches!(&out[0].body, Record::Watch(w) if w.fields == ["status.conditions"]));
    let last = observer.final_records(2);
    assert!(
        matches!(&last[0].body, Record::Log { line, .. } if line.starts_with("1 objects past the first 2"))
    );
    assert!(matches!(&last[1].body, Record::Final { objects } if objects.len() == 2));
    observer.observe(3, Input::Deleted(Watched::Nodes, node("n1", "10", "True")));
    assert_eq!(observer.census(), (2, 1));
}

/// A recording keeps each change's object: read back, the observed
/// timeline shows the Pod as it was at each step, and the same records.
#[test]
fn a_recording_replays_with_its_objects_at_each_step() {
    let mut observer = Observer::new();
    let mut lines = Vec::new();
    let managers = [("kubelet", "status", "2026-12-05T10:00:04Z")];
    for (t, input) in [
        (1, Input::Notice("pods: watching".into())),
        (
            2,
            Input::Applied(
                Watched::Pods,
                pod("10", Some("node-1"), "Pending", &managers),
            ),
        ),
        (
            3,
            Input::Applied(
                Watched::Pods,
                pod("11", Some("node-1"), "Running", &managers),
            ),
        ),
        (
            4,
            Input::Deleted(
                Watched::Pods,
                pod("12", Some("node-1"), "Running", &managers),
            ),
        ),
    ] {
        for record in observer.observe(t, input) {
            lines.push(crate::replay::line(&record, observer.store()));
        }
    }
    for record in observer.final_records(5) {
        lines.push(crate::replay::line(&record, observer.store()));
    }
    assert!(
        lines[2].contains(r#""object":{"apiVersion":"v1","kind":"Pod""#),
        "{}",
        lines[2]
    );
    assert!(
        lines[4].contains("DELETED") && !lines[4].contains(r#""object""#),
        "{}",
        lines[4]
    );
    let text = lines.join("\n");
    let recorded = crate::replay::read(text.as_bytes(), "rec.jsonl").unwrap();
    assert_eq!(recorded.len(), lines.len());
    let timeline = crate::replay::timeline(recorded);
    let phase = |i: usize| {
        timeline
            .view(i)
            .store
            .object("/registry/pods/default/nginx")
            .map(|o| o.to_json()["status"]["phase"].clone())
    };
    // The notice, the kubelet's message, then ADDED, MODIFIED, DELETED.
    assert_eq!(phase(1), None);
    assert_eq!(phase(2), Some(json!("Pending")));
    assert_eq!(phase(3), Some(json!("Running")));
    assert_eq!(phase(4), None);
    assert!(matches!(
        timeline.records().last().map(|r| &r.body),
        Some(Record::Final { .. })
    ));
    let err = crate::replay::read("{\"seq\":0}\n".as_bytes(), "bad.jsonl").unwrap_err();
    assert_eq!(
        err,
        "bad.jsonl:1: not a record of podflow attach's observation"
    );
}
