//! Which Services select a Pod, and which Pod changes matter to them: what
//! the endpoints and endpointslice controllers share
//! (`staging/src/k8s.io/endpointslice/util/controller_utils.go`:
//! `GetPodServiceMemberships`, `GetServicesToUpdateOnPodChange`,
//! `podEndpointsChanged`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Pod, Service};

use super::Informers;
use super::informer::key_of;

/// The Service's selector, when it has a non-empty one.
pub fn selector_of(service: &Service) -> Option<&BTreeMap<String, String>> {
    service
        .spec
        .as_ref()
        .and_then(|s| s.selector.as_ref())
        .filter(|s| !s.is_empty())
}

/// Whether `service` selects Pods with `labels`.
pub fn selects(service: &Service, labels: Option<&BTreeMap<String, String>>) -> bool {
    selector_of(service).is_some_and(|sel| {
        sel.iter()
            .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v))
    })
}

/// `podEndpointsChanged` and label changes: whether a Pod update matters to
/// the Services selecting it.
pub fn pod_changed(old: &Pod, new: &Pod) -> bool {
    fn ip(p: &Pod) -> Option<&str> {
        p.status.as_ref().and_then(|s| s.pod_ip.as_deref())
    }
    fn phase(p: &Pod) -> Option<&str> {
        p.status.as_ref().and_then(|s| s.phase.as_deref())
    }
    old.metadata.labels != new.metadata.labels
        || old.metadata.deletion_timestamp != new.metadata.deletion_timestamp
        || ip(old) != ip(new)
        || phase(old) != phase(new)
        || super::pods::is_ready(old) != super::pods::is_ready(new)
        || super::pods::node_of(old) != super::pods::node_of(new)
}

/// `GetPodServiceMemberships`: the keys of the Services that select `pod`.
pub fn services_of(pod: &Pod, informers: &Informers) -> Vec<String> {
    let ns = pod.metadata.namespace.as_deref().unwrap_or_default();
    informers
        .services
        .list_in(ns)
        .filter(|o| {
            o.get::<Service>()
                .is_some_and(|s| selects(s, pod.metadata.labels.as_ref()))
        })
        .map(|o| key_of(o))
        .collect()
}

/// `GetServicesToUpdateOnPodChange`, for any Pod delta: the Services of the
/// Pod (and of its old labels, when they changed); none when nothing that
/// matters to them changed.
pub fn services_to_update(
    delta: &super::informer::InformerDelta,
    pod: &Pod,
    informers: &Informers,
) -> Vec<String> {
    let mut keys = Vec::new();
    if let super::informer::InformerDelta::Updated { old, .. } = delta {
        let Some(old) = old.as_pod() else {
            return keys;
        };
        if !pod_changed(old, pod) {
            return keys;
        }
        if old.metadata.labels != pod.metadata.labels {
            keys.extend(services_of(old, informers));
        }
    }
    for key in services_of(pod, informers) {
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}
