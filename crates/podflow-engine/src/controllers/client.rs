//! How kube-controller-manager's controllers reach the API server: each with
//! its own service account's credentials (kubeadm runs it with
//! `--use-service-account-credentials`), so RBAC sees
//! `system:serviceaccount:kube-system:replicaset-controller` and its
//! `system:controller:replicaset-controller` role.

use crate::apiserver::authn::TokenAuthenticator;
use crate::apiserver::request::{Credentials, Request, UserInfo, Verb};
use crate::trace::Actor;
use crate::trace::{EventObject, EventRecord};
use podflow_model::Kind;

/// The component name every controller's records carry.
pub const ME: Actor = Actor::ControllerManager;

/// The controllers that send requests, by their service account's name.
pub const CONTROLLERS: [&str; 15] = [
    "deployment-controller",
    "replicaset-controller",
    "endpointslice-controller",
    "endpoint-controller",
    "node-controller",
    "taint-eviction-controller",
    "job-controller",
    "generic-garbage-collector",
    "persistent-volume-binder",
    "resourcequota-controller",
    "namespace-controller",
    "service-account-controller",
    "root-ca-cert-publisher",
    "pod-garbage-collector",
    // The CSI driver's external-provisioner sidecar (simulated in
    // kube-controller-manager; its RBAC comes with the driver, in the default cluster).
    "csi-provisioner",
];

/// The bearer token of `controller`'s service account.
fn token(controller: &str) -> String {
    format!("kube-system:{controller}:token")
}

/// The service-account user of `controller`.
pub fn user(controller: &str) -> UserInfo {
    UserInfo::new(
        format!("system:serviceaccount:kube-system:{controller}"),
        &[
            "system:serviceaccounts",
            "system:serviceaccounts:kube-system",
        ],
    )
}

/// Teaches the API server's token authenticator the controllers' service-account tokens.
pub fn register_tokens(authn: &mut TokenAuthenticator) {
    for controller in CONTROLLERS {
        authn.add(&token(controller), user(controller));
    }
}

/// A request of `controller`'s about `name` of `kind` in `namespace`.
pub fn request(
    controller: &str,
    verb: Verb,
    kind: &'static Kind,
    namespace: Option<&str>,
    name: &str,
) -> Request {
    Request::new(
        ME,
        Credentials::BearerToken(token(controller)),
        verb,
        kind,
        namespace.map(str::to_owned),
        name,
    )
}

/// An Event about an object, reported by `source`.
pub fn event(
    warning: bool,
    reason: &str,
    message: String,
    object: (&str, &str, &str),
    source: &str,
) -> EventRecord {
    let (kind, namespace, name) = object;
    EventRecord {
        event_type: if warning { "Warning" } else { "Normal" }.into(),
        reason: reason.into(),
        message,
        object: EventObject {
            kind: kind.into(),
            namespace: Some(namespace.to_owned()),
            name: name.into(),
            field_path: None,
        },
        source: source.into(),
    }
}
