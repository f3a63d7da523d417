//! The columns `kubectl get -o wide` adds (priority 1 in the API server's
//! Tables; `pkg/printers/internalversion/printers.go`): a Pod's IP and node,
//! a Node's addresses and runtime, the containers, images and selector of a
//! deployment, replica set or job, a service's selector, a binding's subjects.

use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::api::rbac::v1::Subject;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::apiserver::scale::format_selector;
use podflow_model::Object;

const WORKLOAD: &[&str] = &["CONTAINERS", "IMAGES", "SELECTOR"];
const BINDING: &[&str] = &["USERS", "GROUPS", "SERVICEACCOUNTS"];

/// The wide columns of `kind`'s table.
pub fn header(kind: &str) -> &'static [&'static str] {
    match kind {
        "Pod" => &["IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
        "Node" => &[
            "INTERNAL-IP",
            "EXTERNAL-IP",
            "OS-IMAGE",
            "KERNEL-VERSION",
            "CONTAINER-RUNTIME",
        ],
        "Deployment" | "ReplicaSet" | "Job" => WORKLOAD,
        "Service" => &["SELECTOR"],
        "RoleBinding" | "ClusterRoleBinding" => BINDING,
        _ => &[],
    }
}

fn absent() -> String {
    "<none>".to_owned()
}

fn or_none(value: Option<&str>) -> String {
    value
        .filter(|v| !v.is_empty())
        .map_or_else(absent, str::to_owned)
}

/// An object's wide cells, under [`header`].
pub fn cells(object: &Object) -> Vec<String> {
    match object {
        Object::Pod(pod) => {
            let status = pod.status.as_ref();
            vec![
                or_none(status.and_then(|s| s.pod_ip.as_deref())),
                or_none(pod.spec.as_ref().and_then(|s| s.node_name.as_deref())),
                or_none(status.and_then(|s| s.nominated_node_name.as_deref())),
                readiness_gates(pod),
            ]
        }
        Object::Node(node) => {
            let status = node.status.as_ref();
            let address = |kind: &str| {
                or_none(
                    status
                        .and_then(|s| s.addresses.as_ref())
                        .and_then(|a| a.iter().find(|a| a.type_ == kind))
                        .map(|a| a.address.as_str()),
                )
            };
            let info = status.and_then(|s| s.node_info.as_ref());
            vec![
                address("InternalIP"),
                address("ExternalIP"),
                or_none(info.map(|i| i.os_image.as_str())),
                or_none(info.map(|i| i.kernel_version.as_str())),
                or_none(info.map(|i| i.container_runtime_version.as_str())),
            ]
        }
        Object::Deployment(d) => workload(&d.spec.template, Some(&d.spec.selector)),
        Object::ReplicaSet(rs) => workload(
            rs.spec
                .template
                .as_ref()
                .unwrap_or(&PodTemplateSpec::default()),
            Some(&rs.spec.selector),
        ),
        Object::Job(job) => job
            .spec
            .as_ref()
            .map_or_else(Vec::new, |s| workload(&s.template, s.selector.as_ref())),
        Object::Service(svc) => {
            let selector = svc.spec.as_ref().and_then(|s| s.selector.as_ref());
            vec![selector.filter(|s| !s.is_empty()).map_or_else(absent, |s| {
                s.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            })]
        }
        Object::RoleBinding(b) => subjects(b.subjects.as_deref().unwrap_or_default()),
        Object::ClusterRoleBinding(b) => subjects(b.subjects.as_deref().unwrap_or_default()),
        _ => Vec::new(),
    }
}

/// `ready/total` of a Pod's readiness gates, `<none>` without any.
fn readiness_gates(pod: &k8s_openapi::api::core::v1::Pod) -> String {
    let Some(gates) = pod
        .spec
        .as_ref()
        .and_then(|s| s.readiness_gates.as_ref())
        .filter(|g| !g.is_empty())
    else {
        return absent();
    };
    let conditions = pod
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or_default();
    let ready = gates
        .iter()
        .filter(|gate| {
            conditions
                .iter()
                .any(|c| c.type_ == gate.condition_type && c.status == "True")
        })
        .count();
    format!("{ready}/{}", gates.len())
}

/// CONTAINERS, IMAGES (each comma-joined) and SELECTOR of a Pod template.
fn workload(template: &PodTemplateSpec, selector: Option<&LabelSelector>) -> Vec<String> {
    let containers = template
        .spec
        .as_ref()
        .map(|s| s.containers.as_slice())
        .unwrap_or_default();
    let names: Vec<&str> = containers.iter().map(|c| c.name.as_str()).collect();
    let images: Vec<&str> = containers
        .iter()
        .map(|c| c.image.as_deref().unwrap_or_default())
        .collect();
    vec![
        names.join(","),
        images.join(","),
        selector.map_or_else(absent, format_selector),
    ]
}

/// USERS, GROUPS and SERVICEACCOUNTS (`namespace/name`) of a binding's subjects.
fn subjects(subjects: &[Subject]) -> Vec<String> {
    let of = |kind: &str| {
        subjects
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| match (kind, s.namespace.as_deref()) {
                ("ServiceAccount", Some(ns)) => format!("{ns}/{}", s.name),
                _ => s.name.clone(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    vec![of("User"), of("Group"), of("ServiceAccount")]
}
