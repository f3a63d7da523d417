//! The `EndpointSlice` controller (`pkg/controller/endpointslice/endpointslice_controller.go`):
//! a Service with a selector gets a slice `<service>-<suffix>` listing the
//! selected Pods' addresses, readiness and ports, kept current as Pods come,
//! become ready, stop being ready and go. What goes in the slice is
//! [`super::endpointslice_plan`]'s.
//!
//! Not modelled: several slices per Service (more than 100 endpoints),
//! dual-stack, the `endpoints.kubernetes.io/last-change-trigger-time`
//! annotation, topology hints.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Service;
use k8s_openapi::api::discovery::v1::EndpointSlice;

use super::client::{self, event};
use super::endpointslice_plan::{
    MANAGED_BY, MANAGED_BY_LABEL, SERVICE_NAME_LABEL, desired, new_slice, updated_slice, zone_label,
};
use super::informer::{InformerDelta, key_of};
use super::own_writes::OwnWrites;
use super::service_pods::{selector_of, selects, services_to_update};
use super::workqueue::WorkQueue;
use super::{Controller, Informers, Progress, enqueue, sync_stage, wait_for_own_write};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Verb};
use crate::component::{Cx, RequestId};
use crate::trace::Outcome;
use podflow_model::Object;
use podflow_model::kinds::kind_of;

/// The controller's service account, as its requests authenticate.
pub const NAME: &str = "endpointslice-controller";
/// The source of its events (`endpoint-slice-controller`).
const EVENT_SOURCE: &str = "endpoint-slice-controller";

/// The controller's state.
#[derive(Debug, Clone, Default)]
pub struct EndpointSliceController {
    queue: WorkQueue,
    /// Writes in flight: the Service key each belongs to, and whether it creates.
    inflight: BTreeMap<RequestId, (String, bool)>,
    writes: OwnWrites,
}

/// The Service a slice this controller manages belongs to.
fn service_key_of_slice(slice: &EndpointSlice) -> Option<String> {
    let labels = slice.metadata.labels.as_ref()?;
    if labels.get(MANAGED_BY_LABEL).map(String::as_str) != Some(MANAGED_BY) {
        return None;
    }
    let service = labels.get(SERVICE_NAME_LABEL)?;
    Some(format!(
        "{}/{service}",
        slice.metadata.namespace.as_deref().unwrap_or_default()
    ))
}

impl EndpointSliceController {
    fn send(&mut self, key: &str, verb: Verb, slice: EndpointSlice, cx: &mut Cx<'_>) {
        let name = slice.metadata.name.clone().unwrap_or_default();
        let request = client::request(
            NAME,
            verb,
            kind_of("EndpointSlice"),
            slice.metadata.namespace.as_deref(),
            &name,
        )
        .body(Body::Object(Box::new(Object::EndpointSlice(slice))));
        let creates = verb == Verb::Create;
        let id = cx.send(request);
        self.inflight.insert(id, (key.to_owned(), creates));
    }
}

impl Controller for EndpointSliceController {
    fn name(&self) -> &'static str {
        NAME
    }

    fn queue(&mut self) -> &mut WorkQueue {
        &mut self.queue
    }

    fn on_delta(&mut self, delta: &InformerDelta, informers: &Informers, cx: &mut Cx<'_>) {
        let object = delta.object();
        match &**object {
            Object::Service(_) => enqueue(NAME, &mut self.queue, &key_of(object), cx),
            Object::Pod(pod) => {
                for key in services_to_update(delta, pod, informers) {
                    enqueue(NAME, &mut self.queue, &key, cx);
                }
            }
            Object::EndpointSlice(slice) => {
                if let Some(key) = service_key_of_slice(slice) {
                    enqueue(NAME, &mut self.queue, &key, cx);
                }
            }
            _ => {}
        }
    }

    /// `syncService`.
    fn sync(&mut self, key: &str, informers: &Informers, cx: &mut Cx<'_>) -> Progress {
        let Some(service) = informers.services.get(key).and_then(|o| o.get::<Service>()) else {
            // Its slices go with it: the garbage collector follows their ownerReferences.
            sync_stage(NAME, Outcome::Gone, format!("{key} has been deleted"), cx);
            return Progress::Done;
        };
        let spec = service.spec.clone().unwrap_or_default();
        if spec.type_.as_deref() == Some("ExternalName") || selector_of(service).is_none() {
            sync_stage(
                NAME,
                Outcome::Skip,
                format!(
                    "{key}: a Service without a selector; its EndpointSlices are not managed here"
                ),
                cx,
            );
            return Progress::Done;
        }
        let relevant = |o: &Object| {
            o.get::<EndpointSlice>()
                .and_then(service_key_of_slice)
                .as_deref()
                == Some(key)
        };
        if wait_for_own_write(NAME, &mut self.writes, informers, key, relevant, cx) {
            return Progress::Deferred;
        }
        let ns = service.metadata.namespace.as_deref().unwrap_or_default();
        let pods = informers
            .pods
            .list_in(ns)
            .filter_map(|o| o.as_pod())
            .filter(|p| selects(service, p.metadata.labels.as_ref()));
        let zone_of = |node: &str| {
            informers
                .nodes
                .get(node)
                .map(|n| zone_label(n.metadata().labels.as_ref()))
        };
        let (endpoints, ports) = desired(service, pods, zone_of);
        let ready = endpoints
            .iter()
            .filter(|e| e.conditions.as_ref().and_then(|c| c.ready) == Some(true))
            .count();
        let total = endpoints.len();
        let existing = informers
            .endpointslices
            .list_in(ns)
            .filter_map(|o| o.get::<EndpointSlice>())
            .find(|s| service_key_of_slice(s).as_deref() == Some(key));
        match existing {
            None => {
                sync_stage(
                    NAME,
                    Outcome::Create,
                    format!(
                        "{key}: creating an EndpointSlice with {total} endpoint(s), {ready} ready"
                    ),
                    cx,
                );
                let slice = new_slice(service, endpoints, ports);
                self.send(key, Verb::Create, slice, cx);
                Progress::Waiting
            }
            Some(existing) => match updated_slice(service, existing, endpoints, ports) {
                None => {
                    sync_stage(
                        NAME,
                        Outcome::InSync,
                        format!(
                            "{key}: EndpointSlice {} lists {total} endpoint(s), {ready} ready",
                            existing.metadata.name.as_deref().unwrap_or_default()
                        ),
                        cx,
                    );
                    Progress::Done
                }
                Some(slice) => {
                    sync_stage(
                        NAME,
                        Outcome::Update,
                        format!(
                            "{key}: updating EndpointSlice {}: {total} endpoint(s), {ready} ready",
                            slice.metadata.name.as_deref().unwrap_or_default()
                        ),
                        cx,
                    );
                    self.send(key, Verb::Update, slice, cx);
                    Progress::Waiting
                }
            },
        }
    }

    fn on_response(
        &mut self,
        id: RequestId,
        response: &Response,
        _informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Option<(String, Progress)> {
        let (key, created) = self.inflight.remove(&id)?;
        if response.code < 300 {
            match &response.object {
                Some(written) if created => self.writes.created(written),
                Some(written) => self.writes.wrote(written),
                None => {}
            }
            return Some((key, Progress::Done));
        }
        let (ns, name) = key.split_once('/').unwrap_or(("", &key));
        cx.event(event(
            true,
            "FailedToUpdateEndpointSlices",
            format!(
                "Error updating Endpoint Slices for Service {ns}/{name}: {}",
                response.message()
            ),
            ("Service", ns, name),
            EVENT_SOURCE,
        ));
        Some((key.clone(), Progress::Failed(response.message())))
    }
}
