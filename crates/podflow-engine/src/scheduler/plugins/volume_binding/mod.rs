//! `VolumeBinding` (`pkg/scheduler/framework/plugins/volumebinding/volume_binding.go`,
//! `binder.go`): a pod's `PersistentVolumeClaims` decide where it may run.
//!
//! - `PreFilter`: a missing claim (`persistentvolumeclaim "x" not found`), one
//!   being deleted, or an unbound claim of an `Immediate` class (`pod has unbound
//!   immediate PersistentVolumeClaims`) refuses the pod; a pod without claims skips.
//! - `Filter`: a bound claim's volume must allow the node (`node(s) had volume
//!   node affinity conflict`); an unbound `WaitForFirstConsumer` claim needs a
//!   matching volume there or a class that provisions (`node(s) didn't find
//!   available persistent volumes to bind`).
//! - `Reserve` decides per claim: bind that static volume, or ask for
//!   provisioning on the node (`volume.kubernetes.io/selected-node`).
//! - `PreBind` (`BindPodVolumes`): the scheduler writes those decisions and
//!   waits until the PV controller has bound every claim before it binds the
//!   pod. podflow's framework runs `PreBind` synchronously, so the plugin
//!   leaves the writes in the cycle state ([`writes_of`]) and the scheduler
//!   sends them and waits on its watch of the claims.
//!
//! Left out: `CSIStorageCapacity`, `allowedTopologies`, scoring
//! (`VolumeCapacityPriority` is off by default), the bind timeout.

#[cfg(test)]
mod tests;
pub mod waits;

use std::sync::Arc;

use k8s_openapi::api::core::v1::{
    Affinity, NodeAffinity, PersistentVolume, PersistentVolumeClaim, Pod, PodSpec,
};

use crate::controllers::pv_controller::{
    delays_binding, find_matching_volume, volume_bound_to_claim,
};
use crate::scheduler::framework::{
    Code, CycleState, FilterPlugin, NodeInfo, PreBindPlugin, ReservePlugin, Snapshot, Status,
};
use crate::scheduler::plugins::node_affinity::required_matches_node;
use crate::storage_listers::Listers;
use podflow_model::Object;
use podflow_model::storage::{
    SELECTED_NODE_ANNOTATION, bind_volume_to_claim, claim_key, claim_volume_name,
};

/// The plugin's name.
pub const NAME: &str = "VolumeBinding";
/// The cycle-state key under which the scheduler hands the plugin its listers.
pub const LISTERS: &str = "VolumeBinding/listers";
/// The cycle-state key of the writes `Reserve` decided.
const WRITES: &str = "VolumeBinding/writes";

/// `ErrReasonBindConflict`.
pub const BIND_CONFLICT: &str = "node(s) didn't find available persistent volumes to bind";
/// `ErrReasonNodeConflict`.
pub const NODE_CONFLICT: &str = "node(s) had volume node affinity conflict";
/// `ErrReasonPVNotExist`.
pub const PV_NOT_EXIST: &str = "pvc(s) bound to non-existent pv(s)";
/// The `PreFilter` reason for unbound claims of an `Immediate` class.
pub const UNBOUND_IMMEDIATE: &str = "pod has unbound immediate PersistentVolumeClaims";

/// The provisioner name that means "static volumes only".
const NO_PROVISIONER: &str = "kubernetes.io/no-provisioner";

/// The `VolumeBinding` plugin.
#[derive(Debug, Clone, Copy, Default)]
pub struct VolumeBinding;

/// What `PreFilter` found (`PodVolumeClaims`).
#[derive(Debug, Clone, Default)]
struct Claims {
    bound: Vec<Arc<PersistentVolumeClaim>>,
    delayed: Vec<Arc<PersistentVolumeClaim>>,
}

/// The writes `Reserve` decided and the claims `PreBind` waits for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Writes {
    /// Objects to update, in order: volumes bound to claims, claims with a selected node.
    pub objects: Vec<Object>,
    /// `NS/NAME` of every claim that must end up bound.
    pub claims: Vec<String>,
}

/// The writes the binding cycle left for the scheduler to send, if any.
pub fn writes_of(state: &CycleState) -> Option<&Writes> {
    state
        .read::<Writes>(WRITES)
        .filter(|w| !w.claims.is_empty())
}

fn listers(state: &CycleState) -> Option<Arc<Listers>> {
    state.read::<Arc<Listers>>(LISTERS).cloned()
}

/// The names of the claims the pod's volumes use.
fn claim_names(pod: &Pod) -> Vec<String> {
    pod.spec
        .as_ref()
        .and_then(|s| s.volumes.as_ref())
        .into_iter()
        .flatten()
        .filter_map(|v| v.persistent_volume_claim.as_ref())
        .map(|c| c.claim_name.clone())
        .collect()
}

/// Whether a volume's required node affinity admits `node` (`CheckNodeAffinity`).
fn volume_allows(volume: &PersistentVolume, node: &NodeInfo) -> bool {
    let Some(required) = volume
        .spec
        .as_ref()
        .and_then(|s| s.node_affinity.as_ref())
        .and_then(|a| a.required.clone())
    else {
        return true;
    };
    let probe = Pod {
        spec: Some(PodSpec {
            affinity: Some(Affinity {
                node_affinity: Some(NodeAffinity {
                    required_during_scheduling_ignored_during_execution: Some(required),
                    ..NodeAffinity::default()
                }),
                ..Affinity::default()
            }),
            ..PodSpec::default()
        }),
        ..Pod::default()
    };
    required_matches_node(&probe, &node.node)
}

/// Static volumes that fit the claim on `node`.
fn static_match<'a>(
    claim: &PersistentVolumeClaim,
    listers: &'a Listers,
    node: &NodeInfo,
) -> Option<&'a PersistentVolume> {
    let on_node = listers
        .volumes
        .values()
        .map(|v| &**v)
        .filter(|v| volume_allows(v, node));
    find_matching_volume(claim, on_node, false)
}

impl FilterPlugin for VolumeBinding {
    fn name(&self) -> &'static str {
        NAME
    }

    fn pre_filter(&self, pod: &Pod, nodes: &Snapshot<'_>, state: &mut CycleState) -> Status {
        let names = claim_names(pod);
        if names.is_empty() {
            return Status::skip("the pod has no PersistentVolumeClaim");
        }
        let Some(listers) = listers(state) else {
            return Status::new(Code::Skip, "");
        };
        let namespace = pod.metadata.namespace.as_deref().unwrap_or_default();
        let mut claims = Claims::default();
        let mut immediate = false;
        for name in names {
            let Some(claim) = listers.claim(namespace, &name) else {
                return Status::new(
                    Code::UnschedulableAndUnresolvable,
                    format!("persistentvolumeclaim \"{name}\" not found"),
                );
            };
            if claim.metadata.deletion_timestamp.is_some() {
                return Status::new(
                    Code::UnschedulableAndUnresolvable,
                    format!("persistentvolumeclaim \"{name}\" is being deleted"),
                );
            }
            if !claim_volume_name(claim).is_empty() {
                claims.bound.push(Arc::clone(claim));
                continue;
            }
            let class = listers
                .classes
                .get(podflow_model::storage::claim_class(claim))
                .map(|c| &**c);
            if delays_binding(claim, class) {
                claims.delayed.push(Arc::clone(claim));
            } else {
                immediate = true;
            }
        }
        if immediate {
            return Status::new(Code::UnschedulableAndUnresolvable, UNBOUND_IMMEDIATE);
        }
        if !claims.delayed.is_empty() {
            state.write(NODE, nodes.infos().to_vec());
        }
        state.write(NAME, claims);
        Status::success()
    }

    /// `FindPodVolumes` on one node.
    fn filter(&self, state: &CycleState, _pod: &Pod, node: &NodeInfo) -> Status {
        let (Some(claims), Some(listers)) = (state.read::<Claims>(NAME), listers(state)) else {
            return Status::success();
        };
        let mut reasons = Vec::new();
        for claim in &claims.bound {
            match listers.volumes.get(claim_volume_name(claim)) {
                None => reasons.push(PV_NOT_EXIST),
                Some(volume) if !volume_allows(volume, node) => reasons.push(NODE_CONFLICT),
                Some(_) => {}
            }
        }
        for claim in &claims.delayed {
            if static_match(claim, &listers, node).is_some() {
                continue;
            }
            let provisions = listers
                .classes
                .get(podflow_model::storage::claim_class(claim))
                .is_some_and(|c| c.provisioner != NO_PROVISIONER);
            if !provisions {
                reasons.push(BIND_CONFLICT);
            }
        }
        reasons.dedup();
        if reasons.is_empty() {
            return Status::success();
        }
        Status {
            code: Code::UnschedulableAndUnresolvable,
            reasons: reasons.into_iter().map(str::to_owned).collect(),
        }
    }
}

impl ReservePlugin for VolumeBinding {
    fn name(&self) -> &'static str {
        NAME
    }

    /// `AssumePodVolumes`: a static volume bound to each claim that has one
    /// on the node, the node selected on the others. A pod without claims
    /// (`PreFilter` skipped) has nothing to reserve: upstream's `Reserve` only
    /// notes `allBound`, so no stage is recorded (`Skip`).
    fn reserve(&self, state: &mut CycleState, _pod: &Pod, node: &str) -> Status {
        let (Some(claims), Some(listers)) = (state.read::<Claims>(NAME).cloned(), listers(state))
        else {
            return Status::new(Code::Skip, "");
        };
        let Some(info) = node_info(state, node) else {
            return Status::success();
        };
        let mut writes = Writes::default();
        for claim in &claims.delayed {
            writes.claims.push(claim_key(claim));
            if let Some(volume) = static_match(claim, &listers, &info) {
                if volume_bound_to_claim(volume, claim) {
                    continue;
                }
                let mut volume = volume.clone();
                bind_volume_to_claim(&mut volume, claim);
                writes.objects.push(Object::from(volume));
            } else {
                let mut claim = (**claim).clone();
                claim
                    .metadata
                    .annotations
                    .get_or_insert_with(Default::default)
                    .insert(SELECTED_NODE_ANNOTATION.into(), node.to_owned());
                writes.objects.push(Object::PersistentVolumeClaim(claim));
            }
        }
        state.write(WRITES, writes);
        Status::success()
    }

    fn unreserve(&self, state: &mut CycleState, _pod: &Pod, _node: &str) {
        state.write(WRITES, Writes::default());
    }
}

impl PreBindPlugin for VolumeBinding {
    fn name(&self) -> &'static str {
        NAME
    }

    /// `PreBindPreFlight`: when every claim is bound already (`allBound`,
    /// also for a pod without claims) there is nothing to bind: `Skip`.
    fn pre_bind_pre_flight(&self, state: &CycleState, _pod: &Pod, _node: &str) -> Status {
        if writes_of(state).is_some() {
            Status::success()
        } else {
            Status::new(Code::Skip, "")
        }
    }

    /// `BindPodVolumes`: the writes are the scheduler's to send ([`writes_of`]).
    fn pre_bind(&self, _state: &CycleState, _pod: &Pod, _node: &str) -> Status {
        Status::success()
    }
}

/// The cycle-state key of the nodes `PreFilter` saw, for `Reserve` (upstream's
/// binder reads the node lister).
const NODE: &str = "VolumeBinding/nodes";

fn node_info(state: &CycleState, node: &str) -> Option<NodeInfo> {
    state
        .read::<Vec<NodeInfo>>(NODE)
        .and_then(|infos| infos.iter().find(|i| i.name() == node).cloned())
}
