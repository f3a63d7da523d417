//! What the kubelet tells: the PLEG's relist events (`pkg/kubelet/pleg/generic.go`,
//! once a second), the status manager's patches (`pkg/kubelet/status/status_manager.go`,
//! only when the status changed), and the pod startup latency line
//! (`pkg/kubelet/util/pod_startup_latency_tracker.go`).

use serde_json::Value;

use super::sent_status::{Condition, SentStatus, scheduled, second};
use super::status::{self, ContainerView, PodView, StatusExtra};
use super::{Kubelet, Step, klog};
use crate::apiserver::request::{Body, Verb};
use crate::clock::SimTime;
use crate::component::{Cx, RequestId};
use crate::trace::{Outcome, StageName};

impl Kubelet {
    /// Sets the PLEG's next relist (the next whole second) when events wait for it.
    pub(super) fn schedule_pleg(&mut self, key: &str, cx: &mut Cx<'_>) {
        let Some(w) = self.workers.get_mut(key) else {
            return;
        };
        if w.pleg_due {
            return;
        }
        w.pleg_due = true;
        let wait = 1000 - cx.now.as_millis() % 1000;
        self.timer(cx, wait, key, Step::Pleg);
    }

    /// The PLEG relists: one line per container event, then the pod syncs.
    pub(super) fn pleg(&mut self, key: &str, cx: &mut Cx<'_>) {
        self.advance(key, cx);
        let Some(w) = self.workers.get_mut(key) else {
            return;
        };
        w.pleg_due = false;
        let events = std::mem::take(&mut w.pleg);
        let uid = w.pod.metadata.uid.clone().unwrap_or_default();
        for (id, kind) in events {
            let event = format!("{{\"ID\":\"{uid}\",\"Type\":\"{kind}\",\"Data\":\"{id}\"}}");
            self.log(
                cx,
                "kubelet.go:2453",
                "SyncLoop (PLEG): event for pod",
                &[("pod", klog::quoted(key)), ("event", event)],
            );
        }
        self.sync(key, cx);
    }

    /// Sends the pod's status when it changed, as the status manager does;
    /// returns the request's id.
    pub(super) fn report_status(&mut self, key: &str, cx: &mut Cx<'_>) -> Option<RequestId> {
        self.send_status(key, false, cx)
    }

    /// Builds the status (`generateAPIPodStatus`) and patches it; `force` sends
    /// it even unchanged (the final status before deletion).
    pub(super) fn send_status(
        &mut self,
        key: &str,
        force: bool,
        cx: &mut Cx<'_>,
    ) -> Option<RequestId> {
        let now = cx.now;
        let w = self.workers.get_mut(key)?;
        let restart_policy = w.restart_policy();
        let (init, regular, details) = reported_views(&w.ctrs, &restart_policy);
        let evicted = w.evicted.clone();
        let phase = if evicted.is_some() {
            "Failed"
        } else {
            status::phase_with(&init, &regular, &details, &restart_policy)
        };
        let mut stop_sandbox = false;
        if matches!(phase, "Succeeded" | "Failed") && !w.finished {
            w.finished = true;
            stop_sandbox = true;
            self.known.recount();
        }
        let sandbox_ready = w.sandbox_id.is_some() && !w.terminating && !w.finished;
        let readiness_gates = readiness_gates(&w.pod);
        let other_conditions = kept_conditions(&w.pod, evicted.as_ref());
        let view = PodView {
            host_ip: &self.host_ip,
            pod_ip: w.pod_ip.as_deref(),
            start_time: w.start_time,
            sandbox_ready,
            qos_class: w.pod.status.as_ref().and_then(|s| s.qos_class.as_deref()),
            restart_policy: &restart_policy,
            containers: &regular,
            transitions: &w.transitions,
            now,
            readiness_gates: &readiness_gates,
            other_conditions: &other_conditions,
        };
        let mut status = status::generate(
            &view,
            &StatusExtra {
                init_containers: &init,
                details: &details,
            },
        );
        stamp_conditions(
            &mut status,
            other_conditions,
            &mut w.transitions,
            &w.pod,
            now,
        );
        if let Some((message, _)) = &evicted {
            // `TerminatePodAbnormallyAndWait` with `Evict`: the terminal phase,
            // the eviction's reason and message.
            status.phase = phase;
            status.reason = Some(super::eviction::REASON);
            status.message = Some(message.as_str().into());
        }
        if !force && is_sent(w.last_status.as_deref(), &status) {
            return None;
        }
        let changed_phase = w.last_phase != phase;
        phase.clone_into(&mut w.last_phase);
        let running = regular
            .iter()
            .filter(|c| matches!(c.state, status::ContainerState::Running { .. }))
            .count();
        if phase == "Running" && w.running_reported.is_none() {
            w.running_reported = Some(now);
        }
        let patch = match &w.last_status {
            Some(last) => super::status_patch::two_way(last, &status),
            None => super::status_patch::from_stored(w.pod.status.as_ref(), &status),
        };
        w.last_status = Some(std::sync::Arc::new(status));
        let pod = w.pod.clone();
        if stop_sandbox {
            cx.message(&self.me(), &self.containerd(), "StopPodSandbox");
        }
        if changed_phase && phase != "Pending" {
            let detail = match phase {
                "Failed" if evicted.is_some() => {
                    "phase Failed: evicted by the kubelet (reason Evicted)".to_owned()
                }
                // The docs' rule (concepts/workloads/pods/pod-lifecycle.md):
                // every container created, at least one running.
                "Running" => format!(
                    "every container created, {running} of {} running",
                    regular.len()
                ),
                other => format!("phase {other}: every container has terminated"),
            };
            self.stage(cx, key, StageName::Status, phase_outcome(phase), detail);
        }
        let request = self
            .pod_request(Verb::Patch, &pod)
            .subresource("status")
            // Moved in, not copied: `json!` would serialize the patch again.
            .body(Body::Patch(Value::Object(serde_json::Map::from_iter([(
                "status".to_owned(),
                patch,
            )]))));
        Some(cx.send(request))
    }

    /// A pod with readiness gates changed (its gates' conditions are set
    /// through the status subresource): its `Ready` is reported again when it
    /// differs (`HandlePodReconcile`, `status.NeedToReconcilePodReadiness`).
    pub(super) fn reconcile_readiness(&mut self, key: &str, cx: &mut Cx<'_>) {
        let gated = self.workers.get(key).is_some_and(|w| {
            w.pod
                .spec
                .as_ref()
                .and_then(|s| s.readiness_gates.as_ref())
                .is_some_and(|g| !g.is_empty())
        });
        if gated {
            self.report_status(key, cx);
        }
    }

    /// The kubelet saw its own "Running" status come back: the startup latency line.
    pub(super) fn observe_running(&mut self, key: &str, cx: &mut Cx<'_>) {
        let Some(worker) = self.workers.get(key) else {
            return;
        };
        let Some(running_at) = worker.running_reported else {
            return;
        };
        if worker.startup_logged.is_some() {
            return;
        }
        let created =
            worker
                .pod
                .metadata
                .creation_timestamp
                .as_ref()
                .map_or(worker.start_time, |t| {
                    let (epoch, _) = SimTime::ZERO.unix();
                    SimTime(u64::try_from((t.0.as_second() - epoch) * 1000).unwrap_or(0))
                });
        let e2e = cx.now.as_millis().saturating_sub(created.as_millis());
        let pulling = match (worker.first_pull, worker.last_pull) {
            (Some(a), Some(b)) => b.as_millis() - a.as_millis(),
            _ => 0,
        };
        let unset = "0001-01-01 00:00:00 +0000 UTC".to_owned();
        let fields = [
            ("pod", klog::quoted(key)),
            ("podStartSLOduration", klog::seconds_float(e2e - pulling)),
            ("podStartE2EDuration", klog::quoted(&klog::go_duration(e2e))),
            (
                "podCreationTimestamp",
                klog::quoted(&klog::go_time(created)),
            ),
            (
                "firstStartedPulling",
                klog::quoted(&worker.first_pull.map_or(unset.clone(), klog::go_time)),
            ),
            (
                "lastFinishedPulling",
                klog::quoted(&worker.last_pull.map_or(unset, klog::go_time)),
            ),
            (
                "observedRunningTime",
                klog::quoted(&klog::go_time(running_at)),
            ),
            (
                "watchObservedRunningTime",
                klog::quoted(&klog::go_time(cx.now)),
            ),
        ];
        self.log(
            cx,
            "pod_startup_latency_tracker.go:104",
            "Observed pod startup duration",
            &fields,
        );
        if let Some(w) = self.workers.get_mut(key) {
            w.startup_logged = Some(cx.now);
        }
    }
}

/// The containers' views and details as the status shows them
/// ([`Ctr::reported`](super::worker::Ctr::reported)): the init containers',
/// the regular ones', and the details by name.
fn reported_views(
    ctrs: &[super::worker::Ctr],
    restart_policy: &str,
) -> (
    Vec<ContainerView>,
    Vec<ContainerView>,
    std::collections::BTreeMap<String, status::ContainerDetail>,
) {
    let (mut init, mut regular) = (Vec::new(), Vec::new());
    let mut details = std::collections::BTreeMap::new();
    for c in ctrs {
        let (view, detail) = c.reported(restart_policy);
        details.insert(view.name.clone(), detail);
        if c.init {
            init.push(view);
        } else {
            regular.push(view);
        }
    }
    (init, regular, details)
}

/// Whether `status` is the one sent last (the status manager sends only
/// changes); checked in debug against their JSON.
fn is_sent(last: Option<&SentStatus>, status: &SentStatus) -> bool {
    let same = last == Some(status);
    debug_assert!(
        last.is_none_or(|last| same == (last.to_value() == status.to_value())),
        "typed statuses are equal exactly when their JSON is"
    );
    same
}

/// `spec.readinessGates`' condition types.
fn readiness_gates(pod: &k8s_openapi::api::core::v1::Pod) -> Vec<String> {
    pod.spec
        .as_ref()
        .and_then(|s| s.readiness_gates.as_ref())
        .into_iter()
        .flatten()
        .map(|g| g.condition_type.clone())
        .collect()
}

/// The conditions the kubelet keeps but does not own: the stored ones
/// ([`foreign_conditions`]), and an evicted Pod's `DisruptionTarget`.
fn kept_conditions(
    pod: &k8s_openapi::api::core::v1::Pod,
    evicted: Option<&(String, SimTime)>,
) -> Vec<Value> {
    let mut kept = foreign_conditions(pod);
    if let Some((message, at)) = evicted
        && !kept.iter().any(|c| c["type"] == "DisruptionTarget")
    {
        kept.push(disruption_target(message, *at));
    }
    kept
}

/// The stored status's conditions the kubelet does not own (a readiness
/// gate's, `DisruptionTarget`), as `generateAPIPodStatus` keeps them.
fn foreign_conditions(pod: &k8s_openapi::api::core::v1::Pod) -> Vec<Value> {
    pod.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .into_iter()
        .flatten()
        .filter(|c| !status::owned_by_kubelet(&c.type_))
        .filter_map(|c| serde_json::to_value(c).ok())
        .collect()
}

/// The `DisruptionTarget` condition of a pod the kubelet evicted
/// (`eviction_manager.go`, `synchronize`: `TerminationByKubelet`).
fn disruption_target(message: &str, at: SimTime) -> Value {
    serde_json::json!({
        "type": "DisruptionTarget",
        "status": "True",
        "lastProbeTime": null,
        "lastTransitionTime": at.rfc3339(),
        "reason": super::eviction::TERMINATION_BY_KUBELET,
        "message": message,
    })
}

/// Gives each condition its `lastTransitionTime` (when its status last
/// changed), keeps the scheduler's `PodScheduled` condition and puts the
/// `others` the kubelet does not own first, as the kubelet does in the status
/// it generates.
fn stamp_conditions(
    status: &mut SentStatus,
    others: Vec<Value>,
    transitions: &mut super::transitions::Transitions,
    pod: &k8s_openapi::api::core::v1::Pod,
    now: SimTime,
) {
    for c in &mut status.conditions {
        let Condition::Kubelet(c) = c else {
            continue;
        };
        c.at = second(transitions.observe(c.kind, c.ok, now));
    }
    let by_scheduler = pod
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|c| c.iter().find(|c| c.type_ == "PodScheduled"));
    // Room for exactly what joins the kubelet's four: the status is kept
    // until the next one is sent (a grown list held three spare places).
    status
        .conditions
        .reserve_exact(usize::from(by_scheduler.is_some()) + others.len());
    if let Some(condition) = by_scheduler {
        status.conditions.push(scheduled(condition));
    }
    // generateAPIPodStatus keeps the conditions it does not own, first.
    status
        .conditions
        .splice(0..0, others.into_iter().map(Condition::Other));
}

/// The `status` stage's outcome for a Pod phase the kubelet reports.
fn phase_outcome(phase: &str) -> Outcome {
    match phase {
        "Running" => Outcome::Running,
        "Succeeded" => Outcome::Succeeded,
        "Failed" => Outcome::Failed,
        "Pending" => Outcome::Pending,
        _ => Outcome::Unknown,
    }
}
