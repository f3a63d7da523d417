//! `kubectl describe node` (`describeNode`, `describeNodeLease` and
//! `describeNodeResource` of `pkg/describe/describe.go`): the Pods' requests
//! and limits as `resourcehelper.PodRequests`/`PodLimits` add them up.

use std::collections::BTreeMap;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Container, Node, Pod, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::Related;
use super::sections::{
    LEVEL_0, LEVEL_1, Writer, annotations, events, labels, quantity, rfc1123z, rfc1123z_micro,
    taints,
};
use crate::clock::SimTime;
use crate::kubectl_printers::age;
use podflow_model::quantity::{Format, ParsedQuantity};

/// Resource name to amount, as a `corev1.ResourceList`.
type Resources = BTreeMap<String, ParsedQuantity>;

/// The lines of `kubectl describe node`. `related.pods` may hold any Pods:
/// those bound to the node and not finished are listed (the describer's
/// field selector); `related.lease` adds the Lease section.
pub fn describe(node: &Node, related: &Related, now: SimTime) -> Vec<String> {
    let mut w = Writer::new();
    let name = node.metadata.name.as_deref().unwrap_or_default();
    let spec = node.spec.clone().unwrap_or_default();
    let status = node.status.clone().unwrap_or_default();
    w.field(LEVEL_0, "Name", name);
    let roles = roles(node);
    w.field(
        LEVEL_0,
        "Roles",
        if roles.is_empty() {
            "<none>".to_owned()
        } else {
            roles.join(",")
        },
    );
    labels(&mut w, "Labels", node.metadata.labels.as_ref());
    annotations(&mut w, "Annotations", node.metadata.annotations.as_ref());
    w.field(
        LEVEL_0,
        "CreationTimestamp",
        rfc1123z(node.metadata.creation_timestamp.as_ref()),
    );
    taints(&mut w, "Taints", spec.taints.as_deref().unwrap_or_default());
    w.field(
        LEVEL_0,
        "Unschedulable",
        spec.unschedulable.unwrap_or(false),
    );
    if let Some(lease) = related.lease.as_ref().and_then(|l| l.get::<Lease>()) {
        describe_lease(&mut w, lease);
    }
    conditions(&mut w, node);
    w.line(LEVEL_0, "Addresses:");
    for address in status.addresses.iter().flatten() {
        w.field(LEVEL_1, &address.type_, &address.address);
    }
    for (title, list) in [
        ("Capacity", &status.capacity),
        ("Allocatable", &status.allocatable),
    ] {
        if let Some(list) = list.as_ref().filter(|l| !l.is_empty()) {
            w.line(LEVEL_0, &format!("{title}:"));
            for (resource, value) in list {
                w.field(LEVEL_1, resource, quantity(value));
            }
        }
    }
    let info = status.node_info.clone().unwrap_or_default();
    w.line(LEVEL_0, "System Info:");
    for (field, value) in [
        ("Machine ID", &info.machine_id),
        ("System UUID", &info.system_uuid),
        ("Boot ID", &info.boot_id),
        ("Kernel Version", &info.kernel_version),
        ("OS Image", &info.os_image),
        ("Operating System", &info.operating_system),
        ("Architecture", &info.architecture),
        ("Container Runtime Version", &info.container_runtime_version),
        ("Kubelet Version", &info.kubelet_version),
    ] {
        w.field(LEVEL_1, field, value);
    }
    if let Some(cidr) = spec.pod_cidr.as_deref().filter(|c| !c.is_empty()) {
        w.field(LEVEL_0, "PodCIDR", cidr);
    }
    if let Some(cidrs) = spec.pod_cidrs.as_ref().filter(|c| !c.is_empty()) {
        w.field(LEVEL_0, "PodCIDRs", cidrs.join(","));
    }
    if let Some(provider) = spec.provider_id.as_deref().filter(|p| !p.is_empty()) {
        w.field(LEVEL_0, "ProviderID", provider);
    }
    let pods: Vec<&Pod> = related
        .pods
        .iter()
        .filter_map(|o| o.as_pod())
        .filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(name))
        .filter(|p| {
            let phase = p.status.as_ref().and_then(|s| s.phase.as_deref());
            phase != Some("Succeeded") && phase != Some("Failed")
        })
        .collect();
    describe_node_resource(&mut w, node, &pods, now);
    events(&mut w, &related.events, now);
    w.finish()
}

/// The `Conditions:` table: type, status, heartbeat and transition times, reason, message.
fn conditions(w: &mut Writer, node: &Node) {
    let conditions = node
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or_default();
    if conditions.is_empty() {
        return;
    }
    w.line(LEVEL_0, "Conditions:");
    w.line(
        LEVEL_1,
        "Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage",
    );
    w.line(
        LEVEL_1,
        "----\t------\t-----------------\t------------------\t------\t-------",
    );
    for c in conditions {
        w.line(
            LEVEL_1,
            &format!(
                "{} \t{} \t{} \t{} \t{} \t{}",
                c.type_,
                c.status,
                rfc1123z(c.last_heartbeat_time.as_ref()),
                rfc1123z(c.last_transition_time.as_ref()),
                c.reason.as_deref().unwrap_or_default(),
                c.message.as_deref().unwrap_or_default(),
            ),
        );
    }
}

/// `findNodeRoles`: `node-role.kubernetes.io/<role>` labels and
/// `kubernetes.io/role=<role>`, sorted.
fn roles(node: &Node) -> Vec<String> {
    let mut roles: Vec<String> = node
        .metadata
        .labels
        .iter()
        .flatten()
        .filter_map(|(k, v)| match k.strip_prefix("node-role.kubernetes.io/") {
            Some(role) if !role.is_empty() => Some(role.to_owned()),
            Some(_) => None,
            None => (k == "kubernetes.io/role" && !v.is_empty()).then(|| v.clone()),
        })
        .collect();
    roles.sort();
    roles.dedup();
    roles
}

/// `describeNodeLease`: the holder and the acquire and renew times, `<unset>` when absent.
fn describe_lease(w: &mut Writer, lease: &Lease) {
    let spec = lease.spec.clone().unwrap_or_default();
    w.line(LEVEL_0, "Lease:");
    w.field(
        LEVEL_1,
        "HolderIdentity",
        spec.holder_identity.as_deref().unwrap_or("<unset>"),
    );
    for (field, time) in [
        ("AcquireTime", spec.acquire_time.as_ref()),
        ("RenewTime", spec.renew_time.as_ref()),
    ] {
        let text = time.map_or_else(|| "<unset>".to_owned(), |t| rfc1123z_micro(Some(t)));
        w.field(LEVEL_1, field, text);
    }
}

fn zero() -> ParsedQuantity {
    ParsedQuantity::from_units(0, Format::DecimalSI)
}

/// `int64(float64(part) / float64(whole) * 100)`; a zero whole gives what
/// Go's conversion of an infinite or NaN float gives on amd64.
#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
fn percent(part: i64, whole: i64) -> i64 {
    if whole == 0 {
        return i64::MIN;
    }
    (part as f64 / whole as f64 * 100.0) as i64
}

/// `describeNodeResource`: each Pod's cpu and memory against the allocatable,
/// then the totals (`Allocated resources`).
fn describe_node_resource(w: &mut Writer, node: &Node, pods: &[&Pod], now: SimTime) {
    w.field(
        LEVEL_0,
        "Non-terminated Pods",
        format!("({} in total)", pods.len()),
    );
    w.line(
        LEVEL_1,
        "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge",
    );
    w.line(
        LEVEL_1,
        "---------\t----\t\t------------\t----------\t---------------\t-------------\t---",
    );
    let status = node.status.clone().unwrap_or_default();
    let allocatable: Resources = read(
        status
            .allocatable
            .as_ref()
            .filter(|a| !a.is_empty())
            .or(status.capacity.as_ref()),
    );
    let of = |list: &Resources, name: &str| list.get(name).copied().unwrap_or_else(zero);
    let cpu_allocatable = of(&allocatable, "cpu").milli_value();
    let memory_allocatable = of(&allocatable, "memory").value();
    let cell = |q: ParsedQuantity, whole: i64, milli: bool| {
        let part = if milli { q.milli_value() } else { q.value() };
        format!("{q} ({}%)", percent(part, whole))
    };
    for pod in pods {
        let requests = pod_total(pod, |r| r.requests.as_ref(), true);
        let limits = pod_total(pod, |r| r.limits.as_ref(), false);
        w.line(
            LEVEL_1,
            &format!(
                "{}\t{}\t\t{}\t{}\t{}\t{}\t{}",
                pod.metadata.namespace.as_deref().unwrap_or_default(),
                pod.metadata.name.as_deref().unwrap_or_default(),
                cell(of(&requests, "cpu"), cpu_allocatable, true),
                cell(of(&limits, "cpu"), cpu_allocatable, true),
                cell(of(&requests, "memory"), memory_allocatable, false),
                cell(of(&limits, "memory"), memory_allocatable, false),
                age(pod.metadata.creation_timestamp.as_ref(), now),
            ),
        );
    }
    w.line(LEVEL_0, "Allocated resources:");
    w.line(
        LEVEL_0,
        "  (Total limits may be over 100 percent, i.e., overcommitted.)",
    );
    w.line(LEVEL_1, "Resource\tRequests\tLimits");
    w.line(LEVEL_1, "--------\t--------\t------");
    let (mut requests, mut limits) = (Resources::new(), Resources::new());
    for pod in pods {
        add(
            &mut requests,
            &pod_total(pod, |r| r.requests.as_ref(), true),
        );
        add(&mut limits, &pod_total(pod, |r| r.limits.as_ref(), false));
    }
    let total_row = |w: &mut Writer, name: &str, milli: bool| {
        let whole = of(&allocatable, name);
        let whole = if milli {
            whole.milli_value()
        } else {
            whole.value()
        };
        let share = |q: ParsedQuantity| {
            let part = if milli { q.milli_value() } else { q.value() };
            if whole == 0 { 0 } else { percent(part, whole) }
        };
        let (request, limit) = (of(&requests, name), of(&limits, name));
        w.line(
            LEVEL_1,
            &format!(
                "{name}\t{request} ({}%)\t{limit} ({}%)",
                share(request),
                share(limit)
            ),
        );
    };
    total_row(w, "cpu", true);
    total_row(w, "memory", false);
    total_row(w, "ephemeral-storage", false);
    for name in allocatable.keys().filter(|k| k.starts_with("hugepages-")) {
        total_row(w, name, false);
    }
    let standard = |k: &str| {
        matches!(k, "cpu" | "memory" | "ephemeral-storage" | "pods") || k.starts_with("hugepages-")
    };
    for name in allocatable.keys().filter(|k| !standard(k)) {
        w.line(
            LEVEL_1,
            &format!("{name}\t{}\t{}", of(&requests, name), of(&limits, name)),
        );
    }
}

/// A resource list's quantities, those that parse.
fn read(list: Option<&BTreeMap<String, Quantity>>) -> Resources {
    list.into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), ParsedQuantity::parse(&v.0).ok()?)))
        .collect()
}

/// `addResourceList`.
fn add(total: &mut Resources, more: &Resources) {
    for (name, q) in more {
        let sum = total.get(name).map_or(*q, |t| t.add(q));
        total.insert(name.clone(), sum);
    }
}

/// `maxResourceList`.
fn max(total: &mut Resources, more: &Resources) {
    for (name, q) in more {
        if total.get(name).is_none_or(|t| q > t) {
            total.insert(name.clone(), *q);
        }
    }
}

/// `resourcehelper.PodRequests` (`requests`) or `PodLimits` from the spec:
/// the app containers and sidecars summed, at least each init container's
/// need (with the sidecars started before it), pod-level resources over
/// them, plus the overhead (for limits, only where a limit is set).
fn pod_total(
    pod: &Pod,
    pick: fn(&ResourceRequirements) -> Option<&BTreeMap<String, Quantity>>,
    requests: bool,
) -> Resources {
    let Some(spec) = pod.spec.as_ref() else {
        return Resources::new();
    };
    let of = |c: &Container| read(c.resources.as_ref().and_then(pick));
    let mut total = Resources::new();
    for container in &spec.containers {
        add(&mut total, &of(container));
    }
    let mut sidecars = Resources::new();
    let mut init_need = Resources::new();
    for container in spec.init_containers.iter().flatten() {
        let own = of(container);
        if container.restart_policy.as_deref() == Some("Always") {
            add(&mut total, &own);
            add(&mut sidecars, &own);
            max(&mut init_need, &sidecars);
        } else {
            let mut need = own;
            add(&mut need, &sidecars);
            max(&mut init_need, &need);
        }
    }
    max(&mut total, &init_need);
    // IsPodLevelRequestsSet for requests, IsPodLevelResourcesSet for limits.
    let supported = |k: &String| k == "cpu" || k == "memory" || k.starts_with("hugepages-");
    let pod_level = spec.resources.as_ref();
    let sets =
        |list: Option<&BTreeMap<String, _>>| list.into_iter().flatten().any(|(k, _)| supported(k));
    let applies = sets(pod_level.and_then(|r| r.requests.as_ref()))
        || (!requests && sets(pod_level.and_then(|r| r.limits.as_ref())));
    if applies {
        let own = read(pod_level.and_then(pick));
        for (name, q) in own.into_iter().filter(|(k, _)| supported(k)) {
            total.insert(name, q);
        }
    }
    for (name, q) in read(spec.overhead.as_ref()) {
        match total.get_mut(&name) {
            Some(t) if requests || !t.is_zero() => *t = t.add(&q),
            None if requests => {
                total.insert(name, q);
            }
            _ => {}
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::{Value, json};

    use super::super::testing::{at, object};
    use super::super::{Related, describe as describe_object};
    use super::*;
    use podflow_model::Object;

    fn node() -> Value {
        let resources = json!({"cpu": "8", "ephemeral-storage": "100Gi", "hugepages-2Mi": "0",
            "memory": "16Gi", "pods": "110"});
        json!({
            "metadata": {"name": "node-1", "uid": "node-uid", "creationTimestamp": at(0),
                "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/hostname": "node-1",
                    "kubernetes.io/os": "linux"},
                "annotations": {"node.alpha.kubernetes.io/ttl": "0"}},
            "spec": {"podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24"]},
            "status": {
                "capacity": resources, "allocatable": resources,
                "conditions": [
                    {"type": "MemoryPressure", "status": "False", "lastHeartbeatTime": at(290),
                        "lastTransitionTime": at(0), "reason": "KubeletHasSufficientMemory",
                        "message": "kubelet has sufficient memory available"},
                    {"type": "Ready", "status": "True", "lastHeartbeatTime": at(290),
                        "lastTransitionTime": at(10), "reason": "KubeletReady",
                        "message": "kubelet is posting ready status"}],
                "addresses": [{"type": "InternalIP", "address": "172.18.0.3"},
                              {"type": "Hostname", "address": "node-1"}],
                "nodeInfo": {"machineID": "m1", "systemUUID": "u1", "bootID": "b1",
                    "kernelVersion": "6.8.0", "osImage": "Debian GNU/Linux 12 (bookworm)",
                    "operatingSystem": "linux", "architecture": "amd64",
                    "containerRuntimeVersion": "containerd://2.1.1", "kubeletVersion": "v1.37.0",
                    "kubeProxyVersion": ""}}
        })
    }

    fn pod(namespace: &str, name: &str, node: &str, phase: &str, resources: &Value) -> Arc<Object> {
        object(
            "Pod",
            json!({"metadata": {"name": name, "namespace": namespace, "creationTimestamp": at(0)},
                "spec": {"nodeName": node, "containers": [{"name": "c", "image": "i", "resources": resources}]},
                "status": {"phase": phase}}),
        )
    }

    #[test]
    #[allow(clippy::too_many_lines)] // the whole output, line by line
    fn describe_node_with_lease_and_pods() {
        // describeNode: the System Info block runs on into the Pods table,
        // and `Events:` into the Allocated resources one, as kubectl aligns them.
        let related = Related {
            pods: vec![
                pod(
                    "default",
                    "web-69c6f74b8b-x7k2p",
                    "node-1",
                    "Running",
                    &json!({"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}}),
                ),
                pod(
                    "kube-system",
                    "kube-proxy-abcde",
                    "node-1",
                    "Running",
                    &json!({}),
                ),
                pod(
                    "default",
                    "done",
                    "node-1",
                    "Succeeded",
                    &json!({"requests": {"cpu": "1"}}),
                ),
                pod(
                    "default",
                    "elsewhere",
                    "node-2",
                    "Running",
                    &json!({"requests": {"cpu": "1"}}),
                ),
            ],
            lease: Some(object(
                "Lease",
                json!({"metadata": {"name": "node-1", "namespace": "kube-node-lease"},
                    "spec": {"holderIdentity": "node-1", "renewTime": "2026-11-30T02:25:20.000000Z"}}),
            )),
            ..Related::default()
        };
        assert_eq!(
            describe_object(&object("Node", node()), &related, SimTime(300_000)),
            [
                "Name:               node-1",
                "Roles:              <none>",
                "Labels:             kubernetes.io/arch=amd64",
                "                    kubernetes.io/hostname=node-1",
                "                    kubernetes.io/os=linux",
                "Annotations:        node.alpha.kubernetes.io/ttl: 0",
                "CreationTimestamp:  Mon, 30 Nov 2026 02:20:30 +0000",
                "Taints:             <none>",
                "Unschedulable:      false",
                "Lease:",
                "  HolderIdentity:  node-1",
                "  AcquireTime:     <unset>",
                "  RenewTime:       Mon, 30 Nov 2026 02:25:20 +0000",
                "Conditions:",
                "  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message",
                "  ----             ------  -----------------                 ------------------                ------                       -------",
                "  MemoryPressure   False   Mon, 30 Nov 2026 02:25:20 +0000   Mon, 30 Nov 2026 02:20:30 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available",
                "  Ready            True    Mon, 30 Nov 2026 02:25:20 +0000   Mon, 30 Nov 2026 02:20:40 +0000   KubeletReady                 kubelet is posting ready status",
                "Addresses:",
                "  InternalIP:  172.18.0.3",
                "  Hostname:    node-1",
                "Capacity:",
                "  cpu:                8",
                "  ephemeral-storage:  100Gi",
                "  hugepages-2Mi:      0",
                "  memory:             16Gi",
                "  pods:               110",
                "Allocatable:",
                "  cpu:                8",
                "  ephemeral-storage:  100Gi",
                "  hugepages-2Mi:      0",
                "  memory:             16Gi",
                "  pods:               110",
                "System Info:",
                "  Machine ID:                 m1",
                "  System UUID:                u1",
                "  Boot ID:                    b1",
                "  Kernel Version:             6.8.0",
                "  OS Image:                   Debian GNU/Linux 12 (bookworm)",
                "  Operating System:           linux",
                "  Architecture:               amd64",
                "  Container Runtime Version:  containerd://2.1.1",
                "  Kubelet Version:            v1.37.0",
                "PodCIDR:                      10.244.1.0/24",
                "PodCIDRs:                     10.244.1.0/24",
                "Non-terminated Pods:          (2 in total)",
                "  Namespace                   Name                    CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age",
                "  ---------                   ----                    ------------  ----------  ---------------  -------------  ---",
                "  default                     web-69c6f74b8b-x7k2p    100m (1%)     0 (0%)      64Mi (0%)        128Mi (0%)     5m",
                "  kube-system                 kube-proxy-abcde        0 (0%)        0 (0%)      0 (0%)           0 (0%)         5m",
                "Allocated resources:",
                "  (Total limits may be over 100 percent, i.e., overcommitted.)",
                "  Resource           Requests   Limits",
                "  --------           --------   ------",
                "  cpu                100m (1%)  0 (0%)",
                "  memory             64Mi (0%)  128Mi (0%)",
                "  ephemeral-storage  0 (0%)     0 (0%)",
                "  hugepages-2Mi      0 (0%)     0 (0%)",
                "Events:              <none>",
            ]
        );
    }

    #[test]
    fn roles_taints_and_no_lease() {
        // findNodeRoles and printNodeTaintsMultiline; no Lease given, no section.
        let mut value = node();
        value["metadata"]["labels"] = json!({"node-role.kubernetes.io/control-plane": "",
            "kubernetes.io/role": "edge"});
        value["spec"]["taints"] =
            json!([{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]);
        value["spec"]["unschedulable"] = json!(true);
        let lines = describe_object(&object("Node", value), &Related::default(), SimTime(0));
        assert_eq!(
            lines[..9],
            [
                "Name:               node-1",
                "Roles:              control-plane,edge",
                "Labels:             kubernetes.io/role=edge",
                "                    node-role.kubernetes.io/control-plane=",
                "Annotations:        node.alpha.kubernetes.io/ttl: 0",
                "CreationTimestamp:  Mon, 30 Nov 2026 02:20:30 +0000",
                "Taints:             node-role.kubernetes.io/control-plane:NoSchedule",
                "Unschedulable:      true",
                "Conditions:",
            ]
        );
    }

    #[test]
    fn pod_requests_take_the_largest_init_container_and_sidecars() {
        // resourcehelper.PodRequests: app containers plus sidecars, at least
        // each init container with the sidecars before it, plus overhead.
        let pod: Pod = serde_json::from_value(json!({"spec": {
            "initContainers": [
                {"name": "log", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m"}}},
                {"name": "setup", "resources": {"requests": {"cpu": "1"}, "limits": {"memory": "1Gi"}}}],
            "containers": [{"name": "app", "resources": {"requests": {"cpu": "200m"}, "limits": {"cpu": "500m"}}}],
            "overhead": {"cpu": "10m", "memory": "8Mi"}}}))
        .unwrap();
        let requests = pod_total(&pod, |r| r.requests.as_ref(), true);
        assert_eq!(requests["cpu"].to_string(), "1110m");
        assert_eq!(requests["memory"].to_string(), "8Mi");
        let limits = pod_total(&pod, |r| r.limits.as_ref(), false);
        assert_eq!(limits["cpu"].to_string(), "510m");
        assert_eq!(limits["memory"].to_string(), "1032Mi");
    }
}
