//! The status manager's patch from the status it sent last to the next
//! (`pkg/kubelet/status/status_manager.go`, `mergePodStatus` then
//! `statusutil.PatchPodStatus`, which sends `CreateTwoWayMergePatch` of the
//! two), made from the typed statuses ([`SentStatus`]) field by field
//! instead of writing both as JSON and diffing those; the first patch
//! ([`from_stored`]) is made from the stored `PodStatus` the same way.
//!
//! It is the patch [`smp::two_way`] makes of the two statuses' JSON, byte
//! for byte: `conditions` merge by `type` and carry `$setElementOrder`,
//! `containerStatuses` (no merge key in `k8s.io/api`'s struct tags) are
//! replaced whole, a field that went away is `null`. The shapes it does not
//! make itself (conditions added, removed, reordered or of a type twice; a
//! changed node or Pod address) go through [`smp::two_way`].

use k8s_openapi::api::core::v1::PodStatus;
use serde_json::{Map, Value};

use super::sent_status::{
    Condition, KubeletCondition, SentStatus, ips_value, scheduled, statuses_value,
};
use crate::apiserver::strategic_merge_patch as smp;

/// The patch that turns `old` into `new`, as `CreateTwoWayMergePatch`
/// makes it for a `v1.PodStatus`.
pub fn two_way(old: &SentStatus, new: &SentStatus) -> Value {
    let json_diff = || smp::two_way("v1.PodStatus", &old.to_value(), &new.to_value());
    let Some(patch) = typed(old, new) else {
        return json_diff();
    };
    // Every debug run (the scenarios) checks the typed patch against the diff.
    debug_assert_eq!(
        patch,
        json_diff(),
        "the typed status patch is the JSON diff"
    );
    patch
}

/// The first patch, from the status the API server holds (the Pod as the
/// kubelet saw it: the scheduler's condition, the phase and `QoS` class the
/// API server set) to the first status the kubelet sends.
pub fn from_stored(stored: Option<&PodStatus>, new: &SentStatus) -> Value {
    let json_diff = || {
        let old = stored
            .and_then(|s| serde_json::to_value(s).ok())
            .unwrap_or_default();
        smp::two_way("v1.PodStatus", &old, &new.to_value())
    };
    let Some(patch) = typed_from_stored(stored, new) else {
        return json_diff();
    };
    debug_assert_eq!(patch, json_diff(), "the typed first patch is the JSON diff");
    patch
}

/// The first patch made from the types, when the stored status holds no
/// more than conditions (each also in `new`, unchanged), a phase and a
/// `QoS` class: everything else `new` holds is set whole.
fn typed_from_stored(stored: Option<&PodStatus>, new: &SentStatus) -> Option<Value> {
    let empty = PodStatus::default();
    let old = stored.unwrap_or(&empty);
    let only_ours = PodStatus {
        conditions: old.conditions.clone(),
        phase: old.phase.clone(),
        qos_class: old.qos_class.clone(),
        ..PodStatus::default()
    };
    if *old != only_ours {
        return None;
    }
    let old_conditions = old.conditions.as_deref().unwrap_or_default();
    for (i, c) in old_conditions.iter().enumerate() {
        let twice = old_conditions[..i].iter().any(|o| o.type_ == c.type_);
        let kept = new.conditions.iter().find(|n| n.kind() == c.type_);
        let same = match kept {
            Some(n @ Condition::Scheduled(_)) => *n == scheduled(c),
            Some(n) => serde_json::to_value(c).ok() == Some(n.to_value()),
            None => false,
        };
        if twice || !same {
            return None;
        }
    }
    let mut h = Halves::default();
    if old.conditions.is_none() {
        // A list the stored status lacks is set whole, with no order.
        let all = new.conditions.iter().map(Condition::to_value).collect();
        h.changes.insert("conditions".into(), Value::Array(all));
    } else {
        let added: Vec<Value> = new
            .conditions
            .iter()
            .filter(|n| !old_conditions.iter().any(|c| c.type_ == n.kind()))
            .map(Condition::to_value)
            .collect();
        let same_order = old_conditions.len() == new.conditions.len()
            && old_conditions
                .iter()
                .zip(&new.conditions)
                .all(|(o, n)| o.type_ == n.kind());
        if !added.is_empty() || !same_order {
            let order = new
                .conditions
                .iter()
                .map(|c| keyed(Map::new(), c.kind()))
                .collect();
            h.changes
                .insert("$setElementOrder/conditions".into(), Value::Array(order));
        }
        if !added.is_empty() {
            h.changes.insert("conditions".into(), Value::Array(added));
        }
    }
    h.optional("phase", old.phase.as_deref(), Some(new.phase), string);
    h.optional(
        "qosClass",
        old.qos_class.as_deref(),
        new.qos_class.as_deref(),
        string,
    );
    h.changes.insert("hostIP".into(), string(&new.host_ip));
    h.changes.insert("hostIPs".into(), ips_value(&new.host_ip));
    h.changes
        .insert("startTime".into(), Value::String(new.start_time.rfc3339()));
    if let Some(init) = &new.init_statuses {
        h.changes
            .insert("initContainerStatuses".into(), statuses_value(init));
    }
    h.changes
        .insert("containerStatuses".into(), statuses_value(&new.statuses));
    if let Some(ip) = &new.pod_ip {
        h.changes.insert("podIP".into(), string(ip));
        h.changes.insert("podIPs".into(), ips_value(ip));
    }
    if let Some(reason) = new.reason {
        h.changes.insert("reason".into(), string(reason));
    }
    if let Some(message) = &new.message {
        h.changes.insert("message".into(), string(message));
    }
    Some(smp::merge_halves(h.deletions, h.changes))
}

/// What to delete (`null`s, nested) and what to set, as [`smp::two_way`]
/// splits a patch before merging its halves.
#[derive(Default)]
struct Halves {
    deletions: Map<String, Value>,
    changes: Map<String, Value>,
}

impl Halves {
    /// A field that may be absent on either side, written as `value`.
    fn optional<T: PartialEq + ?Sized>(
        &mut self,
        field: &str,
        old: Option<&T>,
        new: Option<&T>,
        value: impl Fn(&T) -> Value,
    ) {
        match (old, new) {
            (Some(_), None) => {
                self.deletions.insert(field.into(), Value::Null);
            }
            (None, Some(n)) => {
                self.changes.insert(field.into(), value(n));
            }
            (Some(o), Some(n)) if o != n => {
                self.changes.insert(field.into(), value(n));
            }
            _ => {}
        }
    }
}

fn string(s: &str) -> Value {
    Value::String(s.to_owned())
}

/// The patch made from the types, or `None` for a shape left to the JSON diff.
fn typed(old: &SentStatus, new: &SentStatus) -> Option<Value> {
    if old.host_ip != new.host_ip
        || matches!((&old.pod_ip, &new.pod_ip), (Some(a), Some(b)) if a != b)
    {
        return None;
    }
    let mut h = Halves::default();
    conditions(&old.conditions, &new.conditions, &mut h)?;
    h.optional(
        "initContainerStatuses",
        old.init_statuses.as_deref(),
        new.init_statuses.as_deref(),
        statuses_value,
    );
    if old.statuses != new.statuses {
        h.changes
            .insert("containerStatuses".into(), statuses_value(&new.statuses));
    }
    h.optional("phase", Some(old.phase), Some(new.phase), string);
    h.optional(
        "startTime",
        Some(&old.start_time),
        Some(&new.start_time),
        |t| Value::String(t.rfc3339()),
    );
    h.optional(
        "podIP",
        old.pod_ip.as_deref(),
        new.pod_ip.as_deref(),
        string,
    );
    h.optional(
        "podIPs",
        old.pod_ip.as_deref(),
        new.pod_ip.as_deref(),
        ips_value,
    );
    h.optional(
        "qosClass",
        old.qos_class.as_deref(),
        new.qos_class.as_deref(),
        string,
    );
    h.optional("reason", old.reason, new.reason, string);
    h.optional(
        "message",
        old.message.as_deref(),
        new.message.as_deref(),
        string,
    );
    Some(smp::merge_halves(h.deletions, h.changes))
}

/// The `conditions` list's halves, when both lists hold the same types in
/// the same order, each once, and only the kubelet's own changed.
fn conditions(old: &[Condition], new: &[Condition], h: &mut Halves) -> Option<()> {
    if old.len() != new.len() {
        return None;
    }
    let (mut deletions, mut changes) = (Vec::new(), Vec::new());
    for (i, (a, b)) in old.iter().zip(new).enumerate() {
        let kind = b.kind();
        if a.kind() != kind || new[..i].iter().any(|c| c.kind() == kind) {
            return None;
        }
        match (a, b) {
            (Condition::Kubelet(a), Condition::Kubelet(b)) => {
                let (gone, set) = kubelet_condition(a, b);
                for (part, list) in [(gone, &mut deletions), (set, &mut changes)] {
                    if !part.is_empty() {
                        list.push(keyed(part, kind));
                    }
                }
            }
            _ if a == b => {}
            _ => return None,
        }
    }
    if deletions.is_empty() && changes.is_empty() {
        return Some(());
    }
    let order = new.iter().map(|c| keyed(Map::new(), c.kind())).collect();
    h.changes
        .insert("$setElementOrder/conditions".into(), Value::Array(order));
    if !deletions.is_empty() {
        h.deletions
            .insert("conditions".into(), Value::Array(deletions));
    }
    if !changes.is_empty() {
        h.changes.insert("conditions".into(), Value::Array(changes));
    }
    Some(())
}

/// One of the kubelet's conditions: what went away, what changed.
fn kubelet_condition(
    a: &KubeletCondition,
    b: &KubeletCondition,
) -> (Map<String, Value>, Map<String, Value>) {
    let mut h = Halves::default();
    let status = |ok: &bool| string(if *ok { "True" } else { "False" });
    h.optional("status", Some(&a.ok), Some(&b.ok), status);
    h.optional("lastTransitionTime", Some(&a.at), Some(&b.at), |t| {
        Value::String(t.rfc3339())
    });
    h.optional("reason", a.reason, b.reason, string);
    h.optional(
        "message",
        a.message.as_deref(),
        b.message.as_deref(),
        string,
    );
    (h.deletions, h.changes)
}

/// A list element's part named by its `type`.
fn keyed(mut part: Map<String, Value>, kind: &str) -> Value {
    part.insert("type".into(), string(kind));
    Value::Object(part)
}

#[cfg(test)]
mod tests {
    use super::super::sent_status::{CtrState, CtrStatus, Terminated};
    use super::*;
    use crate::clock::SimTime;

    fn cond(kind: &'static str, ok: bool, reason: Option<&'static str>, at: u64) -> Condition {
        Condition::Kubelet(KubeletCondition {
            kind,
            ok,
            reason,
            message: reason.map(|r| format!("because {r}").into()),
            at: SimTime(at * 1000),
        })
    }

    fn ctr(state: CtrState, last: Option<Terminated>) -> CtrStatus {
        CtrStatus {
            name: "nginx".into(),
            image: "docker.io/library/nginx:1.14.2".into(),
            image_id: "".into(),
            container_id: None,
            ready: false,
            started: false,
            restart_count: 0,
            state,
            last_state: last,
        }
    }

    fn waiting(reason: &str) -> CtrState {
        CtrState::Waiting {
            reason: reason.into(),
            message: None,
        }
    }

    fn exited(code: i32) -> Terminated {
        Terminated {
            exit_code: code,
            reason: if code == 0 { "Completed" } else { "Error" }.into(),
            started_at: SimTime(2000),
            finished_at: SimTime(5000),
            container_id: Some("containerd://abc".into()),
        }
    }

    fn pending() -> SentStatus {
        SentStatus {
            phase: "Pending",
            conditions: vec![
                cond("PodReadyToStartContainers", false, None, 1),
                cond("Initialized", true, None, 1),
                cond("Ready", false, Some("ContainersNotReady"), 1),
                cond("ContainersReady", false, Some("ContainersNotReady"), 1),
            ],
            host_ip: "172.18.0.2".into(),
            start_time: SimTime(1000),
            init_statuses: None,
            statuses: vec![ctr(waiting("ContainerCreating"), None)],
            pod_ip: None,
            qos_class: Some("BestEffort".into()),
            reason: None,
            message: None,
        }
    }

    fn running() -> SentStatus {
        let mut s = pending();
        s.phase = "Running";
        s.conditions = vec![
            cond("PodReadyToStartContainers", true, None, 3),
            cond("Initialized", true, None, 1),
            cond("Ready", true, None, 3),
            cond("ContainersReady", true, None, 3),
        ];
        s.pod_ip = Some("10.244.1.2".into());
        let mut c = ctr(
            CtrState::Running {
                started_at: SimTime(3000),
            },
            None,
        );
        c.container_id = Some("containerd://abc".into());
        c.image_id = "docker.io/library/nginx@sha256:f7988f".into();
        (c.ready, c.started) = (true, true);
        s.statuses = vec![c];
        s
    }

    /// The pairs the status manager patches between (`status_manager.go`'s
    /// `syncPod`, here in both directions): each typed patch is the
    /// strategic merge patch of their JSON (`CreateTwoWayMergePatch`,
    /// `strategicpatch/patch.go`), as the JSON diff makes it.
    #[test]
    fn typed_patches_are_the_json_diff() {
        let restarted = {
            let mut s = running();
            s.statuses[0].state = waiting("CrashLoopBackOff");
            s.statuses[0].last_state = Some(exited(1));
            s.statuses[0].restart_count = 1;
            s.conditions[2] = cond("Ready", false, Some("ContainersNotReady"), 6);
            s
        };
        let evicted = {
            let mut s = running();
            s.phase = "Failed";
            s.reason = Some("Evicted");
            s.message = Some("The node was low on resource: memory.".into());
            s.conditions.insert(
                0,
                Condition::Other(serde_json::json!({"type": "DisruptionTarget",
                    "status": "True", "lastProbeTime": null,
                    "lastTransitionTime": "2026-11-30T02:20:40Z", "reason": "TerminationByKubelet"})),
            );
            s
        };
        let with_init = {
            let mut s = pending();
            s.init_statuses = Some(vec![ctr(CtrState::Terminated(exited(0)), None)]);
            s
        };
        let gated = {
            let mut s = running();
            let gate = serde_json::json!({"type": "example.com/gate", "status": "False"});
            s.conditions.insert(0, Condition::Other(gate));
            s
        };
        let gate_true = {
            let mut s = gated.clone();
            s.conditions[0] =
                Condition::Other(serde_json::json!({"type": "example.com/gate", "status": "True"}));
            s
        };
        let no_qos = {
            let mut s = running();
            s.qos_class = None;
            s.pod_ip = Some("10.244.1.3".into());
            s
        };
        let cases = [
            ("pending to running", pending(), running()),
            ("running to pending", running(), pending()),
            ("running to restarted", running(), restarted.clone()),
            ("restarted to running", restarted, running()),
            ("running to evicted", running(), evicted.clone()),
            ("evicted to running (conditions added)", evicted, running()),
            ("init statuses appear", pending(), with_init.clone()),
            ("init statuses go", with_init, pending()),
            ("a gate's condition changes", gated.clone(), gate_true),
            ("a gate's condition is added", running(), gated),
            ("qos gone, pod IP changed", running(), no_qos),
            ("unchanged", running(), running()),
        ];
        for (name, old, new) in cases {
            let json = smp::two_way("v1.PodStatus", &old.to_value(), &new.to_value());
            assert_eq!(two_way(&old, &new), json, "{name}");
            assert_eq!(
                old == new,
                old.to_value() == new.to_value(),
                "{name}: equal exactly when the JSON is"
            );
        }
    }

    /// The typed path answers the common case itself (the Pod starting):
    /// no JSON of either status.
    #[test]
    fn starting_is_patched_from_the_types() {
        let patch = typed(&pending(), &running()).expect("typed");
        assert_eq!(patch["status"], Value::Null);
        assert_eq!(patch["phase"], "Running");
        assert_eq!(
            patch["$setElementOrder/conditions"][0]["type"],
            "PodReadyToStartContainers"
        );
        // The Ready condition loses its reason and message: `null`s listed
        // before the changes, as the two halves merge.
        assert_eq!(
            patch["conditions"][0],
            serde_json::json!({"type": "Ready", "reason": null, "message": null})
        );
    }

    /// The first patch, from what the API server stored (the scheduler's
    /// condition, the phase and `QoS` class it set, or less, or more) to the
    /// kubelet's first status: the JSON diff's bytes.
    #[test]
    fn first_patches_are_the_json_diff() {
        use k8s_openapi::api::core::v1::PodCondition;
        let when = |s: i64| {
            Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                k8s_openapi::jiff::Timestamp::from_second(s).expect("a time"),
            ))
        };
        let bound = PodCondition {
            type_: "PodScheduled".into(),
            status: "True".into(),
            last_transition_time: when(1_764_469_230),
            ..Default::default()
        };
        let mut first = pending();
        first.conditions.push(scheduled(&bound));
        let stored = |conditions: Option<Vec<PodCondition>>, phase: Option<&str>| PodStatus {
            conditions,
            phase: phase.map(Into::into),
            qos_class: Some("BestEffort".into()),
            ..Default::default()
        };
        let mut other_qos = stored(Some(vec![bound.clone()]), Some("Pending"));
        other_qos.qos_class = Some("Burstable".into());
        let mut no_qos = first.clone();
        no_qos.qos_class = None;
        let mut moved = bound.clone();
        moved.last_transition_time = when(1_764_469_231);
        let mut with_ip = stored(Some(vec![bound.clone()]), Some("Pending"));
        with_ip.pod_ip = Some("10.244.0.9".into());
        let cases = [
            (
                "as bound",
                Some(stored(Some(vec![bound.clone()]), Some("Pending"))),
                &first,
                true,
            ),
            ("no status", None, &first, true),
            ("no conditions", Some(stored(None, None)), &first, true),
            (
                "empty conditions",
                Some(stored(Some(vec![]), Some("Pending"))),
                &first,
                true,
            ),
            ("another QoS", Some(other_qos), &first, true),
            (
                "QoS gone",
                Some(stored(Some(vec![bound.clone()]), Some("Pending"))),
                &no_qos,
                true,
            ),
            (
                "scheduled moved",
                Some(stored(Some(vec![moved]), Some("Pending"))),
                &first,
                false,
            ),
            ("more stored", Some(with_ip), &first, false),
        ];
        for (name, old, new, typed) in cases {
            let json = smp::two_way(
                "v1.PodStatus",
                &old.as_ref()
                    .map(|s| serde_json::to_value(s).unwrap())
                    .unwrap_or_default(),
                &new.to_value(),
            );
            assert_eq!(from_stored(old.as_ref(), new), json, "{name}");
            assert_eq!(
                typed_from_stored(old.as_ref(), new).is_some(),
                typed,
                "{name}"
            );
        }
    }
}
