//! The root CA certificate publisher
//! (`pkg/controller/certificates/rootcacertpublisher/publisher.go`): every
//! namespace holds the `ConfigMap` `kube-root-ca.crt`, whose `ca.crt` is the
//! cluster's CA and whose `kubernetes.io/description` annotation says what it
//! is for; the projected `kube-api-access-*` volume of every Pod reads it. A
//! namespace added (or updated while Active), or that `ConfigMap` updated or
//! deleted, queues the namespace; `syncNamespace` creates the `ConfigMap`
//! when the cache lacks it and puts back its data and annotation when they
//! changed. A create refused because the namespace is gone or terminating is
//! not retried.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::informer::InformerDelta;
use super::workqueue::WorkQueue;
use super::{Controller, Informers, Progress, enqueue, sync_stage};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Verb};
use crate::component::{Cx, RequestId};
use crate::kubelet::config::{ROOT_CA_CONFIG_MAP, ROOT_CA_CRT};
use crate::trace::Outcome;
use podflow_model::Object;
use podflow_model::kinds::kind_of;

/// The controller's name, and the service account it acts as.
pub const NAME: &str = "root-ca-cert-publisher";
/// `DescriptionAnnotation`.
pub const DESCRIPTION_ANNOTATION: &str = "kubernetes.io/description";
/// `Description`, the annotation's value.
pub const DESCRIPTION: &str = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

/// What a namespace's sync does.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// The `ConfigMap` is as it should be.
    InSync,
    /// There is none: create this one.
    Create(Box<ConfigMap>),
    /// Its data or annotation changed: write this back.
    Update(Box<ConfigMap>),
}

/// The data every copy holds.
fn data() -> BTreeMap<String, String> {
    [("ca.crt".to_owned(), ROOT_CA_CRT.to_owned())].into()
}

/// `syncNamespace`'s decision for `namespace`, whose cached `kube-root-ca.crt` is `current`.
pub fn plan(namespace: &str, current: Option<&ConfigMap>) -> Plan {
    let Some(current) = current else {
        return Plan::Create(Box::new(ConfigMap {
            metadata: ObjectMeta {
                name: Some(ROOT_CA_CONFIG_MAP.into()),
                namespace: Some(namespace.into()),
                annotations: Some([(DESCRIPTION_ANNOTATION.into(), DESCRIPTION.into())].into()),
                ..ObjectMeta::default()
            },
            data: Some(data()),
            ..ConfigMap::default()
        }));
    };
    let described = current
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(DESCRIPTION_ANNOTATION))
        .is_some_and(|d| !d.is_empty());
    if current.data.as_ref() == Some(&data()) && described {
        return Plan::InSync;
    }
    let mut updated = current.clone();
    updated.data = Some(data());
    updated
        .metadata
        .annotations
        .get_or_insert_default()
        .insert(DESCRIPTION_ANNOTATION.into(), DESCRIPTION.into());
    Plan::Update(Box::new(updated))
}

/// The controller's state.
#[derive(Debug, Clone, Default)]
pub struct RootCaCertPublisher {
    queue: WorkQueue,
    /// Writes in flight, by the namespace they are for.
    inflight: BTreeMap<RequestId, String>,
}

impl Controller for RootCaCertPublisher {
    fn name(&self) -> &'static str {
        NAME
    }

    fn queue(&mut self) -> &mut WorkQueue {
        &mut self.queue
    }

    /// `namespaceAdded`, `namespaceUpdated` (Active ones), `configMapUpdated`
    /// and `configMapDeleted` (of `kube-root-ca.crt` only).
    fn on_delta(&mut self, delta: &InformerDelta, _informers: &Informers, cx: &mut Cx<'_>) {
        let object = delta.object();
        let namespace = match (delta, &**object) {
            (InformerDelta::Added(_), Object::Namespace(_)) => object.name().to_owned(),
            (InformerDelta::Updated { .. }, Object::Namespace(ns))
                if super::serviceaccounts::active(ns) =>
            {
                object.name().to_owned()
            }
            (InformerDelta::Updated { .. } | InformerDelta::Deleted(_), Object::ConfigMap(cm))
                if cm.metadata.name.as_deref() == Some(ROOT_CA_CONFIG_MAP) =>
            {
                cm.metadata.namespace.clone().unwrap_or_default()
            }
            _ => return,
        };
        enqueue(NAME, &mut self.queue, &namespace, cx);
    }

    /// `syncNamespace`.
    fn sync(&mut self, key: &str, informers: &Informers, cx: &mut Cx<'_>) -> Progress {
        let cached = informers
            .configmaps
            .get(&format!("{key}/{ROOT_CA_CONFIG_MAP}"))
            .and_then(|o| o.get::<ConfigMap>());
        let (verb, config_map) = match plan(key, cached) {
            Plan::InSync => {
                let detail = format!("{key}: ConfigMap {ROOT_CA_CONFIG_MAP} holds the CA");
                sync_stage(NAME, Outcome::InSync, detail, cx);
                return Progress::Done;
            }
            Plan::Create(cm) => {
                let detail = format!("{key}: no ConfigMap {ROOT_CA_CONFIG_MAP}; creating it");
                sync_stage(NAME, Outcome::Create, detail, cx);
                (Verb::Create, cm)
            }
            Plan::Update(cm) => {
                let detail =
                    format!("{key}: ConfigMap {ROOT_CA_CONFIG_MAP} changed; writing the CA back");
                sync_stage(NAME, Outcome::Update, detail, cx);
                (Verb::Update, cm)
            }
        };
        let name = if verb == Verb::Create {
            ""
        } else {
            ROOT_CA_CONFIG_MAP
        };
        let request = super::client::request(NAME, verb, kind_of("ConfigMap"), Some(key), name)
            .body(Body::Object(Box::new(Object::ConfigMap(*config_map))));
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
        // "don't retry a create if the namespace doesn't exist or is terminating"
        let benign =
            response.code == 404 || super::serviceaccounts::namespace_terminating(response);
        Some((key, super::written(response, benign)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mirrors `publisher_test.go` `TestConfigMapCreation`: a namespace
    /// without the `ConfigMap` gets one with the CA and the description; one
    /// whose data or annotation was changed gets them back; one as made is left.
    #[test]
    fn plan_table() {
        let Plan::Create(made) = plan("dev", None) else {
            panic!("a missing ConfigMap is created")
        };
        assert_eq!(made.metadata.name.as_deref(), Some("kube-root-ca.crt"));
        assert_eq!(made.metadata.namespace.as_deref(), Some("dev"));
        assert_eq!(
            made.data
                .as_ref()
                .and_then(|d| d.get("ca.crt"))
                .map(String::as_str),
            Some(ROOT_CA_CRT)
        );
        assert_eq!(
            made.metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get("kubernetes.io/description"))
                .map(String::as_str),
            Some(DESCRIPTION)
        );
        assert_eq!(plan("dev", Some(&made)), Plan::InSync);
        let mut changed = (*made).clone();
        changed.data = Some([("ca.crt".to_owned(), "other".to_owned())].into());
        assert_eq!(plan("dev", Some(&changed)), Plan::Update(made.clone()));
        let mut bare = (*made).clone();
        bare.metadata.annotations = None;
        assert_eq!(plan("dev", Some(&bare)), Plan::Update(made));
    }
}
