//! The scheduler end to end: a Pod nothing fits waits with upstream's
//! `FailedScheduling` message, and is placed once the cluster changes.

use podflow_engine::trace::{Actor, Outcome, StageName};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common;
use crate::common::{apply, final_object, run};
use k8s_openapi::api::core::v1::Pod;
use podflow_engine::clock::SimTime;
use podflow_engine::engine::{Engine, Until};
use podflow_engine::scheduler::framework::{Code, CycleState, ReservePlugin, Status};
use podflow_engine::setup::{SetupArgs, build_setup};
use podflow_engine::trace::Record;

fn nginx() -> String {
    format!(
        "apply -f {}/assets/manifests/nginx-pod.yaml",
        crate::common::REPO
    )
}

#[test]
fn unschedulable_until_a_node_is_uncordoned() {
    let records = run(
        None,
        &[
            "cordon node-1",
            "cordon node-2",
            "cordon node-3",
            &nginx(),
            "wait 5s",
            "uncordon node-2",
            "wait idle",
        ],
        |_| {},
    );
    let events: Vec<(String, String)> = records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Event(e) if e.source == "default-scheduler" => {
                Some((e.reason.clone(), e.message.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        events[0],
        (
            "FailedScheduling".to_owned(),
            "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 node(s) were unschedulable. \
             preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
                .to_owned()
        )
    );
    assert_eq!(
        events[1],
        (
            "Scheduled".to_owned(),
            "Successfully assigned default/nginx to node-2".to_owned()
        )
    );
    let pod = final_object(&records, "Pod", "nginx");
    assert_eq!(pod["spec"]["nodeName"], "node-2");
    assert_eq!(pod["status"]["phase"], "Running");
    let waited = records.iter().any(|r| matches!(&r.body, Record::Stage(s) if s.stage == StageName::Queue && s.outcome == Outcome::Unschedulable));
    let moved = records.iter().any(|r| matches!(&r.body, Record::Stage(s) if s.stage == StageName::Queue && s.detail.text().starts_with("NodeUpdateNodeTaint")));
    assert!(
        waited && moved,
        "the queue records show the wait and the move"
    );
}

#[test]
fn a_pending_pod_gets_the_pod_scheduled_false_condition() {
    let records = run(
        None,
        &["cordon node-1", "cordon node-2", "cordon node-3", &nginx()],
        |_| {},
    );
    let pod = final_object(&records, "Pod", "nginx");
    assert_eq!(pod["status"]["phase"], "Pending");
    let scheduled = pod["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "PodScheduled"))
        .cloned()
        .expect("the scheduler's condition");
    assert_eq!(scheduled["status"], "False");
    assert_eq!(scheduled["reason"], "Unschedulable");
    assert!(
        scheduled["message"]
            .as_str()
            .unwrap()
            .starts_with("0/4 nodes are available")
    );
}

/// `schedulePod` (`pkg/scheduler/schedule_one.go`): with no node at all,
/// `ErrNoNodesAvailable` is the whole message, before any plugin or preemption.
#[test]
fn with_no_nodes_at_all_no_nodes_are_available() {
    let records = run(
        None,
        &[
            "delete node control-plane",
            "delete node node-1",
            "delete node node-2",
            "delete node node-3",
            "wait 1s",
            &nginx(),
        ],
        |_| {},
    );
    let failed: Vec<String> = records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Event(e) if e.reason == "FailedScheduling" => Some(e.message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(failed[0], "no nodes available to schedule pods");
    let pod = final_object(&records, "Pod", "nginx");
    let scheduled = pod["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "PodScheduled"))
        .cloned()
        .expect("the scheduler's condition");
    assert_eq!(scheduled["reason"], "Unschedulable");
    assert_eq!(scheduled["message"], "no nodes available to schedule pods");
}

#[test]
fn the_control_plane_taint_keeps_pods_on_workers() {
    let records = run(None, &[&nginx()], |_| {});
    let control_plane = records.iter().find_map(|r| match &r.body {
        Record::Stage(s)
            if s.stage == StageName::Filter
                && s.extra().node.as_deref() == Some("control-plane")
                && s.outcome == Outcome::Fail =>
        {
            Some(s.clone())
        }
        _ => None,
    });
    let stage = control_plane.expect("the control plane fails a filter");
    assert_eq!(stage.plugin.as_deref(), Some("TaintToleration"));
    assert_eq!(
        stage.extra().code.as_deref(),
        Some("UnschedulableAndUnresolvable")
    );
    assert_eq!(
        stage.extra().reason.as_deref(),
        Some("node(s) had untolerated taint(s)")
    );
}

#[test]
fn a_taint_blocks_until_the_pod_tolerates_it() {
    let records = run(
        Some("zones-cluster.yaml"),
        &[
            &common::apply("ssd-pod.yaml"),
            &common::apply("ssd-pod-tolerating.yaml"),
            "wait idle",
        ],
        |_| {},
    );
    let blocked = final_object(&records, "Pod", "ssd");
    assert_eq!(blocked["status"]["phase"], "Pending");
    let message = blocked["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "PodScheduled"))
        .map(|c| c["message"].as_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    assert_eq!(
        message,
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match Pod's node affinity/selector. \
         preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    );
    let admitted = final_object(&records, "Pod", "ssd-ok");
    assert_eq!(
        admitted["spec"]["nodeName"], "node-a2",
        "the toleration admits, the selector decides"
    );
}

#[test]
fn pods_spread_across_zones() {
    let records = run(
        Some("zones-cluster.yaml"),
        &[&common::apply("spread-pods.yaml"), "wait idle"],
        |_| {},
    );
    let zone = |node: &str| if node.starts_with("node-a") { "a" } else { "b" };
    let zones: Vec<&str> = ["web-1", "web-2", "web-3"]
        .iter()
        .map(|name| {
            let pod = final_object(&records, "Pod", name);
            zone(pod["spec"]["nodeName"].as_str().expect("scheduled"))
        })
        .collect();
    let in_a = zones.iter().filter(|z| **z == "a").count();
    assert!(
        (1..=2).contains(&in_a),
        "skew at most 1 across zones: {zones:?}"
    );
    // The second pod cannot join the first in its zone: PodTopologySpread's
    // Filter refuses that zone's node (`maxSkew: 1`, `DoNotSchedule`).
    assert_ne!(zones[0], zones[1], "web-2 goes to the other zone");
    let refused = records.iter().any(|r| {
        matches!(&r.body, Record::Stage(s) if s.stage == StageName::Filter
            && s.plugin.as_deref() == Some("PodTopologySpread")
            && s.outcome == Outcome::Fail
            && s.extra().pod.as_deref() == Some("default/web-2")
            && s.extra().reason.as_deref() == Some("node(s) didn't match pod topology spread constraints"))
    });
    assert!(refused, "PodTopologySpread's filter refused web-2 a node");
}

#[test]
fn summary_detail_records_one_scheduler_stage_a_cycle() {
    let count = |records: &[podflow_engine::trace::TraceRecord], stage: StageName| {
        records
            .iter()
            .filter(|r| matches!(&r.body, Record::Stage(s) if s.component == Actor::Scheduler && s.stage == stage))
            .count()
    };
    let full = run(None, &[&nginx()], |_| {});
    assert!(count(&full, StageName::Filter) > 10 && count(&full, StageName::Score) > 5);
    let summary = run(None, &[&nginx()], |a| {
        a.detail = Some(podflow_engine::apiserver::handler::Detail::Summary);
    });
    assert_eq!(count(&summary, StageName::Filter), 0);
    assert_eq!(count(&summary, StageName::Score), 0);
    assert_eq!(
        count(&summary, StageName::Select),
        1,
        "the chosen node, with the weighted totals"
    );
    let pod = final_object(&summary, "Pod", "nginx");
    assert_eq!(
        pod["status"]["phase"], "Running",
        "the same story, fewer records"
    );
}

/// A Reserve plugin that refuses every pod and counts its unreserves.
struct RefusingReserve(Arc<AtomicUsize>);

impl ReservePlugin for RefusingReserve {
    fn name(&self) -> &'static str {
        "TestReserve"
    }

    fn reserve(&self, _: &mut CycleState, _: &Pod, _: &str) -> Status {
        Status::new(Code::Unschedulable, "no room reserved")
    }

    fn unreserve(&self, _: &mut CycleState, _: &Pod, _: &str) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn a_reserve_refusal_forgets_the_pod_and_says_why() {
    let unreserved = Arc::new(AtomicUsize::new(0));
    let args = SetupArgs {
        steps: vec![nginx()],
        seed: 1,
        ..SetupArgs::default()
    };
    let mut setup = build_setup(&args).expect("setup");
    for profile in &mut setup.scheduler_profiles {
        let plugin = RefusingReserve(Arc::clone(&unreserved));
        profile.reservers.push(Arc::new(plugin));
    }
    let mut engine = Engine::new(setup);
    let mut records = engine.run_until(Until::Time(SimTime(5_000)));
    records.push(engine.final_record());
    let failed = records.iter().any(|r| {
        matches!(&r.body, Record::Event(e) if e.reason == "FailedScheduling"
            && e.message == "running Reserve plugin \"TestReserve\": no room reserved")
    });
    assert!(failed, "the FailedScheduling event names the plugin");
    assert!(records.iter().any(
        |r| matches!(&r.body, Record::Stage(s) if s.stage == StageName::Reserve && s.outcome == Outcome::Fail)
    ));
    assert!(
        unreserved.load(Ordering::SeqCst) >= 1,
        "unreserved after the refusal"
    );
    let pod = final_object(&records, "Pod", "nginx");
    assert!(pod["spec"]["nodeName"].is_null(), "never bound");
}

#[test]
fn a_higher_priority_pod_preempts_a_lower_one() {
    let records = run(
        None,
        &[
            &common::apply("batch-pods.yaml"),
            "wait idle",
            &common::apply("vip-pod.yaml"),
            "wait idle",
        ],
        |_| {},
    );
    let scheduler_events: Vec<(String, String)> = records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Event(e) if e.source == "default-scheduler" => {
                Some((e.reason.clone(), e.message.clone()))
            }
            _ => None,
        })
        .collect();
    // The first attempt fails; preemption nominates a node, so the message
    // has no "preemption:" part.
    let failed = scheduler_events
        .iter()
        .find(|(reason, _)| reason == "FailedScheduling");
    assert_eq!(
        failed,
        Some(&(
            "FailedScheduling".to_owned(),
            "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu."
                .to_owned()
        ))
    );
    let preempted: Vec<&(String, String)> = scheduler_events
        .iter()
        .filter(|(reason, _)| reason == "Preempted")
        .collect();
    assert_eq!(preempted.len(), 1, "one victim: {scheduler_events:?}");
    let vip = final_object(&records, "Pod", "vip");
    let node = vip["spec"]["nodeName"].as_str().expect("vip scheduled");
    // Nominated while its victim terminated; the binding clears the nomination.
    let nominated = records.iter().any(|r| {
        matches!(&r.body, Record::Stage(s) if s.stage == StageName::PostFilter
            && s.outcome == Outcome::Nominated && s.extra().node.as_deref() == Some(node))
    });
    assert!(nominated, "nominated to {node}");
    assert!(vip["status"]["nominatedNodeName"].is_null());
    let uid = vip["metadata"]["uid"].as_str().expect("uid");
    assert_eq!(
        preempted[0].1,
        format!("Preempted by pod {uid} on node {node}")
    );
    assert_eq!(vip["status"]["phase"], "Running");
    // The victim was the batch pod on that node, and it is gone.
    let deleted: Vec<&str> = records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Watch(w) if w.event_type == "DELETED" && w.watcher == Actor::Scheduler => {
                Some(w.name.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(deleted.len(), 1, "{deleted:?}");
    let left: Vec<serde_json::Value> = common::final_objects(&records)
        .into_iter()
        .filter(|o| o["kind"] == "Pod" && o["metadata"]["name"] == deleted[0])
        .collect();
    assert!(left.is_empty(), "the victim {} is gone", deleted[0]);
    // Before the delete, the victim got its DisruptionTarget condition.
    let patched = records.iter().any(|r| {
        matches!(&r.body, Record::Stage(s) if s.stage == StageName::Persist
            && s.extra().key.as_deref() == Some(&*format!("/registry/pods/default/{}", deleted[0]))
            && s.extra().object.as_ref().is_some_and(|o| o["status"]["conditions"]
                .as_array()
                .is_some_and(|cs| cs.iter().any(|c| c["type"] == "DisruptionTarget"
                    && c["reason"] == "PreemptionByScheduler"))))
    });
    assert!(patched, "DisruptionTarget written");
}

#[test]
fn an_event_no_rejecting_plugin_cares_about_leaves_the_pod_waiting() {
    // NodeResourcesFit rejected the pod; cordoning and uncordoning a node
    // changes no node's allocatable, so its queueing hint says QueueSkip.
    let records = run(
        None,
        &[
            &common::apply("huge-pod.yaml"),
            "wait 2s",
            "cordon node-1",
            "uncordon node-1",
            "wait 30s",
        ],
        |_| {},
    );
    let queue: Vec<(String, String)> = records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Stage(s)
                if s.stage == StageName::Queue
                    && s.extra().pod.as_deref() == Some("default/huge") =>
            {
                Some((s.outcome.to_string(), s.detail.to_string()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(queue.len(), 1, "{queue:?}");
    assert_eq!(queue[0].0, "unschedulable");
    let attempts = records
        .iter()
        .filter(|r| matches!(&r.body, Record::Event(e) if e.reason == "FailedScheduling"))
        .count();
    assert_eq!(attempts, 1, "no second attempt");
}

#[test]
fn a_toleration_added_to_the_waiting_pod_moves_it_at_once() {
    // `PriorityQueue.Update`: the pod's own update is an `UnschedulablePod`/`UpdatePodToleration` event
    // and TaintToleration's `isSchedulableAfterPodTolerationChange` queues
    // it, long before the five-minute flush.
    let records = run(
        Some("zones-cluster.yaml"),
        &[
            &common::apply("ssd-pod.yaml"),
            "wait 10s",
            &common::apply("ssd-pod-now-tolerating.yaml"),
            "wait idle",
        ],
        |_| {},
    );
    let moved = records
        .iter()
        .find_map(|r| match &r.body {
            Record::Stage(s) if s.stage == StageName::Queue && s.outcome == Outcome::Active => {
                Some((r.t_ms, s.detail.clone()))
            }
            _ => None,
        })
        .expect("the update moves the pod");
    assert_eq!(
        moved.1,
        "UnschedulablePodUpdatePodToleration: default/ssd moved to activeQ"
    );
    assert!(moved.0 < 11_000, "moved when updated, at {} ms", moved.0);
    let pod = final_object(&records, "Pod", "ssd");
    assert_eq!(pod["spec"]["nodeName"], "node-a2");
    assert_eq!(pod["status"]["phase"], "Running");
}

/// A Pod that waits five minutes among the unschedulable ones is flushed to
/// activeQ by `flushUnschedulablePodsLeftover` (`podMaxInUnschedulablePodsDuration`,
/// the `UnschedulableTimeout` event), and the trace says so, not "back-off over".
#[test]
fn an_unschedulable_pod_is_flushed_after_five_minutes_and_said_to_be() {
    let records = run(None, &[&common::apply("huge-pod.yaml"), "wait 6m"], |_| {});
    let flushed: Vec<String> = records
        .iter()
        .filter_map(|r| match &r.body {
            podflow_engine::trace::Record::Stage(s)
                if s.stage == StageName::Queue && s.outcome == Outcome::Active =>
            {
                Some(s.detail.text().into_owned())
            }
            _ => None,
        })
        .collect();
    assert!(
        flushed.iter().any(|d| d.ends_with(
            "moved to activeQ (UnschedulableTimeout: 5m0s among the unschedulable pods)"
        )),
        "{flushed:#?}"
    );
}

#[test]
fn scheduling_gates_keep_a_pod_out_of_the_queue_until_the_last_is_removed() {
    // The docs' "Pod Scheduling Readiness" (pod-with-scheduling-gates.yaml):
    // the API server gives a gated Pod PodScheduled=False/SchedulingGated
    // (pkg/registry/core/pod/strategy.go applySchedulingGatedCondition); the
    // SchedulingGates PreEnqueue plugin keeps it out of the queue
    // (pkg/scheduler/framework/plugins/schedulinggates); gates may only be
    // removed (pkg/apis/core/validation validateOnlyDeletedSchedulingGates).
    let records = run(
        None,
        &[
            &apply("scheduling-gated-pod.yaml"),
            "wait 5s",
            "get pod gated",
            r#"patch pod gated --type=json -p '[{"op":"add","path":"/spec/schedulingGates/-","value":{"name":"example.com/baz"}}]'"#,
            r#"patch pod gated --type=merge -p '{"spec":{"schedulingGates":[{"name":"example.com/bar"}]}}'"#,
            "wait 5s",
            "get pod gated",
            r#"patch pod gated --type=merge -p '{"spec":{"schedulingGates":null}}'"#,
            "wait 10s",
            "get pod gated -o wide",
        ],
        |_| {},
    );
    let out = common::kubectl_output(&records).join("\n");
    let gated_rows = out
        .lines()
        .filter(|l| l.starts_with("gated ") && l.contains("SchedulingGated"))
        .count();
    assert_eq!(gated_rows, 2, "{out}");
    assert!(
        out.contains("The Pod \"gated\" is invalid: spec.schedulingGates[2].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/baz'"),
        "{out}"
    );
    // No scheduling attempt while gated: no FailedScheduling, no binding.
    let reasons: Vec<String> = records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Event(e) if e.object.name == "gated" => Some(e.reason.clone()),
            _ => None,
        })
        .collect();
    assert!(
        !reasons.iter().any(|r| r == "FailedScheduling"),
        "{reasons:?}"
    );
    assert_eq!(
        reasons.iter().filter(|r| *r == "Scheduled").count(),
        1,
        "{reasons:?}"
    );
    let pod = final_object(&records, "Pod", "gated");
    assert!(pod["spec"]["nodeName"].is_string(), "{pod:#}");
    let condition = pod["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "PodScheduled")
        .unwrap();
    assert_eq!(condition["status"], "True", "{condition}");
    assert!(out.contains("Running"), "{out}");
}

/// `RunPreFilterPlugins` / `RunPreScorePlugins`
/// (`pkg/scheduler/framework/runtime/framework.go`): a plugin whose `PreFilter`
/// or `PreScore` answers Skip is left out of Filter or Score for the cycle
/// (`SkipFilterPlugins`, `SkipScorePlugins`). nginx has no nodeSelector, no
/// affinity, no host port, no claim and no spread constraint, so
/// `NodeAffinity`'s `PreFilter` (`pkg/scheduler/framework/plugins/nodeaffinity`)
/// and `PreScore` skip, as do `PodTopologySpread`'s; the trace says so, and
/// no `filter` or `score` record of theirs follows.
#[test]
fn skipped_plugins_have_a_skip_record_and_no_verdicts() {
    let records = run(None, &[&nginx(), "wait idle"], |_| {});
    let skips: Vec<(StageName, String, String)> = records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Stage(s) if s.outcome == Outcome::Skip && s.component == Actor::Scheduler => {
                Some((
                    s.stage,
                    s.plugin.as_deref().unwrap_or_default().to_owned(),
                    s.extra().reason.clone().unwrap_or_default(),
                ))
            }
            _ => None,
        })
        .collect();
    let has = |stage: StageName, plugin: &str| {
        skips
            .iter()
            .find(|(s, p, _)| *s == stage && p == plugin)
            .map(|(_, _, reason)| reason.clone())
    };
    assert_eq!(
        has(StageName::PreFilter, "NodeAffinity").as_deref(),
        Some("the pod has no nodeSelector and no required node affinity"),
        "{skips:?}"
    );
    assert_eq!(
        has(StageName::PreScore, "NodeAffinity").as_deref(),
        Some("the pod has no preferred node affinity"),
        "{skips:?}"
    );
    assert!(
        has(StageName::PreFilter, "NodePorts").is_some(),
        "{skips:?}"
    );
    assert!(
        has(StageName::PreFilter, "PodTopologySpread").is_some(),
        "{skips:?}"
    );
    assert!(
        has(StageName::PreScore, "PodTopologySpread").is_some(),
        "{skips:?}"
    );
    let verdicts_of = |plugin: &str, stage: StageName| {
        records.iter().any(|r| {
            matches!(&r.body, Record::Stage(s)
                if s.stage == stage && s.plugin.as_deref() == Some(plugin))
        })
    };
    assert!(!verdicts_of("NodeAffinity", StageName::Filter));
    assert!(!verdicts_of("NodeAffinity", StageName::Score));
    assert!(verdicts_of("TaintToleration", StageName::Filter));
}
