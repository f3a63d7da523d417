//! The resource kinds podflow's API server serves, as discovery names them.

/// One served kind: its group/version, its plural resource name and scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Kind {
    /// `Pod`, `Deployment`, ...
    pub kind: &'static str,
    /// API group, `""` for the core group.
    pub group: &'static str,
    /// API version within the group, `v1`.
    pub version: &'static str,
    /// Plural lower-case resource name, as in URLs and RBAC rules: `pods`.
    pub resource: &'static str,
    /// Whether objects of this kind live in a namespace.
    pub namespaced: bool,
}

/// Where every etcd key starts (`--etcd-prefix`, `/registry` by default).
pub const REGISTRY: &str = "/registry/";

impl Kind {
    /// `v1` or `apps/v1`, as `apiVersion` spells it.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_owned()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The collection URL path: `/api/v1/namespaces/NS/pods` or `/apis/apps/v1/deployments`.
    pub fn collection_path(&self, namespace: Option<&str>) -> String {
        let (api, group) = if self.group.is_empty() {
            ("/api", "")
        } else {
            ("/apis/", self.group)
        };
        match namespace {
            Some(ns) if self.namespaced => [
                api,
                group,
                "/",
                self.version,
                "/namespaces/",
                ns,
                "/",
                self.resource,
            ]
            .concat(),
            _ => [api, group, "/", self.version, "/", self.resource].concat(),
        }
    }

    /// The etcd key prefix for this kind: `/registry/pods/`.
    ///
    /// Upstream keeps a few resources under historical names
    /// (`pkg/kubeapiserver/default_storage_factory_builder.go`); podflow uses
    /// the resource name, which is what upstream does for every kind it serves.
    pub fn key_prefix(&self) -> String {
        [REGISTRY, self.resource, "/"].concat()
    }

    /// Finds a kind by `kind` name, plural, singular or kubectl short name,
    /// case-insensitively (`po`, `pod`, `pods`, `Pod`, `deploy`).
    pub fn lookup(name: &str) -> Option<&'static Kind> {
        let lower = name.to_ascii_lowercase();
        let lower = lower.split('.').next().unwrap_or_default();
        KINDS.iter().find(|k| {
            k.kind.eq_ignore_ascii_case(lower)
                || k.resource == lower
                || short_names(k).contains(&lower)
        })
    }

    /// Finds a kind by `apiVersion` and `kind` as a manifest states them.
    pub fn from_type_meta(api_version: &str, kind: &str) -> Option<&'static Kind> {
        KINDS
            .iter()
            .find(|k| k.kind == kind && k.api_version() == api_version)
    }
}

/// kubectl's short names (`kubectl api-resources`).
fn short_names(kind: &Kind) -> &'static [&'static str] {
    match kind.resource {
        "pods" => &["po", "pod"],
        "nodes" => &["no", "node"],
        "namespaces" => &["ns", "namespace"],
        "serviceaccounts" => &["sa", "serviceaccount"],
        "services" => &["svc", "service"],
        "deployments" => &["deploy", "deployment"],
        "replicasets" => &["rs", "replicaset"],
        "jobs" => &["job"],
        "endpoints" => &["ep"],
        "endpointslices" => &["endpointslice"],
        "leases" => &["lease"],
        "resourcequotas" => &["quota", "resourcequota"],
        "limitranges" => &["limits", "limitrange"],
        "configmaps" => &["cm", "configmap"],
        "secrets" => &["secret"],
        "events" => &["ev", "event"],
        "roles" => &["role"],
        "clusterroles" => &["clusterrole"],
        "rolebindings" => &["rolebinding"],
        "clusterrolebindings" => &["clusterrolebinding"],
        "priorityclasses" => &["pc", "priorityclass"],
        "persistentvolumes" => &["pv", "persistentvolume"],
        "persistentvolumeclaims" => &["pvc", "persistentvolumeclaim"],
        "storageclasses" => &["sc", "storageclass"],
        "csidrivers" => &["csidriver"],
        _ => &[],
    }
}

macro_rules! kind {
    ($kind:literal, $group:literal, $version:literal, $resource:literal, $namespaced:literal) => {
        Kind {
            kind: $kind,
            group: $group,
            version: $version,
            resource: $resource,
            namespaced: $namespaced,
        }
    };
}

/// Every kind podflow serves, in the order `kubectl api-resources` lists them.
pub static KINDS: &[Kind] = &[
    kind!("ConfigMap", "", "v1", "configmaps", true),
    kind!("Endpoints", "", "v1", "endpoints", true),
    kind!("Event", "", "v1", "events", true),
    kind!("LimitRange", "", "v1", "limitranges", true),
    kind!("Namespace", "", "v1", "namespaces", false),
    kind!("Node", "", "v1", "nodes", false),
    kind!(
        "PersistentVolumeClaim",
        "",
        "v1",
        "persistentvolumeclaims",
        true
    ),
    kind!("PersistentVolume", "", "v1", "persistentvolumes", false),
    kind!("Pod", "", "v1", "pods", true),
    kind!("ResourceQuota", "", "v1", "resourcequotas", true),
    kind!("Secret", "", "v1", "secrets", true),
    kind!("ServiceAccount", "", "v1", "serviceaccounts", true),
    kind!("Service", "", "v1", "services", true),
    kind!("Deployment", "apps", "v1", "deployments", true),
    kind!("ReplicaSet", "apps", "v1", "replicasets", true),
    kind!(
        "SelfSubjectReview",
        "authentication.k8s.io",
        "v1",
        "selfsubjectreviews",
        false
    ),
    kind!(
        "SelfSubjectAccessReview",
        "authorization.k8s.io",
        "v1",
        "selfsubjectaccessreviews",
        false
    ),
    kind!("Job", "batch", "v1", "jobs", true),
    kind!(
        "EndpointSlice",
        "discovery.k8s.io",
        "v1",
        "endpointslices",
        true
    ),
    kind!("Lease", "coordination.k8s.io", "v1", "leases", true),
    kind!(
        "ClusterRoleBinding",
        "rbac.authorization.k8s.io",
        "v1",
        "clusterrolebindings",
        false
    ),
    kind!(
        "ClusterRole",
        "rbac.authorization.k8s.io",
        "v1",
        "clusterroles",
        false
    ),
    kind!(
        "RoleBinding",
        "rbac.authorization.k8s.io",
        "v1",
        "rolebindings",
        true
    ),
    kind!("Role", "rbac.authorization.k8s.io", "v1", "roles", true),
    kind!(
        "PriorityClass",
        "scheduling.k8s.io",
        "v1",
        "priorityclasses",
        false
    ),
    kind!("CSIDriver", "storage.k8s.io", "v1", "csidrivers", false),
    kind!(
        "StorageClass",
        "storage.k8s.io",
        "v1",
        "storageclasses",
        false
    ),
];

/// The position of `kind` in [`KINDS`] (`usize::MAX` when absent). A `const
/// fn`, so that [`Object::kind`](crate::Object::kind) finds it at
/// compile time, where an absent kind fails the build.
pub const fn index_of(kind: &str) -> usize {
    let mut i = 0;
    while i < KINDS.len() {
        if same(KINDS[i].kind.as_bytes(), kind.as_bytes()) {
            return i;
        }
        i += 1;
    }
    usize::MAX
}

const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The kind named `kind` (`Pod`); panics only on a name missing from [`KINDS`],
/// which is a bug in podflow, never in input.
pub fn kind_of(kind: &str) -> &'static Kind {
    KINDS
        .get(index_of(kind))
        .unwrap_or_else(|| panic!("podflow serves no kind {kind}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_accepts_kubectl_spellings() {
        for name in ["po", "pod", "pods", "Pod", "PODS"] {
            assert_eq!(Kind::lookup(name).map(|k| k.kind), Some("Pod"), "{name}");
        }
        assert_eq!(Kind::lookup("deploy").map(|k| k.kind), Some("Deployment"));
        assert_eq!(
            Kind::lookup("deployments.apps").map(|k| k.kind),
            Some("Deployment")
        );
        assert_eq!(Kind::lookup("pc").map(|k| k.kind), Some("PriorityClass"));
        assert_eq!(
            kind_of("PriorityClass").collection_path(None),
            "/apis/scheduling.k8s.io/v1/priorityclasses"
        );
        assert!(Kind::lookup("widgets").is_none());
        assert_eq!(
            Kind::lookup("pvc").map(|k| k.kind),
            Some("PersistentVolumeClaim")
        );
        assert_eq!(Kind::lookup("pv").map(|k| k.kind), Some("PersistentVolume"));
        assert_eq!(
            kind_of("StorageClass").collection_path(None),
            "/apis/storage.k8s.io/v1/storageclasses"
        );
    }

    #[test]
    fn paths_follow_the_api_layout() {
        let pod = kind_of("Pod");
        assert_eq!(
            pod.collection_path(Some("dev")),
            "/api/v1/namespaces/dev/pods"
        );
        let node = kind_of("Node");
        assert_eq!(node.collection_path(Some("dev")), "/api/v1/nodes");
        let deploy = kind_of("Deployment");
        assert_eq!(
            deploy.collection_path(Some("a")),
            "/apis/apps/v1/namespaces/a/deployments"
        );
        assert_eq!(deploy.api_version(), "apps/v1");
    }
}
