//! The cluster as it stands when the story starts: the objects of the cluster
//! file (already reconciled, made three days before), and what kube-apiserver
//! and the kubelets made before anyone looked (the built-in `PriorityClasses`,
//! each node's Lease). Random choices come from streams of their own, so
//! adding one kind of starting object changes no other object's UID.

use std::sync::Arc;

use crate::clock::SimTime;
use crate::rng::Rng;
use crate::store::{Store, key_for};
use podflow_model::Object;

/// The store the story starts from: the built-in `PriorityClasses`, the cluster
/// file's `objects` (storage objects from a random stream of their own), the
/// quotas' status, and every node's Lease. `rng` is the engine's own stream.
pub(super) fn starting_store(objects: Vec<Object>, seed: u64, rng: &mut Rng) -> Store {
    let mut store = Store::new();
    // kube-apiserver's post-start hook makes them before anything else.
    bootstrap_priority_classes(&mut store, seed);
    let (storage, objects): (Vec<Object>, Vec<Object>) = objects
        .into_iter()
        .partition(super::starting_storage::is_storage_object);
    create_starting_objects(&mut store, objects, rng);
    let mut storage_rng = Rng::new(seed ^ super::starting_storage::STORAGE_STREAM);
    create_starting_objects(&mut store, storage, &mut storage_rng);
    reconcile_quotas(&mut store);
    bootstrap_node_leases(&mut store, seed);
    kubeadm_cluster_admins(&mut store, seed);
    store
}

/// What `kubeadm init` adds once the API server is up: the
/// `ClusterRoleBinding` `kubeadm:cluster-admins`, through which RBAC allows the
/// admin (`setup::admin`); a cluster file's own is kept. Its UID comes from a
/// random source of its own, so adding it changes no other object's.
fn kubeadm_cluster_admins(store: &mut Store, seed: u64) {
    let mut rng = Rng::new(seed ^ 0x006b_7562_6561_646d);
    for mut object in crate::apiserver::bootstrap_policy::kubeadm_cluster_role_bindings() {
        let key = key_for(object.kind(), None, object.name());
        if store.get(&key).is_none() {
            existing_object_metadata(&mut object, &mut rng);
            let _ = store.create(&key, object);
        }
    }
}

/// Creates the built-in `PriorityClasses` as kube-apiserver's post-start hook
/// does (a cluster file that holds them replaces them). Their UIDs come from a
/// random source of their own, so adding them changes no other object's.
fn bootstrap_priority_classes(store: &mut Store, seed: u64) {
    let mut rng = Rng::new(seed ^ 0x7363_6865_6475_6c65);
    for mut object in crate::apiserver::admission::priority::system_priority_classes() {
        let key = key_for(object.kind(), None, object.name());
        if store.get(&key).is_none() {
            existing_object_metadata(&mut object, &mut rng);
            let _ = store.create(&key, object);
        }
    }
}

/// Gives every node the Lease its kubelet keeps in `kube-node-lease`
/// (`pkg/kubelet/nodelease`: holder the node, 40 s, owned by the Node), as it
/// stood when the story starts; a cluster file's own Lease is kept. Their UIDs
/// come from a random source of their own, so adding them changes no other object's.
fn bootstrap_node_leases(store: &mut Store, seed: u64) {
    let mut rng = Rng::new(seed ^ 0x6c65_6173_6573);
    let nodes: Vec<Arc<Object>> = store
        .range("/registry/nodes/")
        .map(|(_, e)| Arc::clone(&e.object))
        .collect();
    for node in nodes {
        let Some(node) = node.as_node() else {
            continue;
        };
        let mut lease = crate::kubelet::heartbeat::node_lease(node, false, SimTime::ZERO);
        let key = key_for(
            podflow_model::kinds::kind_of("Lease"),
            lease.metadata.namespace.as_deref(),
            lease.metadata.name.as_deref().unwrap_or_default(),
        );
        if store.get(&key).is_none() {
            let mut object = Object::Lease(std::mem::take(&mut lease));
            existing_object_metadata(&mut object, &mut rng);
            let _ = store.create(&key, object);
        }
    }
}

/// Writes the starting cluster's objects, their UIDs drawn from `rng`.
fn create_starting_objects(store: &mut Store, objects: Vec<Object>, rng: &mut Rng) {
    for mut object in objects {
        existing_object_metadata(&mut object, rng);
        namespace_as_created(&mut object);
        crate::apiserver::defaults::stored_before(&mut object);
        let key = key_for(object.kind(), object.namespace(), object.name());
        // A cluster file may name an object twice; the last one wins, as a
        // second `kubectl apply` would make it.
        if store.create(&key, object.clone()).is_err() {
            let _ = store.update(&key, object, None);
        }
    }
}

/// Gives every `ResourceQuota` the `status` the quota controller's first sync
/// would have written: a cluster file's objects are already reconciled.
fn reconcile_quotas(store: &mut Store) {
    let objects: Vec<Arc<Object>> = store.iter().map(|(_, e)| Arc::clone(&e.object)).collect();
    for object in &objects {
        if let Object::ResourceQuota(quota) = &**object {
            let reconciled =
                crate::apiserver::admission::resource_quota::reconcile_status(quota, &objects);
            let key = key_for(object.kind(), object.namespace(), object.name());
            let _ = store.update(&key, Object::ResourceQuota(reconciled), None);
        }
    }
}

/// Gives a Namespace what the API server's create gave it
/// (`pkg/registry/core/namespace/strategy.go`, `PrepareForCreate`): the
/// `kubernetes` finalizer, without which the namespace controller would never
/// empty and remove it, and the `Active` phase unless the file says otherwise.
/// Done before it is stored, so no revision moves.
fn namespace_as_created(object: &mut Object) {
    let Object::Namespace(ns) = object else {
        return;
    };
    let finalizers = ns
        .spec
        .get_or_insert_with(Default::default)
        .finalizers
        .get_or_insert_with(Vec::new);
    let kubernetes = crate::apiserver::namespace_strategy::FINALIZER_KUBERNETES;
    if !finalizers.iter().any(|f| f == kubernetes) {
        finalizers.push(kubernetes.to_owned());
    }
    ns.status
        .get_or_insert_with(Default::default)
        .phase
        .get_or_insert_with(|| "Active".into());
}

/// How long before the story starts the cluster's objects were made (kubectl's AGE shows `3d`).
const CLUSTER_AGE_SECONDS: i64 = 3 * 24 * 3600;

/// Gives an object of the starting cluster what the API server would have given
/// it when it was made: a UID and a creation time before the story starts.
fn existing_object_metadata(object: &mut Object, rng: &mut Rng) {
    let meta = object.metadata_mut();
    if meta.uid.is_none() {
        meta.uid = Some(rng.uuid());
    }
    if meta.creation_timestamp.is_none() {
        let (secs, _) = SimTime::ZERO.unix();
        let made = k8s_openapi::jiff::Timestamp::from_second(secs - CLUSTER_AGE_SECONDS)
            .unwrap_or(k8s_openapi::jiff::Timestamp::UNIX_EPOCH);
        meta.creation_timestamp = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(made));
    }
}
