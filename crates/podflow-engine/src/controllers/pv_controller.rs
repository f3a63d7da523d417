//! The `PersistentVolume` controller, `persistentvolume-binder`
//! (`pkg/controller/volume/persistentvolume/pv_controller.go`, with
//! `index.go`'s `findBestMatchForClaim` and `FindMatchingVolume` of
//! `k8s.io/component-helpers/storage/volume/pv_helpers.go`).
//!
//! A volume without a claim becomes `Available`. A `Pending` claim is bound
//! to the smallest matching volume (class, access modes, selector, capacity;
//! a volume pre-bound to the claim wins): the volume's `claimRef` and
//! `Bound` phase, then the claim's `volumeName` and `Bound` status, four
//! writes in upstream's order (`bind`). Without a match the claim stays
//! `Pending`: its class binds at the first consumer (`WaitForFirstConsumer`
//! event until the scheduler names a node), or an external provisioner is
//! asked to make a volume (`volume.kubernetes.io/storage-provisioner`
//! annotation and the `ExternalProvisioning` event), or there is nothing to
//! do (`FailedBinding`). Every 15 s the `Pending` claims are looked at
//! again, as upstream's periodic resync does, so a volume that comes to
//! match binds then.
//!
//! Left out: the `kubernetes.io/pv-protection`/`pvc-protection` finalizers,
//! reclaiming released volumes (`Retain`/`Delete`), claims pre-bound by
//! `volumeName` to a missing volume, lost claims, in-tree provisioners.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{PersistentVolume, PersistentVolumeClaim};
use k8s_openapi::api::storage::v1::StorageClass;

use super::client::{self, event};
use super::informer::{InformerDelta, key_of};
use super::own_writes::OwnWrites;
use super::workqueue::WorkQueue;
use super::{Controller, Informers, Progress, enqueue, sync_stage, wait_for_own_write};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Verb};
use crate::apiserver::validation::selector_matches;
use crate::component::{Cx, RequestId};
use crate::trace::Outcome;
use podflow_model::Object;
use podflow_model::quantity::{ParsedQuantity, parse_k8s};
use podflow_model::storage::{
    BETA_STORAGE_PROVISIONER_ANNOTATION, BIND_COMPLETED_ANNOTATION, BOUND_BY_CONTROLLER_ANNOTATION,
    SELECTED_NODE_ANNOTATION, STORAGE_PROVISIONER_ANNOTATION, bind_volume_to_claim, claim_class,
    claim_key, claim_phase, claim_volume_name, volume_class, volume_phase,
    waits_for_first_consumer,
};

/// The controller's service account.
pub const NAME: &str = "persistent-volume-binder";
/// Its events' source (`kubectl describe` shows `persistentvolume-controller`).
pub const SOURCE: &str = "persistentvolume-controller";

/// `--pvclaimbinder-sync-period`'s default
/// (`cmd/kube-controller-manager/app/options/persistentvolumebindercontroller.go`):
/// how often the controller looks at every claim and volume again.
pub const CLAIM_BINDER_SYNC_PERIOD_MS: u64 = 15_000;

/// `claimrefs` keys are `claim/NS/NAME`, volume keys `volume/NAME`.
const CLAIM: &str = "claim/";
const VOLUME: &str = "volume/";

/// One write of a bind, in upstream's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// `bindVolumeToClaim`: the volume's `claimRef`.
    VolumeClaimRef,
    /// `updateVolumePhase(Bound)`.
    VolumeBound,
    /// `bindClaimToVolume`: the claim's `volumeName` and annotations.
    ClaimVolumeName,
    /// `updateClaimStatus(Bound)`.
    ClaimBound,
}

/// A bind in progress: the objects as last written, and what is left.
#[derive(Debug, Clone)]
struct Bind {
    volume: PersistentVolume,
    claim: PersistentVolumeClaim,
    steps: Vec<Step>,
}

/// The controller's state.
#[derive(Debug, Clone, Default)]
pub struct PvController {
    queue: WorkQueue,
    /// Requests in flight: the queue key they belong to.
    inflight: BTreeMap<RequestId, String>,
    binds: BTreeMap<String, Bind>,
    /// Its own writes its informers have not seen yet (upstream keeps its
    /// own caches current with `storeClaimUpdate`/`storeVolumeUpdate`).
    writes: OwnWrites,
}

fn storage_of(
    map: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
) -> Option<ParsedQuantity> {
    map.and_then(|m| m.get("storage"))
        .and_then(|q| parse_k8s(q).ok())
}

/// The claim's requested storage.
fn requested(claim: &PersistentVolumeClaim) -> Option<ParsedQuantity> {
    storage_of(
        claim
            .spec
            .as_ref()
            .and_then(|s| s.resources.as_ref())
            .and_then(|r| r.requests.as_ref()),
    )
}

/// `IsVolumeBoundToClaim`: the volume's `claimRef` names the claim (and its UID, if set).
pub fn volume_bound_to_claim(volume: &PersistentVolume, claim: &PersistentVolumeClaim) -> bool {
    let Some(reference) = volume.spec.as_ref().and_then(|s| s.claim_ref.as_ref()) else {
        return false;
    };
    reference.name == claim.metadata.name
        && reference.namespace == claim.metadata.namespace
        && reference
            .uid
            .as_ref()
            .is_none_or(|uid| Some(uid) == claim.metadata.uid.as_ref())
}

/// `CheckAccessModes`: every mode the claim asks for is one the volume offers.
fn access_modes_fit(claim: &PersistentVolumeClaim, volume: &PersistentVolume) -> bool {
    let offered = volume
        .spec
        .as_ref()
        .and_then(|s| s.access_modes.clone())
        .unwrap_or_default();
    claim
        .spec
        .as_ref()
        .and_then(|s| s.access_modes.as_ref())
        .into_iter()
        .flatten()
        .all(|m| offered.contains(m))
}

/// `FindMatchingVolume` without a node: the smallest volume that fits the
/// claim, or the one pre-bound to it. With `delay_binding` only a pre-bound
/// volume is taken (the scheduler binds the rest once it picks a node).
pub fn find_matching_volume<'a>(
    claim: &PersistentVolumeClaim,
    volumes: impl IntoIterator<Item = &'a PersistentVolume>,
    delay_binding: bool,
) -> Option<&'a PersistentVolume> {
    let want = requested(claim)?;
    let class = claim_class(claim);
    let selector = claim.spec.as_ref().and_then(|s| s.selector.as_ref());
    let mode = |m: Option<&str>| m.unwrap_or("Filesystem").to_owned();
    let claim_mode = mode(claim.spec.as_ref().and_then(|s| s.volume_mode.as_deref()));
    let mut best: Option<(&PersistentVolume, ParsedQuantity)> = None;
    for volume in volumes {
        let spec = volume.spec.clone().unwrap_or_default();
        let Some(size) = storage_of(spec.capacity.as_ref()) else {
            continue;
        };
        if volume_class(volume) != class || mode(spec.volume_mode.as_deref()) != claim_mode {
            continue;
        }
        if volume.metadata.deletion_timestamp.is_some() {
            continue;
        }
        if volume_bound_to_claim(volume, claim) {
            if size >= want && access_modes_fit(claim, volume) {
                return Some(volume);
            }
            continue;
        }
        if spec.claim_ref.is_some() || delay_binding {
            continue;
        }
        if volume_phase(volume) == "Released" || volume_phase(volume) == "Failed" {
            continue;
        }
        if selector.is_some() && !selector_matches(selector, volume.metadata.labels.as_ref()) {
            continue;
        }
        if !access_modes_fit(claim, volume) || size < want {
            continue;
        }
        if best.as_ref().is_none_or(|(_, b)| size < *b) {
            best = Some((volume, size));
        }
    }
    best.map(|(v, _)| v)
}

/// The class of the claim, if it names one that exists.
fn class_of<'a>(
    claim: &PersistentVolumeClaim,
    informers: &'a Informers,
) -> Option<&'a StorageClass> {
    let name = claim_class(claim);
    match informers.storageclasses.get(name).map(|o| &**o) {
        Some(Object::StorageClass(sc)) if !name.is_empty() => Some(sc),
        _ => None,
    }
}

/// `IsDelayBindingMode` and `shouldDelayBinding`: the class waits for the
/// first consumer and the scheduler has not named a node yet.
pub fn delays_binding(claim: &PersistentVolumeClaim, class: Option<&StorageClass>) -> bool {
    class.is_some_and(waits_for_first_consumer)
        && claim
            .metadata
            .annotations
            .as_ref()
            .is_none_or(|a| !a.contains_key(SELECTED_NODE_ANNOTATION))
}

impl PvController {
    fn claim_event(
        claim: &PersistentVolumeClaim,
        warning: bool,
        reason: &str,
        message: String,
        cx: &mut Cx<'_>,
    ) {
        let ns = claim.metadata.namespace.as_deref().unwrap_or_default();
        let name = claim.metadata.name.as_deref().unwrap_or_default();
        cx.event(event(
            warning,
            reason,
            message,
            ("PersistentVolumeClaim", ns, name),
            SOURCE,
        ));
    }

    fn send(&mut self, key: &str, verb: Verb, object: Object, status: bool, cx: &mut Cx<'_>) {
        let kind = object.kind();
        let mut request = client::request(NAME, verb, kind, object.namespace(), object.name())
            .body(Body::Object(Box::new(object)));
        if status {
            request = request.subresource("status");
        }
        let id = cx.send(request);
        self.inflight.insert(id, key.to_owned());
    }

    /// Sends the next write of the bind at `key`, or finishes it.
    fn next_step(&mut self, key: &str, cx: &mut Cx<'_>) -> Progress {
        let Some(bind) = self.binds.get_mut(key) else {
            return Progress::Done;
        };
        if bind.steps.is_empty() {
            self.binds.remove(key);
            return Progress::Done;
        }
        let step = bind.steps.remove(0);
        let (object, status) = match step {
            Step::VolumeClaimRef => {
                let mut volume = bind.volume.clone();
                bind_volume_to_claim(&mut volume, &bind.claim);
                (Object::from(volume), false)
            }
            Step::VolumeBound => {
                let mut volume = bind.volume.clone();
                let status = volume.status.get_or_insert_with(Default::default);
                status.phase = Some("Bound".into());
                status.last_phase_transition_time = Some(cx.now.to_time());
                (Object::from(volume), true)
            }
            Step::ClaimVolumeName => {
                let mut claim = bind.claim.clone();
                claim
                    .spec
                    .get_or_insert_with(Default::default)
                    .volume_name
                    .clone_from(&bind.volume.metadata.name);
                let annotations = claim
                    .metadata
                    .annotations
                    .get_or_insert_with(Default::default);
                annotations.insert(BIND_COMPLETED_ANNOTATION.into(), "yes".into());
                if !annotations.contains_key(BOUND_BY_CONTROLLER_ANNOTATION)
                    && bind
                        .volume
                        .metadata
                        .annotations
                        .as_ref()
                        .is_some_and(|a| a.contains_key(BOUND_BY_CONTROLLER_ANNOTATION))
                {
                    annotations.insert(BOUND_BY_CONTROLLER_ANNOTATION.into(), "yes".into());
                }
                (Object::PersistentVolumeClaim(claim), false)
            }
            Step::ClaimBound => {
                let mut claim = bind.claim.clone();
                let spec = bind.volume.spec.clone().unwrap_or_default();
                let status = claim.status.get_or_insert_with(Default::default);
                status.phase = Some("Bound".into());
                status.access_modes = spec.access_modes;
                status.capacity = spec.capacity;
                (Object::PersistentVolumeClaim(claim), true)
            }
        };
        sync_stage(
            NAME,
            Outcome::Bind,
            format!("{key}: {} {:?}", object.kind().kind, step),
            cx,
        );
        self.send(key, Verb::Update, object, status, cx);
        Progress::Waiting
    }

    /// `syncVolume`: a volume without a claim is `Available`; one whose claim
    /// is not bound yet brings the claim's sync forward.
    fn sync_volume(
        &mut self,
        key: &str,
        volume: &PersistentVolume,
        informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Progress {
        let reference = volume.spec.as_ref().and_then(|s| s.claim_ref.as_ref());
        match reference {
            None => {
                if volume_phase(volume) == "Available" {
                    return Progress::Done;
                }
                let mut updated = volume.clone();
                let status = updated.status.get_or_insert_with(Default::default);
                status.phase = Some("Available".into());
                status.last_phase_transition_time = Some(cx.now.to_time());
                sync_stage(
                    NAME,
                    Outcome::Status,
                    format!("{key}: volume is Available"),
                    cx,
                );
                self.send(key, Verb::Update, Object::from(updated), true, cx);
                Progress::Waiting
            }
            Some(reference) => {
                let claim_key = format!(
                    "{}/{}",
                    reference.namespace.as_deref().unwrap_or_default(),
                    reference.name.as_deref().unwrap_or_default()
                );
                if let Some(claim) = informers
                    .pvcs
                    .get(&claim_key)
                    .and_then(|o| o.get::<PersistentVolumeClaim>())
                    && claim_phase(claim) != "Bound"
                {
                    enqueue(NAME, &mut self.queue, &format!("{CLAIM}{claim_key}"), cx);
                }
                Progress::Done
            }
        }
    }

    /// `syncUnboundClaim`.
    fn sync_claim(
        &mut self,
        key: &str,
        claim: &PersistentVolumeClaim,
        informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Progress {
        if claim_phase(claim) == "Bound" || claim.metadata.deletion_timestamp.is_some() {
            return Progress::Done;
        }
        let class = class_of(claim, informers);
        let delay = delays_binding(claim, class);
        let volumes = informers
            .pvs
            .iter()
            .filter_map(|o| o.get::<PersistentVolume>());
        let wanted = claim_volume_name(claim);
        let found = if wanted.is_empty() {
            find_matching_volume(claim, volumes, delay).cloned()
        } else {
            informers
                .pvs
                .get(wanted)
                .and_then(|o| o.get::<PersistentVolume>())
                .filter(|v| {
                    v.spec.as_ref().and_then(|s| s.claim_ref.as_ref()).is_none()
                        || volume_bound_to_claim(v, claim)
                })
                .cloned()
        };
        if let Some(volume) = found {
            let mut steps = Vec::new();
            if !volume_bound_to_claim(&volume, claim) {
                steps.push(Step::VolumeClaimRef);
            }
            if volume_phase(&volume) != "Bound" {
                steps.push(Step::VolumeBound);
            }
            steps.extend([Step::ClaimVolumeName, Step::ClaimBound]);
            sync_stage(
                NAME,
                Outcome::Bind,
                format!(
                    "{}: binding to volume {}",
                    claim_key(claim),
                    volume.metadata.name.as_deref().unwrap_or_default()
                ),
                cx,
            );
            self.binds.insert(
                key.to_owned(),
                Bind {
                    volume,
                    claim: claim.clone(),
                    steps,
                },
            );
            return self.next_step(key, cx);
        }
        if !wanted.is_empty() {
            return Progress::Done;
        }
        if delay {
            Self::claim_event(
                claim,
                false,
                "WaitForFirstConsumer",
                "waiting for first consumer to be created before binding".into(),
                cx,
            );
            return Progress::Done;
        }
        let class_name = claim_class(claim);
        if class_name.is_empty() {
            Self::claim_event(
                claim,
                false,
                "FailedBinding",
                "no persistent volumes available for this claim and no storage class is set".into(),
                cx,
            );
            return Progress::Done;
        }
        let Some(class) = class else {
            Self::claim_event(
                claim,
                true,
                "ProvisioningFailed",
                format!("storageclass.storage.k8s.io {class_name:?} not found"),
                cx,
            );
            return Progress::Done;
        };
        self.provision_external(key, claim, class, cx)
    }

    /// `provisionClaimOperationExternal`: names the provisioner on the claim and waits for it.
    fn provision_external(
        &mut self,
        key: &str,
        claim: &PersistentVolumeClaim,
        class: &StorageClass,
        cx: &mut Cx<'_>,
    ) -> Progress {
        let provisioner = class.provisioner.clone();
        let annotations = claim.metadata.annotations.clone().unwrap_or_default();
        let progress = if annotations.get(STORAGE_PROVISIONER_ANNOTATION) == Some(&provisioner) {
            Progress::Done
        } else {
            let mut updated = claim.clone();
            let a = updated
                .metadata
                .annotations
                .get_or_insert_with(Default::default);
            a.insert(
                BETA_STORAGE_PROVISIONER_ANNOTATION.into(),
                provisioner.clone(),
            );
            a.insert(STORAGE_PROVISIONER_ANNOTATION.into(), provisioner.clone());
            sync_stage(
                NAME,
                Outcome::Provision,
                format!(
                    "{}: asking external provisioner {provisioner}",
                    claim_key(claim)
                ),
                cx,
            );
            self.send(
                key,
                Verb::Update,
                Object::PersistentVolumeClaim(updated),
                false,
                cx,
            );
            Progress::Waiting
        };
        Self::claim_event(
            claim,
            false,
            "ExternalProvisioning",
            format!(
                "Waiting for a volume to be created either by the external provisioner '{provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered."
            ),
            cx,
        );
        progress
    }
}

impl PvController {
    /// `resync` (`pv_controller_base.go`): every `--pvclaimbinder-sync-period`
    /// the claims are queued again, so a volume that comes to match (a label
    /// fixed, a volume created) binds. podflow queues only the `Pending`
    /// claims: a bound claim's sync has nothing to do.
    pub fn resync(&mut self, informers: &Informers, cx: &mut Cx<'_>) {
        let pending: Vec<String> = informers
            .pvcs
            .iter()
            .filter_map(|o| o.get::<PersistentVolumeClaim>())
            .filter(|c| matches!(claim_phase(c), "" | "Pending"))
            .map(|c| format!("{CLAIM}{}", claim_key(c)))
            .filter(|key| !self.binds.contains_key(key))
            .collect();
        for key in pending {
            enqueue(NAME, &mut self.queue, &key, cx);
        }
    }
}

impl Controller for PvController {
    fn name(&self) -> &'static str {
        NAME
    }

    fn queue(&mut self) -> &mut WorkQueue {
        &mut self.queue
    }

    fn on_delta(&mut self, delta: &InformerDelta, _informers: &Informers, cx: &mut Cx<'_>) {
        let object = delta.object();
        let prefix = match &**object {
            Object::PersistentVolumeClaim(_) => CLAIM,
            Object::PersistentVolume(_) => VOLUME,
            _ => return,
        };
        if matches!(delta, InformerDelta::Deleted(_)) {
            return;
        }
        enqueue(
            NAME,
            &mut self.queue,
            &format!("{prefix}{}", key_of(object)),
            cx,
        );
    }

    fn sync(&mut self, key: &str, informers: &Informers, cx: &mut Cx<'_>) -> Progress {
        let storage = |o: &Object| {
            matches!(
                o,
                Object::PersistentVolume(_) | Object::PersistentVolumeClaim(_)
            )
        };
        if wait_for_own_write(NAME, &mut self.writes, informers, key, storage, cx) {
            return Progress::Deferred;
        }
        if let Some(name) = key.strip_prefix(VOLUME) {
            return match informers
                .pvs
                .get(name)
                .and_then(|o| o.get::<PersistentVolume>())
            {
                Some(volume) => self.sync_volume(key, &volume.clone(), informers, cx),
                None => Progress::Done,
            };
        }
        let name = key.strip_prefix(CLAIM).unwrap_or(key);
        match informers
            .pvcs
            .get(name)
            .and_then(|o| o.get::<PersistentVolumeClaim>())
        {
            Some(claim) => self.sync_claim(key, &claim.clone(), informers, cx),
            None => Progress::Done,
        }
    }

    fn on_response(
        &mut self,
        id: RequestId,
        response: &Response,
        _informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Option<(String, Progress)> {
        let key = self.inflight.remove(&id)?;
        if response.code >= 300 {
            self.binds.remove(&key);
            return Some((key, Progress::Failed(response.message())));
        }
        if let Some(written) = &response.object {
            self.writes.wrote(written);
        }
        if let Some(bind) = self.binds.get_mut(&key) {
            match response.object.as_deref() {
                Some(Object::PersistentVolume(v)) => bind.volume = PersistentVolume::clone(v),
                Some(Object::PersistentVolumeClaim(c)) => bind.claim = c.clone(),
                _ => {}
            }
            let progress = self.next_step(&key, cx);
            return Some((key, progress));
        }
        Some((key, Progress::Done))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn volume(
        name: &str,
        size: &str,
        modes: &[&str],
        class: &str,
        extra: &serde_json::Value,
    ) -> PersistentVolume {
        let mut v = json!({"metadata": {"name": name},
            "spec": {"capacity": {"storage": size}, "accessModes": modes,
                "storageClassName": class, "hostPath": {"path": "/tmp"}},
            "status": {"phase": "Available"}});
        if let (Some(spec), Some(extra)) = (v["spec"].as_object_mut(), extra.as_object()) {
            spec.extend(extra.clone());
        }
        serde_json::from_value(v).unwrap()
    }

    fn claim(size: &str, modes: &[&str], class: &str) -> PersistentVolumeClaim {
        serde_json::from_value(
            json!({"metadata": {"name": "claim01", "namespace": "myns", "uid": "uid01"},
            "spec": {"accessModes": modes, "resources": {"requests": {"storage": size}},
                "storageClassName": class}}),
        )
        .unwrap()
    }

    /// Rows in the spirit of `TestFindVolumeByClaim` / `TestMatchVolume`
    /// (`pkg/controller/volume/persistentvolume/index_test.go`): the smallest
    /// volume that fits wins; class, modes and pre-binding decide.
    #[test]
    #[allow(clippy::large_stack_arrays)] // seven volumes of test data
    fn find_matching_volume_table() {
        let rwo = &["ReadWriteOnce"][..];
        let vols = [
            volume("gce-pd-1", "1G", rwo, "", &json!({})),
            volume("gce-pd-5", "5G", rwo, "", &json!({})),
            volume("gce-pd-10", "10G", rwo, "", &json!({})),
            volume("nfs-5", "5G", &["ReadWriteMany"], "", &json!({})),
            volume("gold-5", "5G", rwo, "gold", &json!({})),
            volume(
                "prebound-20",
                "20G",
                rwo,
                "",
                &json!({"claimRef": {"namespace": "myns", "name": "claim01"}}),
            ),
            volume(
                "other-3",
                "3G",
                rwo,
                "",
                &json!({"claimRef": {"namespace": "myns", "name": "someone"}}),
            ),
        ];
        let name = |c: &PersistentVolumeClaim, delay: bool| {
            find_matching_volume(c, &vols[..6], delay).and_then(|v| v.metadata.name.clone())
        };
        let cases: [(&str, PersistentVolumeClaim, bool, Option<&str>); 6] = [
            (
                "prebound wins over a smaller fit",
                claim("1G", rwo, ""),
                false,
                Some("prebound-20"),
            ),
            (
                "delay binding takes only the prebound",
                claim("1G", rwo, ""),
                true,
                Some("prebound-20"),
            ),
            (
                "the class must match",
                claim("4G", rwo, "gold"),
                false,
                Some("gold-5"),
            ),
            (
                "the modes must be offered",
                claim("2G", &["ReadWriteMany"], ""),
                false,
                Some("nfs-5"),
            ),
            ("too big for any", claim("50G", rwo, ""), false, None),
            (
                "no class of that name",
                claim("1G", rwo, "silver"),
                false,
                None,
            ),
        ];
        for (what, c, delay, want) in cases {
            assert_eq!(name(&c, delay).as_deref(), want, "{what}");
        }
        // Without the pre-bound volume, the smallest fit is taken; another claim's volume never.
        let small = claim("2G", rwo, "");
        let pick = find_matching_volume(&small, [&vols[6], &vols[2], &vols[1]], false);
        assert_eq!(
            pick.and_then(|v| v.metadata.name.as_deref()),
            Some("gce-pd-5")
        );
    }

    #[test]
    fn delay_binding_ends_with_a_selected_node() {
        let class: StorageClass = serde_json::from_value(json!({"metadata": {"name": "standard"},
            "provisioner": "hostpath.csi.k8s.io", "volumeBindingMode": "WaitForFirstConsumer"}))
        .unwrap();
        let mut c = claim("1G", &["ReadWriteOnce"], "standard");
        assert!(delays_binding(&c, Some(&class)));
        c.metadata.annotations =
            Some([(SELECTED_NODE_ANNOTATION.to_owned(), "node-1".to_owned())].into());
        assert!(!delays_binding(&c, Some(&class)));
        assert!(!delays_binding(&c, None));
    }
}
