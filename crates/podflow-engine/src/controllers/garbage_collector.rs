//! The garbage collector (`pkg/controller/garbagecollector/garbagecollector.go`,
//! `graph_builder.go`): when an owner is deleted, each object whose
//! `ownerReferences` named it is checked (`attemptToDeleteItem`): the
//! owners are looked up live, and a dependent whose owners are all gone is
//! deleted with background propagation, so its own dependents follow in turn.
//!
//! Foreground and orphan deletion go through finalizers the API server sets
//! (`staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go`):
//! an owner deleting with `foregroundDeletion` has its blocking dependents
//! (`blockOwnerDeletion: true`) deleted first — in the foreground themselves
//! when they have dependents — and loses the finalizer once none is left
//! (`processDeletingDependentsItem`); an owner deleting with `orphan` has its
//! reference removed from each dependent, then loses the finalizer
//! (`orphanDependents`, `orphanFinalizer`). Losing the last finalizer deletes
//! it. The graph covers `ReplicaSets`, Pods, `EndpointSlices` and Leases as
//! dependents, and Deployments, `ReplicaSets`, Jobs, Services and Nodes as
//! owners (a Node owns its kubelet's Lease in `kube-node-lease`).

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

use super::client;
use super::informer::{Informer, InformerDelta};
use super::workqueue::WorkQueue;
use super::{Controller, Informers, Progress, enqueue, sync_stage};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Propagation, Verb};
use crate::apiserver::strategy::{FOREGROUND_FINALIZER, ORPHAN_FINALIZER};
use crate::component::{Cx, RequestId};
use crate::trace::Outcome;
use podflow_model::Object;
use podflow_model::kinds::{Kind, kind_of};

const NAME: &str = "generic-garbage-collector";

/// A request in flight for an attempt.
#[derive(Debug, Clone)]
enum Step {
    /// A live look-up of the dependent's owner at this index.
    GetOwner(usize),
    Delete,
    /// The dependent's blocking owner references made non-blocking, before
    /// its deletion (`unblockOwnerReferencesStrategicMergePatch`).
    Unblock,
    /// A dependent's reference to an orphaning owner removed; the owner's
    /// finalizer goes once none is left.
    Unlink,
    /// The owner's `foregroundDeletion` or `orphan` finalizer removed.
    RemoveFinalizer,
}

/// An attempt to delete one dependent.
#[derive(Debug, Clone)]
struct Attempt {
    kind: &'static Kind,
    namespace: String,
    name: String,
    uid: String,
    owners: Vec<OwnerReference>,
    /// An owner is deleting its dependents in the foreground and this one blocks it.
    waited_for: bool,
    /// Whether objects name this one as their owner.
    has_dependents: bool,
    /// Whether one of those is itself deleting its dependents in the
    /// foreground: a possible cycle.
    dependent_deleting: bool,
    /// The propagation its own finalizers ask for.
    own_policy: Propagation,
}

/// The collector's state.
#[derive(Debug, Clone, Default)]
pub struct GarbageCollector {
    queue: WorkQueue,
    inflight: BTreeMap<RequestId, (String, Step)>,
    attempts: BTreeMap<String, Attempt>,
    /// Orphaning owners: the unlink patches still unanswered, and the owner's finalizers.
    orphaning: BTreeMap<String, (usize, Arc<Object>)>,
}

/// The queue key of an object: `Kind:NAMESPACE/NAME`.
fn item_key(object: &Object) -> String {
    format!("{}:{}", object.kind().kind, super::informer::key_of(object))
}

/// Whether `object` is being deleted and holds `finalizer`.
fn deleting_with(object: &Object, finalizer: &str) -> bool {
    let meta = object.metadata();
    meta.deletion_timestamp.is_some() && meta.finalizers.iter().flatten().any(|f| f == finalizer)
}

/// The keys of the owners named by `refs` (references of `dependent`) that
/// are cached and deleting their dependents in the foreground.
fn waiting_owners<'a>(
    informers: &Informers,
    dependent: &Object,
    refs: impl Iterator<Item = &'a OwnerReference>,
) -> Vec<String> {
    let mut keys = Vec::new();
    for r in refs {
        let Some(informer) = informer_for(informers, &r.kind) else {
            continue;
        };
        let namespaced =
            Kind::from_type_meta(&r.api_version, &r.kind).is_some_and(|k| k.namespaced);
        let owner_key = match dependent.namespace() {
            Some(ns) if namespaced => format!("{ns}/{}", r.name),
            _ => r.name.clone(),
        };
        if let Some(owner) = informer.get(&owner_key)
            && owner.metadata().uid.as_deref() == Some(r.uid.as_str())
            && deleting_with(owner, FOREGROUND_FINALIZER)
        {
            keys.push(item_key(owner));
        }
    }
    keys
}

/// Every cached dependent of the owner with `uid`, across the dependents'
/// informers: in the owner's namespace, or in any for a cluster-scoped owner.
fn all_dependents<'a>(
    informers: &'a Informers,
    namespace: &'a str,
    uid: &'a str,
) -> Vec<&'a Arc<Object>> {
    dependents_of(&informers.replicasets, namespace, uid)
        .chain(dependents_of(&informers.pods, namespace, uid))
        .chain(dependents_of(&informers.endpointslices, namespace, uid))
        .chain(dependents_of(&informers.leases, namespace, uid))
        .collect()
}

/// The informer holding objects of `kind`, for the kinds the graph covers.
fn informer_for<'a>(informers: &'a Informers, kind: &str) -> Option<&'a Informer> {
    match kind {
        "Deployment" | "ReplicaSet" | "Pod" | "EndpointSlice" | "Job" | "Service" | "Lease"
        | "Node" => informers.of_kind(kind),
        _ => None,
    }
}

fn dependents_of<'a>(
    informer: &'a Informer,
    namespace: &'a str,
    uid: &'a str,
) -> impl Iterator<Item = &'a Arc<Object>> + 'a {
    informer
        .owned_by(uid)
        .filter(move |o| namespace.is_empty() || o.namespace().unwrap_or_default() == namespace)
}

impl GarbageCollector {
    /// An owner waits for this dependent while one of its own dependents
    /// waits for it: to break the possible cycle, its blocking references
    /// become non-blocking first, then it is deleted in the foreground
    /// (`attemptToDeleteItem`, "to prevent potential cycle").
    fn unblock(&mut self, key: &str, mut attempt: Attempt, cx: &mut Cx<'_>) -> Progress {
        sync_stage(
            NAME,
            Outcome::Unblock,
            format!(
                "{key}: an owner and a dependent are both deleting in the foreground; \
                 making its owner references non-blocking to prevent a cycle"
            ),
            cx,
        );
        let refs: Vec<OwnerReference> = attempt
            .owners
            .iter()
            .filter(|o| o.block_owner_deletion == Some(true))
            .map(|o| OwnerReference {
                block_owner_deletion: Some(false),
                ..o.clone()
            })
            .collect();
        let patch = serde_json::json!({
            "metadata": {"ownerReferences": refs, "uid": attempt.uid}
        });
        let request = client::request(
            NAME,
            Verb::Patch,
            attempt.kind,
            Some(&attempt.namespace),
            &attempt.name,
        )
        .body(Body::Patch(patch));
        let id = cx.send(request);
        self.inflight.insert(id, (key.to_owned(), Step::Unblock));
        attempt.dependent_deleting = false;
        self.attempts.insert(key.to_owned(), attempt);
        Progress::Waiting
    }

    /// Looks up the owner at `index` of the attempt, or deletes the dependent when none is left.
    fn next(&mut self, key: &str, attempt: Attempt, index: usize, cx: &mut Cx<'_>) -> Progress {
        let (request, step) = if let Some(owner) = attempt.owners.get(index) {
            let Some(kind) = Kind::from_type_meta(&owner.api_version, &owner.kind) else {
                // An owner of a kind podflow does not serve: as if absent.
                return self.next(key, attempt, index + 1, cx);
            };
            let ns = Some(attempt.namespace.as_str()).filter(|_| kind.namespaced);
            let request = client::request(NAME, Verb::Get, kind, ns, &owner.name);
            (request, Step::GetOwner(index))
        } else {
            let owners: Vec<String> = attempt
                .owners
                .iter()
                .map(|o| format!("{} {}", o.kind, o.name))
                .collect();
            // An owner waiting for this dependent makes it go in the
            // foreground when it has dependents of its own; else its own
            // finalizers decide (attemptToDeleteItem).
            if attempt.waited_for && attempt.dependent_deleting {
                return self.unblock(key, attempt, cx);
            }
            let policy = if attempt.waited_for && attempt.has_dependents {
                Propagation::Foreground
            } else {
                attempt.own_policy
            };
            let why = if attempt.waited_for {
                format!(
                    "an owner is deleting its dependents in the foreground ({})",
                    owners.join(", ")
                )
            } else {
                format!("every owner is gone ({})", owners.join(", "))
            };
            sync_stage(
                NAME,
                Outcome::Delete,
                format!(
                    "{key}: {why}; deleting it with propagationPolicy {}",
                    policy.as_str()
                ),
                cx,
            );
            let request = client::request(
                NAME,
                Verb::Delete,
                attempt.kind,
                Some(&attempt.namespace),
                &attempt.name,
            )
            .propagation(policy);
            (request, Step::Delete)
        };
        let id = cx.send(request);
        self.inflight.insert(id, (key.to_owned(), step));
        self.attempts.insert(key.to_owned(), attempt);
        Progress::Waiting
    }
}

impl GarbageCollector {
    /// An owner deleting in the foreground (`processDeletingDependentsItem`):
    /// its blocking dependents are deleted first; with none left, its
    /// `foregroundDeletion` finalizer goes.
    fn deleting_dependents(
        &mut self,
        key: &str,
        owner: &Arc<Object>,
        informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Progress {
        let uid = owner.metadata().uid.clone().unwrap_or_default();
        let ns = owner.namespace().unwrap_or_default().to_owned();
        let blocking: Vec<&Arc<Object>> = all_dependents(informers, &ns, &uid)
            .into_iter()
            .filter(|d| {
                d.metadata()
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|r| r.uid == uid && r.block_owner_deletion == Some(true))
            })
            .collect();
        if blocking.is_empty() {
            sync_stage(
                NAME,
                Outcome::Finalize,
                format!(
                    "{key}: no dependent blocks its deletion; removing the foregroundDeletion finalizer"
                ),
                cx,
            );
            return self.remove_finalizer(key, owner, FOREGROUND_FINALIZER, cx);
        }
        let names: Vec<String> = blocking.iter().map(|d| item_key(d)).collect();
        sync_stage(
            NAME,
            Outcome::Waiting,
            format!(
                "{key}: deleting in the foreground; waiting for {} blocking dependent(s): {}",
                names.len(),
                names.join(", ")
            ),
            cx,
        );
        // A blocking dependent that is itself deleting its dependents is
        // left to its own sync (`processDeletingDependentsItem`), so a cycle
        // of owners does not queue itself for ever.
        for (dependent, name) in blocking.iter().zip(&names) {
            if !deleting_with(dependent, FOREGROUND_FINALIZER) {
                enqueue(NAME, &mut self.queue, name, cx);
            }
        }
        Progress::Done
    }

    /// An owner deleting with the `orphan` finalizer (`orphanDependents`):
    /// its reference is removed from every dependent, then the finalizer goes.
    fn orphan_dependents(
        &mut self,
        key: &str,
        owner: &Arc<Object>,
        informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Progress {
        let uid = owner.metadata().uid.clone().unwrap_or_default();
        let ns = owner.namespace().unwrap_or_default().to_owned();
        let dependents = all_dependents(informers, &ns, &uid);
        if dependents.is_empty() {
            sync_stage(
                NAME,
                Outcome::Finalize,
                format!("{key}: no dependents left to orphan; removing the orphan finalizer"),
                cx,
            );
            return self.remove_finalizer(key, owner, ORPHAN_FINALIZER, cx);
        }
        let names: Vec<String> = dependents.iter().map(|d| item_key(d)).collect();
        sync_stage(
            NAME,
            Outcome::Orphan,
            format!(
                "{key}: removing its owner reference from {}",
                names.join(", ")
            ),
            cx,
        );
        for dependent in &dependents {
            let patch = serde_json::json!({
                "metadata": {
                    "ownerReferences": [{"$patch": "delete", "uid": uid}],
                    "uid": dependent.metadata().uid,
                }
            });
            let request = client::request(
                NAME,
                Verb::Patch,
                dependent.kind(),
                dependent.namespace(),
                dependent.name(),
            )
            .body(Body::Patch(patch));
            let id = cx.send(request);
            self.inflight.insert(id, (key.to_owned(), Step::Unlink));
        }
        self.orphaning
            .insert(key.to_owned(), (dependents.len(), Arc::clone(owner)));
        Progress::Waiting
    }

    /// Patches `finalizer` out of `owner`'s finalizers (`removeFinalizer`),
    /// with a JSON merge patch of the list left, as upstream's collector
    /// sends it (a strategic merge patch would merge finalizers as a set).
    fn remove_finalizer(
        &mut self,
        key: &str,
        owner: &Object,
        finalizer: &str,
        cx: &mut Cx<'_>,
    ) -> Progress {
        let left: Vec<&String> = owner
            .metadata()
            .finalizers
            .iter()
            .flatten()
            .filter(|f| *f != finalizer)
            .collect();
        let finalizers = if left.is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::json!(left)
        };
        let patch = serde_json::json!({"metadata": {"finalizers": finalizers}});
        let request = client::request(
            NAME,
            Verb::Patch,
            owner.kind(),
            owner.namespace(),
            owner.name(),
        )
        .body(Body::MergePatch(patch));
        let id = cx.send(request);
        self.inflight
            .insert(id, (key.to_owned(), Step::RemoveFinalizer));
        Progress::Waiting
    }
}

impl Controller for GarbageCollector {
    fn name(&self) -> &'static str {
        NAME
    }

    fn queue(&mut self) -> &mut WorkQueue {
        &mut self.queue
    }

    fn on_delta(&mut self, delta: &InformerDelta, informers: &Informers, cx: &mut Cx<'_>) {
        let object = delta.object();
        let mut keys = Vec::new();
        match delta {
            InformerDelta::Deleted(owner) => {
                if let Some(uid) = owner.metadata().uid.as_deref() {
                    let ns = owner.namespace().unwrap_or_default();
                    keys.extend(
                        all_dependents(informers, ns, uid)
                            .iter()
                            .map(|o| item_key(o)),
                    );
                }
                // An owner waiting for this dependent may now lose its finalizer.
                let refs = object.metadata().owner_references.iter().flatten();
                keys.extend(waiting_owners(informers, object, refs));
            }
            InformerDelta::Updated { old, new } => {
                if deleting_with(new, FOREGROUND_FINALIZER) || deleting_with(new, ORPHAN_FINALIZER)
                {
                    keys.push(item_key(new));
                }
                // `addUnblockedOwnersToDeleteQueue`: a blocking reference
                // removed or made non-blocking may free an owner that waits.
                let now = new
                    .metadata()
                    .owner_references
                    .as_deref()
                    .unwrap_or_default();
                let unblocked = old
                    .metadata()
                    .owner_references
                    .iter()
                    .flatten()
                    .filter(|r| r.block_owner_deletion == Some(true))
                    .filter(|r| {
                        !now.iter()
                            .any(|n| n.uid == r.uid && n.block_owner_deletion == Some(true))
                    });
                keys.extend(waiting_owners(informers, new, unblocked));
            }
            InformerDelta::Added(_) => {
                if deleting_with(object, FOREGROUND_FINALIZER)
                    || deleting_with(object, ORPHAN_FINALIZER)
                {
                    keys.push(item_key(object));
                }
            }
        }
        for key in keys {
            enqueue(NAME, &mut self.queue, &key, cx);
        }
    }

    fn sync(&mut self, key: &str, informers: &Informers, cx: &mut Cx<'_>) -> Progress {
        let (kind, rest) = key.split_once(':').unwrap_or(("", key));
        let Some(informer) = informer_for(informers, kind) else {
            return Progress::Done;
        };
        let Some(object) = informer.get(rest).cloned() else {
            sync_stage(NAME, Outcome::Gone, format!("{key} is already gone"), cx);
            return Progress::Done;
        };
        if deleting_with(&object, FOREGROUND_FINALIZER) {
            return self.deleting_dependents(key, &object, informers, cx);
        }
        if deleting_with(&object, ORPHAN_FINALIZER) {
            return self.orphan_dependents(key, &object, informers, cx);
        }
        if object.metadata().deletion_timestamp.is_some() {
            // Already on its way out; nothing for the collector to do.
            return Progress::Done;
        }
        let uid = object.metadata().uid.clone().unwrap_or_default();
        let ns = object.namespace().unwrap_or_default().to_owned();
        let finalizers = object.metadata().finalizers.clone().unwrap_or_default();
        let dependents = all_dependents(informers, &ns, &uid);
        let attempt = Attempt {
            waited_for: false,
            has_dependents: !dependents.is_empty(),
            dependent_deleting: dependents
                .iter()
                .any(|d| deleting_with(d, FOREGROUND_FINALIZER)),
            own_policy: if finalizers.iter().any(|f| f == ORPHAN_FINALIZER) {
                Propagation::Orphan
            } else if finalizers.iter().any(|f| f == FOREGROUND_FINALIZER) {
                Propagation::Foreground
            } else {
                Propagation::Background
            },
            kind: kind_of(kind),
            namespace: object.namespace().unwrap_or_default().to_owned(),
            name: object.name().to_owned(),
            uid: uid.clone(),
            owners: object
                .metadata()
                .owner_references
                .clone()
                .unwrap_or_default(),
        };
        if attempt.owners.is_empty() {
            return Progress::Done;
        }
        self.next(key, attempt, 0, cx)
    }

    fn on_response(
        &mut self,
        id: RequestId,
        response: &Response,
        _informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Option<(String, Progress)> {
        let (key, step) = self.inflight.remove(&id)?;
        match step {
            Step::RemoveFinalizer => {
                let ok = response.code < 300 || response.code == 404;
                let progress = if ok {
                    Progress::Done
                } else {
                    Progress::Failed(response.message())
                };
                return Some((key, progress));
            }
            Step::Unlink => {
                let Some((left, owner)) = self.orphaning.get_mut(&key) else {
                    return Some((key, Progress::Done));
                };
                *left -= 1;
                if response.code >= 300 && response.code != 404 {
                    self.orphaning.remove(&key);
                    return Some((key, Progress::Failed(response.message())));
                }
                if *left > 0 {
                    return Some((key, Progress::Waiting));
                }
                let owner = Arc::clone(owner);
                self.orphaning.remove(&key);
                sync_stage(
                    NAME,
                    Outcome::Finalize,
                    format!("{key}: its dependents are orphaned; removing the orphan finalizer"),
                    cx,
                );
                return Some((
                    key.clone(),
                    self.remove_finalizer(&key, &owner, ORPHAN_FINALIZER, cx),
                ));
            }
            Step::GetOwner(_) | Step::Delete | Step::Unblock => {}
        }
        let Some(mut attempt) = self.attempts.remove(&key) else {
            return Some((key, Progress::Done));
        };
        let progress = match step {
            Step::GetOwner(index) => {
                let owner = attempt.owners[index.min(attempt.owners.len() - 1)].clone();
                let live = response.code < 300
                    && response
                        .object
                        .as_ref()
                        .is_some_and(|o| o.metadata().uid.as_deref() == Some(owner.uid.as_str()));
                // An owner deleting in the foreground that this reference
                // blocks is not a solid owner: it waits for this dependent.
                let waiting = live
                    && owner.block_owner_deletion == Some(true)
                    && response
                        .object
                        .as_ref()
                        .is_some_and(|o| deleting_with(o, FOREGROUND_FINALIZER));
                if waiting {
                    attempt.waited_for = true;
                    self.next(&key, attempt, index + 1, cx)
                } else if live {
                    sync_stage(
                        NAME,
                        Outcome::Keep,
                        format!("{key}: owner {} {} still exists", owner.kind, owner.name),
                        cx,
                    );
                    Progress::Done
                } else if response.code == 404 || response.code < 300 {
                    self.next(&key, attempt, index + 1, cx)
                } else {
                    Progress::Failed(response.message())
                }
            }
            Step::Unblock if response.code < 300 => {
                let last = attempt.owners.len();
                self.next(&key, attempt, last, cx)
            }
            Step::Unblock => Progress::Failed(response.message()),
            Step::Delete => {
                if response.code < 300 || response.code == 404 {
                    Progress::Done
                } else {
                    Progress::Failed(response.message())
                }
            }
            Step::Unlink | Step::RemoveFinalizer => Progress::Done,
        };
        Some((key, progress))
    }
}
