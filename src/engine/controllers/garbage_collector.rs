//! The garbage collector (`pkg/controller/garbagecollector/garbagecollector.go`,
//! `graph_builder.go`): when an owner is deleted, each object whose
//! `ownerReferences` named it is checked (`attemptToDeleteItem`): the
//! owners are looked up live, and a dependent whose owners are all gone is
//! deleted with background propagation, so its own dependents follow in turn.
//!
//! Only background cascading: podflow's API server has no finalizers or
//! `propagationPolicy`, so a `Foreground` or `Orphan` delete cannot be asked
//! for. The graph covers `ReplicaSets`, Pods and `EndpointSlices` as dependents.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

use super::client;
use super::informer::{Delta, Informer};
use super::workqueue::WorkQueue;
use super::{Controller, Informers, Progress, enqueue, sync_stage};
use crate::engine::apiserver::handler::Response;
use crate::engine::apiserver::request::Verb;
use crate::engine::component::{Cx, RequestId};
use crate::model::Object;
use crate::model::kinds::{Kind, kind_of};

const NAME: &str = "generic-garbage-collector";

/// A request in flight for an attempt.
#[derive(Debug, Clone)]
enum Step {
    /// A live look-up of the dependent's owner at this index.
    GetOwner(usize),
    Delete,
}

/// An attempt to delete one dependent.
#[derive(Debug, Clone)]
struct Attempt {
    kind: &'static Kind,
    namespace: String,
    name: String,
    owners: Vec<OwnerReference>,
}

/// The collector's state.
#[derive(Debug, Clone, Default)]
pub struct GarbageCollector {
    queue: WorkQueue,
    inflight: BTreeMap<RequestId, (String, Step)>,
    attempts: BTreeMap<String, Attempt>,
}

/// The queue key of an object: `Kind:NAMESPACE/NAME`.
fn item_key(object: &Object) -> String {
    format!("{}:{}", object.kind().kind, super::informer::key_of(object))
}

fn dependents_of<'a>(
    informer: &'a Informer,
    namespace: &str,
    uid: &'a str,
) -> impl Iterator<Item = &'a Arc<Object>> + 'a {
    informer.list_in(namespace).filter(move |o| {
        o.metadata()
            .owner_references
            .iter()
            .flatten()
            .any(|r| r.uid == uid)
    })
}

impl GarbageCollector {
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
            sync_stage(
                NAME,
                "delete",
                format!(
                    "{key}: every owner is gone ({}); deleting it with propagationPolicy Background",
                    owners.join(", ")
                ),
                cx,
            );
            let request = client::request(
                NAME,
                Verb::Delete,
                attempt.kind,
                Some(&attempt.namespace),
                &attempt.name,
            );
            (request, Step::Delete)
        };
        let id = cx.send(request);
        self.inflight.insert(id, (key.to_owned(), step));
        self.attempts.insert(key.to_owned(), attempt);
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

    fn on_delta(&mut self, delta: &Delta, informers: &Informers, cx: &mut Cx<'_>) {
        let Delta::Deleted(owner) = delta else {
            return;
        };
        let Some(uid) = owner.metadata().uid.clone() else {
            return;
        };
        let ns = owner.namespace().unwrap_or_default().to_owned();
        let keys: Vec<String> = dependents_of(&informers.replicasets, &ns, &uid)
            .chain(dependents_of(&informers.pods, &ns, &uid))
            .chain(dependents_of(&informers.endpointslices, &ns, &uid))
            .map(|o| item_key(o))
            .collect();
        for key in keys {
            enqueue(NAME, &mut self.queue, &key, cx);
        }
    }

    fn sync(&mut self, key: &str, informers: &Informers, cx: &mut Cx<'_>) -> Progress {
        let (kind, rest) = key.split_once(':').unwrap_or(("", key));
        let informer = match kind {
            "ReplicaSet" => &informers.replicasets,
            "Pod" => &informers.pods,
            "EndpointSlice" => &informers.endpointslices,
            _ => return Progress::Done,
        };
        let Some(object) = informer.get(rest) else {
            sync_stage(NAME, "gone", format!("{key} is already gone"), cx);
            return Progress::Done;
        };
        let attempt = Attempt {
            kind: kind_of(kind),
            namespace: object.namespace().unwrap_or_default().to_owned(),
            name: object.name().to_owned(),
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
        let Some(attempt) = self.attempts.remove(&key) else {
            return Some((key, Progress::Done));
        };
        let progress = match step {
            Step::GetOwner(index) => {
                let owner = &attempt.owners[index.min(attempt.owners.len() - 1)];
                let live = response.code < 300
                    && response
                        .object
                        .as_ref()
                        .is_some_and(|o| o.metadata().uid.as_deref() == Some(owner.uid.as_str()));
                if live {
                    sync_stage(
                        NAME,
                        "keep",
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
            Step::Delete => {
                if response.code < 300 || response.code == 404 {
                    Progress::Done
                } else {
                    Progress::Failed(response.message())
                }
            }
        };
        Some((key, progress))
    }
}
