//! The kubelet end to end: the containers do what their commands say, and the
//! pod's status, events and restarts follow as upstream's kubelet makes them
//! (`pkg/kubelet/kuberuntime/kuberuntime_manager.go`, `pkg/kubelet/prober/`,
//! `pkg/kubelet/images/image_manager.go`), with the examples of the Kubernetes
//! documentation unmodified.

use crate::common;
use crate::common::{apply, final_object, run};
use podflow_engine::trace::{Actor, Record, StageName, TraceRecord};

/// The kubelet's events about `pod`: (`t_ms`, reason, message).
fn kubelet_events(records: &[TraceRecord], pod: &str) -> Vec<(u64, String, String)> {
    common::kubelet_events(records, pod)
        .into_iter()
        .map(|(t, _, reason, message)| (t, reason, message))
        .collect()
}

fn first(events: &[(u64, String, String)], reason: &str) -> (u64, String) {
    events.iter().find(|(_, r, _)| r == reason).map_or_else(
        || panic!("no {reason} event in {events:#?}"),
        |(t, _, m)| (*t, m.clone()),
    )
}

fn times(events: &[(u64, String, String)], reason: &str) -> Vec<u64> {
    events
        .iter()
        .filter(|(_, r, _)| r == reason)
        .map(|(t, _, _)| *t)
        .collect()
}

/// The status the kubelet wrote last, from the final store.
fn status(records: &[TraceRecord], pod: &str) -> serde_json::Value {
    final_object(records, "Pod", pod)["status"].clone()
}

/// Every kubelet stage names its pod.
fn stages_name_their_pod(records: &[TraceRecord]) {
    for r in records {
        if let Record::Stage(s) = &r.body
            && matches!(s.component, Actor::Kubelet(_))
        {
            assert!(s.extra().pod.is_some(), "{s:?}");
            assert!(
                [
                    StageName::Sandbox,
                    StageName::Network,
                    StageName::Volume,
                    StageName::Pull,
                    StageName::Container,
                    StageName::Probe,
                    StageName::Status
                ]
                .contains(&s.stage),
                "{s:?}"
            );
        }
    }
}

#[test]
fn exec_liveness_restarts_the_container() {
    let records = run(None, &[&apply("exec-liveness.yaml"), "wait 120s"], |_| {});
    stages_name_their_pod(&records);
    let events = kubelet_events(&records, "liveness-exec");
    let (started, _) = first(&events, "Started");
    let (unhealthy_at, message) = first(&events, "Unhealthy");
    assert_eq!(
        message,
        "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory"
    );
    let (killed_at, killing) = first(&events, "Killing");
    assert_eq!(
        killing,
        "Container liveness failed liveness probe, will be restarted"
    );
    let after = killed_at - started;
    assert!(
        (35_000..=45_000).contains(&after),
        "killed {after} ms after start"
    );
    assert!(unhealthy_at < killed_at);
    // sh ignores SIGTERM as PID 1: the grace period (30 s) ends with SIGKILL, then the restart.
    let restarts = times(&events, "Started");
    assert!(restarts.len() >= 2, "{events:#?}");
    let status = status(&records, "liveness-exec");
    let c = &status["containerStatuses"][0];
    assert!(c["restartCount"].as_i64() >= Some(1), "{c}");
    assert_eq!(c["lastState"]["terminated"]["exitCode"], 137, "{c}");
}

#[test]
fn init_containers_wait_for_their_services() {
    let records = run(
        None,
        &[
            &apply("myapp-pod.yaml"),
            "wait 30s",
            "get pod myapp-pod",
            &apply("myapp-services.yaml"),
            "wait 30s",
            "get pod myapp-pod",
        ],
        |_| {},
    );
    stages_name_their_pod(&records);
    let out = common::kubectl_output(&records).join("\n");
    assert!(out.contains("Init:0/2"), "{out}");
    assert!(out.contains("Running"), "{out}");
    let status = status(&records, "myapp-pod");
    assert_eq!(status["phase"], "Running", "{status}");
    let init = status["initContainerStatuses"].as_array().unwrap();
    assert!(
        init.iter()
            .all(|c| c["state"]["terminated"]["reason"] == "Completed"),
        "{status}"
    );
    let events = kubelet_events(&records, "myapp-pod");
    let order: Vec<&str> = events
        .iter()
        .filter(|(_, r, _)| r == "Started")
        .map(|(_, _, m)| m.as_str())
        .collect();
    assert_eq!(order.len(), 3, "{events:#?}");
}

#[test]
fn exit_1_goes_to_crash_loop_back_off() {
    let records = run(None, &[&apply("crasher-pod.yaml"), "wait 150s"], |_| {});
    stages_name_their_pod(&records);
    let events = kubelet_events(&records, "crasher");
    let starts = times(&events, "Started");
    assert!(starts.len() >= 4, "{events:#?}");
    // The first restart is immediate (at the PLEG's relist); then 10 s, 20 s, 40 s.
    let gaps: Vec<u64> = starts.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps[0] <= 2_000, "{gaps:?}");
    for (gap, backoff) in gaps[1..].iter().zip([10_000, 20_000, 40_000]) {
        assert!(
            (backoff..backoff + 2_000).contains(gap),
            "gaps {gaps:?}, want back-off {backoff}"
        );
    }
    let (_, backoff) = first(&events, "BackOff");
    assert!(
        backoff.starts_with("Back-off restarting failed container app in pod crasher_default("),
        "{backoff}"
    );
    let status = status(&records, "crasher");
    let c = &status["containerStatuses"][0];
    assert_eq!(c["state"]["waiting"]["reason"], "CrashLoopBackOff", "{c}");
    assert_eq!(c["lastState"]["terminated"]["exitCode"], 1, "{c}");
    assert_eq!(c["lastState"]["terminated"]["reason"], "Error", "{c}");
}

#[test]
fn a_missing_image_backs_off() {
    let records = run(
        Some("missing-image-cluster.yaml"),
        &[
            &apply("missing-image-pod.yaml"),
            "wait 5s",
            "get pod missing",
        ],
        |_| {},
    );
    stages_name_their_pod(&records);
    let events = kubelet_events(&records, "missing");
    let reasons: Vec<(&str, &str)> = events
        .iter()
        .map(|(_, r, m)| (r.as_str(), m.as_str()))
        .collect();
    assert_eq!(
        reasons[0],
        ("Pulling", "Pulling image \"nginx:doesnotexist\"")
    );
    assert_eq!(
        reasons[1],
        (
            "Failed",
            "Failed to pull image \"nginx:doesnotexist\": rpc error: code = NotFound desc = failed to pull and unpack image \"docker.io/library/nginx:doesnotexist\": failed to resolve reference \"docker.io/library/nginx:doesnotexist\": docker.io/library/nginx:doesnotexist: not found"
        )
    );
    assert_eq!(reasons[2], ("Failed", "Error: ErrImagePull"));
    assert_eq!(
        reasons[3],
        ("BackOff", "Back-off pulling image \"nginx:doesnotexist\"")
    );
    assert_eq!(reasons[4], ("Failed", "Error: ImagePullBackOff"));
    let out = common::kubectl_output(&records).join("\n");
    assert!(out.contains("ImagePullBackOff"), "{out}");
    let status = status(&records, "missing");
    let waiting = &status["containerStatuses"][0]["state"]["waiting"];
    assert_eq!(waiting["reason"], "ImagePullBackOff", "{status}");
}

#[test]
fn never_pull_of_an_absent_image() {
    let records = run(None, &[&apply("never-pull-pod.yaml"), "wait 5s"], |_| {});
    let events = kubelet_events(&records, "never");
    let (_, message) = first(&events, "ErrImageNeverPull");
    assert_eq!(
        message,
        "Container image \"example.com/not-here:v1\" is not present with pull policy of Never"
    );
    let status = status(&records, "never");
    assert_eq!(
        status["containerStatuses"][0]["state"]["waiting"]["reason"], "ErrImageNeverPull",
        "{status}"
    );
}

#[test]
fn a_memory_hog_is_oom_killed() {
    let records = run(None, &[&apply("memory-demo-2.yaml"), "wait 30s"], |_| {});
    let status = status(&records, "memory-demo-2");
    let c = &status["containerStatuses"][0];
    let last = if c["lastState"]["terminated"].is_object() {
        &c["lastState"]["terminated"]
    } else {
        &c["state"]["terminated"]
    };
    assert_eq!(last["reason"], "OOMKilled", "{c}");
    assert_eq!(last["exitCode"], 137, "{c}");
}

#[test]
fn restart_policy_never_exit_0_succeeds() {
    let records = run(None, &[&apply("echo-never-pod.yaml")], |_| {});
    stages_name_their_pod(&records);
    let status = status(&records, "hello");
    assert_eq!(status["phase"], "Succeeded", "{status}");
    let t = &status["containerStatuses"][0]["state"]["terminated"];
    assert_eq!(
        (t["exitCode"].as_i64(), t["reason"].as_str()),
        (Some(0), Some("Completed"))
    );
    let ready = status["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "Ready")
        .cloned()
        .unwrap();
    assert_eq!(ready["reason"], "PodCompleted", "{status}");
}

#[test]
fn until_idle_ends_for_sleeping_and_crashing_pods() {
    // A crash loop and a long sleep do not keep the run going past the idle limit.
    let records = run(
        None,
        &[&apply("crasher-pod.yaml"), &apply("myapp-pod.yaml")],
        |_| {},
    );
    let last = records.last().unwrap().t_ms;
    assert!(last <= 30 * 60 * 1000, "{last}");
}

#[test]
fn restart_policy_never_exit_3_fails() {
    let records = run(None, &[&apply("fail-never-pod.yaml")], |_| {});
    let status = status(&records, "failer");
    assert_eq!(status["phase"], "Failed", "{status}");
    let t = &status["containerStatuses"][0]["state"]["terminated"];
    assert_eq!(
        (t["exitCode"].as_i64(), t["reason"].as_str()),
        (Some(3), Some("Error"))
    );
}

#[test]
fn a_failing_readiness_probe_keeps_ready_false() {
    let records = run(
        None,
        &[&apply("readiness-refused-pod.yaml"), "wait 30s"],
        |_| {},
    );
    let events = kubelet_events(&records, "unready");
    let (_, message) = first(&events, "Unhealthy");
    assert!(
        message.starts_with("Readiness probe failed: Get \"http://10.244."),
        "{message}"
    );
    assert!(
        message.ends_with(":8080: connect: connection refused"),
        "{message}"
    );
    let status = status(&records, "unready");
    assert_eq!(status["phase"], "Running", "{status}");
    let ready = status["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "Ready")
        .cloned()
        .unwrap();
    assert_eq!(ready["status"], "False", "{status}");
    assert_eq!(ready["message"], "containers with unready status: [web]");
    // Restarts never: readiness only takes the pod out of service.
    assert_eq!(status["containerStatuses"][0]["restartCount"], 0);
}

#[test]
fn deleting_a_sleeping_pod_waits_for_the_grace_period() {
    let records = run(
        None,
        &[
            &apply("sleeper-pod.yaml"),
            "wait 10s",
            "delete pod sleeper",
            "wait 60s",
        ],
        |_| {},
    );
    let events = kubelet_events(&records, "sleeper");
    let (killed_at, message) = first(&events, "Killing");
    assert_eq!(message, "Stopping container sleeper");
    assert!(
        common::final_objects(&records)
            .iter()
            .all(|o| o["metadata"]["name"] != "sleeper"),
        "the pod is gone"
    );
    // sh and sleep ignore SIGTERM as PID 1: SIGKILL after terminationGracePeriodSeconds (30 s).
    let deleted_at = records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Message { from, label, .. }
                if *from == Actor::Kubelet("node-3".into()) && label.starts_with("DELETE") =>
            {
                Some(r.t_ms)
            }
            _ => None,
        })
        .next_back()
        .expect("the kubelet deletes the pod");
    assert!(
        (30_000..32_000).contains(&(deleted_at - killed_at)),
        "{}",
        deleted_at - killed_at
    );
}

#[test]
fn a_pod_of_the_starting_cluster_is_stopped_and_deleted() {
    // The pod was running before the story; its deletion still goes through
    // the kubelet: Killing, the grace period, then the confirming DELETE.
    let records = run(
        Some("running-pod-cluster.yaml"),
        &["delete pod batch-1", "wait 40s"],
        |_| {},
    );
    let events = kubelet_events(&records, "batch-1");
    let (at, message) = first(&events, "Killing");
    assert_eq!(message, "Stopping container work");
    let gone = records
        .iter()
        .find_map(|r| match &r.body {
            Record::Watch(w) if w.event_type == "DELETED" && w.name == "batch-1" => Some(r.t_ms),
            _ => None,
        })
        .expect("deleted");
    assert!(
        gone >= at + 30_000,
        "after the 30 s grace period: {at} → {gone}"
    );
    let left = common::final_objects(&records)
        .into_iter()
        .filter(|o| o["kind"] == "Pod" && o["metadata"]["name"] == "batch-1")
        .count();
    assert_eq!(left, 0);
}

#[test]
fn a_new_image_applied_to_a_pod_is_pulled_at_once_and_restarts_the_container() {
    // The image is the one container field a Pod's update may change; the
    // kubelet hashes name and image (`pickFieldsToHash`): a waiting container
    // takes the new image at once (the pull back-off is per image), a running
    // one is killed as its definition changed and started again.
    let records = run(
        Some("missing-image-cluster.yaml"),
        &[
            &apply("missing-image-pod.yaml"),
            "wait 30s",
            &apply("missing-image-pod-fixed.yaml"),
            "wait 10s",
            &apply("missing-image-pod-v2.yaml"),
            "wait 10s",
        ],
        |_| {},
    );
    let events = kubelet_events(&records, "missing");
    let fixed_pull = events
        .iter()
        .find(|(_, r, m)| r == "Pulling" && m == "Pulling image \"nginx:1.27\"")
        .map(|(t, _, _)| *t)
        .expect("the fixed image is pulled");
    assert!(
        (30_000..30_100).contains(&fixed_pull),
        "pulled when applied, not after the back-off: {fixed_pull}"
    );
    let (killed_at, killing) = first(&events, "Killing");
    assert_eq!(
        killing,
        "Container web definition changed, will be restarted"
    );
    let restarted = events
        .iter()
        .filter(|(t, r, _)| r == "Started" && *t > killed_at)
        .count();
    assert_eq!(restarted, 1);
    let status = status(&records, "missing");
    let ctr = &status["containerStatuses"][0];
    assert_eq!(ctr["image"], "docker.io/library/nginx:1.28");
    assert_eq!(ctr["restartCount"], 1);
    assert!(ctr["state"]["running"].is_object(), "{status}");
}

#[test]
fn conditions_are_stored_in_the_kubelets_order() {
    // pkg/kubelet/kubelet_pods.go generateAPIPodStatus appends the kubelet's
    // conditions in this order, and its status patch (util/pod.PatchPodStatus,
    // a two-way strategic merge patch) carries `$setElementOrder/conditions`,
    // so the stored order is the kubelet's: PodScheduled, set first by the
    // scheduler, ends up last.
    let records = run(None, &[&apply("sleeper-pod.yaml"), "wait 10s"], |_| {});
    let status = status(&records, "sleeper");
    let types: Vec<&str> = status["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "PodReadyToStartContainers",
            "Initialized",
            "Ready",
            "ContainersReady",
            "PodScheduled"
        ]
    );
}

#[test]
fn a_container_state_is_one_of_waiting_running_terminated() {
    // core/v1 ContainerState: exactly one member. The status manager patches
    // against what the API server holds (pkg/kubelet/status/status_manager.go,
    // syncPod; util/pod.PatchPodStatus), so a state that moves sets the old
    // member to null.
    let records = run(None, &[&apply("crasher-pod.yaml"), "wait 150s"], |_| {});
    for (revision, key, object) in common::writes(&records) {
        let Some(pod) = object else { continue };
        if !key.contains("/pods/") {
            continue;
        }
        for c in pod["status"]["containerStatuses"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let state = c["state"].as_object().unwrap();
            assert_eq!(state.len(), 1, "revision {revision}: {c}");
            if let Some(waiting) = state.get("waiting") {
                assert!(waiting.get("reason").is_some(), "revision {revision}: {c}");
            }
        }
    }
    // kuberuntime_manager.go doBackOff: the `BackOff` event comes from the
    // sync that the back-off refused — the one the PLEG's relist of the
    // container's death starts — never from the instant a container starts.
    let events = kubelet_events(&records, "crasher");
    let started = times(&events, "Started");
    let backoffs = times(&events, "BackOff");
    assert!(backoffs.len() >= 3, "{events:#?}");
    for t in &backoffs {
        assert!(!started.contains(t), "BackOff at a start, {t}: {events:#?}");
        assert_eq!(t % 1000, 0, "BackOff off the relist, {t}");
    }
}

#[test]
fn readiness_gates_hold_ready_until_their_condition_is_true() {
    // pkg/kubelet/status/generate.go GeneratePodReadyCondition: ready
    // containers, but the gate's condition missing: Ready=False,
    // ReadinessGatesNotReady; `kubectl patch --subresource=status` sets it, the
    // kubelet reconciles (HandlePodReconcile, NeedToReconcilePodReadiness).
    let records = run(
        None,
        &[
            &apply("readiness-gate-pod.yaml"),
            "wait 10s",
            "get pod gated-ready -o wide",
            r#"patch pod gated-ready --subresource=status --type=merge -p '{"status":{"conditions":[{"type":"www.example.com/feature-1","status":"True"}]}}'"#,
            "wait 3s",
            "get pod gated-ready -o wide",
        ],
        |_| {},
    );
    let mut readies = Vec::new();
    for (_, key, object) in common::writes(&records) {
        let Some(pod) = object else { continue };
        if !key.ends_with("/gated-ready") {
            continue;
        }
        if let Some(ready) = pod["status"]["conditions"]
            .as_array()
            .and_then(|l| l.iter().find(|c| c["type"] == "Ready"))
        {
            readies.push(ready.clone());
        }
    }
    assert!(
        readies.iter().any(|r| r["reason"] == "ReadinessGatesNotReady"
            && r["message"]
                == "corresponding condition of pod readiness gate \"www.example.com/feature-1\" does not exist."),
        "{readies:#?}"
    );
    let out = common::kubectl_output(&records).join("\n");
    assert!(out.contains("pod/gated-ready patched"), "{out}");
    // READINESS GATES (-o wide): ready gates of all, before and after.
    assert!(out.contains("<none>           0/1"), "{out}");
    assert!(out.contains("<none>           1/1"), "{out}");
    let status = status(&records, "gated-ready");
    let conditions = status["conditions"].as_array().unwrap();
    let ready = conditions.iter().find(|c| c["type"] == "Ready").unwrap();
    assert_eq!(ready["status"], "True", "{status:#}");
    // The gate's condition is kept, first, as generateAPIPodStatus keeps it.
    assert_eq!(conditions[0]["type"], "www.example.com/feature-1");
}
