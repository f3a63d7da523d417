//! The `ReplicaSet` controller (`pkg/controller/replicaset/replica_set.go`):
//! keeps as many active Pods as `spec.replicas` asks for, creating them from
//! the template in slow-start batches and deleting the surplus in upstream's
//! order of preference, with expectations so a stale cache never makes it act
//! twice, then writes `status` through the status subresource.
//!
//! A failed create or delete sets the `ReplicaFailure` condition
//! ([`super::replica_failure`]) and the key comes back after the work
//! queue's rate-limited delay; a create refused because the namespace is
//! being terminated is no failure (`manageReplicas` ignores
//! `NamespaceTerminatingCause`, and `createPods` records no event for it).
//!
//! Not modelled: adopting orphan Pods and releasing Pods whose labels stop
//! matching (`claimPods`).

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{ReplicaSet, ReplicaSetStatus};
use k8s_openapi::api::core::v1::Pod;

use super::client::{self, event};
use super::expectations::Expectations;
use super::informer::{InformerDelta, key_of};
use super::own_writes::OwnWrites;
use super::pods::{controller_key, controller_of, meta_key, pod_from_template};
use super::ranking::pods_to_delete;
use super::replica_counts::{Counts, ReplicaCounts, active_pods};
use super::slow_start::{Next, SlowStart};
use super::workqueue::WorkQueue;
use super::{
    Controller, Informers, Progress, enqueue, owned_object_changed, sync_stage, wait_for_own_write,
};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Verb};
use crate::clock::SimTime;
use crate::component::{Cx, RequestId};
use crate::trace::Outcome;
use podflow_model::kinds::kind_of;
use podflow_model::{Object, Shared};

const NAME: &str = "replicaset-controller";
/// `BurstReplicas`: the most Pods one sync creates or deletes.
const BURST_REPLICAS: usize = 500;
/// `statusUpdateRetries`: one more try after a conflict.
const STATUS_UPDATE_RETRIES: u32 = 1;

/// A request in flight, and the key whose sync it belongs to.
#[derive(Debug, Clone)]
enum Pending {
    Create(String),
    Delete { key: String, pod: String },
    Status(String),
    Get(String),
}

/// A sync waiting for answers.
#[derive(Debug, Clone)]
struct Sync {
    rs: Shared<ReplicaSet>,
    status: ReplicaSetStatus,
    slow: Option<SlowStart>,
    deletes: usize,
    error: Option<String>,
    status_tries: u32,
}

/// The controller's state.
#[derive(Debug, Clone, Default)]
pub struct ReplicaSetController {
    queue: WorkQueue,
    expectations: Expectations,
    inflight: BTreeMap<RequestId, Pending>,
    syncs: BTreeMap<String, Sync>,
    writes: OwnWrites,
    counts: ReplicaCounts,
}

/// `spec.replicas`, defaulted to 1.
pub fn replicas_of(rs: &ReplicaSet) -> i32 {
    rs.spec.replicas.unwrap_or(1)
}

/// `calculateStatus`: the counts of the active Pods, the conditions kept.
fn calculate_status(rs: &ReplicaSet, counts: &Counts, now: SimTime) -> ReplicaSetStatus {
    let min_ready = rs.spec.min_ready_seconds.unwrap_or(0);
    let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    let current = rs.status.clone().unwrap_or_default();
    ReplicaSetStatus {
        replicas: count(counts.active),
        fully_labeled_replicas: Some(count(counts.fully_labeled)),
        ready_replicas: Some(count(counts.ready())),
        available_replicas: Some(count(
            counts.available(min_ready, now.to_k8s().as_millisecond()),
        )),
        observed_generation: current.observed_generation,
        conditions: current.conditions,
        terminating_replicas: Some(count(counts.terminating)),
    }
}

impl ReplicaSetController {
    fn track(&mut self, id: RequestId, pending: Pending) {
        self.inflight.insert(id, pending);
    }

    /// Sends `count` creations for the sync of `key`.
    fn send_creates(&mut self, key: &str, rs: &ReplicaSet, count: usize, cx: &mut Cx<'_>) {
        for _ in 0..count {
            let pod = pod_from_template(
                rs.spec.template.clone().unwrap_or_default(),
                &rs.metadata,
                "apps/v1",
                "ReplicaSet",
            );
            let request = client::request(
                NAME,
                Verb::Create,
                kind_of("Pod"),
                rs.metadata.namespace.as_deref(),
                "",
            )
            .body(Body::Object(Box::new(Object::Pod(pod))));
            let id = cx.send(request);
            self.track(id, Pending::Create(key.to_owned()));
        }
    }

    /// `manageReplicas`: starts the creations or deletions `diff` asks for.
    /// The Pods of the owner's other `ReplicaSets` are looked up only to
    /// rank deletions, as upstream's `getIndirectlyRelatedPods` is.
    fn manage(
        &mut self,
        key: &str,
        rs: &Shared<ReplicaSet>,
        have: usize,
        informers: &Informers,
        sync: &mut Sync,
        cx: &mut Cx<'_>,
    ) {
        let want = usize::try_from(replicas_of(rs)).unwrap_or(0);
        match have.cmp(&want) {
            std::cmp::Ordering::Less => {
                let diff = (want - have).min(BURST_REPLICAS);
                self.expectations.expect_creations(key, diff, cx.now);
                let batches =
                    super::slow_start::batches(diff, super::slow_start::INITIAL_BATCH_SIZE);
                let sizes: Vec<String> = batches.iter().map(ToString::to_string).collect();
                sync_stage(
                    NAME,
                    Outcome::Create,
                    format!(
                        "{key}: {have} of {want} pods; creating {diff} (slow start: batches of {})",
                        sizes.join(", ")
                    ),
                    cx,
                );
                let (slow, next) = SlowStart::start(diff);
                sync.slow = Some(slow);
                if let Next::Send(n) = next {
                    self.send_creates(key, rs, n, cx);
                }
            }
            std::cmp::Ordering::Greater => {
                let diff = (have - want).min(BURST_REPLICAS);
                let active = active_pods(rs, &informers.pods);
                let related = related_pods(rs, informers);
                let victims =
                    pods_to_delete(&active, &related, diff, cx.now.to_k8s().as_millisecond());
                let names: Vec<String> = victims
                    .iter()
                    .map(|p| p.metadata.name.clone().unwrap_or_default())
                    .collect();
                let keys: Vec<String> = victims.iter().map(|p| meta_key(&p.metadata)).collect();
                self.expectations.expect_deletions(key, &keys, cx.now);
                sync_stage(
                    NAME,
                    Outcome::Delete,
                    format!(
                        "{key}: {have} of {want} pods; deleting {diff}: {}",
                        names.join(", ")
                    ),
                    cx,
                );
                for name in names {
                    let request = client::request(
                        NAME,
                        Verb::Delete,
                        kind_of("Pod"),
                        rs.metadata.namespace.as_deref(),
                        &name,
                    );
                    let id = cx.send(request);
                    self.track(
                        id,
                        Pending::Delete {
                            key: key.to_owned(),
                            pod: name,
                        },
                    );
                    sync.deletes += 1;
                }
            }
            std::cmp::Ordering::Equal => {
                sync_stage(
                    NAME,
                    Outcome::InSync,
                    format!("{key}: {have} of {want} pods"),
                    cx,
                );
            }
        }
    }

    /// `updateReplicaSetStatus`: writes the new status unless nothing changed.
    fn update_status(&mut self, key: &str, mut sync: Sync, cx: &mut Cx<'_>) -> Progress {
        let rs = &sync.rs;
        let generation = rs.metadata.generation.unwrap_or(0);
        let current = rs.status.clone().unwrap_or_default();
        let mut new = sync.status.clone();
        new.observed_generation = Some(generation);
        let active = usize::try_from(new.replicas).unwrap_or(0);
        super::replica_failure::apply(
            &mut new,
            active,
            replicas_of(rs),
            sync.error.as_deref(),
            cx.now,
        );
        let unchanged = current.observed_generation == Some(generation) && {
            let mut cur = current.clone();
            cur.observed_generation = new.observed_generation;
            cur == new
        };
        if unchanged {
            return self.finished(key, &sync, cx);
        }
        let mut updated = (**rs).clone();
        updated.status = Some(new.clone());
        sync_stage(
            NAME,
            Outcome::Status,
            format!(
                "{key}: replicas {}, fullyLabeled {}, ready {}, available {}, observedGeneration {generation}",
                new.replicas,
                new.fully_labeled_replicas.unwrap_or(0),
                new.ready_replicas.unwrap_or(0),
                new.available_replicas.unwrap_or(0)
            ),
            cx,
        );
        let request = client::request(
            NAME,
            Verb::Update,
            kind_of("ReplicaSet"),
            rs.metadata.namespace.as_deref(),
            rs.metadata.name.as_deref().unwrap_or_default(),
        )
        .subresource("status")
        .body(Body::Object(Box::new(Object::ReplicaSet(updated))));
        let id = cx.send(request);
        self.track(id, Pending::Status(key.to_owned()));
        sync.status_tries += 1;
        self.syncs.insert(key.to_owned(), sync);
        Progress::Waiting
    }

    /// The sync is over: requeue after `minReadySeconds` if Pods are about to become available.
    fn finished(&mut self, key: &str, sync: &Sync, cx: &mut Cx<'_>) -> Progress {
        self.syncs.remove(key);
        if let Some(error) = &sync.error {
            return Progress::Failed(error.clone());
        }
        let min_ready = sync.rs.spec.min_ready_seconds.unwrap_or(0);
        let want = replicas_of(&sync.rs);
        if min_ready > 0
            && sync.status.ready_replicas == Some(want)
            && sync.status.available_replicas != Some(want)
        {
            self.queue
                .add_after(key, u64::try_from(min_ready).unwrap_or(0) * 1000, cx.now);
        }
        Progress::Done
    }

    /// After an answer: write the status once every creation and deletion is answered.
    fn maybe_status(&mut self, key: &str, cx: &mut Cx<'_>) -> Progress {
        let Some(sync) = self.syncs.get(key) else {
            return Progress::Done;
        };
        if sync.slow.is_some() || sync.deletes > 0 {
            return Progress::Waiting;
        }
        let sync = sync.clone();
        self.update_status(key, sync, cx)
    }

    fn on_create(&mut self, key: &str, response: &Response, cx: &mut Cx<'_>) -> Progress {
        // A namespace being terminated refuses every create: not a failure.
        let ok = response.code < 300 || namespace_terminating(response);
        let Some(sync) = self.syncs.get(key) else {
            return Progress::Done;
        };
        let (ns, name) = (
            sync.rs.metadata.namespace.clone().unwrap_or_default(),
            sync.rs.metadata.name.clone().unwrap_or_default(),
        );
        if response.code < 300 {
            let pod = response
                .object
                .as_ref()
                .map(|o| o.name().to_owned())
                .unwrap_or_default();
            cx.event(event(
                false,
                "SuccessfulCreate",
                format!("Created pod: {pod}"),
                ("ReplicaSet", &ns, &name),
                NAME,
            ));
        } else if !ok {
            // (`createPods` records no event when the namespace is being terminated.)
            cx.event(event(
                true,
                "FailedCreate",
                format!("Error creating: {}", response.message()),
                ("ReplicaSet", &ns, &name),
                NAME,
            ));
            self.expectations.creation_observed(key);
        }
        let rs = sync.rs.clone();
        let Some(sync) = self.syncs.get_mut(key) else {
            return Progress::Done;
        };
        if !ok {
            sync.error = Some(response.message());
        }
        let next = sync.slow.as_mut().map_or(Next::Wait, |s| s.answered(ok));
        match next {
            Next::Wait => Progress::Waiting,
            Next::Send(n) => {
                self.send_creates(key, &rs, n, cx);
                Progress::Waiting
            }
            Next::Finished { skipped, .. } => {
                sync.slow = None;
                for _ in 0..skipped {
                    self.expectations.creation_observed(key);
                }
                self.maybe_status(key, cx)
            }
        }
    }

    fn on_delete(
        &mut self,
        key: &str,
        pod: &str,
        response: &Response,
        cx: &mut Cx<'_>,
    ) -> Progress {
        let Some(sync) = self.syncs.get_mut(key) else {
            return Progress::Done;
        };
        sync.deletes = sync.deletes.saturating_sub(1);
        let ns = sync.rs.metadata.namespace.clone().unwrap_or_default();
        let name = sync.rs.metadata.name.clone().unwrap_or_default();
        if response.code < 300 {
            cx.event(event(
                false,
                "SuccessfulDelete",
                format!("Deleted pod: {pod}"),
                ("ReplicaSet", &ns, &name),
                NAME,
            ));
        } else {
            self.expectations
                .deletion_observed(key, &format!("{ns}/{pod}"));
            if response.code != 404 {
                cx.event(event(
                    true,
                    "FailedDelete",
                    format!("Error deleting: {}", response.message()),
                    ("ReplicaSet", &ns, &name),
                    NAME,
                ));
                sync.error = Some(response.message());
            }
        }
        self.maybe_status(key, cx)
    }

    fn on_status(&mut self, key: &str, response: &Response, cx: &mut Cx<'_>) -> Progress {
        let Some(sync) = self.syncs.get(key).cloned() else {
            return Progress::Done;
        };
        if response.code < 300 {
            if let Some(written) = &response.object {
                self.writes.wrote(written);
            }
            return self.finished(key, &sync, cx);
        }
        if response.code == 409 && sync.status_tries <= STATUS_UPDATE_RETRIES {
            // The cached copy was stale: get the latest and try once more.
            let rs = &sync.rs;
            let request = client::request(
                NAME,
                Verb::Get,
                kind_of("ReplicaSet"),
                rs.metadata.namespace.as_deref(),
                rs.metadata.name.as_deref().unwrap_or_default(),
            );
            let id = cx.send(request);
            self.track(id, Pending::Get(key.to_owned()));
            return Progress::Waiting;
        }
        self.syncs.remove(key);
        Progress::Failed(response.message())
    }

    fn on_get(&mut self, key: &str, response: &Response, cx: &mut Cx<'_>) -> Progress {
        let Some(mut sync) = self.syncs.remove(key) else {
            return Progress::Done;
        };
        match response.object.as_ref().and_then(Shared::<ReplicaSet>::of) {
            Some(fresh) if response.code < 300 => {
                sync.rs = fresh;
                self.update_status(key, sync, cx)
            }
            _ => Progress::Failed(response.message()),
        }
    }

    fn pod_delta(&mut self, delta: &InformerDelta, informers: &Informers, cx: &mut Cx<'_>) {
        match delta {
            InformerDelta::Added(object) => {
                let Some(pod) = object.as_pod() else { return };
                if pod.metadata.deletion_timestamp.is_some() {
                    self.pod_gone(pod, informers, cx);
                } else if let Some(key) =
                    controller_key(&pod.metadata, "ReplicaSet", &informers.replicasets)
                {
                    self.expectations.creation_observed(&key);
                    enqueue(NAME, &mut self.queue, &key, cx);
                }
            }
            InformerDelta::Updated { old, new } => {
                let (Some(old), Some(new)) = (old.as_pod(), new.as_pod()) else {
                    return;
                };
                if old.metadata.resource_version == new.metadata.resource_version {
                    return;
                }
                if new.metadata.deletion_timestamp.is_some() {
                    self.pod_gone(new, informers, cx);
                    if old.metadata.labels != new.metadata.labels {
                        self.pod_gone(old, informers, cx);
                    }
                    return;
                }
                let old_owner = controller_key(&old.metadata, "ReplicaSet", &informers.replicasets);
                let new_owner = controller_key(&new.metadata, "ReplicaSet", &informers.replicasets);
                if old_owner != new_owner
                    && let Some(key) = old_owner
                {
                    enqueue(NAME, &mut self.queue, &key, cx);
                }
                if let Some(key) = new_owner {
                    enqueue(NAME, &mut self.queue, &key, cx);
                }
            }
            InformerDelta::Deleted(object) => {
                if let Some(pod) = object.as_pod() {
                    self.pod_gone(pod, informers, cx);
                }
            }
        }
    }

    /// `deletePod`: the deletion is observed, the owner queued.
    fn pod_gone(&mut self, pod: &Pod, informers: &Informers, cx: &mut Cx<'_>) {
        if let Some(key) = controller_key(&pod.metadata, "ReplicaSet", &informers.replicasets) {
            self.expectations
                .deletion_observed(&key, &meta_key(&pod.metadata));
            enqueue(NAME, &mut self.queue, &key, cx);
        }
    }
}

impl Controller for ReplicaSetController {
    fn name(&self) -> &'static str {
        NAME
    }

    fn queue(&mut self) -> &mut WorkQueue {
        &mut self.queue
    }

    fn on_delta(&mut self, delta: &InformerDelta, informers: &Informers, cx: &mut Cx<'_>) {
        let object = delta.object();
        match &**object {
            Object::ReplicaSet(_) => {
                if matches!(delta, InformerDelta::Deleted(_)) {
                    self.counts.forget(object);
                }
                owned_object_changed(NAME, &mut self.queue, &mut self.expectations, delta, cx);
            }
            Object::Pod(_) => {
                self.counts.pod_changed(delta);
                self.pod_delta(delta, informers, cx);
            }
            _ => {}
        }
    }

    fn sync(&mut self, key: &str, informers: &Informers, cx: &mut Cx<'_>) -> Progress {
        let Some(rs) = informers
            .replicasets
            .get(key)
            .and_then(Shared::<ReplicaSet>::of)
        else {
            self.expectations.forget(key);
            sync_stage(NAME, Outcome::Gone, format!("{key} has been deleted"), cx);
            return Progress::Done;
        };
        let relevant = |o: &Object| matches!(o, Object::ReplicaSet(_)) && key_of(o) == key;
        if wait_for_own_write(NAME, &mut self.writes, informers, key, relevant, cx) {
            return Progress::Deferred;
        }
        let needs_sync = self.expectations.satisfied(key, cx.now);
        let counts = self.counts.of(&rs, &informers.pods);
        #[cfg(debug_assertions)]
        assert_eq!(*counts, Counts::recount(&rs, &informers.pods), "{key}");
        let have = counts.active;
        let status = calculate_status(&rs, counts, cx.now);
        let mut sync = Sync {
            rs: rs.clone(),
            status,
            slow: None,
            deletes: 0,
            error: None,
            status_tries: 0,
        };
        if !needs_sync {
            let (adds, dels) = self.expectations.pending(key);
            sync_stage(
                NAME,
                Outcome::Waiting,
                format!(
                    "{key}: expecting {adds} creation(s) and {dels} deletion(s) to be observed first"
                ),
                cx,
            );
        } else if rs.metadata.deletion_timestamp.is_none() {
            self.manage(key, &rs, have, informers, &mut sync, cx);
        }
        if sync.slow.is_some() || sync.deletes > 0 {
            self.syncs.insert(key.to_owned(), sync);
            return Progress::Waiting;
        }
        self.update_status(key, sync, cx)
    }

    fn on_response(
        &mut self,
        id: RequestId,
        response: &Response,
        _informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Option<(String, Progress)> {
        let pending = self.inflight.remove(&id)?;
        Some(match pending {
            Pending::Create(key) => {
                let progress = self.on_create(&key, response, cx);
                (key, progress)
            }
            Pending::Delete { key, pod } => {
                let progress = self.on_delete(&key, &pod, response, cx);
                (key, progress)
            }
            Pending::Status(key) => {
                let progress = self.on_status(&key, response, cx);
                (key, progress)
            }
            Pending::Get(key) => {
                let progress = self.on_get(&key, response, cx);
                (key, progress)
            }
        })
    }
}

/// Whether a refusal carries `NamespaceTerminatingCause` (`apierrors.HasStatusCause`).
pub fn namespace_terminating(response: &Response) -> bool {
    response
        .status
        .as_ref()
        .and_then(|s| s.details.as_ref())
        .and_then(|d| d.causes.as_ref())
        .is_some_and(|causes| {
            causes
                .iter()
                .any(|c| c.reason.as_deref() == Some("NamespaceTerminating"))
        })
}

/// `getIndirectlyRelatedPods`: the Pods of every `ReplicaSet` with the same controller as `rs`.
fn related_pods<'a>(rs: &ReplicaSet, informers: &'a Informers) -> Vec<&'a Pod> {
    let Some(owner) = controller_of(&rs.metadata) else {
        return Vec::new();
    };
    informers
        .replicasets
        .owned_by(&owner.uid)
        .filter_map(|o| o.get::<ReplicaSet>())
        .filter(|other| controller_of(&other.metadata).is_some_and(|r| r.uid == owner.uid))
        .flat_map(|other| active_pods(other, &informers.pods))
        .collect()
}
