//! The serviceaccount controller (`pkg/controller/serviceaccount/serviceaccounts_controller.go`):
//! every Active namespace holds the `default` `ServiceAccount`. A namespace
//! added or updated, or a `ServiceAccount` deleted, queues its namespace;
//! `syncNamespace` creates `default` there when the cache lacks it. An
//! `AlreadyExists`, or a refusal because the namespace is terminating, is
//! not a failure; other refusals bring the namespace back after the rate
//! limiter's delay. Pods in a new namespace wait in the `ServiceAccount`
//! admission plugin for this create ([`crate::apiserver::admission::service_account`]).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::informer::InformerDelta;
use super::workqueue::WorkQueue;
use super::{Controller, Informers, Progress, enqueue, sync_stage};
use crate::apiserver::admission::service_account::DEFAULT_SERVICE_ACCOUNT;
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Verb};
use crate::component::{Cx, RequestId};
use crate::trace::Outcome;
use podflow_model::Object;
use podflow_model::kinds::kind_of;

/// The controller's name (`names.ServiceAccountController`).
pub const NAME: &str = "serviceaccount-controller";
/// The service account it acts as (its `system:controller:` role's subject).
pub const ACCOUNT: &str = "service-account-controller";

/// The controller's state.
#[derive(Debug, Clone, Default)]
pub struct ServiceAccountsController {
    queue: WorkQueue,
    /// Creates in flight, by the namespace they are for.
    inflight: BTreeMap<RequestId, String>,
}

/// The account every namespace gets (`ServiceAccountsToEnsure`: only `default`).
pub fn default_account(namespace: &str) -> ServiceAccount {
    ServiceAccount {
        metadata: ObjectMeta {
            name: Some(DEFAULT_SERVICE_ACCOUNT.into()),
            namespace: Some(namespace.into()),
            ..ObjectMeta::default()
        },
        ..ServiceAccount::default()
    }
}

/// Whether a namespace is `Active` (a terminating one gets nothing new).
pub fn active(ns: &Namespace) -> bool {
    ns.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Active")
}

/// Whether a create was refused because its namespace is terminating
/// (`apierrors.HasStatusCause(err, v1.NamespaceTerminatingCause)`).
pub fn namespace_terminating(response: &Response) -> bool {
    response
        .status
        .as_ref()
        .and_then(|s| s.details.as_ref())
        .and_then(|d| d.causes.as_ref())
        .is_some_and(|c| {
            c.iter()
                .any(|c| c.reason.as_deref() == Some("NamespaceTerminating"))
        })
}

impl Controller for ServiceAccountsController {
    fn name(&self) -> &'static str {
        NAME
    }

    fn queue(&mut self) -> &mut WorkQueue {
        &mut self.queue
    }

    /// `namespaceAdded`, `namespaceUpdated` and `serviceAccountDeleted`.
    fn on_delta(&mut self, delta: &InformerDelta, _informers: &Informers, cx: &mut Cx<'_>) {
        let object = delta.object();
        let namespace = match (delta, &**object) {
            (InformerDelta::Added(_) | InformerDelta::Updated { .. }, Object::Namespace(_)) => {
                object.name().to_owned()
            }
            (InformerDelta::Deleted(_), Object::ServiceAccount(sa)) => {
                sa.metadata.namespace.clone().unwrap_or_default()
            }
            _ => return,
        };
        enqueue(NAME, &mut self.queue, &namespace, cx);
    }

    /// `syncNamespace`.
    fn sync(&mut self, key: &str, informers: &Informers, cx: &mut Cx<'_>) -> Progress {
        let Some(ns) = informers
            .namespaces
            .get(key)
            .and_then(|o| o.get::<Namespace>())
        else {
            sync_stage(NAME, Outcome::Gone, format!("{key} has been deleted"), cx);
            return Progress::Done;
        };
        if !active(ns) {
            sync_stage(
                NAME,
                Outcome::Skip,
                format!("{key} is not Active: no ServiceAccount is made there"),
                cx,
            );
            return Progress::Done;
        }
        let sa_key = format!("{key}/{DEFAULT_SERVICE_ACCOUNT}");
        if informers.serviceaccounts.get(&sa_key).is_some() {
            sync_stage(
                NAME,
                Outcome::InSync,
                format!("{key}: ServiceAccount {DEFAULT_SERVICE_ACCOUNT} exists"),
                cx,
            );
            return Progress::Done;
        }
        sync_stage(
            NAME,
            Outcome::Create,
            format!("{key}: no ServiceAccount {DEFAULT_SERVICE_ACCOUNT}; creating it"),
            cx,
        );
        let account = default_account(key);
        let request = super::client::request(
            ACCOUNT,
            Verb::Create,
            kind_of("ServiceAccount"),
            Some(key),
            "",
        )
        .body(Body::Object(Box::new(Object::ServiceAccount(account))));
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
        // `AlreadyExists`, and a terminating namespace, are no failure.
        let benign = response.code == 409 || namespace_terminating(response);
        Some((key, super::written(response, benign)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::NamespaceStatus;

    /// Mirrors `serviceaccounts_controller_test.go` `TestServiceAccountCreation`:
    /// the account made is `default`, in the namespace, and nothing else is
    /// made in a namespace that is not Active.
    #[test]
    fn the_default_account_in_active_namespaces() {
        let account = default_account("dev");
        assert_eq!(account.metadata.name.as_deref(), Some("default"));
        assert_eq!(account.metadata.namespace.as_deref(), Some("dev"));
        for (phase, want) in [
            (Some("Active"), true),
            (Some("Terminating"), false),
            (None, false),
        ] {
            let ns = Namespace {
                status: Some(NamespaceStatus {
                    phase: phase.map(str::to_owned),
                    ..NamespaceStatus::default()
                }),
                ..Namespace::default()
            };
            assert_eq!(active(&ns), want, "{phase:?}");
        }
    }
}
