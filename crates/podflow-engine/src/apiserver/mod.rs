//! kube-apiserver: authentication, authorization, admission, validation,
//! persistence and the answer, one trace record a step.

pub mod admission;
pub mod authn;
pub mod authz;
pub mod bootstrap_policy;
pub mod decode_error;
pub mod defaults;
pub mod deprecation;
pub mod handler;
pub mod namespace_strategy;
pub mod patch_request;
pub mod request;
pub mod response;
pub mod reviews;
pub mod scale;
pub mod service_alloc;
pub mod storage_strategy;
pub mod strategic_merge_patch;
pub mod strategy;
pub mod typed_status_patch;
pub mod validation;

use std::sync::Arc;

use podflow_model::{Kind, Object};

/// Read access to the cluster's objects, as the API server's watch cache (and
/// the listers its admission plugins and authorizers use) sees them.
pub trait ClusterView {
    /// The object of `kind` named `name` in `namespace` (ignored for cluster-scoped kinds).
    fn get(&self, kind: &Kind, namespace: Option<&str>, name: &str) -> Option<Arc<Object>>;

    /// Every object of `kind`, in `namespace` when given, in key order.
    fn list(&self, kind: &Kind, namespace: Option<&str>) -> Vec<Arc<Object>>;
}

/// A fixed set of objects, for tests and for reading a cluster file.
#[derive(Debug, Default, Clone)]
pub struct StaticCluster {
    pub objects: Vec<Arc<Object>>,
}

impl StaticCluster {
    /// A cluster holding these objects.
    pub fn new(objects: impl IntoIterator<Item = Object>) -> StaticCluster {
        StaticCluster {
            objects: objects.into_iter().map(Arc::new).collect(),
        }
    }
}

impl ClusterView for StaticCluster {
    fn get(&self, kind: &Kind, namespace: Option<&str>, name: &str) -> Option<Arc<Object>> {
        self.objects
            .iter()
            .find(|o| {
                o.kind() == kind
                    && o.name() == name
                    && (!kind.namespaced || o.namespace() == namespace)
            })
            .cloned()
    }

    fn list(&self, kind: &Kind, namespace: Option<&str>) -> Vec<Arc<Object>> {
        self.objects
            .iter()
            .filter(|o| o.kind() == kind && (namespace.is_none() || o.namespace() == namespace))
            .cloned()
            .collect()
    }
}

impl<O: crate::store::Held> ClusterView for crate::store::Store<O> {
    fn get(&self, kind: &Kind, namespace: Option<&str>, name: &str) -> Option<Arc<Object>> {
        let key = crate::store::key_for(kind, namespace, name);
        self.object(&key)
    }

    fn list(&self, kind: &Kind, namespace: Option<&str>) -> Vec<Arc<Object>> {
        let prefix = crate::store::prefix_for(kind, namespace);
        self.range(&prefix).map(|(_, e)| e.object.load()).collect()
    }
}
