//! The kubelet's two heartbeats: its node Lease, renewed every 10 s (a
//! quarter of its 40 s duration) by a `PUT`
//! (`staging/src/k8s.io/component-helpers/apimachinery/lease/controller.go`,
//! `pkg/kubelet/nodelease`), and its node status, computed every
//! `nodeStatusUpdateFrequency` (10 s) but `PATCH`ed only when it changed or
//! `nodeStatusReportFrequency` (5 min) passed (`pkg/kubelet/kubelet_node_status.go`,
//! `nodestatus/setters.go`: the `Images` setter and the conditions'
//! heartbeats). Both run on background timers: they never keep the cluster
//! from being idle. A faulted kubelet (`fault node`) skips them.

use std::sync::Arc;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::api::core::v1::{ContainerImage, Node, NodeCondition, NodeStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta, OwnerReference};

use super::Kubelet;
use super::images::{ImageRegistry, normalize};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Request, Verb};
use crate::clock::SimTime;
use crate::component::{Cx, KubeletTimer, RequestId};
use podflow_model::Object;
use podflow_model::kinds::kind_of;

/// `kubeletconfig.NodeLeaseDurationSeconds`' default.
pub const LEASE_DURATION_SECONDS: i32 = 40;
/// The renew interval: `NodeLeaseDurationSeconds × 0.25` (`nodelease.renewIntervalFraction`).
pub const RENEW_INTERVAL_MS: u64 = 10_000;
/// `nodeStatusUpdateFrequency`' default.
pub const STATUS_UPDATE_MS: u64 = 10_000;
/// `nodeStatusReportFrequency`' default.
pub const STATUS_REPORT_MS: i64 = 5 * 60_000;
/// `nodestatus.MaxNamesPerImageInNodeStatus`.
pub const MAX_NAMES_PER_IMAGE: usize = 5;
/// `--node-status-max-images`' default.
pub const MAX_IMAGES: usize = 50;
/// The namespace node Leases live in (`v1.NamespaceNodeLease`).
pub const LEASE_NAMESPACE: &str = "kube-node-lease";

/// The kubelet's first heartbeat timers, as `(timer, delay_ms)` from the start.
pub fn first_timers() -> [(KubeletTimer, u64); 2] {
    [
        (KubeletTimer::LeaseRenewal, RENEW_INTERVAL_MS),
        (KubeletTimer::NodeStatusSync, STATUS_UPDATE_MS),
    ]
}

/// A request of the heartbeats in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    /// The GET of the Lease (`backoffEnsureLease`), when the kubelet has none yet.
    GetLease,
    /// The PUT (or POST) of the renewed Lease.
    WriteLease,
    /// The node status PATCH.
    Status,
}

/// The heartbeats' state.
#[derive(Debug, Clone, Default)]
pub struct Heartbeat {
    /// Cut off from the API server (`fault node`).
    faulted: bool,
    /// The latest Node the kubelet saw.
    node: Option<Arc<Node>>,
    /// Its Node was deleted: a Lease made from now on has no owner.
    node_gone: bool,
    /// The conditions the kubelet posts (as the node stood at the start):
    /// type → (status, reason, message).
    own_conditions: Vec<(String, String, String, String)>,
    /// The Lease as it last wrote it (`latestLease`).
    lease: Option<Lease>,
    /// When the status was last reported, in Kubernetes milliseconds.
    last_report_ms: Option<i64>,
    pending: Vec<(RequestId, Pending)>,
}

/// The Lease a node's kubelet keeps (`newLease` of the lease controller with
/// the kubelet's `setNodeOwnerFunc`). The Node owns it, so the garbage
/// collector deletes it with the Node; made after the Node is gone, it has
/// no owner (`setNodeOwnerFunc` cannot get the Node, logs "Failed to get
/// node when trying to set owner ref to the node lease", and the Lease is
/// created without one).
pub fn node_lease(node: &Node, node_gone: bool, renewed: SimTime) -> Lease {
    let name = node.metadata.name.clone().unwrap_or_default();
    let uid = node.metadata.uid.clone().filter(|_| !node_gone);
    let owner = uid.map(|uid| OwnerReference {
        api_version: "v1".into(),
        kind: "Node".into(),
        name: name.clone(),
        uid,
        ..OwnerReference::default()
    });
    Lease {
        metadata: ObjectMeta {
            name: Some(name.clone()),
            namespace: Some(LEASE_NAMESPACE.into()),
            owner_references: owner.map(|o| vec![o]),
            ..ObjectMeta::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: Some(name),
            lease_duration_seconds: Some(LEASE_DURATION_SECONDS),
            renew_time: Some(MicroTime(renewed.to_k8s())),
            ..LeaseSpec::default()
        }),
    }
}

/// The conditions a healthy kubelet posts (`nodestatus.MemoryPressureCondition`,
/// `DiskPressureCondition`, `PIDPressureCondition`, `ReadyCondition`).
const HEALTHY: [(&str, &str, &str, &str); 4] = [
    (
        "MemoryPressure",
        "False",
        "KubeletHasSufficientMemory",
        "kubelet has sufficient memory available",
    ),
    (
        "DiskPressure",
        "False",
        "KubeletHasNoDiskPressure",
        "kubelet has no disk pressure",
    ),
    (
        "PIDPressure",
        "False",
        "KubeletHasSufficientPID",
        "kubelet has sufficient PID available",
    ),
    (
        "Ready",
        "True",
        "KubeletReady",
        "kubelet is posting ready status",
    ),
];

/// What the kubelet reports of its node's conditions: those the node started
/// with (a cluster file may make it `NotReady`), the healthy ones for the rest.
fn own_conditions(node: &Node) -> Vec<(String, String, String, String)> {
    let given = node.status.as_ref().and_then(|s| s.conditions.as_ref());
    HEALTHY
        .iter()
        .map(|(type_, status, reason, message)| {
            let found = given
                .into_iter()
                .flatten()
                .find(|c| c.type_ == *type_ && c.status != "Unknown");
            match found {
                Some(c) => (
                    c.type_.clone(),
                    c.status.clone(),
                    c.reason.clone().unwrap_or_default(),
                    c.message.clone().unwrap_or_default(),
                ),
                None => (
                    (*type_).to_owned(),
                    (*status).to_owned(),
                    (*reason).to_owned(),
                    (*message).to_owned(),
                ),
            }
        })
        .collect()
}

/// The `Images` setter: every image the runtime holds, largest first, at most
/// [`MAX_IMAGES`], each with its digest and tag names as containerd reports
/// them (an image the node already reported keeps its names and size).
pub fn image_list(
    held: &std::collections::BTreeMap<String, String>,
    reported: &[ContainerImage],
    registry: &ImageRegistry,
) -> Vec<ContainerImage> {
    let mut out: Vec<ContainerImage> = Vec::new();
    for (name, digest) in held {
        let known = reported.iter().find(|image| {
            image
                .names
                .iter()
                .flatten()
                .any(|n| !n.contains('@') && normalize(n) == *name)
        });
        let image = known.cloned().unwrap_or_else(|| ContainerImage {
            names: Some(vec![digest.clone(), name.clone()]),
            size_bytes: i64::try_from(registry.size_of(name)).ok(),
        });
        if !out.contains(&image) {
            out.push(image);
        }
    }
    out.sort_by_key(|image| std::cmp::Reverse(image.size_bytes.unwrap_or(0)));
    out.truncate(MAX_IMAGES);
    for image in &mut out {
        if let Some(names) = &mut image.names {
            names.truncate(MAX_NAMES_PER_IMAGE);
        }
    }
    out
}

/// The node status the kubelet computes now from `current`: its images, its
/// own conditions (a transition stamped now when one differs), every
/// condition's heartbeat now.
pub fn computed_status(
    current: &NodeStatus,
    conditions: &[(String, String, String, String)],
    images: Vec<ContainerImage>,
    now: SimTime,
) -> NodeStatus {
    let at = now.to_time();
    let mut status = current.clone();
    status.images = Some(images);
    let list = status.conditions.get_or_insert_with(Vec::new);
    for (type_, state, reason, message) in conditions {
        let index = if let Some(i) = list.iter().position(|c| c.type_ == *type_) {
            i
        } else {
            list.push(NodeCondition {
                type_: type_.clone(),
                ..NodeCondition::default()
            });
            list.len() - 1
        };
        let entry = &mut list[index];
        if entry.status != *state || entry.last_transition_time.is_none() {
            entry.last_transition_time = Some(at.clone());
        }
        entry.status.clone_from(state);
        entry.reason = Some(reason.clone());
        entry.message = Some(message.clone());
        entry.last_heartbeat_time = Some(at.clone());
    }
    status
}

/// `nodeStatusHasChanged`: whether two statuses differ beyond the conditions'
/// heartbeats. Upstream compares deep copies with the conditions taken out;
/// this compares in place (every node, every 10 s), each field named so that
/// a field new to `NodeStatus` does not compile until it is compared.
pub fn status_changed(old: &NodeStatus, new: &NodeStatus) -> bool {
    let NodeStatus {
        addresses,
        allocatable,
        capacity,
        conditions,
        config,
        daemon_endpoints,
        declared_features,
        features,
        images,
        node_info,
        phase,
        runtime_handlers,
        volumes_attached,
        volumes_in_use,
    } = old;
    let beyond_heartbeat = |a: &NodeCondition, b: &NodeCondition| {
        let NodeCondition {
            last_heartbeat_time: _,
            last_transition_time,
            message,
            reason,
            status,
            type_,
        } = a;
        (last_transition_time, message, reason, status, type_)
            == (
                &b.last_transition_time,
                &b.message,
                &b.reason,
                &b.status,
                &b.type_,
            )
    };
    let same_conditions = match (conditions, &new.conditions) {
        (Some(a), Some(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| beyond_heartbeat(a, b))
        }
        (a, b) => a.is_none() && b.is_none(),
    };
    !(same_conditions
        && *addresses == new.addresses
        && *allocatable == new.allocatable
        && *capacity == new.capacity
        && *config == new.config
        && *daemon_endpoints == new.daemon_endpoints
        && *declared_features == new.declared_features
        && *features == new.features
        && *images == new.images
        && *node_info == new.node_info
        && *phase == new.phase
        && *runtime_handlers == new.runtime_handlers
        && *volumes_attached == new.volumes_attached
        && *volumes_in_use == new.volumes_in_use)
}

impl Heartbeat {
    /// The node as the kubelet's informer last saw it.
    pub fn saw_node(&mut self, node: &Node) {
        if self.node.is_none() {
            self.own_conditions = own_conditions(node);
            self.last_report_ms = crate::controllers::node_lifecycle_plan::last_heartbeat(node);
        }
        self.node = Some(Arc::new(node.clone()));
        self.node_gone = false;
    }

    /// The kubelet's informer saw its Node deleted.
    pub fn node_deleted(&mut self) {
        self.node_gone = true;
    }
}

impl Kubelet {
    /// `fault node` (`true`) / `recover node` (`false`).
    pub fn set_faulted(&mut self, faulted: bool) {
        self.heartbeat.faulted = faulted;
    }

    /// The Lease renewal timer fired: the next is set, and the Lease renewed
    /// unless the node is cut off or a renewal is in flight.
    pub(super) fn lease_renewal_due(&mut self, cx: &mut Cx<'_>) {
        cx.after_background(RENEW_INTERVAL_MS, KubeletTimer::LeaseRenewal);
        if !self.heartbeat.faulted && !self.heartbeat_pending(Pending::GetLease) {
            self.renew_lease(cx);
        }
    }

    /// The node status timer fired: the next is set, and the status synced
    /// unless the node is cut off or a sync is in flight.
    ///
    /// The eviction manager synchronizes first (its monitoring period is the
    /// same 10 s), and the `MemoryPressure` condition follows it.
    pub(super) fn node_status_sync_due(&mut self, cx: &mut Cx<'_>) {
        cx.after_background(STATUS_UPDATE_MS, KubeletTimer::NodeStatusSync);
        if self.heartbeat.faulted {
            return;
        }
        let pressure = self.eviction_synchronize(cx);
        self.set_memory_pressure(pressure);
        if !self.heartbeat_pending(Pending::Status) {
            self.sync_node_status(cx);
        }
    }

    /// `nodestatus.MemoryPressureCondition`: `True` while the eviction manager
    /// reports memory pressure.
    fn set_memory_pressure(&mut self, pressure: bool) {
        let Some(entry) = self
            .heartbeat
            .own_conditions
            .iter_mut()
            .find(|c| c.0 == "MemoryPressure")
        else {
            return;
        };
        let (status, reason, message) = if pressure {
            (
                "True",
                "KubeletHasInsufficientMemory",
                "kubelet has insufficient memory available",
            )
        } else if entry.1 == "True" {
            (
                "False",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available",
            )
        } else {
            return;
        };
        *entry = (
            entry.0.clone(),
            status.to_owned(),
            reason.to_owned(),
            message.to_owned(),
        );
    }

    fn heartbeat_pending(&self, what: Pending) -> bool {
        self.heartbeat
            .pending
            .iter()
            .any(|(_, p)| *p == what || (what == Pending::GetLease && *p == Pending::WriteLease))
    }

    fn lease_request(&self, verb: Verb) -> Request {
        Request::new(
            self.me(),
            self.identity(),
            verb,
            kind_of("Lease"),
            Some(LEASE_NAMESPACE.into()),
            &*self.node,
        )
    }

    /// The lease controller's `sync`: renew the Lease it holds, or first get it.
    fn renew_lease(&mut self, cx: &mut Cx<'_>) {
        let Some(mut lease) = self.heartbeat.lease.clone() else {
            let id = cx.send(self.lease_request(Verb::Get));
            self.heartbeat.pending.push((id, Pending::GetLease));
            return;
        };
        let spec = lease.spec.get_or_insert_with(LeaseSpec::default);
        spec.renew_time = Some(MicroTime(cx.now.to_k8s()));
        let request = self
            .lease_request(Verb::Update)
            .body(Body::Object(Box::new(Object::Lease(lease))));
        let id = cx.send(request);
        self.heartbeat.pending.push((id, Pending::WriteLease));
    }

    /// `syncNodeStatus`: compute the status, PATCH it when it changed or the
    /// report frequency passed.
    fn sync_node_status(&mut self, cx: &mut Cx<'_>) {
        let Some(node) = self.heartbeat.node.clone() else {
            return;
        };
        let unreported = NodeStatus::default();
        let current = node.status.as_ref().unwrap_or(&unreported);
        let reported = current.images.as_deref().unwrap_or_default();
        let images = image_list(&self.images, reported, &self.registry);
        let status = computed_status(current, &self.heartbeat.own_conditions, images, cx.now);
        let now_ms = cx.now.to_k8s().as_millisecond();
        let due = self
            .heartbeat
            .last_report_ms
            .is_none_or(|at| now_ms - at >= STATUS_REPORT_MS);
        if !due && !status_changed(current, &status) {
            return;
        }
        self.heartbeat.last_report_ms = Some(now_ms);
        let old = serde_json::to_value(current).unwrap_or_default();
        let new = serde_json::to_value(&status).unwrap_or_default();
        let patch = crate::apiserver::strategic_merge_patch::two_way("v1.NodeStatus", &old, &new);
        let request = Request::new(
            self.me(),
            self.identity(),
            Verb::Patch,
            kind_of("Node"),
            None,
            &*self.node,
        )
        .subresource("status")
        .body(Body::Patch(serde_json::json!({ "status": patch })));
        let id = cx.send(request);
        self.heartbeat.pending.push((id, Pending::Status));
    }

    /// An answer to a heartbeat request; `false` when `id` is not one.
    pub(super) fn heartbeat_response(
        &mut self,
        id: RequestId,
        response: &Response,
        cx: &mut Cx<'_>,
    ) -> bool {
        let Some(i) = self.heartbeat.pending.iter().position(|(r, _)| *r == id) else {
            return false;
        };
        let (_, what) = self.heartbeat.pending.remove(i);
        let lease = response.object.as_deref().and_then(|o| match o {
            Object::Lease(l) => Some(l.clone()),
            _ => None,
        });
        match what {
            Pending::GetLease if response.code == 404 => {
                // `backoffEnsureLease`: no Lease yet, create one.
                let Some(node) = self.heartbeat.node.clone() else {
                    return true;
                };
                let request =
                    self.lease_request(Verb::Create)
                        .body(Body::Object(Box::new(Object::Lease(node_lease(
                            &node,
                            self.heartbeat.node_gone,
                            cx.now,
                        )))));
                let id = cx.send(request);
                self.heartbeat.pending.push((id, Pending::WriteLease));
            }
            Pending::GetLease => {
                self.heartbeat.lease = lease;
                if self.heartbeat.lease.is_some() {
                    self.renew_lease(cx);
                }
            }
            // A failed write (a conflict) makes the next renewal get the Lease again.
            Pending::WriteLease => self.heartbeat.lease = lease,
            Pending::Status => {}
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::NodeAddress;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use std::collections::BTreeMap;

    use super::*;

    fn image(names: &[&str], size: i64) -> ContainerImage {
        ContainerImage {
            names: Some(names.iter().map(|n| (*n).to_owned()).collect()),
            size_bytes: Some(size),
        }
    }

    /// Mirrors `TestImagesSetter` (`pkg/kubelet/nodestatus/setters_test.go`):
    /// largest first, capped, digest and tag names.
    #[test]
    fn images_are_reported_largest_first() {
        let mut registry = ImageRegistry::default();
        registry.sizes.insert(normalize("nginx:1.27"), 72_000_000);
        let held: BTreeMap<String, String> = [
            (
                normalize("registry.k8s.io/pause:3.10"),
                "registry.k8s.io/pause:3.10@sha256:0".to_owned(),
            ),
            (
                normalize("nginx:1.27"),
                "docker.io/library/nginx@sha256:ab".to_owned(),
            ),
        ]
        .into_iter()
        .collect();
        let reported = [image(&["registry.k8s.io/pause:3.10"], 320_368)];
        let got = image_list(&held, &reported, &registry);
        assert_eq!(
            got,
            [
                image(
                    &[
                        "docker.io/library/nginx@sha256:ab",
                        "docker.io/library/nginx:1.27"
                    ],
                    72_000_000
                ),
                image(&["registry.k8s.io/pause:3.10"], 320_368),
            ]
        );
        let many: BTreeMap<String, String> = (0..60)
            .map(|i| (format!("docker.io/library/i{i}:1"), format!("d{i}")))
            .collect();
        assert_eq!(image_list(&many, &[], &registry).len(), MAX_IMAGES);
    }

    fn ready(status: &str, at: i64) -> NodeStatus {
        let t = Some(Time(
            k8s_openapi::jiff::Timestamp::from_millisecond(at).unwrap(),
        ));
        NodeStatus {
            conditions: Some(vec![NodeCondition {
                type_: "Ready".into(),
                status: status.into(),
                reason: Some("NodeStatusUnknown".into()),
                message: Some("Kubelet stopped posting node status.".into()),
                last_heartbeat_time: t.clone(),
                last_transition_time: t,
            }]),
            ..NodeStatus::default()
        }
    }

    /// Mirrors `TestNodeStatusHasChanged` (`pkg/kubelet/kubelet_node_status_test.go`):
    /// a new heartbeat alone is no change; a transition is.
    #[test]
    fn only_a_real_change_is_reported_early() {
        let own = vec![(
            "Ready".to_owned(),
            "True".to_owned(),
            "KubeletReady".to_owned(),
            "kubelet is posting ready status".to_owned(),
        )];
        let now = SimTime(60_000);
        let healthy = computed_status(&ready("True", 0), &own, vec![], now);
        assert!(!status_changed(
            &NodeStatus {
                images: Some(vec![]),
                ..healthy.clone()
            },
            &computed_status(&healthy, &own, vec![], SimTime(70_000))
        ));
        let recovered = computed_status(&ready("Unknown", 0), &own, vec![], now);
        let c = &recovered.conditions.as_ref().unwrap()[0];
        assert_eq!(
            (c.status.as_str(), c.reason.as_deref(), c.message.as_deref()),
            (
                "True",
                Some("KubeletReady"),
                Some("kubelet is posting ready status")
            )
        );
        assert_eq!(c.last_transition_time, Some(now.to_time()));
        assert!(status_changed(&ready("Unknown", 0), &recovered));
        // Beyond the conditions: any other field that differs is a change.
        let readdressed = NodeStatus {
            addresses: Some(vec![NodeAddress {
                type_: "InternalIP".into(),
                address: "10.0.0.9".into(),
            }]),
            ..healthy.clone()
        };
        assert!(status_changed(&healthy, &readdressed));
        assert!(status_changed(
            &NodeStatus {
                conditions: None,
                ..healthy.clone()
            },
            &healthy
        ));
    }

    #[test]
    fn a_node_lease_is_held_by_its_node_for_40_seconds() {
        let node = Node {
            metadata: ObjectMeta {
                name: Some("node-1".into()),
                uid: Some("u-1".into()),
                ..ObjectMeta::default()
            },
            ..Node::default()
        };
        let lease = node_lease(&node, false, SimTime::ZERO);
        let spec = lease.spec.unwrap();
        assert_eq!(spec.holder_identity.as_deref(), Some("node-1"));
        assert_eq!(spec.lease_duration_seconds, Some(40));
        assert_eq!(lease.metadata.namespace.as_deref(), Some("kube-node-lease"));
        assert_eq!(
            lease.metadata.owner_references.unwrap()[0].kind,
            "Node".to_owned()
        );
    }
}
