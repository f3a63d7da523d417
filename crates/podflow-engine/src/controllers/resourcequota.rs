//! The resource quota controller (`pkg/controller/resourcequota/resource_quota_controller.go`):
//! a quota added, or whose `spec.hard` changed, is synced — `status.hard`
//! becomes `spec.hard` and `status.used` what the namespace's objects use
//! ([`crate::apiserver::admission::resource_quota::sync_status`]) — and
//! written through the `status` subresource when it changed. When a counted
//! object is deleted, or a Pod finishes, the quotas of its namespace that
//! track its kind are synced again (replenishment: `replenishQuota`, with the
//! update filter of `resource_quota_monitor.go`). Admission charges new
//! objects; this controller gives back what went away.
//!
//! It counts the kinds kube-controller-manager's informers cache; other
//! counts keep what admission charged. One queue (upstream keeps a second,
//! `missingUsageQueue`, to sync quotas without usage first) and no periodic
//! full resync (`--resource-quota-sync-period`).

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::ResourceQuota;

use super::informer::{InformerDelta, key_of};
use super::workqueue::WorkQueue;
use super::{Controller, Informers, Progress, WATCHED, enqueue, sync_stage};
use crate::apiserver::admission::quota_usage::{quota_v1_pod, read, tracks};
use crate::apiserver::admission::resource_quota::sync_status;
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Verb};
use crate::component::{Cx, RequestId};
use crate::trace::Outcome;
use podflow_model::Object;
use podflow_model::kinds::kind_of;

/// The controller's service account.
pub const NAME: &str = "resourcequota-controller";

/// The controller's state.
#[derive(Debug, Clone, Default)]
pub struct ResourceQuotaController {
    queue: WorkQueue,
    /// Status updates in flight, by the quota's key.
    inflight: BTreeMap<RequestId, String>,
}

/// Whether some cached kind's evaluator tracks quota resource `key`.
fn counted(key: &str) -> bool {
    WATCHED
        .iter()
        .map(|k| kind_of(k))
        .any(|kind| kind.namespaced && tracks(kind, key))
}

fn hard_of(
    quota: &ResourceQuota,
) -> Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>> {
    quota.spec.as_ref().and_then(|s| s.hard.as_ref())
}

/// Every cached object of `namespace`.
fn objects_in(informers: &Informers, namespace: &str) -> Vec<Arc<Object>> {
    WATCHED
        .iter()
        .filter_map(|kind| informers.of_kind(kind))
        .flat_map(|informer| informer.list_in(namespace).cloned())
        .collect()
}

/// A summary of a resource list for the trace: `pods=2,requests.cpu=1`.
fn summary(
    list: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
) -> String {
    list.into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.0))
        .collect::<Vec<_>>()
        .join(",")
}

impl ResourceQuotaController {
    /// `replenishQuota`: the quotas of `namespace` whose `status.hard` names
    /// a resource `object`'s kind is counted in are synced again.
    fn replenish(&mut self, object: &Object, informers: &Informers, cx: &mut Cx<'_>) {
        let Some(namespace) = object.namespace() else {
            return;
        };
        let kind = object.kind();
        let keys: Vec<String> = informers
            .quotas
            .list_in(namespace)
            .filter(|q| {
                q.get::<ResourceQuota>()
                    .and_then(|q| q.status.as_ref()?.hard.as_ref())
                    .is_some_and(|hard| hard.keys().any(|k| tracks(kind, k)))
            })
            .map(|q| key_of(q))
            .collect();
        for key in keys {
            enqueue(NAME, &mut self.queue, &key, cx);
        }
    }
}

impl Controller for ResourceQuotaController {
    fn name(&self) -> &'static str {
        NAME
    }

    fn queue(&mut self) -> &mut WorkQueue {
        &mut self.queue
    }

    fn on_delta(&mut self, delta: &InformerDelta, informers: &Informers, cx: &mut Cx<'_>) {
        match delta {
            // `addQuota`, and `UpdateFunc`: only a change of `spec.hard` is
            // news; the status is this controller's and admission's.
            InformerDelta::Added(object) if matches!(**object, Object::ResourceQuota(_)) => {
                enqueue(NAME, &mut self.queue, &key_of(object), cx);
            }
            InformerDelta::Updated { old, new } => match (&**old, &**new) {
                (Object::ResourceQuota(old), Object::ResourceQuota(cur))
                    if read(hard_of(old)) != read(hard_of(cur)) =>
                {
                    enqueue(NAME, &mut self.queue, &key_of(new), cx);
                }
                // `DefaultUpdateFilter`: a Pod that stops counting (it finished).
                (Object::Pod(old_pod), Object::Pod(new_pod))
                    if quota_v1_pod(old_pod) && !quota_v1_pod(new_pod) =>
                {
                    self.replenish(new, informers, cx);
                }
                _ => {}
            },
            InformerDelta::Deleted(object) => {
                if matches!(**object, Object::ResourceQuota(_)) {
                    enqueue(NAME, &mut self.queue, &key_of(object), cx);
                } else {
                    self.replenish(object, informers, cx);
                }
            }
            InformerDelta::Added(_) => {}
        }
    }

    /// `syncResourceQuota`.
    fn sync(&mut self, key: &str, informers: &Informers, cx: &mut Cx<'_>) -> Progress {
        let Some(quota) = informers
            .quotas
            .get(key)
            .and_then(|o| o.get::<ResourceQuota>())
        else {
            sync_stage(NAME, Outcome::Gone, format!("{key} has been deleted"), cx);
            return Progress::Done;
        };
        let namespace = quota.metadata.namespace.clone().unwrap_or_default();
        let objects = objects_in(informers, &namespace);
        let status = sync_status(quota, &objects, counted);
        let current = quota.status.clone().unwrap_or_default();
        let dirty = read(hard_of(quota)) != read(current.hard.as_ref())
            || current.hard.is_none()
            || current.used.is_none()
            || read(status.used.as_ref()) != read(current.used.as_ref());
        if !dirty {
            sync_stage(
                NAME,
                Outcome::InSync,
                format!("{key}: used {}", summary(current.used.as_ref())),
                cx,
            );
            return Progress::Done;
        }
        sync_stage(
            NAME,
            Outcome::Status,
            format!(
                "{key}: hard {}, used {}",
                summary(status.hard.as_ref()),
                summary(status.used.as_ref())
            ),
            cx,
        );
        let mut updated = quota.clone();
        updated.status = Some(status);
        let request =
            client_request(&updated).body(Body::Object(Box::new(Object::ResourceQuota(updated))));
        let id = cx.send(request);
        self.inflight.insert(id, key.to_owned());
        Progress::Waiting
    }

    fn on_response(
        &mut self,
        id: RequestId,
        response: &Response,
        _informers: &Informers,
        _cx: &mut Cx<'_>,
    ) -> Option<(String, Progress)> {
        let key = self.inflight.remove(&id)?;
        // A conflict with admission's charge, say: the rate limiter brings it back.
        Some((key, super::written(response, false)))
    }
}

/// `UpdateStatus` of `quota`.
fn client_request(quota: &ResourceQuota) -> crate::apiserver::request::Request {
    super::client::request(
        NAME,
        Verb::Update,
        kind_of("ResourceQuota"),
        quota.metadata.namespace.as_deref(),
        quota.metadata.name.as_deref().unwrap_or_default(),
    )
    .subresource("status")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The resources the controller can count from its caches.
    #[test]
    fn counts_what_the_informers_cache() {
        for key in [
            "pods",
            "requests.cpu",
            "count/deployments.apps",
            "services",
            "persistentvolumeclaims",
            "count/configmaps",
        ] {
            assert!(counted(key), "{key}");
        }
        for key in ["secrets", "count/secrets"] {
            assert!(!counted(key), "{key}");
        }
    }
}
