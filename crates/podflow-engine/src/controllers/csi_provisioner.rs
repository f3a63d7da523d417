//! The CSI driver's external-provisioner sidecar for `hostpath.csi.k8s.io`
//! (kubernetes-csi/external-provisioner, `pkg/controller/controller.go`, on
//! sig-storage-lib-external-provisioner's `controller.go`). A simplification:
//! podflow runs it inside kube-controller-manager, with its own service
//! account `csi-provisioner` and the driver's RBAC (in the default cluster).
//!
//! It takes claims the PV controller annotated with its name
//! (`volume.kubernetes.io/storage-provisioner`), waiting for
//! `volume.kubernetes.io/selected-node` when the class binds at the first
//! consumer; emits `Provisioning`, creates the volume `pvc-<claim UID>`
//! pre-bound to the claim (CSI source, the node's topology, the class's
//! reclaim policy) and emits `ProvisioningSucceeded`. The PV controller then
//! binds the two. The driver's `CreateVolume` answers at once.
//!
//! The hostpath driver's topology key is `topology.hostpath.csi/node`, which
//! its node-driver-registrar puts on each Node; podflow runs no registrar and
//! uses `kubernetes.io/hostname`, which every node carries.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    CSIPersistentVolumeSource, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
    PersistentVolume, PersistentVolumeClaim, PersistentVolumeSpec, VolumeNodeAffinity,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::client::{self, event};
use super::informer::{InformerDelta, key_of};
use super::workqueue::WorkQueue;
use super::{Controller, Informers, Progress, enqueue, sync_stage};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Verb};
use crate::component::{Cx, RequestId};
use crate::trace::Outcome;
use podflow_model::Object;
use podflow_model::kinds::kind_of;
use podflow_model::storage::{
    PROVISIONED_BY_ANNOTATION, SELECTED_NODE_ANNOTATION, STORAGE_PROVISIONER_ANNOTATION,
    claim_annotation, claim_class, claim_key, claim_reference, claim_volume_name,
    waits_for_first_consumer,
};

/// The driver this provisioner serves.
pub const DRIVER: &str = "hostpath.csi.k8s.io";
/// Its service account (the driver's deployment names it so).
pub const NAME: &str = "csi-provisioner";
/// The node label the provisioned volumes' node affinity names.
pub const TOPOLOGY_KEY: &str = "kubernetes.io/hostname";

/// The provisioner's state.
#[derive(Debug, Clone, Default)]
pub struct CsiProvisioner {
    queue: WorkQueue,
    inflight: BTreeMap<RequestId, (String, PersistentVolumeClaim)>,
    /// `hostpath.csi.k8s.io_csi-hostpathplugin-0_<uuid>`: the events' source, made on first use.
    identity: Option<String>,
    /// The volume attribute `storage.kubernetes.io/csiProvisionerIdentity`.
    provisioner_identity: Option<String>,
}

impl CsiProvisioner {
    fn source(&mut self, cx: &mut Cx<'_>) -> String {
        self.identity
            .get_or_insert_with(|| format!("{DRIVER}_csi-hostpathplugin-0_{}", cx.rng.uuid()))
            .clone()
    }

    fn claim_event(
        &mut self,
        claim: &PersistentVolumeClaim,
        warning: bool,
        reason: &str,
        message: String,
        cx: &mut Cx<'_>,
    ) {
        let source = self.source(cx);
        let ns = claim.metadata.namespace.as_deref().unwrap_or_default();
        let name = claim.metadata.name.as_deref().unwrap_or_default();
        cx.event(event(
            warning,
            reason,
            message,
            ("PersistentVolumeClaim", ns, name),
            &source,
        ));
    }

    /// The volume the driver made for `claim`, on `node` when one was selected.
    fn volume_for(
        &mut self,
        claim: &PersistentVolumeClaim,
        reclaim: &str,
        node: Option<&str>,
        cx: &mut Cx<'_>,
    ) -> PersistentVolume {
        let uid = claim.metadata.uid.clone().unwrap_or_default();
        let spec = claim.spec.clone().unwrap_or_default();
        let identity = self
            .provisioner_identity
            .get_or_insert_with(|| {
                let (secs, _) = cx.now.unix();
                format!("{}-{}-{DRIVER}", secs * 1000, cx.rng.below(10_000))
            })
            .clone();
        let node_affinity = node.map(|node| VolumeNodeAffinity {
            required: Some(NodeSelector {
                node_selector_terms: vec![NodeSelectorTerm {
                    match_expressions: Some(vec![NodeSelectorRequirement {
                        key: TOPOLOGY_KEY.into(),
                        operator: "In".into(),
                        values: Some(vec![node.to_owned()]),
                    }]),
                    match_fields: None,
                }],
            }),
        });
        PersistentVolume {
            metadata: ObjectMeta {
                name: Some(format!("pvc-{uid}")),
                annotations: Some(
                    [(PROVISIONED_BY_ANNOTATION.to_owned(), DRIVER.to_owned())].into(),
                ),
                ..ObjectMeta::default()
            },
            spec: Some(PersistentVolumeSpec {
                access_modes: spec.access_modes.clone(),
                capacity: spec
                    .resources
                    .and_then(|r| r.requests)
                    .map(|r| r.into_iter().filter(|(k, _)| k == "storage").collect()),
                claim_ref: Some(claim_reference(claim)),
                csi: Some(CSIPersistentVolumeSource {
                    driver: DRIVER.into(),
                    volume_handle: cx.rng.uuid(),
                    volume_attributes: Some(
                        [(
                            "storage.kubernetes.io/csiProvisionerIdentity".to_owned(),
                            identity,
                        )]
                        .into(),
                    ),
                    ..CSIPersistentVolumeSource::default()
                }),
                node_affinity,
                persistent_volume_reclaim_policy: Some(reclaim.to_owned()),
                storage_class_name: spec.storage_class_name.clone(),
                volume_mode: Some(spec.volume_mode.unwrap_or_else(|| "Filesystem".into())),
                ..PersistentVolumeSpec::default()
            }),
            status: None,
        }
    }
}

impl Controller for CsiProvisioner {
    fn name(&self) -> &'static str {
        NAME
    }

    fn queue(&mut self) -> &mut WorkQueue {
        &mut self.queue
    }

    fn on_delta(&mut self, delta: &InformerDelta, _informers: &Informers, cx: &mut Cx<'_>) {
        if let (Object::PersistentVolumeClaim(claim), false) = (
            &**delta.object(),
            matches!(delta, InformerDelta::Deleted(_)),
        ) && claim_annotation(claim, STORAGE_PROVISIONER_ANNOTATION) == Some(DRIVER)
            && claim_volume_name(claim).is_empty()
        {
            enqueue(NAME, &mut self.queue, &key_of(delta.object()), cx);
        }
    }

    /// `shouldProvision` then `provisionClaimOperation`.
    fn sync(&mut self, key: &str, informers: &Informers, cx: &mut Cx<'_>) -> Progress {
        let Some(Object::PersistentVolumeClaim(claim)) = informers.pvcs.get(key).map(|o| &**o)
        else {
            return Progress::Done;
        };
        let claim = claim.clone();
        let uid = claim.metadata.uid.clone().unwrap_or_default();
        if !claim_volume_name(&claim).is_empty()
            || informers.pvs.get(&format!("pvc-{uid}")).is_some()
        {
            return Progress::Done;
        }
        let Some(Object::StorageClass(class)) = informers
            .storageclasses
            .get(claim_class(&claim))
            .map(|o| &**o)
        else {
            return Progress::Done;
        };
        if class.provisioner != DRIVER {
            return Progress::Done;
        }
        let node = claim_annotation(&claim, SELECTED_NODE_ANNOTATION).map(str::to_owned);
        if waits_for_first_consumer(class) && node.is_none() {
            return Progress::Done;
        }
        let reclaim = class
            .reclaim_policy
            .clone()
            .unwrap_or_else(|| "Delete".into());
        self.claim_event(
            &claim,
            false,
            "Provisioning",
            format!(
                "External provisioner is provisioning volume for claim \"{}\"",
                claim_key(&claim)
            ),
            cx,
        );
        let volume = self.volume_for(&claim, &reclaim, node.as_deref(), cx);
        sync_stage(
            NAME,
            Outcome::Provision,
            format!(
                "{key}: CreateVolume on {DRIVER}; creating volume {}",
                volume.metadata.name.as_deref().unwrap_or_default()
            ),
            cx,
        );
        let request = client::request(NAME, Verb::Create, kind_of("PersistentVolume"), None, "")
            .body(Body::Object(Box::new(Object::from(volume))));
        let id = cx.send(request);
        self.inflight.insert(id, (key.to_owned(), claim));
        Progress::Waiting
    }

    fn on_response(
        &mut self,
        id: RequestId,
        response: &Response,
        _informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Option<(String, Progress)> {
        let (key, claim) = self.inflight.remove(&id)?;
        if response.code >= 300 {
            let message = format!(
                "failed to provision volume with StorageClass {:?}: {}",
                claim_class(&claim),
                response.message()
            );
            self.claim_event(&claim, true, "ProvisioningFailed", message.clone(), cx);
            return Some((key, Progress::Failed(message)));
        }
        let name = response
            .object
            .as_ref()
            .map(|o| o.name().to_owned())
            .unwrap_or_default();
        self.claim_event(
            &claim,
            false,
            "ProvisioningSucceeded",
            format!("Successfully provisioned volume {name}"),
            cx,
        );
        Some((key, Progress::Done))
    }
}
