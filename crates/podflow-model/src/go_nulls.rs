//! Zero times Go writes as `null`: `metav1.Time` is a struct, and Go's
//! `encoding/json` does not omit a struct for `omitempty`, so a zero time
//! marshals as `null` (`apimachinery/pkg/apis/meta/v1/time.go`, `MarshalJSON`).
//! The one a student meets in every Pod is `PodCondition.LastProbeTime`
//! (`core/v1/types.go`): neither the kubelet nor the scheduler sets it, so
//! `kubectl get pod -o yaml` shows `lastProbeTime: null` on each condition.
//! (`ObjectMeta.CreationTimestamp` is `omitzero` since Kubernetes 1.34, so
//! no `creationTimestamp: null` is written.)

use k8s_openapi::Resource;
use k8s_openapi::api::core::v1::{Pod, PodCondition, PodStatus};
use serde::Serialize;
use serde::ser::{SerializeSeq, SerializeStruct, Serializer};
use serde_json::Value;

/// The Pod as JSON with Go's `null`s, when it has a condition without a
/// probe time (else its own serialization is already Go's): the JSON route
/// [`GoPod`] is checked against.
#[cfg(test)]
fn pod(pod: &Pod) -> Option<Value> {
    if !needs_nulls(pod) {
        return None;
    }
    let mut value = serde_json::to_value(pod).ok()?;
    fill(&mut value);
    Some(value)
}

/// Whether the Pod has a condition without a probe time (Go writes `null`).
pub fn needs_nulls(pod: &Pod) -> bool {
    pod.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|list| list.iter().any(|c| c.last_probe_time.is_none()))
}

/// A Pod serialized as Go writes it, straight from the typed object: the
/// bytes of [`pod`]'s JSON (k8s-openapi writes every struct's fields in the
/// sorted order a JSON object keeps, and a Pod's own `apiVersion`, `kind`,
/// `metadata`, `spec`, `status` are sorted too), each condition without a
/// probe time with `lastProbeTime: null`, and no JSON value made on the way.
pub struct GoPod<'a>(pub &'a Pod);

impl Serialize for GoPod<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let pod = self.0;
        let fields = 3 + usize::from(pod.spec.is_some()) + usize::from(pod.status.is_some());
        let mut state = serializer.serialize_struct(Pod::KIND, fields)?;
        state.serialize_field("apiVersion", Pod::API_VERSION)?;
        state.serialize_field("kind", Pod::KIND)?;
        state.serialize_field("metadata", &pod.metadata)?;
        if let Some(spec) = &pod.spec {
            state.serialize_field("spec", spec)?;
        }
        if let Some(status) = &pod.status {
            state.serialize_field("status", &GoStatus(status))?;
        }
        state.end()
    }
}

/// A `PodStatus` as k8s-openapi writes it, its conditions as [`GoCondition`]s.
struct GoStatus<'a>(&'a PodStatus);

/// Writes each field that is set, in the order given (k8s-openapi's).
macro_rules! optional_fields {
    ($state:ident, $status:ident, $($field:ident => $name:literal),* $(,)?) => {
        $(if let Some(value) = &$status.$field {
            $state.serialize_field($name, value)?;
        })*
    };
}

impl Serialize for GoStatus<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let s = self.0;
        let set = [
            s.allocated_resources.is_some(),
            s.conditions.is_some(),
            s.container_statuses.is_some(),
            s.ephemeral_container_statuses.is_some(),
            s.extended_resource_claim_status.is_some(),
            s.host_ip.is_some(),
            s.host_ips.is_some(),
            s.init_container_statuses.is_some(),
            s.message.is_some(),
            s.node_allocatable_resource_claim_statuses.is_some(),
            s.nominated_node_name.is_some(),
            s.observed_generation.is_some(),
            s.phase.is_some(),
            s.pod_ip.is_some(),
            s.pod_ips.is_some(),
            s.qos_class.is_some(),
            s.reason.is_some(),
            s.resize.is_some(),
            s.resource_claim_statuses.is_some(),
            s.resources.is_some(),
            s.start_time.is_some(),
            s.volume_health.is_some(),
        ];
        let fields = set.iter().filter(|&&b| b).count();
        let mut state = serializer.serialize_struct("PodStatus", fields)?;
        optional_fields!(state, s, allocated_resources => "allocatedResources");
        if let Some(conditions) = &s.conditions {
            state.serialize_field("conditions", &GoConditions(conditions))?;
        }
        optional_fields!(state, s,
            container_statuses => "containerStatuses",
            ephemeral_container_statuses => "ephemeralContainerStatuses",
            extended_resource_claim_status => "extendedResourceClaimStatus",
            host_ip => "hostIP",
            host_ips => "hostIPs",
            init_container_statuses => "initContainerStatuses",
            message => "message",
            node_allocatable_resource_claim_statuses => "nodeAllocatableResourceClaimStatuses",
            nominated_node_name => "nominatedNodeName",
            observed_generation => "observedGeneration",
            phase => "phase",
            pod_ip => "podIP",
            pod_ips => "podIPs",
            qos_class => "qosClass",
            reason => "reason",
            resize => "resize",
            resource_claim_statuses => "resourceClaimStatuses",
            resources => "resources",
            start_time => "startTime",
            volume_health => "volumeHealth",
        );
        state.end()
    }
}

/// A status's conditions, each as a [`GoCondition`].
struct GoConditions<'a>(&'a [PodCondition]);

impl Serialize for GoConditions<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for c in self.0 {
            seq.serialize_element(&GoCondition(c))?;
        }
        seq.end()
    }
}

/// A `PodCondition` as k8s-openapi writes it, with `lastProbeTime: null`
/// when it has none.
struct GoCondition<'a>(&'a PodCondition);

impl Serialize for GoCondition<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let c = self.0;
        let fields = 4
            + usize::from(c.message.is_some())
            + usize::from(c.observed_generation.is_some())
            + usize::from(c.reason.is_some())
            - usize::from(c.last_transition_time.is_none());
        let mut state = serializer.serialize_struct("PodCondition", fields)?;
        state.serialize_field("lastProbeTime", &c.last_probe_time)?;
        optional_fields!(state, c,
            last_transition_time => "lastTransitionTime",
            message => "message",
            observed_generation => "observedGeneration",
            reason => "reason",
        );
        state.serialize_field("status", &c.status)?;
        state.serialize_field("type", &c.type_)?;
        state.end()
    }
}

/// Writes `lastProbeTime: null` into each condition of a Pod's JSON that has none.
pub fn fill(pod: &mut Value) {
    for condition in pod
        .pointer_mut("/status/conditions")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        if let Some(fields) = condition.as_object_mut() {
            fields.entry("lastProbeTime").or_insert(Value::Null);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_without_a_probe_time_say_null() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p"},
            "status": {"conditions": [
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-30T02:20:30Z"},
                {"type": "Ready", "status": "True", "lastProbeTime": "2026-11-30T02:20:31Z"}
            ]}
        }))
        .unwrap();
        let value = super::pod(&pod).unwrap();
        let conditions = &value["status"]["conditions"];
        assert_eq!(conditions[0]["lastProbeTime"], Value::Null);
        assert!(
            conditions[0]
                .as_object()
                .unwrap()
                .contains_key("lastProbeTime")
        );
        assert_eq!(conditions[1]["lastProbeTime"], "2026-11-30T02:20:31Z");
        let without: Pod =
            serde_json::from_value(serde_json::json!({"metadata": {"name": "p"}})).unwrap();
        assert_eq!(super::pod(&without), None);
    }

    /// Every `PodStatus` field set, a spec and metadata: [`GoPod`] writes
    /// the bytes of the JSON route ([`pod`]), JSON and the count of fields.
    #[test]
    fn the_typed_writer_writes_the_json_routes_bytes() {
        use k8s_openapi::api::core::v1::{
            ContainerStatus, HostIP, NodeAllocatableResourceClaimStatus,
            PodExtendedResourceClaimStatus, PodIP, PodResourceClaimStatus, PodVolumeHealth,
            ResourceRequirements,
        };
        use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
        let mut pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p", "namespace": "default", "labels": {"b": "2", "a": "1"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "r",
                    "uid": "u", "controller": true, "blockOwnerDeletion": true}]},
            "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}],
                "resources": {"limits": {"cpu": "1"}}, "securityContext": {"runAsUser": 0}}],
                "hostNetwork": false, "hostname": "h", "nodeName": "n",
                "tolerations": [{"key": "k", "operator": "Exists", "tolerationSeconds": 300}]},
            "status": {"conditions": [
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-30T02:20:30Z"},
                {"type": "Ready", "status": "False", "reason": "R", "message": "m", "observedGeneration": 2},
                {"type": "Initialized", "status": "True", "lastProbeTime": "2026-11-30T02:20:31Z"}
            ]}
        }))
        .unwrap();
        let status = pod.status.as_mut().unwrap();
        status.allocated_resources = Some([("cpu".to_owned(), Quantity("1".into()))].into());
        status.container_statuses = Some(vec![ContainerStatus::default()]);
        status.ephemeral_container_statuses = Some(vec![ContainerStatus::default()]);
        status.extended_resource_claim_status = Some(PodExtendedResourceClaimStatus::default());
        status.host_ip = Some("10.0.0.1".into());
        status.host_ips = Some(vec![HostIP::default()]);
        status.init_container_statuses = Some(vec![ContainerStatus::default()]);
        status.message = Some("m".into());
        status.node_allocatable_resource_claim_statuses =
            Some(vec![NodeAllocatableResourceClaimStatus::default()]);
        status.nominated_node_name = Some("n".into());
        status.observed_generation = Some(3);
        status.phase = Some("Running".into());
        status.pod_ip = Some("10.244.0.2".into());
        status.pod_ips = Some(vec![PodIP::default()]);
        status.qos_class = Some("BestEffort".into());
        status.reason = Some("r".into());
        status.resize = Some("Proposed".into());
        status.resource_claim_statuses = Some(vec![PodResourceClaimStatus::default()]);
        status.resources = Some(ResourceRequirements::default());
        status.start_time = status.conditions.as_ref().unwrap()[0]
            .last_transition_time
            .clone();
        status.volume_health = Some(vec![PodVolumeHealth::default()]);
        let every = serde_json::to_value(&*status).unwrap();
        assert_eq!(
            every.as_object().unwrap().len(),
            22,
            "every PodStatus field"
        );
        let by_value = serde_json::to_string(&super::pod(&pod).unwrap()).unwrap();
        assert_eq!(serde_json::to_string(&GoPod(&pod)).unwrap(), by_value);
        assert!(needs_nulls(&pod));
        assert!(by_value.contains(r#"{"lastProbeTime":null,"lastTransitionTime""#));
    }
}
