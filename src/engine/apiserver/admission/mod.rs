//! Admission control: the plugin interface and the enabled chain, in the order
//! kube-apiserver runs them (`pkg/kubeapiserver/options/plugins.go`,
//! `AllOrderedPlugins`). Each plugin lives in its own file.

use crate::engine::apiserver::request::{Operation, UserInfo};
use crate::engine::apiserver::ClusterView;
use crate::engine::rng::Rng;
use crate::model::{Kind, Object};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;

/// What one plugin decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Let the request through unchanged.
    Allow,
    /// Changed the object; the text says how (`added volume kube-api-access-7x2kq`).
    Mutate(String),
    /// Refuse it with this answer.
    Deny(Status),
}

/// Everything an admission plugin sees of a request.
pub struct AdmissionRequest<'a> {
    pub operation: Operation,
    pub kind: &'static Kind,
    pub subresource: Option<&'a str>,
    pub namespace: Option<&'a str>,
    /// The object's name (after `generateName` was applied).
    pub name: &'a str,
    pub user: &'a UserInfo,
    /// The object as stored before this request, for updates and deletes.
    pub old: Option<&'a Object>,
    /// The API server's view of the cluster (its watch cache).
    pub cluster: &'a dyn ClusterView,
}

/// Writes a plugin asks the API server to make besides the object itself
/// (ResourceQuota charges usage to the quota's status before the object is stored).
#[derive(Debug, Default)]
pub struct SideEffects {
    pub writes: Vec<Object>,
}

/// One admission plugin, mutating, validating or both, as upstream's
/// `admission.MutationInterface` / `admission.ValidationInterface`.
pub trait Plugin {
    /// The plugin's name as `--enable-admission-plugins` spells it.
    fn name(&self) -> &'static str;

    /// Whether it handles this operation on this kind (`admission.Handler`).
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool;

    /// Whether it has a mutating phase.
    fn mutating(&self) -> bool {
        false
    }

    /// Whether it has a validating phase.
    fn validating(&self) -> bool {
        false
    }

    /// The mutating phase: may change `object`.
    fn admit(&self, _req: &AdmissionRequest<'_>, _object: &mut Object, _rng: &mut Rng) -> Verdict {
        Verdict::Allow
    }

    /// The validating phase: may only refuse. `effects` collects extra writes.
    fn validate(
        &self,
        _req: &AdmissionRequest<'_>,
        _object: &Object,
        _effects: &mut SideEffects,
    ) -> Verdict {
        Verdict::Allow
    }
}
