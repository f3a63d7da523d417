//! What a strategic merge patch knows of each field, as `strategicpatch`'s
//! `PatchMetaFromStruct` reads it from the Go struct tags of `k8s.io/api`
//! (`patchStrategy:"merge"`, `patchMergeKey:"name"`, `patchStrategy:"retainKeys"`):
//! a table keyed by (Go type, JSON field). A list the table does not name is
//! atomic (replaced whole), as a list without tags is upstream (`tolerations`,
//! `containerStatuses`, `taints`, `images`); a struct field the table does
//! not name is walked without knowing its type, so its lists are atomic too.

/// A Go type of the API, by the name `core/v1/types.go` and
/// `apps/v1/types.go` give it (`v1.PodSpec`); [`UNTYPED`] for anything else.
pub type GoType = &'static str;

/// A type the table knows nothing of: every list in it is atomic.
pub const UNTYPED: GoType = "";

/// How a list field merges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListStrategy {
    /// `patchStrategy:"merge"` with `patchMergeKey`: elements merge by key.
    MergeByKey(&'static str),
    /// `patchStrategy:"merge"` on a list of scalars: a set union.
    MergePrimitives,
}

/// One field of a type: the type it holds (the element type for a list) and
/// how a list of it merges (`None`: replaced whole, or not a list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub ty: GoType,
    pub list: Option<ListStrategy>,
}

use ListStrategy::{MergeByKey, MergePrimitives};

const fn typed(ty: GoType) -> Field {
    Field { ty, list: None }
}

const fn keyed(ty: GoType, key: &'static str) -> Field {
    Field {
        ty,
        list: Some(MergeByKey(key)),
    }
}

/// The Go type a kind's object is.
pub fn root(kind: &str) -> GoType {
    match kind {
        "Pod" => "v1.Pod",
        "Node" => "v1.Node",
        "Service" => "v1.Service",
        "Namespace" => "v1.Namespace",
        "PersistentVolumeClaim" => "v1.PersistentVolumeClaim",
        "Deployment" => "v1.Deployment",
        "ReplicaSet" => "v1.ReplicaSet",
        "Job" => "v1.Job",
        _ => "object",
    }
}

/// The field `field` of `ty`, as its struct tags describe it.
#[allow(clippy::match_same_arms)]
pub fn field(ty: GoType, field: &str) -> Option<Field> {
    Some(match (ty, field) {
        // Every object's metadata (`metav1.ObjectMeta`).
        (_, "metadata") if is_object(ty) => typed("v1.ObjectMeta"),
        ("v1.ObjectMeta", "ownerReferences") => keyed("v1.OwnerReference", "uid"),
        ("v1.ObjectMeta", "finalizers") => Field {
            ty: UNTYPED,
            list: Some(MergePrimitives),
        },

        // core/v1 Pod.
        ("v1.Pod", "spec") => typed("v1.PodSpec"),
        ("v1.Pod", "status") => typed("v1.PodStatus"),
        ("v1.PodTemplateSpec", "metadata") => typed("v1.ObjectMeta"),
        ("v1.PodTemplateSpec", "spec") => typed("v1.PodSpec"),
        // `volumes` and `resourceClaims` are also `retainKeys`.
        ("v1.PodSpec", "volumes") => keyed("v1.Volume", "name"),
        ("v1.PodSpec", "initContainers" | "containers") => keyed("v1.Container", "name"),
        ("v1.PodSpec", "ephemeralContainers") => keyed("v1.EphemeralContainer", "name"),
        ("v1.PodSpec", "imagePullSecrets") => keyed("v1.LocalObjectReference", "name"),
        ("v1.PodSpec", "hostAliases") => keyed("v1.HostAlias", "ip"),
        ("v1.PodSpec", "topologySpreadConstraints") => {
            keyed("v1.TopologySpreadConstraint", "topologyKey")
        }
        ("v1.PodSpec", "resourceClaims") => keyed("v1.PodResourceClaim", "name"),
        ("v1.PodSpec", "schedulingGates") => keyed("v1.PodSchedulingGate", "name"),
        ("v1.Container" | "v1.EphemeralContainer", "ports") => {
            keyed("v1.ContainerPort", "containerPort")
        }
        ("v1.Container" | "v1.EphemeralContainer", "env") => keyed("v1.EnvVar", "name"),
        ("v1.Container" | "v1.EphemeralContainer", "volumeMounts") => {
            keyed("v1.VolumeMount", "mountPath")
        }
        ("v1.Container" | "v1.EphemeralContainer", "volumeDevices") => {
            keyed("v1.VolumeDevice", "devicePath")
        }
        ("v1.PodStatus", "conditions") => keyed("v1.PodCondition", "type"),
        ("v1.PodStatus", "podIPs") => keyed("v1.PodIP", "ip"),
        ("v1.PodStatus", "hostIPs") => keyed("v1.HostIP", "ip"),
        ("v1.PodStatus", "resourceClaimStatuses") => keyed("v1.PodResourceClaimStatus", "name"),

        // core/v1 Node: `podCIDRs` merge as a set; `taints` are atomic.
        ("v1.Node", "spec") => typed("v1.NodeSpec"),
        ("v1.Node", "status") => typed("v1.NodeStatus"),
        ("v1.NodeSpec", "podCIDRs") => Field {
            ty: UNTYPED,
            list: Some(MergePrimitives),
        },
        ("v1.NodeStatus", "conditions") => keyed("v1.NodeCondition", "type"),
        ("v1.NodeStatus", "addresses") => keyed("v1.NodeAddress", "type"),

        // core/v1 Service, Namespace, PersistentVolumeClaim.
        ("v1.Service", "spec") => typed("v1.ServiceSpec"),
        ("v1.Service", "status") => typed("v1.ServiceStatus"),
        ("v1.ServiceSpec", "ports") => keyed("v1.ServicePort", "port"),
        ("v1.ServiceStatus", "conditions") => keyed("v1.Condition", "type"),
        ("v1.Namespace", "status") => typed("v1.NamespaceStatus"),
        ("v1.NamespaceStatus", "conditions") => keyed("v1.NamespaceCondition", "type"),
        ("v1.PersistentVolumeClaim", "status") => typed("v1.PersistentVolumeClaimStatus"),
        ("v1.PersistentVolumeClaimStatus", "conditions") => {
            keyed("v1.PersistentVolumeClaimCondition", "type")
        }

        // apps/v1 and batch/v1: the templates, and the conditions.
        // (`DeploymentSpec.strategy` is `retainKeys`.)
        ("v1.Deployment", "spec") => typed("v1.DeploymentSpec"),
        ("v1.Deployment", "status") => typed("v1.DeploymentStatus"),
        ("v1.DeploymentSpec", "template") => typed("v1.PodTemplateSpec"),
        ("v1.DeploymentStatus", "conditions") => keyed("v1.DeploymentCondition", "type"),
        ("v1.ReplicaSet", "spec") => typed("v1.ReplicaSetSpec"),
        ("v1.ReplicaSet", "status") => typed("v1.ReplicaSetStatus"),
        ("v1.ReplicaSetSpec", "template") => typed("v1.PodTemplateSpec"),
        ("v1.ReplicaSetStatus", "conditions") => keyed("v1.ReplicaSetCondition", "type"),
        ("v1.Job", "spec") => typed("v1.JobSpec"),
        ("v1.Job", "status") => typed("v1.JobStatus"),
        ("v1.JobSpec", "template") => typed("v1.PodTemplateSpec"),
        ("v1.JobStatus", "conditions") => keyed("v1.JobCondition", "type"),
        _ => return None,
    })
}

/// A top-level object's type (whose `metadata` is an `ObjectMeta`).
fn is_object(ty: GoType) -> bool {
    ty == "object"
        || matches!(
            ty,
            "v1.Pod"
                | "v1.Node"
                | "v1.Service"
                | "v1.Namespace"
                | "v1.PersistentVolumeClaim"
                | "v1.Deployment"
                | "v1.ReplicaSet"
                | "v1.Job"
        )
}

/// The type held by `field` of `ty` ([`UNTYPED`] when the table does not know it).
pub fn child(ty: GoType, name: &str) -> GoType {
    field(ty, name).map_or(UNTYPED, |f| f.ty)
}

/// How the list `field` of `ty` merges (`None`: replaced whole).
pub fn list_strategy(ty: GoType, name: &str) -> Option<ListStrategy> {
    field(ty, name).and_then(|f| f.list)
}

/// The merge key of the list `field` of `ty`, when it merges by key.
pub fn merge_key(ty: GoType, name: &str) -> Option<&'static str> {
    match list_strategy(ty, name) {
        Some(MergeByKey(key)) => Some(key),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The struct tags of `k8s.io/api/core/v1/types.go` and
    /// `apimachinery/pkg/apis/meta/v1/types.go`, field by field.
    #[test]
    fn the_tags_of_k8s_io_api() {
        for (ty, name, key) in [
            ("v1.PodSpec", "containers", Some("name")),
            ("v1.PodSpec", "initContainers", Some("name")),
            ("v1.PodSpec", "volumes", Some("name")),
            ("v1.PodSpec", "imagePullSecrets", Some("name")),
            (
                "v1.PodSpec",
                "topologySpreadConstraints",
                Some("topologyKey"),
            ),
            ("v1.PodSpec", "tolerations", None),
            ("v1.PodSpec", "readinessGates", None),
            ("v1.Container", "ports", Some("containerPort")),
            ("v1.Container", "env", Some("name")),
            ("v1.Container", "envFrom", None),
            ("v1.Container", "volumeMounts", Some("mountPath")),
            ("v1.PodStatus", "conditions", Some("type")),
            ("v1.PodStatus", "podIPs", Some("ip")),
            ("v1.PodStatus", "containerStatuses", None),
            ("v1.NodeStatus", "conditions", Some("type")),
            ("v1.NodeStatus", "addresses", Some("type")),
            ("v1.NodeStatus", "images", None),
            ("v1.NodeSpec", "taints", None),
            ("v1.ServiceSpec", "ports", Some("port")),
            ("v1.ObjectMeta", "ownerReferences", Some("uid")),
            ("v1.DeploymentStatus", "conditions", Some("type")),
        ] {
            assert_eq!(merge_key(ty, name), key, "{ty}.{name}");
        }
        assert_eq!(
            list_strategy("v1.ObjectMeta", "finalizers"),
            Some(MergePrimitives)
        );
        assert_eq!(
            list_strategy("v1.NodeSpec", "podCIDRs"),
            Some(MergePrimitives)
        );
        assert_eq!(child(root("Deployment"), "spec"), "v1.DeploymentSpec");
        assert_eq!(child(root("ConfigMap"), "metadata"), "v1.ObjectMeta");
        // A field of the same name in another type is another field.
        assert_eq!(merge_key("v1.ServiceStatus", "containers"), None);
        assert_eq!(merge_key(UNTYPED, "containers"), None);
    }
}
