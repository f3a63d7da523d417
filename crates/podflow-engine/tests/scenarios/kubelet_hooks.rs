//! Container lifecycle hooks, node-level admission and gRPC probes end to end
//! (`pkg/kubelet/lifecycle/handlers.go`, `predicate.go`,
//! `pkg/kubelet/kuberuntime/kuberuntime_container.go`, `pkg/probe/grpc`), with
//! the examples of the Kubernetes documentation unmodified.

use podflow_engine::trace::Actor;

use crate::common;
use crate::common::{apply, final_object, kubelet_events, run};
use podflow_engine::trace::Outcome;
use podflow_engine::trace::{Record, TraceRecord};

fn reasons(events: &[(u64, String, String, String)]) -> Vec<&str> {
    events.iter().map(|(_, _, r, _)| r.as_str()).collect()
}

fn first<'a>(
    events: &'a [(u64, String, String, String)],
    reason: &str,
) -> &'a (u64, String, String, String) {
    events
        .iter()
        .find(|(_, _, r, _)| r == reason)
        .unwrap_or_else(|| panic!("no {reason} event in {events:#?}"))
}

/// When the kubelet confirmed the deletion of a pod (its last `DELETE`).
fn deleted_at(records: &[TraceRecord]) -> u64 {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Message { from, label, .. }
                if matches!(from, Actor::Kubelet(_)) && label.starts_with("DELETE") =>
            {
                Some(r.t_ms)
            }
            _ => None,
        })
        .next_back()
        .expect("the kubelet deletes the pod")
}

/// "Attach Handlers to Container Lifecycle Events": the postStart hook runs
/// and the pod runs; deleting it runs the preStop hook, whose `nginx -s quit`
/// ends the server, so the pod is gone long before the 30 s grace period.
#[test]
fn the_lifecycle_events_example() {
    let records = run(
        None,
        &[
            &apply("lifecycle-events.yaml"),
            "wait 10s",
            "delete pod lifecycle-demo",
            "wait 40s",
        ],
        |_| {},
    );
    let events = kubelet_events(&records, "lifecycle-demo");
    let names = reasons(&events);
    assert!(!names.contains(&"FailedPostStartHook"), "{events:#?}");
    assert!(!names.contains(&"FailedPreStopHook"), "{events:#?}");
    let killing = first(&events, "Killing");
    assert_eq!(killing.3, "Stopping container lifecycle-demo-container");
    assert!(
        common::final_objects(&records)
            .iter()
            .all(|o| o["metadata"]["name"] != "lifecycle-demo"),
        "the pod is gone"
    );
    let gone = deleted_at(&records) - killing.0;
    assert!(gone < 2000, "nginx quit at once, took {gone} ms");
}

/// A failing postStart hook: `FailedPostStartHook` (no detail in the event),
/// the container killed with the message `FailedPostStartHook`, and restarted.
#[test]
fn a_failing_post_start_hook_kills_and_restarts_the_container() {
    let records = run(
        None,
        &[&apply("poststart-fails-pod.yaml"), "wait 30s"],
        |_| {},
    );
    let events = kubelet_events(&records, "hook-fails");
    let (started_at, ..) = first(&events, "Started");
    let (failed_at, kind, _, message) = first(&events, "FailedPostStartHook");
    assert_eq!(
        (kind.as_str(), message.as_str()),
        ("Warning", "PostStartHook failed")
    );
    assert_eq!(failed_at, started_at);
    let (_, kind, _, message) = first(&events, "Killing");
    assert_eq!(
        (kind.as_str(), message.as_str()),
        ("Normal", "FailedPostStartHook")
    );
    let stage = records
        .iter()
        .find_map(|r| match &r.body {
            Record::Stage(s) if s.outcome == Outcome::HookFailed => Some(s.detail.to_string()),
            _ => None,
        })
        .expect("the hook's failure is a stage");
    assert!(
        stage.starts_with(
            "web: Exec lifecycle hook ([/bin/sh -c echo no config >&2; exit 1]) for Container \"web\" in Pod \"hook-fails_default("
        ),
        "{stage}"
    );
    assert!(
        stage.ends_with(
            "failed - error: command '/bin/sh -c echo no config >&2; exit 1' exited with 1: no config\n, message: \"no config\\n\""
        ),
        "{stage}"
    );
    let starts = names_count(&events, "Started");
    assert!(starts >= 2, "restarted: {events:#?}");
    let status = &final_object(&records, "Pod", "hook-fails")["status"];
    assert!(
        status["containerStatuses"][0]["restartCount"].as_i64() >= Some(1),
        "{status:#}"
    );
}

fn names_count(events: &[(u64, String, String, String)], reason: &str) -> usize {
    events.iter().filter(|(_, _, r, _)| r == reason).count()
}

/// A `preStop` `sleep` holds SIGTERM back for its seconds; nginx then exits
/// at once, well within the grace period.
#[test]
fn a_pre_stop_sleep_delays_sigterm() {
    let records = run(
        None,
        &[
            &apply("prestop-sleep-pod.yaml"),
            "wait 10s",
            "delete pod drain",
            "wait 40s",
        ],
        |_| {},
    );
    let events = kubelet_events(&records, "drain");
    let (killed_at, ..) = first(&events, "Killing");
    let took = deleted_at(&records) - killed_at;
    assert!((5000..6000).contains(&took), "{took}");
}

/// A `preStop` `exec` of `sleep 5` takes five seconds, taken from the grace
/// period (`kuberuntime_container.go` `killContainer`: `gracePeriod -=
/// time.Since(start)` after executePreStopHook, at least
/// minimumGracePeriodInSeconds = 2): with 6 s of grace, `sleep 3600` (which
/// ignores SIGTERM as PID 1) gets SIGKILL 5 + 2 s after `Killing`.
#[test]
fn a_pre_stop_exec_takes_its_time_from_the_grace_period() {
    let records = run(
        None,
        &[
            &apply("prestop-exec-sleep-pod.yaml"),
            "wait 10s",
            "delete pod slow-stop",
            "wait 40s",
        ],
        |_| {},
    );
    let events = kubelet_events(&records, "slow-stop");
    assert!(
        !reasons(&events).contains(&"FailedPreStopHook"),
        "{events:#?}"
    );
    let (killed_at, ..) = first(&events, "Killing");
    let took = deleted_at(&records) - killed_at;
    assert!((7000..8000).contains(&took), "{took}");
}

/// A pod that names its node itself skips the scheduler; the kubelet's own
/// admission rejects it when it does not fit (`predicate.go`, `rejectPod`).
#[test]
fn a_pod_bound_to_a_node_too_small_is_rejected() {
    let records = run(None, &[&apply("bound-big-pod.yaml"), "wait 5s"], |_| {});
    let events = kubelet_events(&records, "bound-big");
    let (_, kind, reason, message) = &events[0];
    assert_eq!(
        (kind.as_str(), reason.as_str(), message.as_str()),
        (
            "Warning",
            "OutOfcpu",
            "Node didn't have enough resource: cpu, requested: 5000, used: 0, capacity: 4000"
        )
    );
    assert_eq!(events.len(), 1, "nothing runs: {events:#?}");
    let status = &final_object(&records, "Pod", "bound-big")["status"];
    assert_eq!(status["phase"], "Failed");
    assert_eq!(status["reason"], "OutOfcpu");
    assert_eq!(
        status["message"],
        "Pod was rejected: Node didn't have enough resource: cpu, requested: 5000, used: 0, capacity: 4000"
    );
}

/// The docs' gRPC liveness example (`pods/probe/grpc-liveness.yaml`): etcd
/// answers the gRPC health check on 2379, so the container is never restarted.
#[test]
fn the_grpc_liveness_example_stays_healthy() {
    let records = run(None, &[&apply("grpc-liveness.yaml"), "wait 60s"], |_| {});
    let events = kubelet_events(&records, "etcd-with-grpc");
    let names = reasons(&events);
    assert!(names.contains(&"Started"), "{events:#?}");
    assert!(!names.contains(&"Unhealthy"), "{events:#?}");
    assert!(!names.contains(&"Killing"), "{events:#?}");
    let status = &final_object(&records, "Pod", "etcd-with-grpc")["status"];
    assert_eq!(status["phase"], "Running");
    assert_eq!(status["containerStatuses"][0]["restartCount"], 0);
}

/// The same probe on a port nothing serves: the gRPC prober's connect error,
/// three times, then the restart.
#[test]
fn a_grpc_probe_on_a_closed_port_restarts_the_container() {
    let records = run(
        None,
        &[&apply("grpc-liveness-wrong-port.yaml"), "wait 60s"],
        |_| {},
    );
    let events = kubelet_events(&records, "etcd-wrong-port");
    let (_, kind, _, message) = first(&events, "Unhealthy");
    assert_eq!(kind, "Warning");
    assert!(
        message.starts_with("Liveness probe failed: timeout: failed to connect service \"10.244.")
            && message.ends_with(":2381\" within 1s: context deadline exceeded"),
        "{message}"
    );
    let (_, _, _, killing) = first(&events, "Killing");
    assert_eq!(
        killing,
        "Container etcd failed liveness probe, will be restarted"
    );
}

/// A failing `postStart` while the container ignores SIGTERM: the kubelet
/// kills it (`kuberuntime_container.go` `startContainer`: `FailedPostStartHook`,
/// then killContainer with the message `FailedPostStartHook`, which waits out
/// the grace period), and no status in between says the container runs or is
/// ready. Once it exited it waits with `PostStartHookError` and the hook's
/// message (convertToAPIContainerStatuses, from the reason cache), its last
/// state the exit, `finishedAt` the second of the SIGKILL.
#[test]
fn a_failing_post_start_hook_is_not_running_while_killed() {
    let records = run(
        None,
        &[&apply("poststart-fails-slow-stop-pod.yaml"), "wait 12s"],
        |_| {},
    );
    let events = kubelet_events(&records, "hook-fails-slowly");
    let (killed_at, ..) = *first(&events, "Killing");
    let mut waited = None;
    for (revision, key, object) in common::writes(&records) {
        let Some(pod) = object else { continue };
        if !key.ends_with("/hook-fails-slowly") {
            continue;
        }
        let status = &pod["status"];
        let c = &status["containerStatuses"][0];
        assert!(
            c["state"].get("running").is_none(),
            "revision {revision}: {c}"
        );
        assert_ne!(c["ready"], true, "revision {revision}: {c}");
        for condition in status["conditions"].as_array().into_iter().flatten() {
            if condition["type"] == "ContainersReady" {
                assert_eq!(condition["status"], "False", "revision {revision}");
            }
        }
        if waited.is_none() && c["state"]["waiting"]["reason"] == "PostStartHookError" {
            waited = Some(c.clone());
        }
    }
    let c = waited.expect("the container waits with PostStartHookError");
    let message = c["state"]["waiting"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Exec lifecycle hook ([/bin/sh -c echo no config >&2; exit 1])"),
        "{message}"
    );
    let last = &c["lastState"]["terminated"];
    assert_eq!(last["exitCode"], 137, "{c}");
    // Killed at `killed_at` ms, SIGKILL 10 s later: the second it exited.
    let second = (killed_at + 10_000) / 1000;
    let exited = podflow_engine::clock::SimTime(second * 1000).rfc3339();
    assert_eq!(last["finishedAt"], exited.as_str(), "{c}");
}
