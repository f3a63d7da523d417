//! Who did it: a change's actor from the `managedFields` manager that wrote
//! it, and an Event's from the controller that reported it, as podflow's
//! [`Actor`]s (the sequence diagram's participants).
//!
//! Managers are the field managers the components use: every controller of
//! kube-controller-manager writes as `kube-controller-manager` (its user
//! agent's program name, `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager`
//! defaults the manager to it), the scheduler as `kube-scheduler`, the kubelet
//! as `kubelet`; kubectl names one per command
//! (`staging/src/k8s.io/kubectl/pkg/cmd/apply/apply.go`'s
//! `kubectl-client-side-apply` and `kubectl` for server-side apply,
//! `kubectl-create`, `kubectl-edit`, `kubectl-patch`, … from
//! `cmdutil.AddFieldManagerFlagVar`). Event reporters are the components'
//! `EventSource`s: `default-scheduler` (`pkg/scheduler/profile`), `kubelet`,
//! and the controllers' names (`replicaset-controller`, `deployment-controller`, …).

use std::sync::Arc;

use podflow_engine::trace::Actor;

/// The controllers of kube-controller-manager as their Events name them
/// (`EventSource{Component: …}` in `pkg/controller/*`).
const CONTROLLERS: &[&str] = &[
    "deployment-controller",
    "replicaset-controller",
    "replication-controller",
    "statefulset-controller",
    "daemonset-controller",
    "job-controller",
    "cronjob-controller",
    "endpoint-controller",
    "endpointslice-controller",
    "endpointslice-mirroring-controller",
    "node-controller",
    "taint-eviction-controller",
    "persistentvolume-controller",
    "attachdetach-controller",
    "garbage-collector-controller",
    "namespace-controller",
    "resourcequota-controller",
    "horizontal-pod-autoscaler",
    "disruption-controller",
    "ttl-after-finished-controller",
    "serviceaccount-controller",
    "kube-controller-manager",
];

/// The actor of a `managedFields` manager; `node` is the node the object
/// is on (a Pod's `spec.nodeName`, a Node's name), for the kubelet.
pub fn of_manager(manager: &str, node: Option<&str>) -> Actor {
    match manager {
        "kube-controller-manager" => Actor::ControllerManager,
        "kube-scheduler" => Actor::Scheduler,
        "kube-apiserver" => Actor::ApiServer,
        "kubelet" => node.map_or_else(|| client(manager), |n| Actor::Kubelet(Arc::from(n))),
        "kube-proxy" => node.map_or_else(|| client(manager), |n| Actor::KubeProxy(Arc::from(n))),
        // Server-side apply's default manager, and one per kubectl command.
        m if m == "kubectl" || m.starts_with("kubectl-") => Actor::Kubectl,
        other => client(other),
    }
}

/// The actor of an Event's reporter: `events.k8s.io/v1`'s
/// `reportingController` (or, for an Event written through `core/v1`, its
/// `deprecatedSource.component`) and `reportingInstance` (or
/// `deprecatedSource.host`), the node for the kubelet.
pub fn of_reporter(controller: &str, instance: Option<&str>) -> Actor {
    let node = instance.filter(|i| !i.is_empty());
    match controller {
        "default-scheduler" | "kube-scheduler" => Actor::Scheduler,
        "kubelet" => node.map_or_else(|| client(controller), |n| Actor::Kubelet(Arc::from(n))),
        "kube-proxy" => node.map_or_else(|| client(controller), |n| Actor::KubeProxy(Arc::from(n))),
        c if CONTROLLERS.contains(&c) => Actor::ControllerManager,
        other => client(other),
    }
}

/// Anyone else (helm, Argo CD, an operator): a client, by its own name.
fn client(name: &str) -> Actor {
    if name.is_empty() {
        Actor::Client(Arc::from("unknown-client"))
    } else {
        Actor::Client(Arc::from(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kubelet(node: &str) -> Actor {
        Actor::Kubelet(Arc::from(node))
    }

    /// Managers as a kind or kubeadm cluster writes them (`kubectl get pod
    /// -o yaml --show-managed-fields`), and as the upstream files named in
    /// the module doc define them.
    #[test]
    fn managers_name_their_components() {
        let table: &[(&str, Option<&str>, Actor)] = &[
            ("kube-controller-manager", None, Actor::ControllerManager),
            ("kube-scheduler", None, Actor::Scheduler),
            ("kubelet", Some("node-1"), kubelet("node-1")),
            ("kubectl-client-side-apply", None, Actor::Kubectl),
            ("kubectl", None, Actor::Kubectl),
            ("kubectl-create", None, Actor::Kubectl),
            ("kubectl-edit", None, Actor::Kubectl),
            ("kubectl-patch", None, Actor::Kubectl),
            ("kubectl-scale", None, Actor::Kubectl),
            ("kubectl-label", None, Actor::Kubectl),
            ("kubectl-rollout", None, Actor::Kubectl),
            ("kube-apiserver", None, Actor::ApiServer),
            ("kubelet", None, Actor::Client(Arc::from("kubelet"))),
            ("helm", None, Actor::Client(Arc::from("helm"))),
            ("", None, Actor::Client(Arc::from("unknown-client"))),
        ];
        for (manager, node, actor) in table {
            assert_eq!(&of_manager(manager, *node), actor, "{manager}");
        }
    }

    /// Reporters as upstream's recorders name them: `default-scheduler`
    /// (`pkg/scheduler/apis/config` `DefaultSchedulerName`), `kubelet`
    /// (`pkg/kubelet/events`), `replicaset-controller`
    /// (`pkg/controller/replicaset/replica_set.go`), `deployment-controller`
    /// (`pkg/controller/deployment/deployment_controller.go`),
    /// `job-controller`, `node-controller`, `taint-eviction-controller`.
    #[test]
    fn event_reporters_name_their_components() {
        let table: &[(&str, Option<&str>, Actor)] = &[
            (
                "default-scheduler",
                Some("default-scheduler-kind-control-plane"),
                Actor::Scheduler,
            ),
            ("kubelet", Some("node-3"), kubelet("node-3")),
            ("replicaset-controller", None, Actor::ControllerManager),
            ("deployment-controller", None, Actor::ControllerManager),
            ("job-controller", None, Actor::ControllerManager),
            ("endpointslice-controller", None, Actor::ControllerManager),
            ("node-controller", None, Actor::ControllerManager),
            ("taint-eviction-controller", None, Actor::ControllerManager),
            ("kubelet", Some(""), Actor::Client(Arc::from("kubelet"))),
            (
                "cert-manager",
                None,
                Actor::Client(Arc::from("cert-manager")),
            ),
        ];
        for (controller, instance, actor) in table {
            assert_eq!(&of_reporter(controller, *instance), actor, "{controller}");
        }
    }
}
