//! Every stored object as one enum over the real `k8s-openapi` types.

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use k8s_openapi::api::authorization::v1::SelfSubjectAccessReview;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{
    ConfigMap, Endpoints, Event, LimitRange, Namespace, Node, PersistentVolume,
    PersistentVolumeClaim, Pod, ResourceQuota, Secret, Service, ServiceAccount,
};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::api::storage::v1::{CSIDriver, StorageClass};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::Value;

use super::kinds::{KINDS, Kind};

/// A type one variant of [`Object`] holds.
pub trait Variant: Sized {
    /// The object inside `object`, if it is of this type.
    fn of(object: &Object) -> Option<&Self>;

    /// This object as an [`Object`].
    fn into_object(self) -> Object;
}

macro_rules! objects {
    (inline: $($inline:ident),* ; boxed: $($boxed:ident),* $(,)?) => {
        objects!(@all $($inline => $inline,)* $($boxed => Box<$boxed>,)*);
    };
    (@all $($variant:ident => $held:ty,)*) => {
        /// A Kubernetes object of one of the kinds in [`super::KINDS`]: the
        /// types larger than a Pod are boxed, so that each stored version of
        /// a Pod (tens of thousands in a large run) is as large as a Pod.
        #[derive(Debug, Clone, PartialEq)]
        #[allow(clippy::large_enum_variant)]
        pub enum Object {
            $($variant($held),)*
        }

        /// Serialized as its typed object: `apiVersion` and `kind` first, then
        /// the fields in k8s-openapi's (alphabetical) order; a Pod's zero
        /// times as Go writes them ([`super::go_nulls`]).
        impl serde::Serialize for Object {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                if let Object::Pod(pod) = self
                    && super::go_nulls::needs_nulls(pod)
                {
                    return super::go_nulls::GoPod(pod).serialize(serializer);
                }
                match self {
                    $(Object::$variant(o) => o.serialize(serializer),)*
                }
            }
        }

        $(impl Variant for $variant {
            fn of(object: &Object) -> Option<&Self> {
                match object {
                    Object::$variant(o) => Some(std::borrow::Borrow::borrow(o)),
                    _ => None,
                }
            }

            fn into_object(self) -> Object {
                Object::$variant(<$held>::from(self))
            }
        })*

        impl Object {
            /// The object's kind.
            pub fn kind(&self) -> &'static Kind {
                match self {
                    $(Object::$variant(_) => {
                        const AT: usize = crate::kinds::index_of(stringify!($variant));
                        &KINDS[AT]
                    })*
                }
            }

            /// The object's metadata.
            pub fn metadata(&self) -> &ObjectMeta {
                match self {
                    $(Object::$variant(o) => &o.metadata,)*
                }
            }

            /// The object's metadata, to change.
            pub fn metadata_mut(&mut self) -> &mut ObjectMeta {
                match self {
                    $(Object::$variant(o) => &mut o.metadata,)*
                }
            }

            /// The object as Kubernetes JSON (`apiVersion`, `kind`, `metadata`, ...),
            /// its keys sorted as `kubectl get -o json` prints them.
            pub fn to_json(&self) -> Value {
                // A Pod straight to JSON, Go's `null`s filled in place (no second pass).
                if let Object::Pod(pod) = self {
                    let mut value = serde_json::to_value(pod).expect("k8s-openapi types always serialize");
                    super::go_nulls::fill(&mut value);
                    return value;
                }
                serde_json::to_value(self).expect("k8s-openapi types always serialize")
            }

            /// The object as compact JSON, in its own type's serialization
            /// (without the Go `null`s of [`Object::to_json`]): what
            /// [`Object::decode`] reads back into an equal object.
            pub fn encode(&self) -> Vec<u8> {
                match self {
                    $(Object::$variant(o) => serde_json::to_vec(o),)*
                }
                .expect("k8s-openapi types always serialize")
            }

            /// Reads what [`Object::encode`] wrote for an object of `kind`.
            pub fn decode(kind: &Kind, bytes: &[u8]) -> Result<Object, serde_json::Error> {
                match kind.kind {
                    $(stringify!($variant) => {
                        serde_json::from_slice::<$variant>(bytes).map(Variant::into_object)
                    })*
                    other => Err(serde::de::Error::custom(format!("no kind {other}"))),
                }
            }

            /// Reads JSON of the given kind into the typed object.
            pub fn from_json(kind: &Kind, value: Value) -> Result<Object, serde_json::Error> {
                match kind.kind {
                    $(stringify!($variant) => {
                        serde_json::from_value::<$variant>(value).map(Variant::into_object)
                    })*
                    other => Err(serde::de::Error::custom(format!("no kind {other}"))),
                }
            }
        }

        $(
            impl From<$variant> for Object {
                fn from(o: $variant) -> Object {
                    o.into_object()
                }
            }
        )*
    };
}

objects!(
    inline:
    ConfigMap,
    Endpoints,
    Event,
    LimitRange,
    Namespace,
    Node,
    Pod,
    ResourceQuota,
    Secret,
    ServiceAccount,
    Service,
    ReplicaSet,
    EndpointSlice,
    Lease,
    ClusterRoleBinding,
    ClusterRole,
    RoleBinding,
    Role,
    PriorityClass,
    PersistentVolumeClaim,
    CSIDriver,
    StorageClass;
    boxed: Deployment, Job, PersistentVolume, SelfSubjectReview, SelfSubjectAccessReview,
);

/// A Pod's `NS/NAME`, as the scheduler's and the kubelet's caches key it
/// (client-go's `MetaNamespaceKeyFunc`).
pub fn pod_key(pod: &Pod) -> String {
    let meta = &pod.metadata;
    [
        meta.namespace.as_deref().unwrap_or_default(),
        "/",
        meta.name.as_deref().unwrap_or_default(),
    ]
    .concat()
}

impl Object {
    /// `metadata.name`, empty when unset.
    pub fn name(&self) -> &str {
        self.metadata().name.as_deref().unwrap_or_default()
    }

    /// `metadata.namespace`, when the object has one.
    pub fn namespace(&self) -> Option<&str> {
        self.metadata().namespace.as_deref()
    }

    /// `NS/NAME`, or `NAME` for a cluster-scoped object.
    pub fn namespaced_name(&self) -> String {
        match self.namespace() {
            Some(ns) if self.kind().namespaced => format!("{ns}/{}", self.name()),
            _ => self.name().to_owned(),
        }
    }

    /// The typed object inside, if it is a `T` (`object.get::<ReplicaSet>()`).
    pub fn get<T: Variant>(&self) -> Option<&T> {
        T::of(self)
    }

    /// The Pod inside, if this is one.
    pub fn as_pod(&self) -> Option<&Pod> {
        self.get()
    }

    /// The Node inside, if this is one.
    pub fn as_node(&self) -> Option<&Node> {
        self.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_keeps_type_meta() {
        let value = serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "nginx", "namespace": "default"},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}
        });
        let object = Object::from_json(crate::kinds::kind_of("Pod"), value.clone()).unwrap();
        assert_eq!(object.name(), "nginx");
        assert_eq!(object.namespaced_name(), "default/nginx");
        assert_eq!(object.to_json(), value);
    }

    /// Each version of a Pod the store and the steps keep costs what a Pod
    /// costs, not what the largest kind does (a `PersistentVolume` is 40 %
    /// larger).
    #[test]
    fn an_object_is_as_large_as_a_pod() {
        let pod = std::mem::size_of::<Pod>();
        let object = std::mem::size_of::<Object>();
        assert!(
            object <= pod + 8,
            "an Object takes {object} bytes, a Pod {pod}"
        );
        let job = Job::default().into_object();
        assert!(job.get::<Job>().is_some() && job.as_pod().is_none());
        assert_eq!(job.kind().kind, "Job");
    }
}
