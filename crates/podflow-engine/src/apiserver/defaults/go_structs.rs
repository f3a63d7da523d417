//! Fields that are structs, not pointers, in `k8s.io/api`'s Go types: Go's
//! `encoding/json` never omits a struct (`omitempty` leaves structs alone),
//! so the API server returns and stores them even when empty, and
//! `kubectl get -o yaml` shows `resources: {}`. podflow's types hold them as
//! `Option`s; this fills the empty ones in, where the API server decodes an
//! object, so that what it stores is what Go would write:
//!
//! - `Container.Resources ResourceRequirements` (`core/v1/types.go`), in
//!   every container, init container and ephemeral container;
//! - `PodTemplateSpec.ObjectMeta` (`metadata: {}`; its `CreationTimestamp`
//!   is `omitzero` in `apimachinery/pkg/apis/meta/v1/types.go`, so no
//!   `creationTimestamp: null` since Kubernetes 1.33);
//! - `ServiceStatus.LoadBalancer LoadBalancerStatus` (`status: {loadBalancer: {}}`);
//! - `PersistentVolumeClaimSpec.Resources VolumeResourceRequirements`.
//!
//! The pod-template-hash is not changed by it: go-spew dumps a zero struct
//! the same whether or not the JSON named it.

use k8s_openapi::api::core::v1::{
    LoadBalancerStatus, PodSpec, PodTemplateSpec, ResourceRequirements, ServiceStatus,
    VolumeResourceRequirements,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use podflow_model::Object;

/// Fills in `object`'s empty non-pointer structs.
pub fn fill(object: &mut Object) {
    match object {
        Object::Pod(pod) => {
            if let Some(spec) = pod.spec.as_mut() {
                pod_spec(spec);
            }
        }
        Object::Deployment(deployment) => template(&mut deployment.spec.template),
        Object::ReplicaSet(rs) => {
            if let Some(t) = rs.spec.template.as_mut() {
                template(t);
            }
        }
        Object::Job(job) => {
            if let Some(spec) = job.spec.as_mut() {
                template(&mut spec.template);
            }
        }
        Object::Service(svc) => {
            svc.status
                .get_or_insert_with(ServiceStatus::default)
                .load_balancer
                .get_or_insert_with(LoadBalancerStatus::default);
        }
        Object::PersistentVolumeClaim(pvc) => {
            if let Some(spec) = pvc.spec.as_mut() {
                spec.resources
                    .get_or_insert_with(VolumeResourceRequirements::default);
            }
        }
        _ => {}
    }
}

fn template(template: &mut PodTemplateSpec) {
    template.metadata.get_or_insert_with(ObjectMeta::default);
    if let Some(spec) = template.spec.as_mut() {
        pod_spec(spec);
    }
}

fn pod_spec(spec: &mut PodSpec) {
    for container in spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut().flatten())
    {
        container
            .resources
            .get_or_insert_with(ResourceRequirements::default);
    }
    for container in spec.ephemeral_containers.iter_mut().flatten() {
        container
            .resources
            .get_or_insert_with(ResourceRequirements::default);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(value: serde_json::Value) -> serde_json::Value {
        let kind = podflow_model::kinds::kind_of(value["kind"].as_str().unwrap());
        let mut object = Object::from_json(kind, value).unwrap();
        fill(&mut object);
        serde_json::to_value(&object).unwrap()
    }

    /// What `kubectl get -o yaml` shows of objects sent without these fields.
    #[test]
    fn empty_structs_are_written_as_go_writes_them() {
        let pod = filled(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "a", "image": "nginx"}],
                     "initContainers": [{"name": "i", "image": "busybox"}]}
        }));
        assert_eq!(
            pod["spec"]["containers"][0]["resources"],
            serde_json::json!({})
        );
        assert_eq!(
            pod["spec"]["initContainers"][0]["resources"],
            serde_json::json!({})
        );
        let deployment = filled(serde_json::json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"selector": {"matchLabels": {}},
                     "template": {"spec": {"containers": [{"name": "a"}]}}}
        }));
        let template = &deployment["spec"]["template"];
        assert_eq!(template["metadata"], serde_json::json!({}));
        assert_eq!(
            template["spec"]["containers"][0]["resources"],
            serde_json::json!({})
        );
        let service = filled(serde_json::json!({
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {}
        }));
        assert_eq!(service["status"], serde_json::json!({"loadBalancer": {}}));
        // Resources already there are kept.
        let limited = filled(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "a", "resources": {"limits": {"cpu": "1"}}}]}
        }));
        assert_eq!(
            limited["spec"]["containers"][0]["resources"],
            serde_json::json!({"limits": {"cpu": "1"}})
        );
    }
}
