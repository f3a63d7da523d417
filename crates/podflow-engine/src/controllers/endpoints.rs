//! The endpoints controller (`pkg/controller/endpoint/endpoints_controller.go`):
//! a Service with a selector gets a v1 `Endpoints` object of its name,
//! listing the selected Pods' addresses (ready or not) and ports, kept
//! current as Pods come, become ready and go; it is deleted with its Service.
//! The API is deprecated since v1.33 in favour of `EndpointSlices`, but the
//! controller still runs in every cluster, so `kubectl get endpoints` works.
//! What goes in the object is [`super::endpoints_plan`]'s.
//!
//! Its informer cache may lag behind its own writes: after an update, a sync
//! that reads the older copy fails (`staleEndpointsTracker`, in
//! `endpoints_tracker.go`) and is retried after the work queue's delay.
//! podflow treats its own create the same way (upstream would be answered
//! `AlreadyExists` and retry).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Endpoints, Service};

use super::client::{self, event};
use super::endpoints_plan::{desired_subsets, wanted};
use super::informer::{InformerDelta, key_of};
use super::service_pods::{selector_of, selects, services_to_update};
use super::workqueue::WorkQueue;
use super::{Controller, Informers, Progress, enqueue, sync_stage};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Verb};
use crate::component::{Cx, RequestId};
use crate::trace::Outcome;
use podflow_model::Object;
use podflow_model::kinds::kind_of;

/// The controller's service account, as its requests authenticate, and its
/// events' source.
pub const NAME: &str = "endpoint-controller";

/// A write in flight: the Service key it is for, and what it does.
#[derive(Debug, Clone)]
struct Inflight {
    key: String,
    verb: Verb,
}

/// The controller's state.
#[derive(Debug, Clone, Default)]
pub struct EndpointsController {
    queue: WorkQueue,
    inflight: BTreeMap<RequestId, Inflight>,
    /// Per Service key: the resourceVersion its cached Endpoints had when
    /// this controller last wrote them (`""` after a create), so a sync from
    /// that copy is known to be stale.
    stale: BTreeMap<String, String>,
}

impl EndpointsController {
    fn send(&mut self, key: &str, verb: Verb, endpoints: Option<Endpoints>, cx: &mut Cx<'_>) {
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        // A create is sent to the collection; the name is in the body.
        let path_name = if verb == Verb::Create { "" } else { name };
        let mut request = client::request(NAME, verb, kind_of("Endpoints"), Some(ns), path_name);
        if let Some(endpoints) = endpoints {
            request = request.body(Body::Object(Box::new(Object::Endpoints(endpoints))));
        }
        let id = cx.send(request);
        self.inflight.insert(
            id,
            Inflight {
                key: key.to_owned(),
                verb,
            },
        );
    }

    /// `staleEndpointsTracker.IsStale`: the cache still shows the copy this
    /// controller wrote over (or lacks the one it created).
    /// An entry the cache has moved past is forgotten.
    fn stale_message(&mut self, key: &str, cached: Option<&Endpoints>) -> Option<String> {
        let stale = self.stale.get(key)?.clone();
        let cached_rv = cached
            .and_then(|e| e.metadata.resource_version.clone())
            .unwrap_or_default();
        if cached_rv != stale {
            self.stale.remove(key);
            return None;
        }
        Some({
            if stale.is_empty() {
                format!("endpoints informer cache does not hold endpoints {key} created already")
            } else {
                format!(
                    "endpoints informer cache is out of date, resource version {stale} already processed for endpoints {key}"
                )
            }
        })
    }
}

impl Controller for EndpointsController {
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
            // `onEndpointsDelete`: a deleted Endpoints is made again.
            Object::Endpoints(_) if matches!(delta, InformerDelta::Deleted(_)) => {
                enqueue(NAME, &mut self.queue, &key_of(object), cx);
            }
            _ => {}
        }
    }

    /// `syncService`.
    fn sync(&mut self, key: &str, informers: &Informers, cx: &mut Cx<'_>) -> Progress {
        let Some(service) = informers.services.get(key).and_then(|o| o.get::<Service>()) else {
            self.stale.remove(key);
            sync_stage(
                NAME,
                Outcome::Delete,
                format!("{key} has been deleted: deleting its Endpoints"),
                cx,
            );
            self.send(key, Verb::Delete, None, cx);
            return Progress::Waiting;
        };
        let spec = service.spec.clone().unwrap_or_default();
        if spec.type_.as_deref() == Some("ExternalName") || selector_of(service).is_none() {
            sync_stage(
                NAME,
                Outcome::Skip,
                format!("{key}: a Service without a selector; its Endpoints are not managed here"),
                cx,
            );
            return Progress::Done;
        }
        let current = informers
            .endpoints
            .get(key)
            .and_then(|o| o.get::<Endpoints>());
        if let Some(message) = self.stale_message(key, current) {
            return Progress::Failed(message);
        }
        let ns = service.metadata.namespace.as_deref().unwrap_or_default();
        let pods = informers
            .pods
            .list_in(ns)
            .filter_map(|o| o.as_pod())
            .filter(|p| selects(service, p.metadata.labels.as_ref()));
        let (subsets, ready, not_ready) = desired_subsets(service, pods);
        let counts = format!("{ready} ready address(es), {not_ready} not ready");
        let Some(endpoints) = wanted(service, current, subsets) else {
            sync_stage(
                NAME,
                Outcome::InSync,
                format!("{key}: Endpoints list {counts}"),
                cx,
            );
            return Progress::Done;
        };
        let (verb, outcome, doing) = match current {
            None => (Verb::Create, Outcome::Create, "creating"),
            Some(_) => (Verb::Update, Outcome::Update, "updating"),
        };
        sync_stage(
            NAME,
            outcome,
            format!("{key}: {doing} Endpoints: {counts}"),
            cx,
        );
        self.send(key, verb, Some(endpoints), cx);
        Progress::Waiting
    }

    fn on_response(
        &mut self,
        id: RequestId,
        response: &Response,
        informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Option<(String, Progress)> {
        let Inflight { key, verb } = self.inflight.remove(&id)?;
        let (ns, name) = key.split_once('/').unwrap_or(("", &key));
        if response.code < 300 || (verb == Verb::Delete && response.code == 404) {
            if verb != Verb::Delete {
                let cached = informers
                    .endpoints
                    .get(&key)
                    .and_then(|o| o.metadata().resource_version.clone())
                    .unwrap_or_default();
                self.stale.insert(key.clone(), cached);
            }
            return Some((key, Progress::Done));
        }
        let (reason, message) = match verb {
            Verb::Create => (
                "FailedToCreateEndpoint",
                format!(
                    "Failed to create endpoint for service {ns}/{name}: {}",
                    response.message()
                ),
            ),
            Verb::Update => (
                "FailedToUpdateEndpoint",
                format!(
                    "Failed to update endpoint {ns}/{name}: {}",
                    response.message()
                ),
            ),
            _ => return Some((key.clone(), Progress::Failed(response.message()))),
        };
        cx.event(event(true, reason, message, ("Endpoints", ns, name), NAME));
        Some((key.clone(), Progress::Failed(response.message())))
    }
}
