//! Rows of `TestVolumeBinding` (`pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go`):
//! the `PreFilter` and `Filter` verdicts for a pod's claims.

use std::sync::Arc;

use k8s_openapi::api::core::v1::{Node, Pod};
use serde_json::json;

use super::*;
use crate::storage_listers::Listers;
use podflow_model::kinds::kind_of;

fn object(kind: &str, value: serde_json::Value) -> Object {
    Object::from_json(kind_of(kind), value).unwrap()
}

fn pod_with_claim(claim: &str) -> Pod {
    serde_json::from_value(json!({"metadata": {"name": "pod-a", "namespace": "default"},
        "spec": {"containers": [], "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": claim}}]}}))
    .unwrap()
}

fn node(name: &str) -> NodeInfo {
    let node: Node = serde_json::from_value(json!({"metadata": {"name": name,
        "labels": {"kubernetes.io/hostname": name}}}))
    .unwrap();
    NodeInfo::new(Arc::new(node), [])
}

#[allow(clippy::large_stack_arrays)] // a handful of objects of test data
fn cluster() -> Listers {
    let mut l = Listers::default();
    for o in [
        object(
            "StorageClass",
            json!({"metadata": {"name": "wait"}, "provisioner": "p",
            "volumeBindingMode": "WaitForFirstConsumer"}),
        ),
        object(
            "StorageClass",
            json!({"metadata": {"name": "immediate"}, "provisioner": "p",
            "volumeBindingMode": "Immediate"}),
        ),
        object(
            "StorageClass",
            json!({"metadata": {"name": "static"}, "provisioner": NO_PROVISIONER,
            "volumeBindingMode": "WaitForFirstConsumer"}),
        ),
        object(
            "PersistentVolumeClaim",
            json!({"metadata": {"name": "pvc-a", "namespace": "default", "uid": "a"},
            "spec": {"volumeName": "pv-a", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}),
        ),
        object(
            "PersistentVolume",
            json!({"metadata": {"name": "pv-a"},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/"},
                "claimRef": {"name": "pvc-a", "namespace": "default", "uid": "a"},
                "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-a"]}]}]}}}}),
        ),
        object(
            "PersistentVolumeClaim",
            json!({"metadata": {"name": "pvc-wait", "namespace": "default", "uid": "w"},
            "spec": {"storageClassName": "wait", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}),
        ),
        object(
            "PersistentVolumeClaim",
            json!({"metadata": {"name": "pvc-immediate", "namespace": "default", "uid": "i"},
            "spec": {"storageClassName": "immediate", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}),
        ),
        object(
            "PersistentVolumeClaim",
            json!({"metadata": {"name": "pvc-static", "namespace": "default", "uid": "s"},
            "spec": {"storageClassName": "static", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}),
        ),
    ] {
        l.apply(&o, false);
    }
    l
}

/// (name, claim, `PreFilter` status, `Filter` status on node-a and node-b).
#[test]
fn volume_binding_table() {
    let success = Status::success();
    let unresolvable = |r: &str| Status::new(Code::UnschedulableAndUnresolvable, r);
    let cases = [
        (
            "pod has not bound immediate PVCs",
            "pvc-immediate",
            unresolvable(UNBOUND_IMMEDIATE),
            None,
        ),
        (
            "PVC does not exist",
            "pvc-missing",
            unresolvable("persistentvolumeclaim \"pvc-missing\" not found"),
            None,
        ),
        (
            "all bound: the volume's node affinity decides",
            "pvc-a",
            success.clone(),
            Some((success.clone(), unresolvable(NODE_CONFLICT))),
        ),
        (
            "unbound claim, class provisions",
            "pvc-wait",
            success.clone(),
            Some((success.clone(), success.clone())),
        ),
        (
            "unbound claim, no volume and no provisioner",
            "pvc-static",
            success.clone(),
            Some((unresolvable(BIND_CONFLICT), unresolvable(BIND_CONFLICT))),
        ),
    ];
    let nodes = [node("node-a"), node("node-b")];
    for (name, claim, pre_filter, filters) in cases {
        let mut state = CycleState::default();
        state.write(LISTERS, Arc::new(cluster()));
        let pod = pod_with_claim(claim);
        assert_eq!(
            VolumeBinding.pre_filter(&pod, &Snapshot::new(&nodes), &mut state),
            pre_filter,
            "{name}"
        );
        if let Some((a, b)) = filters {
            assert_eq!(
                VolumeBinding.filter(&state, &pod, &nodes[0]),
                a,
                "{name} on node-a"
            );
            assert_eq!(
                VolumeBinding.filter(&state, &pod, &nodes[1]),
                b,
                "{name} on node-b"
            );
        }
    }
}

/// `Reserve` selects the node on a claim left to provisioning.
#[test]
fn reserve_selects_the_node_for_provisioning() {
    let nodes = [node("node-a")];
    let mut state = CycleState::default();
    state.write(LISTERS, Arc::new(cluster()));
    let pod = pod_with_claim("pvc-wait");
    assert!(
        VolumeBinding
            .pre_filter(&pod, &Snapshot::new(&nodes), &mut state)
            .is_success()
    );
    assert!(
        VolumeBinding
            .reserve(&mut state, &pod, "node-a")
            .is_success()
    );
    let writes = writes_of(&state).expect("a write to make");
    assert_eq!(writes.claims, ["default/pvc-wait"]);
    let Object::PersistentVolumeClaim(claim) = &writes.objects[0] else {
        panic!("a claim update")
    };
    assert_eq!(
        claim.metadata.annotations.as_ref().unwrap()[SELECTED_NODE_ANNOTATION],
        "node-a"
    );
    VolumeBinding.unreserve(&mut state, &pod, "node-a");
    assert!(writes_of(&state).is_none());
}

/// A pod without claims skips the plugin.
#[test]
fn a_pod_without_claims_skips() {
    let pod: Pod =
        serde_json::from_value(json!({"metadata": {"name": "p"}, "spec": {"containers": []}}))
            .unwrap();
    let mut state = CycleState::default();
    assert_eq!(
        VolumeBinding
            .pre_filter(&pod, &Snapshot::new(&[]), &mut state)
            .code,
        Code::Skip
    );
    // Nothing to reserve, and `PreBindPreFlight` skips `PreBind` (`allBound`).
    assert_eq!(
        VolumeBinding.reserve(&mut state, &pod, "node-a").code,
        Code::Skip
    );
    assert_eq!(
        VolumeBinding
            .pre_bind_pre_flight(&state, &pod, "node-a")
            .code,
        Code::Skip
    );
}

/// `PreBindPreFlight`: a bound claim leaves nothing to bind (`allBound`);
/// a claim left to provisioning needs `PreBind`.
#[test]
fn pre_bind_pre_flight_skips_when_all_claims_are_bound() {
    let nodes = [node("node-a")];
    for (claim, want) in [("pvc-a", Code::Skip), ("pvc-wait", Code::Success)] {
        let mut state = CycleState::default();
        state.write(LISTERS, Arc::new(cluster()));
        let pod = pod_with_claim(claim);
        assert!(
            VolumeBinding
                .pre_filter(&pod, &Snapshot::new(&nodes), &mut state)
                .is_success()
        );
        assert!(
            VolumeBinding
                .reserve(&mut state, &pod, "node-a")
                .is_success()
        );
        assert_eq!(
            VolumeBinding
                .pre_bind_pre_flight(&state, &pod, "node-a")
                .code,
            want,
            "{claim}"
        );
    }
}
