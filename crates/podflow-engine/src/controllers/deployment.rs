//! The Deployment controller (`pkg/controller/deployment/deployment_controller.go`,
//! `sync.go`, `rolling.go`, `recreate.go`, `progress.go`): a `ReplicaSet`
//! named `NAME-<pod-template-hash>` for the current template, scaled as the
//! strategy allows, and the Deployment's status and conditions.
//!
//! Upstream's `syncDeployment` runs its API calls one after another inside
//! one worker; here each call is answered asynchronously, so a sync is a
//! plan that is worked out again after every answer, with the objects this
//! sync wrote laid over the informer cache. Once it has scaled a
//! `ReplicaSet`, a sync only writes the status, as upstream returns after a
//! scale. A paused Deployment only scales (no rollout) and marks
//! `Progressing`; old `ReplicaSets` beyond `revisionHistoryLimit` are deleted
//! ([`super::deployment_history`]). Not modelled yet: adoption of orphan
//! `ReplicaSets`, proportional scaling of several active ones, rollbacks,
//! hash collisions, the `ProgressDeadlineExceeded` timeout.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::apps::v1::{Deployment, DeploymentStatus, ReplicaSet, ReplicaSetSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::client::{self, event};
use super::deployment_history as history;
use super::deployment_util::{
    self as util, FOUND_NEW_RS, HASH_LABEL, NEW_RS_CREATED, REVISION, annotation_number, condition,
    copy_annotations, equal_ignore_hash, rs_replicas, set_condition, set_replicas_annotations,
};
use super::hash::compute_hash;
use super::informer::{InformerDelta, key_of};
use super::own_writes::OwnWrites;
use super::pods::{controlled_by, controller_key, controller_of, controller_ref, meta_key, phase};
use super::workqueue::WorkQueue;
use super::{Controller, Informers, Progress, enqueue, sync_stage, wait_for_own_write};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Request, Verb};
use crate::clock::SimTime;
use crate::component::{Cx, RequestId};
use crate::trace::Outcome;
use podflow_model::Object;
use podflow_model::kinds::kind_of;

const NAME: &str = "deployment-controller";
/// A bound on the writes of one sync, against a plan that never settles.
const MAX_STEPS: u32 = 32;

/// A write in flight.
#[derive(Debug, Clone)]
enum Write {
    CreateRs {
        name: String,
        replicas: i32,
    },
    /// An update of a `ReplicaSet`; with the scaling it records as an event.
    UpdateRs {
        scaled: Option<(i32, i32)>,
        scaling_event: bool,
    },
    /// `cleanupDeployment` deletes an old `ReplicaSet`.
    DeleteRs {
        name: String,
    },
    Status,
}

/// A sync waiting for answers.
#[derive(Debug, Clone)]
struct Sync {
    d: Arc<Deployment>,
    /// `ReplicaSets` written during this sync, newer than the cache, by name.
    written: BTreeMap<String, Arc<ReplicaSet>>,
    /// A `ReplicaSet` was scaled: only the status is left to write.
    scaled: bool,
    /// The status to write is `syncDeploymentStatus`'s (a scaling event), not `syncRolloutStatus`'s.
    scaling_event: bool,
    /// `ReplicaSets` this sync deleted (the cache still holds them).
    deleted: BTreeSet<String>,
    steps: u32,
}

/// The controller's state.
#[derive(Debug, Clone, Default)]
pub struct DeploymentController {
    queue: WorkQueue,
    inflight: BTreeMap<RequestId, (String, Write)>,
    syncs: BTreeMap<String, Sync>,
    writes: OwnWrites,
}

/// The next thing a sync does.
enum Plan {
    Done(String),
    Send(Box<Request>, Write, String),
}

fn name_of(meta: &ObjectMeta) -> &str {
    meta.name.as_deref().unwrap_or_default()
}

fn is_recreate(d: &Deployment) -> bool {
    d.spec.strategy.as_ref().and_then(|s| s.type_.as_deref()) == Some("Recreate")
}

/// The `ReplicaSets` `d` controls, the cache overlaid with this sync's writes, oldest first.
fn replica_sets(sync: &Sync, informers: &Informers) -> Vec<Arc<ReplicaSet>> {
    let d = &sync.d;
    let uid = d.metadata.uid.as_deref().unwrap_or_default();
    let mut by_name: BTreeMap<String, Arc<ReplicaSet>> = informers
        .replicasets
        .owned_by(uid)
        .filter_map(|o| o.get::<ReplicaSet>())
        .filter(|rs| {
            controlled_by(&rs.metadata, &d.metadata)
                && !sync.deleted.contains(name_of(&rs.metadata))
        })
        .map(|rs| (name_of(&rs.metadata).to_owned(), Arc::new(rs.clone())))
        .collect();
    for (name, rs) in &sync.written {
        by_name.insert(name.clone(), Arc::clone(rs));
    }
    let mut list: Vec<Arc<ReplicaSet>> = by_name.into_values().collect();
    list.sort_by(|a, b| {
        let t = |rs: &ReplicaSet| rs.metadata.creation_timestamp.as_ref().map(|t| t.0);
        t(a).cmp(&t(b))
            .then_with(|| a.metadata.name.cmp(&b.metadata.name))
    });
    list
}

/// The `ReplicaSet` a scale writes: `replicas` and the replica annotations.
fn scaled_rs(d: &Deployment, rs: &ReplicaSet, to: i32) -> ReplicaSet {
    let mut rs = rs.clone();
    let annotations = rs.metadata.annotations.get_or_insert_with(BTreeMap::new);
    set_replicas_annotations(
        annotations,
        util::replicas(d),
        util::replicas(d).saturating_add(util::max_surge(d)),
    );
    rs.spec.replicas = Some(to);
    rs
}

fn update_rs(rs: ReplicaSet) -> Box<Request> {
    let ns = rs.metadata.namespace.clone();
    let name = name_of(&rs.metadata).to_owned();
    Box::new(
        client::request(
            NAME,
            Verb::Update,
            kind_of("ReplicaSet"),
            ns.as_deref(),
            &name,
        )
        .body(Body::Object(Box::new(Object::ReplicaSet(rs)))),
    )
}

/// `scaleReplicaSetAndRecordEvent`, as a plan step; `None` when already at `to`.
fn scale(d: &Deployment, rs: &ReplicaSet, to: i32) -> Option<Plan> {
    let from = rs_replicas(rs);
    if from == to {
        return None;
    }
    let name = name_of(&rs.metadata).to_owned();
    Some(Plan::Send(
        update_rs(scaled_rs(d, rs, to)),
        Write::UpdateRs {
            scaled: Some((from, to)),
            scaling_event: false,
        },
        format!("scaling replica set {name} from {from} to {to}"),
    ))
}

/// The new `ReplicaSet` for `d`'s template (`getNewReplicaSet`, creating).
fn new_replica_set(d: &Deployment, olds: &[&ReplicaSet], revision: i64) -> ReplicaSet {
    let spec = d.spec.clone();
    let collision = d.status.as_ref().and_then(|s| s.collision_count);
    let hash = compute_hash(&spec.template, collision);
    let mut template = spec.template.clone();
    template
        .metadata
        .get_or_insert_with(ObjectMeta::default)
        .labels
        .get_or_insert_with(BTreeMap::new)
        .insert(HASH_LABEL.to_owned(), hash.clone());
    let mut selector = spec.selector.clone();
    selector
        .match_labels
        .get_or_insert_with(BTreeMap::new)
        .insert(HASH_LABEL.to_owned(), hash.clone());
    let mut annotations = BTreeMap::new();
    copy_annotations(d, &mut annotations);
    annotations.insert(REVISION.to_owned(), revision.to_string());
    set_replicas_annotations(
        &mut annotations,
        util::replicas(d),
        util::replicas(d).saturating_add(util::max_surge(d)),
    );
    let mut rs = ReplicaSet {
        metadata: ObjectMeta {
            name: Some(format!("{}-{hash}", name_of(&d.metadata))),
            namespace: d.metadata.namespace.clone(),
            labels: template.metadata.as_ref().and_then(|m| m.labels.clone()),
            annotations: Some(annotations),
            owner_references: Some(vec![controller_ref("apps/v1", "Deployment", &d.metadata)]),
            ..ObjectMeta::default()
        },
        spec: ReplicaSetSpec {
            replicas: Some(0),
            min_ready_seconds: spec.min_ready_seconds,
            selector,
            template: Some(template),
        },
        status: None,
    };
    let mut all: Vec<&ReplicaSet> = olds.to_vec();
    all.push(&rs);
    let replicas = util::new_rs_new_replicas(d, &all, 0);
    rs.spec.replicas = Some(replicas);
    rs
}

fn status_request(d: &Deployment, status: DeploymentStatus) -> Box<Request> {
    let mut d = d.clone();
    d.status = Some(status);
    let ns = d.metadata.namespace.clone();
    let name = name_of(&d.metadata).to_owned();
    Box::new(
        client::request(
            NAME,
            Verb::Update,
            kind_of("Deployment"),
            ns.as_deref(),
            &name,
        )
        .subresource("status")
        .body(Body::Object(Box::new(Object::from(d)))),
    )
}

/// Whether Pods of the old `ReplicaSets` still run (`oldPodsRunning`).
fn old_pods_running(olds: &[&ReplicaSet], informers: &Informers) -> bool {
    if olds
        .iter()
        .any(|rs| rs.status.as_ref().is_some_and(|s| s.replicas > 0))
    {
        return true;
    }
    olds.iter().any(|rs| {
        let uid = rs.metadata.uid.as_deref().unwrap_or_default();
        informers
            .pods
            .owned_by(uid)
            .filter_map(|o| o.as_pod())
            .any(|pod| {
                controller_of(&pod.metadata)
                    .is_some_and(|r| Some(&r.uid) == rs.metadata.uid.as_ref())
                    && !matches!(phase(pod), "Failed" | "Succeeded")
            })
    })
}

/// `reconcileOldReplicaSets` (rolling.go): the first scale-down it would make.
fn reconcile_old(
    d: &Deployment,
    all: &[&ReplicaSet],
    olds: &[&ReplicaSet],
    new_rs: &ReplicaSet,
) -> Option<Plan> {
    let old_count: i32 = olds.iter().map(|rs| rs_replicas(rs)).sum();
    if old_count == 0 {
        return None;
    }
    let all_count: i32 = all.iter().map(|rs| rs_replicas(rs)).sum();
    let min_available = util::replicas(d) - util::max_unavailable(d);
    let new_unavailable = rs_replicas(new_rs) - util::available(&[new_rs]);
    let max_scaled_down = all_count - min_available - new_unavailable;
    if max_scaled_down <= 0 {
        return None;
    }
    // cleanupUnhealthyReplicas: unavailable old replicas go first.
    for rs in olds {
        let replicas = rs_replicas(rs);
        let available = util::available(&[rs]);
        if replicas == 0 || replicas == available {
            continue;
        }
        let down = max_scaled_down.min(replicas - available);
        return scale(d, rs, replicas - down);
    }
    // scaleDownOldReplicaSetsForRollingUpdate.
    let available = util::available(all);
    if available <= min_available {
        return None;
    }
    let total = available - min_available;
    let rs = olds.iter().find(|rs| rs_replicas(rs) > 0)?;
    let down = rs_replicas(rs).min(total);
    scale(d, rs, rs_replicas(rs) - down)
}

/// `getNewReplicaSet` for an existing new `ReplicaSet`: its annotations,
/// revision and `minReadySeconds`, then the Deployment's revision and
/// `FoundNewReplicaSet` condition.
fn sync_existing_new_rs(
    d: &Deployment,
    new_rs: &ReplicaSet,
    revision: i64,
    now: SimTime,
) -> Option<Plan> {
    let mut annotated = new_rs.clone();
    let annotations = annotated
        .metadata
        .annotations
        .get_or_insert_with(BTreeMap::new);
    let mut changed = copy_annotations(d, annotations);
    if annotation_number(Some(annotations), REVISION).unwrap_or(0) < revision {
        annotations.insert(REVISION.to_owned(), revision.to_string());
        changed = true;
    }
    let min_ready = d.spec.min_ready_seconds;
    let spec = &mut annotated.spec;
    if spec.min_ready_seconds.unwrap_or(0) != min_ready.unwrap_or(0) {
        spec.min_ready_seconds = min_ready;
        changed = true;
    }
    if changed {
        let detail = format!(
            "updating replica set {}'s annotations",
            name_of(&new_rs.metadata)
        );
        return Some(Plan::Send(
            update_rs(annotated),
            Write::UpdateRs {
                scaled: None,
                scaling_event: false,
            },
            detail,
        ));
    }
    let mut with_revision = d.clone();
    let mut status = d.status.clone().unwrap_or_default();
    let d_annotations = with_revision
        .metadata
        .annotations
        .get_or_insert_with(BTreeMap::new);
    let mut needs_status = annotation_number(Some(d_annotations), REVISION) != Some(revision);
    d_annotations.insert(REVISION.to_owned(), revision.to_string());
    if util::get_condition(&status, "Progressing").is_none() {
        let message = format!("Found new replica set \"{}\"", name_of(&new_rs.metadata));
        set_condition(
            &mut status,
            condition("Progressing", "True", FOUND_NEW_RS, message, now),
        );
        needs_status = true;
    }
    if needs_status {
        return Some(Plan::Send(
            status_request(&with_revision, status),
            Write::Status,
            format!("revision {revision}"),
        ));
    }
    None
}

impl DeploymentController {
    /// Works out the next step of `key`'s sync.
    fn plan(sync: &Sync, informers: &Informers, now: SimTime) -> Plan {
        let d = &*sync.d;
        let rs_list = replica_sets(sync, informers);
        let template = d.spec.template.clone();
        let new_rs = rs_list.iter().find(|rs| {
            rs.spec
                .template
                .as_ref()
                .is_some_and(|t| equal_ignore_hash(t, &template))
        });
        let olds: Vec<&ReplicaSet> = rs_list
            .iter()
            .filter(|rs| new_rs.is_none_or(|n| !Arc::ptr_eq(n, rs)))
            .map(|rs| &**rs)
            .collect();
        let all: Vec<&ReplicaSet> = rs_list.iter().map(|rs| &**rs).collect();
        let max_old = olds
            .iter()
            .filter_map(|rs| annotation_number(rs.metadata.annotations.as_ref(), REVISION))
            .max()
            .unwrap_or(0);
        let revision = max_old + 1;
        let deleting = d.metadata.deletion_timestamp.is_some();
        let paused = d.spec.paused == Some(true);
        if !deleting && let Some(status) = history::paused_condition(d, now) {
            let detail = format!("Progressing: {}", if paused { "paused" } else { "resumed" });
            return Plan::Send(status_request(d, status), Write::Status, detail);
        }
        if !deleting
            && !sync.scaled
            && let Some(plan) = Self::plan_replica_sets(
                sync,
                new_rs.map(|rs| &**rs),
                &olds,
                &all,
                revision,
                informers,
                now,
            )
        {
            return plan;
        }
        let new_rs = new_rs.map(|rs| &**rs);
        // cleanupDeployment: when paused, or once the rollout is complete.
        let complete = util::complete(d, &d.status.clone().unwrap_or_default());
        if !deleting
            && !sync.scaled
            && (paused || complete)
            && let Some(rs) = history::to_clean_up(d, &olds)
        {
            let name = name_of(&rs.metadata).to_owned();
            let request = client::request(
                NAME,
                Verb::Delete,
                kind_of("ReplicaSet"),
                rs.metadata.namespace.as_deref(),
                &name,
            );
            let detail = format!("deleting old replica set {name} (revisionHistoryLimit)");
            return Plan::Send(Box::new(request), Write::DeleteRs { name }, detail);
        }
        let status = if sync.scaling_event || deleting || paused {
            util::calculate_status(d, &all, new_rs, now)
        } else {
            util::rollout_status(d, &all, new_rs, now)
        };
        if d.status.as_ref() == Some(&status) {
            return Plan::Done(format!(
                "{}: up to date ({} of {} replicas available)",
                meta_key(&d.metadata),
                status.available_replicas.unwrap_or(0),
                util::replicas(d)
            ));
        }
        let detail = format!(
            "status: replicas {}, updated {}, ready {}, available {}",
            status.replicas.unwrap_or(0),
            status.updated_replicas.unwrap_or(0),
            status.ready_replicas.unwrap_or(0),
            status.available_replicas.unwrap_or(0)
        );
        Plan::Send(status_request(d, status), Write::Status, detail)
    }

    /// The `ReplicaSet` writes of a sync: create or annotate the new one, then scale.
    fn plan_replica_sets(
        sync: &Sync,
        new_rs: Option<&ReplicaSet>,
        olds: &[&ReplicaSet],
        all: &[&ReplicaSet],
        revision: i64,
        informers: &Informers,
        now: SimTime,
    ) -> Option<Plan> {
        let d = &*sync.d;
        let want = util::replicas(d);
        if d.spec.paused == Some(true) {
            // sync's scale: the active (or latest) ReplicaSet takes the new size; no rollout.
            let active: Vec<&&ReplicaSet> = all.iter().filter(|rs| rs_replicas(rs) > 0).collect();
            let target = match active.as_slice() {
                [one] => Some(**one),
                [] => new_rs.or_else(|| all.last().copied()),
                _ => None,
            }?;
            let from = rs_replicas(target);
            return match scale(d, target, want) {
                Some(Plan::Send(request, _, detail)) => {
                    let write = Write::UpdateRs {
                        scaled: Some((from, want)),
                        scaling_event: true,
                    };
                    Some(Plan::Send(request, write, detail))
                }
                other => other,
            };
        }
        let Some(new_rs) = new_rs else {
            if is_recreate(d) {
                // rolloutRecreate: the old Pods go first.
                if let Some(plan) = olds.iter().find_map(|rs| scale(d, rs, 0)) {
                    return Some(plan);
                }
                if old_pods_running(olds, informers) {
                    return None;
                }
            }
            let rs = new_replica_set(d, olds, revision);
            let name = name_of(&rs.metadata).to_owned();
            let replicas = rs_replicas(&rs);
            let request = client::request(
                NAME,
                Verb::Create,
                kind_of("ReplicaSet"),
                rs.metadata.namespace.as_deref(),
                "",
            )
            .body(Body::Object(Box::new(Object::ReplicaSet(rs))));
            let detail = format!(
                "creating replica set {name} with {replicas} replicas (revision {revision})"
            );
            return Some(Plan::Send(
                Box::new(request),
                Write::CreateRs { name, replicas },
                detail,
            ));
        };
        if let Some(plan) = sync_existing_new_rs(d, new_rs, revision, now) {
            return Some(plan);
        }
        // isScalingEvent, then sync's scale: one active (or the latest) ReplicaSet takes the new size.
        let scaling = all.iter().any(|rs| {
            rs_replicas(rs) > 0
                && annotation_number(rs.metadata.annotations.as_ref(), util::DESIRED_REPLICAS)
                    .is_some_and(|desired| desired != i64::from(want))
        });
        if scaling {
            let active: Vec<&&ReplicaSet> = all.iter().filter(|rs| rs_replicas(rs) > 0).collect();
            let target = match active.as_slice() {
                [one] => Some(**one),
                [] => Some(new_rs),
                _ => None,
            };
            if let Some(Plan::Send(request, _, detail)) = target.and_then(|t| scale(d, t, want)) {
                let from = target.map_or(0, rs_replicas);
                let write = Write::UpdateRs {
                    scaled: Some((from, want)),
                    scaling_event: true,
                };
                return Some(Plan::Send(request, write, detail));
            }
        }
        if is_recreate(d) {
            if let Some(plan) = olds.iter().find_map(|rs| scale(d, rs, 0)) {
                return Some(plan);
            }
            if old_pods_running(olds, informers) {
                return None;
            }
            return scale(d, new_rs, want);
        }
        // rolloutRolling: scale the new ReplicaSet up (or down), then the old ones down.
        let new_replicas = rs_replicas(new_rs);
        if new_replicas > want {
            return scale(d, new_rs, want);
        }
        if new_replicas < want {
            let to = util::new_rs_new_replicas(d, all, new_replicas);
            if let Some(plan) = scale(d, new_rs, to) {
                return Some(plan);
            }
        }
        reconcile_old(d, all, olds, new_rs)
    }

    /// Runs the plan of `key`'s sync until it sends something or is done.
    fn advance(
        &mut self,
        key: &str,
        mut sync: Sync,
        informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Progress {
        sync.steps += 1;
        if sync.steps > MAX_STEPS {
            self.syncs.remove(key);
            return Progress::Failed("the sync did not settle".into());
        }
        match Self::plan(&sync, informers, cx.now) {
            Plan::Done(detail) => {
                self.syncs.remove(key);
                sync_stage(NAME, Outcome::Done, detail, cx);
                Progress::Done
            }
            Plan::Send(request, write, detail) => {
                sync_stage(NAME, Outcome::Write, format!("{key}: {detail}"), cx);
                let id = cx.send(*request);
                self.inflight.insert(id, (key.to_owned(), write));
                self.syncs.insert(key.to_owned(), sync);
                Progress::Waiting
            }
        }
    }

    /// A scale or annotation update was answered.
    fn on_rs_update(
        sync: &mut Sync,
        scaled: Option<(i32, i32)>,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        let Some(rs) = response
            .object
            .as_deref()
            .and_then(|o| o.get::<ReplicaSet>())
        else {
            return;
        };
        let rs_name = name_of(&rs.metadata).to_owned();
        sync.written.insert(rs_name.clone(), Arc::new(rs.clone()));
        if let Some((from, to)) = scaled {
            sync.scaled = true;
            let direction = if to > from { "up" } else { "down" };
            let d = &sync.d.metadata;
            cx.event(event(
                false,
                "ScalingReplicaSet",
                format!("Scaled {direction} replica set {rs_name} from {from} to {to}"),
                (
                    "Deployment",
                    d.namespace.as_deref().unwrap_or_default(),
                    name_of(d),
                ),
                NAME,
            ));
        }
    }

    /// The new `ReplicaSet` was created: the event, then the revision and `NewReplicaSetCreated`.
    fn on_rs_created(
        &mut self,
        key: &str,
        mut sync: Sync,
        name: &str,
        replicas: i32,
        response: &Response,
        cx: &mut Cx<'_>,
    ) -> Progress {
        let d = Arc::clone(&sync.d);
        let ns = d.metadata.namespace.clone().unwrap_or_default();
        let d_name = name_of(&d.metadata).to_owned();
        let Some(rs) = response
            .object
            .as_deref()
            .and_then(|o| o.get::<ReplicaSet>())
            .filter(|_| response.code < 300)
        else {
            self.syncs.remove(key);
            if response.code != 409 {
                let message = format!(
                    "Failed to create new replica set \"{name}\": {}",
                    response.message()
                );
                cx.event(event(
                    true,
                    "ReplicaSetCreateError",
                    message,
                    ("Deployment", &ns, &d_name),
                    NAME,
                ));
            }
            return Progress::Failed(response.message());
        };
        sync.written.insert(name.to_owned(), Arc::new(rs.clone()));
        if replicas > 0 {
            cx.event(event(
                false,
                "ScalingReplicaSet",
                format!("Scaled up replica set {name} from 0 to {replicas}"),
                ("Deployment", &ns, &d_name),
                NAME,
            ));
        }
        let revision = annotation_number(rs.metadata.annotations.as_ref(), REVISION).unwrap_or(1);
        let mut with_revision = (*d).clone();
        with_revision
            .metadata
            .annotations
            .get_or_insert_with(BTreeMap::new)
            .insert(REVISION.to_owned(), revision.to_string());
        let mut status = d.status.clone().unwrap_or_default();
        if d.spec.progress_deadline_seconds.is_some() {
            let message = format!("Created new replica set \"{name}\"");
            set_condition(
                &mut status,
                condition("Progressing", "True", NEW_RS_CREATED, message, cx.now),
            );
        }
        sync_stage(
            NAME,
            Outcome::Write,
            format!("{key}: revision {revision}, new replica set created"),
            cx,
        );
        let id = cx.send(*status_request(&with_revision, status));
        self.inflight.insert(id, (key.to_owned(), Write::Status));
        self.syncs.insert(key.to_owned(), sync);
        Progress::Waiting
    }
}

impl Controller for DeploymentController {
    fn name(&self) -> &'static str {
        NAME
    }

    fn queue(&mut self) -> &mut WorkQueue {
        &mut self.queue
    }

    fn on_delta(&mut self, delta: &InformerDelta, informers: &Informers, cx: &mut Cx<'_>) {
        let object = delta.object();
        match &**object {
            Object::Deployment(_) => enqueue(NAME, &mut self.queue, &key_of(object), cx),
            Object::ReplicaSet(rs) => {
                if let InformerDelta::Updated { old, .. } = delta
                    && let Some(key) =
                        controller_key(old.metadata(), "Deployment", &informers.deployments)
                    && controller_of(old.metadata()).map(|r| &r.uid)
                        != controller_of(&rs.metadata).map(|r| &r.uid)
                {
                    enqueue(NAME, &mut self.queue, &key, cx);
                }
                if let Some(key) =
                    controller_key(&rs.metadata, "Deployment", &informers.deployments)
                {
                    enqueue(NAME, &mut self.queue, &key, cx);
                }
            }
            Object::Pod(pod) if matches!(delta, InformerDelta::Deleted(_)) => {
                // deletePod: a Recreate rollout waits for the old Pods to be gone.
                let Some(owner) = controller_of(&pod.metadata) else {
                    return;
                };
                let ns = pod.metadata.namespace.as_deref().unwrap_or_default();
                let rs_key = format!("{ns}/{}", owner.name);
                if let Some(rs) = informers.replicasets.get(&rs_key)
                    && let Some(key) =
                        controller_key(rs.metadata(), "Deployment", &informers.deployments)
                    && informers
                        .deployments
                        .get(&key)
                        .and_then(|d| d.get::<Deployment>())
                        .is_some_and(is_recreate)
                {
                    enqueue(NAME, &mut self.queue, &key, cx);
                }
            }
            _ => {}
        }
    }

    fn sync(&mut self, key: &str, informers: &Informers, cx: &mut Cx<'_>) -> Progress {
        let Some(d) = informers
            .deployments
            .get(key)
            .and_then(|o| o.get::<Deployment>())
        else {
            sync_stage(NAME, Outcome::Gone, format!("{key} has been deleted"), cx);
            return Progress::Done;
        };
        // Its own object, or a ReplicaSet it controls: their events queue it again.
        let relevant = |o: &Object| match o {
            Object::Deployment(_) => key_of(o) == key,
            Object::ReplicaSet(rs) => controller_of(&rs.metadata)
                .is_some_and(|r| r.kind == "Deployment" && Some(&r.uid) == d.metadata.uid.as_ref()),
            _ => false,
        };
        if wait_for_own_write(NAME, &mut self.writes, informers, key, relevant, cx) {
            return Progress::Deferred;
        }
        let sync = Sync {
            d: Arc::new(d.clone()),
            written: BTreeMap::new(),
            scaled: false,
            scaling_event: false,
            deleted: BTreeSet::new(),
            steps: 0,
        };
        self.advance(key, sync, informers, cx)
    }

    fn on_response(
        &mut self,
        id: RequestId,
        response: &Response,
        informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Option<(String, Progress)> {
        let (key, write) = self.inflight.remove(&id)?;
        let Some(mut sync) = self.syncs.remove(&key) else {
            return Some((key, Progress::Done));
        };
        if response.code < 300
            && let Some(written) = &response.object
        {
            self.writes.wrote(written);
        }
        let progress = match write {
            Write::CreateRs { name, replicas } => {
                self.on_rs_created(&key, sync, &name, replicas, response, cx)
            }
            _ if response.code >= 300 => Progress::Failed(response.message()),
            Write::UpdateRs {
                scaled,
                scaling_event,
            } => {
                sync.scaling_event |= scaling_event;
                Self::on_rs_update(&mut sync, scaled, response, cx);
                self.advance(&key, sync, informers, cx)
            }
            Write::DeleteRs { name } => {
                sync.deleted.insert(name);
                self.advance(&key, sync, informers, cx)
            }
            Write::Status => {
                if let Some(d) = response
                    .object
                    .as_deref()
                    .and_then(|o| o.get::<Deployment>())
                {
                    sync.d = Arc::new(d.clone());
                }
                self.advance(&key, sync, informers, cx)
            }
        };
        Some((key, progress))
    }
}
