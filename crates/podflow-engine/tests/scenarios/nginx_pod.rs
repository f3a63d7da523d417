//! The seeds' story end to end: `kubectl apply -f pod.yaml` for a bare nginx
//! Pod on the default cluster, through the API server, etcd, the scheduler and
//! the kubelet, to a Pod that is Running and Ready.

use crate::common;
use crate::common::{final_object, run, text};
use podflow_engine::trace::{Actor, StageName};
use podflow_engine::trace::{Record, TraceRecord};

fn nginx() -> Vec<TraceRecord> {
    let manifest = format!("{}/assets/manifests/nginx-pod.yaml", crate::common::REPO);
    run(None, &[&format!("apply -f {manifest}")], |_| {})
}

/// A short name for each record, to check the order of the story.
fn tag(record: &TraceRecord) -> String {
    match &record.body {
        Record::Message {
            from, to, label, ..
        } => format!("msg {from}->{to} {label}"),
        Record::Stage(s) => format!("stage {} {}", s.component, s.stage),
        Record::Response { to, code, .. } => format!("response {to} {code}"),
        Record::Watch(w) => format!("watch {} {} {}", w.watcher, w.event_type, w.resource),
        Record::Event(e) => format!("event {}", e.reason),
        Record::Log { component, .. } => format!("log {component}"),
        Record::Final { .. } => "final".into(),
    }
}

/// The position of the first record whose tag starts with `prefix`, after `from`.
fn find(tags: &[String], from: usize, prefix: &str) -> usize {
    tags.iter()
        .skip(from)
        .position(|t| t.starts_with(prefix))
        .map_or_else(|| panic!("no `{prefix}` after record {from}"), |i| i + from)
}

#[test]
fn the_story_happens_in_order() {
    let records = nginx();
    let tags: Vec<String> = records.iter().map(tag).collect();
    let mut at = 0;
    for step in [
        "msg kubectl->kube-apiserver GET /api/v1/namespaces/default/pods/nginx",
        "response kubectl 404",
        "msg kubectl->kube-apiserver POST /api/v1/namespaces/default/pods",
        "stage kube-apiserver authentication",
        "stage kube-apiserver authorization",
        "stage kube-apiserver admission",
        "stage kube-apiserver validation",
        "stage kube-apiserver admission",
        "msg kube-apiserver->etcd txn put /registry/pods/default/nginx",
        "stage etcd persist",
        "response kubectl 201",
        "watch kube-scheduler ADDED pods",
        "stage kube-scheduler filter",
        "stage kube-scheduler score",
        "stage kube-scheduler select",
        "stage kube-scheduler bind",
        "msg kube-scheduler->kube-apiserver POST /api/v1/namespaces/default/pods/nginx/binding",
        "response kube-scheduler 201",
        "event Scheduled",
        "watch kubelet/",
        "log kubelet/",
        "stage kubelet/",
        "msg kubelet/",
        "stage cni/",
        "stage kubelet/",
        "event Pulling",
        "event Pulled",
        "event Created",
        "event Started",
        "stage kubelet/",
        "msg kubelet/",
        "final",
    ] {
        at = find(&tags, at, step) + 1;
    }
}

#[test]
fn every_apiserver_stage_names_the_request_path() {
    let records = nginx();
    let post = records
        .iter()
        .position(|r| matches!(&r.body, Record::Message { label, .. } if label == "POST /api/v1/namespaces/default/pods"))
        .expect("the POST");
    let stages: Vec<(String, Option<String>, Option<String>)> = records[post..]
        .iter()
        .map_while(|r| match &r.body {
            Record::Stage(s) => Some((
                s.stage.to_string(),
                s.phase.as_deref().map(str::to_owned),
                s.plugin.as_deref().map(str::to_owned),
            )),
            Record::Message { .. } => Some(("message".into(), None, None)),
            _ => None,
        })
        .skip(1)
        .collect();
    let names: Vec<&str> = stages.iter().map(|(s, _, _)| s.as_str()).collect();
    assert_eq!(names[..2], ["authentication", "authorization"]);
    let mutating: Vec<&str> = stages
        .iter()
        .filter(|(_, p, _)| p.as_deref() == Some("mutating"))
        .filter_map(|(_, _, plugin)| plugin.as_deref())
        .collect();
    assert_eq!(
        &mutating[..3],
        ["NamespaceLifecycle", "LimitRanger", "ServiceAccount"]
    );
    assert!(mutating.contains(&"DefaultTolerationSeconds"));
    let validating: Vec<&str> = stages
        .iter()
        .filter(|(_, p, _)| p.as_deref() == Some("validating"))
        .filter_map(|(_, _, plugin)| plugin.as_deref())
        .collect();
    assert_eq!(validating.last(), Some(&"ResourceQuota"));
    let persist = records[post..]
        .iter()
        .find_map(|r| match &r.body {
            Record::Stage(s) if s.stage == StageName::Persist => Some(s.clone()),
            _ => None,
        })
        .expect("the etcd write");
    assert_eq!(
        persist.extra().key.as_deref(),
        Some("/registry/pods/default/nginx")
    );
    assert!(persist.extra().revision.is_some());
    assert_eq!(
        persist.extra().object.as_ref().map(|o| o["kind"].clone()),
        Some("Pod".into())
    );
}

#[test]
fn the_pod_ends_running_and_ready_on_a_worker() {
    let records = nginx();
    let pod = final_object(&records, "Pod", "nginx");
    assert_eq!(pod["status"]["phase"], "Running");
    let node = pod["spec"]["nodeName"].as_str().expect("a node");
    assert!(
        node.starts_with("node-"),
        "scheduled on {node}, not the tainted control plane"
    );
    let ready = pod["status"]["conditions"]
        .as_array()
        .expect("conditions")
        .iter()
        .find(|c| c["type"] == "Ready")
        .expect("a Ready condition");
    assert_eq!(ready["status"], "True");
    let ip = pod["status"]["podIP"].as_str().expect("a Pod IP");
    assert!(ip.starts_with("10.244."), "{ip}");
    assert_eq!(
        pod["status"]["containerStatuses"][0]["image"],
        "docker.io/library/nginx:1.27"
    );
    let volume = pod["spec"]["volumes"][0]["name"]
        .as_str()
        .expect("the service-account volume");
    assert!(volume.starts_with("kube-api-access-"), "{volume}");
}

#[test]
fn the_events_are_worded_as_the_kubelet_and_scheduler_word_them() {
    let records = nginx();
    let events: Vec<(String, String, Option<String>, String)> = records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Event(e) => Some((
                e.reason.clone(),
                e.message.clone(),
                e.object.field_path.clone(),
                e.source.clone(),
            )),
            _ => None,
        })
        .collect();
    let reasons: Vec<&str> = events.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(
        reasons,
        ["Scheduled", "Pulling", "Pulled", "Created", "Started"]
    );
    assert!(
        events[0]
            .1
            .starts_with("Successfully assigned default/nginx to node-")
    );
    assert_eq!(events[0].3, "default-scheduler");
    assert_eq!(events[1].1, r#"Pulling image "nginx:1.27""#);
    assert!(
        events[2]
            .1
            .starts_with(r#"Successfully pulled image "nginx:1.27" in "#),
        "{}",
        events[2].1
    );
    assert!(events[2].1.ends_with(" bytes."), "{}", events[2].1);
    assert_eq!(events[3].1, "Container created");
    assert_eq!(events[4].1, "Container started");
    for event in &events[1..] {
        assert_eq!(event.2.as_deref(), Some("spec.containers{nginx}"));
        assert_eq!(event.3, "kubelet");
    }
}

#[test]
fn the_text_trace_reads_as_before() {
    insta::assert_snapshot!(text(&nginx()));
}

#[test]
fn deleting_the_pod_stops_it_gracefully_then_removes_it() {
    let manifest = format!("{}/assets/manifests/nginx-pod.yaml", crate::common::REPO);
    let records = run(
        None,
        &[
            &format!("apply -f {manifest}"),
            "wait idle",
            "delete pod nginx",
            "wait idle",
        ],
        |_| {},
    );
    let output = common::kubectl_output(&records);
    assert_eq!(
        output.last().map(String::as_str),
        Some(r#"pod "nginx" deleted from default namespace"#)
    );
    let tags: Vec<String> = records.iter().map(tag).collect();
    let mut at = find(&tags, 0, "msg kubectl->kube-apiserver DELETE");
    for step in [
        "log kubelet/",
        "event Killing",
        "msg kubelet/",
        "msg kubelet/",
        "response kubelet/",
        "stage etcd persist",
        "watch kubelet/node-",
    ] {
        at = find(&tags, at, step) + 1;
    }
    assert!(
        common::final_objects(&records)
            .iter()
            .all(|o| o["kind"] != "Pod"),
        "the Pod is gone once the kubelet confirmed"
    );
}

#[test]
fn every_watcher_sees_revisions_in_order() {
    let manifest = format!("{}/assets/manifests/nginx-pod.yaml", crate::common::REPO);
    let records = run(
        None,
        &[
            &format!("apply -f {manifest}"),
            "wait idle",
            "delete pod nginx",
        ],
        |_| {},
    );
    let mut last: std::collections::BTreeMap<Actor, u64> = std::collections::BTreeMap::new();
    for record in &records {
        if let Record::Watch(w) = &record.body {
            let rv: u64 = w.resource_version.parse().expect("a number");
            let previous = last.insert(w.watcher.clone(), rv).unwrap_or(0);
            assert!(rv > previous, "{} saw rv {rv} after {previous}", w.watcher);
        }
    }
    assert!(last.len() >= 2, "the scheduler and a kubelet watched");
}
