//! A strategic merge patch of a Pod's `status` applied to the typed
//! `PodStatus`, field by field, for the shapes kubelets send
//! (`statusutil.PatchPodStatus`): scalars set or `null`ed, `conditions`
//! merged by `type`, `podIPs` and `hostIPs` by `ip`, the container statuses
//! (no merge key in `k8s.io/api`'s struct tags) replaced whole, and
//! `$setElementOrder` for the keyed lists. The result is the one
//! [`strategic_merge_patch::apply`](super::strategic_merge_patch::apply)
//! gives on the status as JSON, decoded; any other shape (another field or
//! directive, a value of the wrong type) is `None`, and the JSON way answers.
//!
//! The stored status goes through JSON on that way, and JSON keeps whole
//! seconds of a timestamp (as `metav1.Time` does, in JSON and protobuf
//! alike): the typed way drops the fractions the same way ([`as_stored`]).

use k8s_openapi::api::core::v1::{HostIP, PodCondition, PodIP, PodStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// `status` (absent: empty) with `patch` (the value of the patch's `status`)
/// applied; `None` when the patch holds a shape this does not take.
pub fn apply(status: Option<&PodStatus>, patch: &Map<String, Value>) -> Option<PodStatus> {
    patched(status, patch).ok()
}

/// A value the typed way does not take: the JSON way answers for it.
struct Unfit;

fn patched(status: Option<&PodStatus>, patch: &Map<String, Value>) -> Result<PodStatus, Unfit> {
    let mut out = status.cloned().unwrap_or_default();
    as_stored(&mut out);
    for (field, value) in patch {
        match field.as_str() {
            "conditions" => merge(&mut out.conditions, value)?,
            "podIPs" => merge(&mut out.pod_ips, value)?,
            "hostIPs" => merge(&mut out.host_ips, value)?,
            "containerStatuses" => out.container_statuses = replaced(value)?,
            "initContainerStatuses" => out.init_container_statuses = replaced(value)?,
            "ephemeralContainerStatuses" => {
                out.ephemeral_container_statuses = replaced(value)?;
            }
            "phase" => out.phase = text(value)?,
            "podIP" => out.pod_ip = text(value)?,
            "hostIP" => out.host_ip = text(value)?,
            "qosClass" => out.qos_class = text(value)?,
            "message" => out.message = text(value)?,
            "reason" => out.reason = text(value)?,
            "nominatedNodeName" => out.nominated_node_name = text(value)?,
            "startTime" => out.start_time = time(value)?,
            "observedGeneration" => out.observed_generation = number(value)?,
            "$setElementOrder/conditions"
            | "$setElementOrder/podIPs"
            | "$setElementOrder/hostIPs" => {}
            _ => return Err(Unfit),
        }
    }
    // The order directives apply once every field is merged, as upstream's.
    for (field, order) in patch {
        let Value::Array(order) = order else {
            continue;
        };
        match field.as_str() {
            "$setElementOrder/conditions" => set_order(out.conditions.as_deref_mut(), order),
            "$setElementOrder/podIPs" => set_order(out.pod_ips.as_deref_mut(), order),
            "$setElementOrder/hostIPs" => set_order(out.host_ips.as_deref_mut(), order),
            _ => {}
        }
    }
    Ok(out)
}

/// The status as its JSON gives it back: each timestamp in whole seconds.
fn as_stored(status: &mut PodStatus) {
    for condition in status.conditions.iter_mut().flatten() {
        whole_seconds(&mut condition.last_probe_time);
        whole_seconds(&mut condition.last_transition_time);
    }
    whole_seconds(&mut status.start_time);
    let lists = [
        &mut status.container_statuses,
        &mut status.init_container_statuses,
        &mut status.ephemeral_container_statuses,
    ];
    for container in lists.into_iter().flatten().flatten() {
        let now_and_last = [&mut container.state, &mut container.last_state];
        for state in now_and_last.into_iter().flatten() {
            if let Some(running) = &mut state.running {
                whole_seconds(&mut running.started_at);
            }
            if let Some(terminated) = &mut state.terminated {
                whole_seconds(&mut terminated.started_at);
                whole_seconds(&mut terminated.finished_at);
            }
        }
    }
}

/// A timestamp as `%Y-%m-%dT%H:%M:%SZ` keeps it: the second it falls in.
fn whole_seconds(time: &mut Option<Time>) {
    let Some(Time(t)) = time else {
        return;
    };
    if t.subsec_nanosecond() != 0 {
        let second = t.as_second() - i64::from(t.subsec_nanosecond() < 0);
        *t = k8s_openapi::jiff::Timestamp::from_second(second).unwrap_or(*t);
    }
}

/// An element of a list that merges by key (`patchMergeKey` in `k8s.io/api`).
trait Keyed: Clone + DeserializeOwned {
    /// The merge key's JSON name.
    const KEY: &'static str;

    /// This element's key.
    fn key(&self) -> &str;

    /// This element with a patch element of its key merged in; unfit when
    /// a value is not of its field's type.
    fn merged(&self, element: &Map<String, Value>) -> Result<Self, Unfit>;
}

impl Keyed for PodCondition {
    const KEY: &'static str = "type";

    fn key(&self) -> &str {
        &self.type_
    }

    fn merged(&self, element: &Map<String, Value>) -> Result<PodCondition, Unfit> {
        let mut merged = self.clone();
        for (field, value) in element {
            match field.as_str() {
                // `status` is required: `null` leaves a condition that does not decode.
                "status" => merged.status = text(value)?.ok_or(Unfit)?,
                "reason" => merged.reason = text(value)?,
                "message" => merged.message = text(value)?,
                "lastProbeTime" => merged.last_probe_time = time(value)?,
                "lastTransitionTime" => merged.last_transition_time = time(value)?,
                "observedGeneration" => merged.observed_generation = number(value)?,
                // The key itself, and what decoding would drop.
                _ => {}
            }
        }
        Ok(merged)
    }
}

/// The addresses (`podIPs`, `hostIPs`): keyed by `ip`, and holding nothing
/// but it, so an element of the same `ip` merges into what is there.
macro_rules! keyed_by_ip {
    ($($address:ty),*) => {$(
        impl Keyed for $address {
            const KEY: &'static str = "ip";

            fn key(&self) -> &str {
                &self.ip
            }

            fn merged(&self, _: &Map<String, Value>) -> Result<$address, Unfit> {
                Ok(self.clone())
            }
        }
    )*};
}

keyed_by_ip!(PodIP, HostIP);

/// A list that merges by key (`mergeSlice`): each element merged into the
/// one of its key, appended when none has it, removed by `$patch: delete`;
/// `null` clears it, and a list the status does not hold yet is set.
fn merge<T: Keyed>(list: &mut Option<Vec<T>>, value: &Value) -> Result<(), Unfit> {
    let (Some(current), Value::Array(items)) = (list.as_mut(), value) else {
        *list = replaced(value)?;
        return Ok(());
    };
    // A decoded list holds no spare room (serde sizes it from the JSON array):
    // room for every element first, the rest given back at the end.
    current.reserve_exact(items.len());
    for item in items {
        let Value::Object(element) = item else {
            return Err(Unfit);
        };
        let id = element.get(T::KEY).and_then(Value::as_str).ok_or(Unfit)?;
        let at = current.iter().position(|c| c.key() == id);
        match element.get("$patch") {
            Some(directive) if directive.as_str() == Some("delete") && element.len() == 2 => {
                if let Some(at) = at {
                    current.remove(at);
                }
            }
            Some(_) => return Err(Unfit),
            None if element.keys().any(|k| k.starts_with('$')) => return Err(Unfit),
            None => match at {
                Some(at) => current[at] = current[at].merged(element)?,
                None => current.push(decode(item)?),
            },
        }
    }
    current.shrink_to_fit();
    Ok(())
}

/// A list set whole (`null` clears it): its elements but those marked
/// `$patch: delete`, decoded.
fn replaced<T: DeserializeOwned>(value: &Value) -> Result<Option<Vec<T>>, Unfit> {
    match value {
        Value::Null => Ok(None),
        Value::Array(items) => {
            // Sized as serde sizes a decoded list: no spare room.
            let mut list = Vec::with_capacity(items.len());
            for item in items {
                if item.get("$patch").and_then(Value::as_str) != Some("delete") {
                    list.push(decode(item)?);
                }
            }
            list.shrink_to_fit();
            Ok(Some(list))
        }
        _ => Err(Unfit),
    }
}

/// `$setElementOrder`: the elements it names in its order, the others after
/// them in theirs (`normalizeElementOrder`).
fn set_order<T: Keyed>(list: Option<&mut [T]>, order: &[Value]) {
    let Some(list) = list else {
        return;
    };
    let rank = |element: &T| {
        order
            .iter()
            .position(|o| o.get(T::KEY).and_then(Value::as_str) == Some(element.key()))
            .unwrap_or(usize::MAX)
    };
    list.sort_by_cached_key(rank);
}

/// A string field: `None` for `null`.
fn text(value: &Value) -> Result<Option<String>, Unfit> {
    match value {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        _ => Err(Unfit),
    }
}

/// A timestamp field, as `text`.
fn time(value: &Value) -> Result<Option<Time>, Unfit> {
    match value {
        Value::Null => Ok(None),
        Value::String(_) => decode(value).map(Some),
        _ => Err(Unfit),
    }
}

/// An integer field, as `text`.
fn number(value: &Value) -> Result<Option<i64>, Unfit> {
    match value {
        Value::Null => Ok(None),
        _ => value.as_i64().map(Some).ok_or(Unfit),
    }
}

fn decode<T: DeserializeOwned>(value: &Value) -> Result<T, Unfit> {
    T::deserialize(value).map_err(|_| Unfit)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::apiserver::strategic_merge_patch;

    /// The status the JSON way gives: the status as JSON, patched, decoded.
    fn json_way(status: &PodStatus, patch: &Value) -> Option<PodStatus> {
        let mut pod = json!({"status": serde_json::to_value(status).ok()?});
        let root = strategic_merge_patch::root("Pod");
        strategic_merge_patch::apply(root, &mut pod, &json!({ "status": patch }));
        serde_json::from_value(pod["status"].take()).ok()
    }

    fn stored() -> PodStatus {
        serde_json::from_value(json!({
            "phase": "Pending",
            "qosClass": "Burstable",
            "conditions": [
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-30T02:20:31Z"},
                {"type": "Ready", "status": "False", "reason": "ContainersNotReady"}
            ],
            "podIPs": [{"ip": "10.0.0.1"}]
        }))
        .expect("a status")
    }

    /// Each shape a kubelet sends, and the directives around it: the typed
    /// way gives what the JSON way gives (`strategicpatch/patch_test.go`'s
    /// merge and order cases, on a `PodStatus`).
    #[test]
    fn the_typed_way_gives_what_the_json_way_gives() {
        for (name, patch) in [
            (
                "the kubelet's first patch",
                json!({
                    "$setElementOrder/conditions": [
                        {"type": "PodReadyToStartContainers"}, {"type": "Initialized"},
                        {"type": "Ready"}, {"type": "PodScheduled"}
                    ],
                    "conditions": [
                        {"type": "PodReadyToStartContainers", "status": "False", "lastProbeTime": null,
                         "lastTransitionTime": "2026-11-30T02:20:31Z"},
                        {"type": "Initialized", "status": "True", "lastProbeTime": null,
                         "lastTransitionTime": "2026-11-30T02:20:31Z"},
                        {"type": "Ready", "reason": null, "status": "True"}
                    ],
                    "containerStatuses": [{"name": "nginx", "image": "nginx:1.27", "imageID": "",
                        "ready": false, "restartCount": 0, "started": false,
                        "state": {"waiting": {"reason": "ContainerCreating"}}}],
                    "hostIP": "172.18.0.2",
                    "hostIPs": [{"ip": "172.18.0.2"}],
                    "startTime": "2026-11-30T02:20:31Z"
                }),
            ),
            (
                "a scalar cleared, an address added",
                json!({
                    "qosClass": null, "phase": "Running", "podIP": "10.0.0.2",
                    "$setElementOrder/podIPs": [{"ip": "10.0.0.2"}, {"ip": "10.0.0.1"}],
                    "podIPs": [{"ip": "10.0.0.2"}]
                }),
            ),
            (
                "a condition deleted",
                json!({
                    "conditions": [{"$patch": "delete", "type": "Ready"}]
                }),
            ),
            (
                "a list cleared",
                json!({"conditions": null, "containerStatuses": null}),
            ),
            (
                "reordered only",
                json!({
                    "$setElementOrder/conditions": [{"type": "Ready"}, {"type": "PodScheduled"}]
                }),
            ),
            (
                "an order naming some",
                json!({
                    "$setElementOrder/conditions": [{"type": "Ready"}],
                    "conditions": [{"type": "DisruptionTarget", "status": "True"}]
                }),
            ),
        ] {
            let typed = apply(Some(&stored()), patch.as_object().expect("a map"));
            assert!(typed.is_some(), "{name}: taken by the typed way");
            assert_eq!(typed, json_way(&stored(), &patch), "{name}");
        }
    }

    /// A stored timestamp with a fraction (as a client may write one) comes
    /// back in whole seconds, as from JSON.
    #[test]
    fn stored_timestamps_keep_whole_seconds() {
        let mut status = stored();
        let precise: k8s_openapi::jiff::Timestamp =
            "2026-11-30T02:20:31.006Z".parse().expect("a time");
        status.conditions.as_mut().expect("conditions")[0].last_transition_time =
            Some(Time(precise));
        status.start_time = Some(Time(precise));
        let patch = json!({"phase": "Running"});
        let typed = apply(Some(&status), patch.as_object().expect("a map"));
        assert_eq!(typed, json_way(&status, &patch));
        let start = typed.and_then(|s| s.start_time).expect("a start time");
        assert_eq!(start.0.to_string(), "2026-11-30T02:20:31Z");
    }

    /// What the typed way leaves to the JSON way: other fields and
    /// directives, values of the wrong type, a required field cleared.
    #[test]
    fn other_shapes_are_left_to_the_json_way() {
        for (name, patch) in [
            ("another field", json!({"resize": "Proposed"})),
            ("retained keys", json!({"$retainKeys": ["phase"]})),
            ("a number for a string", json!({"phase": 7})),
            (
                "a condition's status cleared",
                json!({"conditions": [{"type": "Ready", "status": null}]}),
            ),
            (
                "an element without its key",
                json!({"conditions": [{"status": "True"}]}),
            ),
            (
                "an element replaced",
                json!({"conditions": [{"type": "Ready", "$patch": "replace"}]}),
            ),
            (
                "an order for a list without a key",
                json!({"$setElementOrder/containerStatuses": []}),
            ),
        ] {
            assert_eq!(
                apply(Some(&stored()), patch.as_object().expect("a map")),
                None,
                "{name}"
            );
        }
    }
}
