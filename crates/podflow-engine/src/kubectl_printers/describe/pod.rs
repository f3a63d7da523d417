//! `kubectl describe pod` (`describePod` of `pkg/describe/describe.go`).

use k8s_openapi::api::core::v1::{Container, Pod};

use super::Related;
use super::containers::{
    describe_containers, describe_resources, describe_volumes, scheduling_group,
    topology_spread_constraints,
};
use super::sections::{
    LEVEL_0, LEVEL_1, Writer, annotations, controlled_by, events, labels, rfc1123z, tolerations,
};
use crate::apiserver::strategy::qos_class;
use crate::clock::SimTime;
use crate::kubectl_printers::age;

/// The lines of `kubectl describe pod`.
pub fn describe(pod: &Pod, related: &Related, now: SimTime) -> Vec<String> {
    let mut w = Writer::new();
    header(&mut w, pod, now);
    let spec = pod.spec.clone().unwrap_or_default();
    let status = pod.status.clone().unwrap_or_default();
    if let Some(resources) = &spec.resources {
        w.line(LEVEL_0, "Resources:");
        describe_resources(&mut w, resources, LEVEL_1);
    }
    let init = spec.init_containers.as_deref().unwrap_or_default();
    if !init.is_empty() {
        describe_containers(
            &mut w,
            "Init Containers",
            init,
            status
                .init_container_statuses
                .as_deref()
                .unwrap_or_default(),
            Some(pod),
            "",
        );
    }
    describe_containers(
        &mut w,
        "Containers",
        &spec.containers,
        status.container_statuses.as_deref().unwrap_or_default(),
        Some(pod),
        "",
    );
    let ephemeral = ephemeral_containers(pod);
    if !ephemeral.is_empty() {
        describe_containers(
            &mut w,
            "Ephemeral Containers",
            &ephemeral,
            status
                .ephemeral_container_statuses
                .as_deref()
                .unwrap_or_default(),
            Some(pod),
            "",
        );
    }
    readiness_gates(&mut w, pod);
    let conditions = status.conditions.as_deref().unwrap_or_default();
    if !conditions.is_empty() {
        w.line(LEVEL_0, "Conditions:");
        w.line(LEVEL_1, "Type\tStatus");
        for condition in conditions {
            w.line(
                LEVEL_1,
                &format!("{} \t{} ", condition.type_, condition.status),
            );
        }
    }
    describe_volumes(&mut w, spec.volumes.as_deref().unwrap_or_default(), "");
    let qos = status
        .qos_class
        .clone()
        .filter(|q| !q.is_empty())
        .unwrap_or_else(|| qos_class(pod).to_owned());
    w.field(LEVEL_0, "QoS Class", qos);
    labels(&mut w, "Node-Selectors", spec.node_selector.as_ref());
    tolerations(
        &mut w,
        "Tolerations",
        spec.tolerations.as_deref().unwrap_or_default(),
    );
    topology_spread_constraints(
        &mut w,
        spec.topology_spread_constraints
            .as_deref()
            .unwrap_or_default(),
        "",
    );
    scheduling_group(&mut w, &spec, "");
    events(&mut w, &related.events, now);
    w.finish()
}

/// From `Name:` to `NominatedNodeName:`: who the Pod is, where it runs, its
/// phase (or how long its termination has lasted), its IPs and controller.
fn header(w: &mut Writer, pod: &Pod, now: SimTime) {
    let meta = &pod.metadata;
    let spec = pod.spec.clone().unwrap_or_default();
    let status = pod.status.clone().unwrap_or_default();
    w.field(LEVEL_0, "Name", meta.name.as_deref().unwrap_or_default());
    w.field(
        LEVEL_0,
        "Namespace",
        meta.namespace.as_deref().unwrap_or_default(),
    );
    if let Some(priority) = spec.priority {
        w.field(LEVEL_0, "Priority", priority);
    }
    let set = |value: &Option<String>| value.clone().filter(|v| !v.is_empty());
    if let Some(class) = set(&spec.priority_class_name) {
        w.field(LEVEL_0, "Priority Class Name", class);
    }
    if let Some(class) = set(&spec.runtime_class_name) {
        w.field(LEVEL_0, "Runtime Class Name", class);
    }
    if let Some(account) = set(&spec.service_account_name) {
        w.field(LEVEL_0, "Service Account", account);
    }
    match set(&spec.node_name) {
        None => w.field(LEVEL_0, "Node", "<none>"),
        Some(node) => w.field(
            LEVEL_0,
            "Node",
            format!("{node}/{}", status.host_ip.as_deref().unwrap_or_default()),
        ),
    }
    if let Some(start) = &status.start_time {
        w.field(LEVEL_0, "Start Time", rfc1123z(Some(start)));
    }
    labels(w, "Labels", meta.labels.as_ref());
    annotations(w, "Annotations", meta.annotations.as_ref());
    let phase = status.phase.clone().unwrap_or_default();
    if meta.deletion_timestamp.is_some() && phase != "Failed" && phase != "Succeeded" {
        w.field(
            LEVEL_0,
            "Status",
            format!(
                "Terminating (lasts {})",
                age(meta.deletion_timestamp.as_ref(), now)
            ),
        );
        w.field(
            LEVEL_0,
            "Termination Grace Period",
            format!("{}s", meta.deletion_grace_period_seconds.unwrap_or(0)),
        );
    } else {
        w.field(LEVEL_0, "Status", &phase);
    }
    if let Some(reason) = set(&status.reason) {
        w.field(LEVEL_0, "Reason", reason);
    }
    if let Some(message) = set(&status.message) {
        w.field(LEVEL_0, "Message", message);
    }
    if let Some(profile) = spec
        .security_context
        .as_ref()
        .and_then(|s| s.seccomp_profile.as_ref())
    {
        w.field(LEVEL_0, "SeccompProfile", &profile.type_);
        if profile.type_ == "Localhost" {
            w.field(
                LEVEL_0,
                "LocalhostProfile",
                profile.localhost_profile.as_deref().unwrap_or_default(),
            );
        }
    }
    w.field(LEVEL_0, "IP", status.pod_ip.as_deref().unwrap_or_default());
    pod_ips(w, pod);
    if let Some(controller) = controlled_by(meta) {
        w.field(LEVEL_0, "Controlled By", controller);
    }
    if let Some(nominated) = set(&status.nominated_node_name) {
        w.field(LEVEL_0, "NominatedNodeName", nominated);
    }
}

/// `describePodIPs`: `IPs:\t<none>`, or `IPs:` and an `IP:` line each.
fn pod_ips(w: &mut Writer, pod: &Pod) {
    let ips = pod
        .status
        .as_ref()
        .and_then(|s| s.pod_ips.as_deref())
        .unwrap_or_default();
    if ips.is_empty() {
        w.field(LEVEL_0, "IPs", "<none>");
        return;
    }
    w.line(LEVEL_0, "IPs:");
    for ip in ips {
        w.field(LEVEL_1, "IP", &ip.ip);
    }
}

/// The ephemeral containers as containers (`EphemeralContainerCommon`).
fn ephemeral_containers(pod: &Pod) -> Vec<Container> {
    pod.spec
        .as_ref()
        .and_then(|s| s.ephemeral_containers.as_ref())
        .into_iter()
        .flatten()
        .filter_map(|e| serde_json::to_value(e).ok())
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect()
}

/// `Readiness Gates:`: each gate's condition status, `<none>` before it is set.
fn readiness_gates(w: &mut Writer, pod: &Pod) {
    let gates = pod
        .spec
        .as_ref()
        .and_then(|s| s.readiness_gates.as_deref())
        .unwrap_or_default();
    if gates.is_empty() {
        return;
    }
    let conditions = pod
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or_default();
    w.line(LEVEL_0, "Readiness Gates:");
    w.line(LEVEL_1, "Type\tStatus");
    for gate in gates {
        let status = conditions
            .iter()
            .find(|c| c.type_ == gate.condition_type)
            .map_or("<none>", |c| c.status.as_str());
        w.line(LEVEL_1, &format!("{} \t{status} ", gate.condition_type));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::{Value, json};

    use super::super::testing::{at, event, object};
    use super::super::{Related, describe as describe_object};
    use super::*;
    use podflow_model::Object;

    /// A Deployment's nginx Pod running on node-1, as podflow stores it.
    fn running_pod() -> Value {
        json!({
            "metadata": {"name": "web-69c6f74b8b-x7k2p", "namespace": "default", "uid": "pod-1",
                "labels": {"app": "web", "pod-template-hash": "69c6f74b8b"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                    "name": "web-69c6f74b8b", "uid": "rs-1", "controller": true}],
                "creationTimestamp": at(0)},
            "spec": {
                "nodeName": "node-1", "serviceAccountName": "default", "priority": 0,
                "containers": [{"name": "nginx", "image": "nginx:1.27",
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                    "resources": {"limits": {"memory": "128Mi"}, "requests": {"cpu": "0.1", "memory": "64Mi"}},
                    "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"},
                        "initialDelaySeconds": 3, "timeoutSeconds": 1, "periodSeconds": 3,
                        "successThreshold": 1, "failureThreshold": 3},
                    "env": [{"name": "MODE", "value": "prod"}],
                    "volumeMounts": [{"name": "kube-api-access-abcde", "readOnly": true,
                        "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]}],
                "volumes": [{"name": "kube-api-access-abcde", "projected": {"sources": [
                    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                    {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                    {"downwardAPI": {"items": [{"path": "namespace",
                        "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]}}],
                "tolerations": [
                    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]},
            "status": {
                "phase": "Running", "hostIP": "172.18.0.3", "podIP": "10.244.1.5",
                "podIPs": [{"ip": "10.244.1.5"}], "startTime": at(1), "qosClass": "Burstable",
                "conditions": [
                    {"type": "PodReadyToStartContainers", "status": "True"},
                    {"type": "Initialized", "status": "True"},
                    {"type": "Ready", "status": "True"},
                    {"type": "ContainersReady", "status": "True"},
                    {"type": "PodScheduled", "status": "True"}],
                "containerStatuses": [{"name": "nginx", "containerID": "containerd://4f1c",
                    "image": "docker.io/library/nginx:1.27", "imageID": "docker.io/library/nginx@sha256:0a1b",
                    "ready": true, "restartCount": 0, "started": true,
                    "state": {"running": {"startedAt": at(5)}}}]}
        })
    }

    fn kubelet_event(reason: &str, secs: i64, message: &str) -> Arc<Object> {
        let mut e = (*event("web-69c6f74b8b-x7k2p", reason, "kubelet", secs, message)).clone();
        if let Object::Event(e) = &mut e {
            e.involved_object.field_path = Some("spec.containers{nginx}".into());
        }
        Arc::new(e)
    }

    #[test]
    #[allow(clippy::too_many_lines)] // the whole output, line by line
    fn describe_pod_of_a_running_deployment_pod() {
        // describePod, as kubectl v1.37 prints a kind cluster's nginx Pod.
        let pod = object("Pod", running_pod());
        let related = Related {
            events: vec![
                kubelet_event("Started", 5, "Started container nginx"),
                event(
                    "web-69c6f74b8b-x7k2p",
                    "Scheduled",
                    "default-scheduler",
                    1,
                    "Successfully assigned default/web-69c6f74b8b-x7k2p to node-1",
                ),
                kubelet_event(
                    "Pulled",
                    3,
                    "Container image \"nginx:1.27\" already present on machine",
                ),
                kubelet_event("Created", 4, "Created container: nginx"),
            ],
            ..Related::default()
        };
        assert_eq!(
            describe_object(&pod, &related, SimTime(300_000)),
            [
                "Name:             web-69c6f74b8b-x7k2p",
                "Namespace:        default",
                "Priority:         0",
                "Service Account:  default",
                "Node:             node-1/172.18.0.3",
                "Start Time:       Mon, 30 Nov 2026 02:20:31 +0000",
                "Labels:           app=web",
                "                  pod-template-hash=69c6f74b8b",
                "Annotations:      <none>",
                "Status:           Running",
                "IP:               10.244.1.5",
                "IPs:",
                "  IP:           10.244.1.5",
                "Controlled By:  ReplicaSet/web-69c6f74b8b",
                "Containers:",
                "  nginx:",
                "    Container ID:   containerd://4f1c",
                "    Image:          nginx:1.27",
                "    Image ID:       docker.io/library/nginx@sha256:0a1b",
                "    Port:           80/TCP",
                "    Host Port:      0/TCP",
                "    State:          Running",
                "      Started:      Mon, 30 Nov 2026 02:20:35 +0000",
                "    Ready:          True",
                "    Restart Count:  0",
                "    Limits:",
                "      memory:  128Mi",
                "    Requests:",
                "      cpu:      100m",
                "      memory:   64Mi",
                "    Readiness:  http-get http://:8080/healthz delay=3s timeout=1s period=3s successThreshold=1 failureThreshold=3",
                "    Environment:",
                "      MODE:  prod",
                "    Mounts:",
                "      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-abcde (ro)",
                "Conditions:",
                "  Type                        Status",
                "  PodReadyToStartContainers   True ",
                "  Initialized                 True ",
                "  Ready                       True ",
                "  ContainersReady             True ",
                "  PodScheduled                True ",
                "Volumes:",
                "  kube-api-access-abcde:",
                "    Type:                    Projected (a volume that contains injected data from multiple sources)",
                "    TokenExpirationSeconds:  3607",
                "    ConfigMapName:           kube-root-ca.crt",
                "    Optional:                false",
                "    DownwardAPI:             true",
                "QoS Class:                   Burstable",
                "Node-Selectors:              <none>",
                "Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
                "                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s",
                "Events:",
                "  Type    Reason     Age    From               Message",
                "  ----    ------     ----   ----               -------",
                "  Normal  Scheduled  4m59s  default-scheduler  Successfully assigned default/web-69c6f74b8b-x7k2p to node-1",
                "  Normal  Pulled     4m57s  kubelet            spec.containers{nginx}: Container image \"nginx:1.27\" already present on machine",
                "  Normal  Created    4m56s  kubelet            spec.containers{nginx}: Created container: nginx",
                "  Normal  Started    4m55s  kubelet            spec.containers{nginx}: Started container nginx",
            ]
        );
    }

    #[test]
    fn describe_pod_pending_without_node_or_status() {
        // A Pod the scheduler has not placed: Node <none>, no Start Time, IP empty.
        let pod = object(
            "Pod",
            json!({"metadata": {"name": "lonely", "namespace": "default"},
                "spec": {"containers": [{"name": "app", "image": "busybox"}]},
                "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False"}]}}),
        );
        assert_eq!(
            describe_object(&pod, &Related::default(), SimTime(0)),
            [
                "Name:         lonely",
                "Namespace:    default",
                "Node:         <none>",
                "Labels:       <none>",
                "Annotations:  <none>",
                "Status:       Pending",
                "IP:           ",
                "IPs:          <none>",
                "Containers:",
                "  app:",
                "    Image:        busybox",
                "    Port:         <none>",
                "    Host Port:    <none>",
                "    Environment:  <none>",
                "    Mounts:       <none>",
                "Conditions:",
                "  Type           Status",
                "  PodScheduled   False ",
                "Volumes:         <none>",
                "QoS Class:       BestEffort",
                "Node-Selectors:  <none>",
                "Tolerations:     <none>",
                "Events:          <none>",
            ]
        );
    }

    #[test]
    fn describe_containers_crash_loop_and_init_containers() {
        // describeContainerState: Waiting with its reason, the Last State's
        // termination; an init container that completed; a terminating Pod.
        let pod = object(
            "Pod",
            json!({"metadata": {"name": "crashy", "namespace": "default",
                    "deletionTimestamp": at(290), "deletionGracePeriodSeconds": 30},
                "spec": {"nodeName": "node-1",
                    "initContainers": [{"name": "setup", "image": "busybox", "command": ["sh", "-c"], "args": ["echo ready"]}],
                    "containers": [{"name": "app", "image": "busybox",
                        "ports": [{"containerPort": 80, "protocol": "TCP", "name": "http"},
                                  {"containerPort": 443, "hostPort": 8443, "protocol": "TCP"}]}]},
                "status": {"phase": "Running", "hostIP": "172.18.0.3",
                    "initContainerStatuses": [{"name": "setup", "image": "busybox", "imageID": "", "ready": true,
                        "restartCount": 0, "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                        "startedAt": at(2), "finishedAt": at(3)}}}],
                    "containerStatuses": [{"name": "app", "image": "busybox", "imageID": "", "ready": false,
                        "restartCount": 4, "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                        "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
                            "startedAt": at(200), "finishedAt": at(201)}}}]}}),
        );
        let lines = describe_object(&pod, &Related::default(), SimTime(300_000));
        let from = |first: &str| {
            let i = lines.iter().position(|l| l == first).unwrap();
            lines[i..].to_vec()
        };
        assert_eq!(
            lines[5],
            "Status:                    Terminating (lasts 10s)"
        );
        assert_eq!(lines[6], "Termination Grace Period:  30s");
        assert_eq!(
            from("Init Containers:")[..30],
            [
                "Init Containers:",
                "  setup:",
                "    Container ID:  ",
                "    Image:         busybox",
                "    Image ID:      ",
                "    Port:          <none>",
                "    Host Port:     <none>",
                "    Command:",
                "      sh",
                "      -c",
                "    Args:",
                "      echo ready",
                "    State:          Terminated",
                "      Reason:       Completed",
                "      Exit Code:    0",
                "      Started:      Mon, 30 Nov 2026 02:20:32 +0000",
                "      Finished:     Mon, 30 Nov 2026 02:20:33 +0000",
                "    Ready:          True",
                "    Restart Count:  0",
                "    Environment:    <none>",
                "    Mounts:         <none>",
                "Containers:",
                "  app:",
                "    Container ID:   ",
                "    Image:          busybox",
                "    Image ID:       ",
                "    Ports:          80/TCP (http), 443/TCP",
                "    Host Ports:     0/TCP (http), 8443/TCP",
                "    State:          Waiting",
                "      Reason:       CrashLoopBackOff",
            ]
        );
        assert_eq!(
            from("    Last State:     Terminated")[..8],
            [
                "    Last State:     Terminated",
                "      Reason:       Error",
                "      Exit Code:    1",
                "      Started:      Mon, 30 Nov 2026 02:23:50 +0000",
                "      Finished:     Mon, 30 Nov 2026 02:23:51 +0000",
                "    Ready:          False",
                "    Restart Count:  4",
                "    Environment:    <none>",
            ]
        );
    }

    #[test]
    fn environment_sources_and_volume_kinds() {
        // describeContainerEnvVars / describeContainerEnvFrom / describeVolumes.
        let mut value = running_pod();
        value["spec"]["containers"][0]["env"] = json!([
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
            {"name": "POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}},
            {"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}},
            {"name": "MEM", "valueFrom": {"resourceFieldRef": {"resource": "requests.memory", "divisor": "1Mi"}}},
            {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "token"}}},
            {"name": "COLOR", "valueFrom": {"configMapKeyRef": {"name": "ui", "key": "color", "optional": true}}}]);
        value["spec"]["containers"][0]["envFrom"] = json!([{"configMapRef": {"name": "settings"}},
            {"secretRef": {"name": "creds"}, "prefix": "DB_"}]);
        value["spec"]["volumes"] = json!([
            {"name": "cache", "emptyDir": {}},
            {"name": "data", "persistentVolumeClaim": {"claimName": "data-0"}},
            {"name": "conf", "configMap": {"name": "settings"}},
            {"name": "creds", "secret": {"secretName": "creds", "optional": true}},
            {"name": "logs", "hostPath": {"path": "/var/log", "type": "Directory"}}]);
        let lines = describe_object(&object("Pod", value), &Related::default(), SimTime(300_000));
        let start = lines
            .iter()
            .position(|l| l == "    Environment Variables from:")
            .unwrap();
        assert_eq!(
            lines[start..start + 10],
            [
                "    Environment Variables from:",
                "      settings  ConfigMap                 Optional: false",
                "      creds     Secret with prefix 'DB_'  Optional: false",
                "    Environment:",
                "      POD_NAME:  web-69c6f74b8b-x7k2p (v1:metadata.name)",
                "      POD_IP:     (v1:status.podIP)",
                "      CPU:       node allocatable (limits.cpu)",
                "      MEM:       64 (requests.memory)",
                "      TOKEN:     <set to the key 'token' in secret 'creds'>   Optional: false",
                "      COLOR:     <set to the key 'color' of config map 'ui'>  Optional: true",
            ]
        );
        let start = lines.iter().position(|l| l == "Volumes:").unwrap();
        assert_eq!(
            lines[start..start + 21],
            [
                "Volumes:",
                "  cache:",
                "    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)",
                "    Medium:     ",
                "    SizeLimit:  <unset>",
                "  data:",
                "    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)",
                "    ClaimName:  data-0",
                "    ReadOnly:   false",
                "  conf:",
                "    Type:      ConfigMap (a volume populated by a ConfigMap)",
                "    Name:      settings",
                "    Optional:  false",
                "  creds:",
                "    Type:        Secret (a volume populated by a Secret)",
                "    SecretName:  creds",
                "    Optional:    true",
                "  logs:",
                "    Type:          HostPath (bare host directory volume)",
                "    Path:          /var/log",
                "    HostPathType:  Directory",
            ]
        );
    }
}
