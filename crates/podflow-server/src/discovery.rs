//! Discovery: what `/version`, `/api`, `/apis` and `/api(s)/{group}/{version}`
//! answer, so that kubectl finds every resource podflow serves.
//!
//! Two formats, as the API server serves them:
//!
//! - **Legacy discovery** (`APIVersions`, `APIGroupList`, `APIResourceList`),
//!   built like `staging/src/k8s.io/apiserver/pkg/endpoints/discovery/`
//!   (`legacy.go`, `root.go`, `version.go`) and the installer
//!   (`staging/src/k8s.io/apiserver/pkg/endpoints/installer.go`), which lists a
//!   subresource as its own entry (`pods/status`) and gives it a `group` and
//!   `version` only when its kind lives elsewhere (`pods/eviction` →
//!   `policy/v1` `Eviction`, `deployments/scale` → `autoscaling/v1` `Scale`).
//! - **Aggregated discovery** (`apidiscovery.k8s.io/v2` `APIGroupDiscoveryList`),
//!   one document for `/api` and one for `/apis` holding every resource, as
//!   `staging/src/k8s.io/apiserver/pkg/endpoints/discovery/aggregated/handler.go`
//!   serves it, in the shape of `staging/src/k8s.io/api/apidiscovery/v2/types.go`.
//!   kubectl ≥ 1.30 asks for it first (client-go `discovery/discovery_client.go`,
//!   `AcceptV2`) and knows it got it only when the response's `Content-Type`
//!   names the kind ([`AGGREGATED_CONTENT_TYPE`]); client-go
//!   `discovery/aggregated_discovery.go` drops any resource or subresource
//!   without a `responseKind`, so every entry here has one.
//!
//! Every resource is one line of [`RESOURCES`]: the kinds of
//! [`podflow_model::kinds::KINDS`] plus the few that kubectl needs and podflow
//! stores nothing for (`selfsubjectaccessreviews`, `selfsubjectreviews`, the
//! `events.k8s.io` view of events). Groups are ordered as the aggregator
//! orders them (`pkg/controlplane/apiserver/aggregator.go`,
//! `DefaultGenericAPIServicePriorities`, and the kube-apiserver's own list).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    APIGroup, APIGroupList, APIResource, APIResourceList, APIVersions, GroupVersionForDiscovery,
    ServerAddressByClientCIDR,
};
use k8s_openapi::apimachinery::pkg::version::Info;
use serde_json::{Value, json};

/// The `Content-Type` of an aggregated discovery response. client-go compares
/// the response's media type and its `g`, `v` and `as` parameters with
/// `apidiscovery.k8s.io/v2` `APIGroupDiscoveryList` (`ContentTypeIsGVK` in
/// `discovery/discovery_client.go`); anything else is read as legacy discovery.
/// The parameters are in the order the API server writes them
/// (`generateMediaTypeWithGVK` in `endpoints/handlers/responsewriters/writers.go`).
pub const AGGREGATED_CONTENT_TYPE: &str =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// A subresource: `pods/log`, `deployments/scale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subresource {
    /// `status`, `scale`, `log`, ...
    pub name: &'static str,
    /// The kind the subresource answers with, as `(group, version, kind)`;
    /// `None` for the parent's own kind (`pods/status` answers a `Pod`).
    pub kind: Option<(&'static str, &'static str, &'static str)>,
    /// The verbs it supports, sorted as discovery lists them.
    pub verbs: &'static [&'static str],
}

/// One served resource, as discovery describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resource {
    /// API group, `""` for the core group.
    pub group: &'static str,
    /// Version within the group.
    pub version: &'static str,
    /// Plural resource name: `pods`.
    pub resource: &'static str,
    /// Singular name: `pod`.
    pub singular: &'static str,
    /// Kind: `Pod`.
    pub kind: &'static str,
    /// Whether objects live in a namespace.
    pub namespaced: bool,
    /// Verbs, sorted as discovery lists them.
    pub verbs: &'static [&'static str],
    /// kubectl short names (`po`).
    pub short_names: &'static [&'static str],
    /// Categories (`all`).
    pub categories: &'static [&'static str],
    /// Subresources, sorted by name.
    pub subresources: &'static [Subresource],
}

/// What a stored kind supports: every verb.
const ALL_VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];
/// Namespaces cannot be deleted as a collection.
const NAMESPACE_VERBS: &[&str] = &[
    "create", "delete", "get", "list", "patch", "update", "watch",
];
const CREATE: &[&str] = &["create"];
const GET: &[&str] = &["get"];
const GET_PATCH_UPDATE: &[&str] = &["get", "patch", "update"];
const NONE: &[&str] = &[];
const ALL: &[&str] = &["all"];

/// `…/status`: the parent's kind, read and written apart from its spec.
const STATUS: Subresource = Subresource {
    name: "status",
    kind: None,
    verbs: GET_PATCH_UPDATE,
};
/// `…/scale`: an `autoscaling/v1` `Scale` (`kubectl scale`).
const SCALE: Subresource = Subresource {
    name: "scale",
    kind: Some(("autoscaling", "v1", "Scale")),
    verbs: GET_PATCH_UPDATE,
};
const POD_SUBRESOURCES: &[Subresource] = &[
    Subresource {
        name: "binding",
        kind: Some(("", "v1", "Binding")),
        verbs: CREATE,
    },
    Subresource {
        name: "eviction",
        kind: Some(("policy", "v1", "Eviction")),
        verbs: CREATE,
    },
    Subresource {
        name: "exec",
        kind: Some(("", "v1", "PodExecOptions")),
        verbs: &["create", "get"],
    },
    Subresource {
        name: "log",
        kind: None,
        verbs: GET,
    },
    STATUS,
];
const NAMESPACE_SUBRESOURCES: &[Subresource] = &[
    Subresource {
        name: "finalize",
        kind: None,
        verbs: &["update"],
    },
    STATUS,
];
const STATUS_ONLY: &[Subresource] = &[STATUS];
const SCALE_AND_STATUS: &[Subresource] = &[SCALE, STATUS];

macro_rules! resource {
    ($group:literal, $version:literal, $resource:literal, $singular:literal, $kind:literal,
     $namespaced:literal, $verbs:expr, $short:expr, $categories:expr, $subresources:expr) => {
        Resource {
            group: $group,
            version: $version,
            resource: $resource,
            singular: $singular,
            kind: $kind,
            namespaced: $namespaced,
            verbs: $verbs,
            short_names: $short,
            categories: $categories,
            subresources: $subresources,
        }
    };
}

/// Every resource podflow serves, one line each: group, version, plural,
/// singular, kind, namespaced, verbs, short names, categories, subresources.
/// Verbs, short names and categories are the ones the real API server reports
/// for the same resource (its REST storage's `ShortNames()`/`Categories()`).
#[rustfmt::skip]
pub static RESOURCES: &[Resource] = &[
    resource!("", "v1", "configmaps", "configmap", "ConfigMap", true, ALL_VERBS, &["cm"], NONE, &[]),
    resource!("", "v1", "endpoints", "endpoints", "Endpoints", true, ALL_VERBS, &["ep"], NONE, &[]),
    resource!("", "v1", "events", "event", "Event", true, ALL_VERBS, &["ev"], NONE, &[]),
    resource!("", "v1", "limitranges", "limitrange", "LimitRange", true, ALL_VERBS, &["limits"], NONE, &[]),
    resource!("", "v1", "namespaces", "namespace", "Namespace", false, NAMESPACE_VERBS, &["ns"], NONE, NAMESPACE_SUBRESOURCES),
    resource!("", "v1", "nodes", "node", "Node", false, ALL_VERBS, &["no"], NONE, STATUS_ONLY),
    resource!("", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", true, ALL_VERBS, &["pvc"], NONE, STATUS_ONLY),
    resource!("", "v1", "persistentvolumes", "persistentvolume", "PersistentVolume", false, ALL_VERBS, &["pv"], NONE, STATUS_ONLY),
    resource!("", "v1", "pods", "pod", "Pod", true, ALL_VERBS, &["po"], ALL, POD_SUBRESOURCES),
    resource!("", "v1", "resourcequotas", "resourcequota", "ResourceQuota", true, ALL_VERBS, &["quota"], NONE, STATUS_ONLY),
    resource!("", "v1", "secrets", "secret", "Secret", true, ALL_VERBS, NONE, NONE, &[]),
    resource!("", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, ALL_VERBS, &["sa"], NONE, &[]),
    resource!("", "v1", "services", "service", "Service", true, ALL_VERBS, &["svc"], ALL, STATUS_ONLY),
    resource!("apps", "v1", "deployments", "deployment", "Deployment", true, ALL_VERBS, &["deploy"], ALL, SCALE_AND_STATUS),
    resource!("apps", "v1", "replicasets", "replicaset", "ReplicaSet", true, ALL_VERBS, &["rs"], ALL, SCALE_AND_STATUS),
    // The same storage as the core group's events, so the same short name.
    resource!("events.k8s.io", "v1", "events", "event", "Event", true, ALL_VERBS, &["ev"], NONE, &[]),
    resource!("authentication.k8s.io", "v1", "selfsubjectreviews", "selfsubjectreview", "SelfSubjectReview", false, CREATE, NONE, NONE, &[]),
    resource!("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "selfsubjectaccessreview", "SelfSubjectAccessReview", false, CREATE, NONE, NONE, &[]),
    resource!("batch", "v1", "jobs", "job", "Job", true, ALL_VERBS, NONE, ALL, STATUS_ONLY),
    resource!("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false, ALL_VERBS, NONE, NONE, &[]),
    resource!("rbac.authorization.k8s.io", "v1", "clusterroles", "clusterrole", "ClusterRole", false, ALL_VERBS, NONE, NONE, &[]),
    resource!("rbac.authorization.k8s.io", "v1", "rolebindings", "rolebinding", "RoleBinding", true, ALL_VERBS, NONE, NONE, &[]),
    resource!("rbac.authorization.k8s.io", "v1", "roles", "role", "Role", true, ALL_VERBS, NONE, NONE, &[]),
    resource!("storage.k8s.io", "v1", "csidrivers", "csidriver", "CSIDriver", false, ALL_VERBS, NONE, NONE, &[]),
    resource!("storage.k8s.io", "v1", "storageclasses", "storageclass", "StorageClass", false, ALL_VERBS, &["sc"], NONE, &[]),
    resource!("scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", false, ALL_VERBS, &["pc"], NONE, &[]),
    resource!("coordination.k8s.io", "v1", "leases", "lease", "Lease", true, ALL_VERBS, NONE, NONE, &[]),
    resource!("discovery.k8s.io", "v1", "endpointslices", "endpointslice", "EndpointSlice", true, ALL_VERBS, NONE, NONE, &[]),
];

/// Every group-version served, core first, then in the aggregator's priority
/// order (`GroupPriorityMinimum`, highest first). `policy/v1` has no resource
/// of its own here: its `Eviction` is posted to `pods/eviction`, and it is
/// listed so that clients that look for the group find it.
pub static GROUP_VERSIONS: &[(&str, &str)] = &[
    ("", "v1"),                          // 18000
    ("apps", "v1"),                      // 17800
    ("events.k8s.io", "v1"),             // 17750
    ("authentication.k8s.io", "v1"),     // 17700
    ("authorization.k8s.io", "v1"),      // 17600
    ("batch", "v1"),                     // 17400
    ("policy", "v1"),                    // 17100
    ("rbac.authorization.k8s.io", "v1"), // 17000
    ("storage.k8s.io", "v1"),            // 16800
    ("scheduling.k8s.io", "v1"),         // 16600
    ("coordination.k8s.io", "v1"),       // 16500
    ("discovery.k8s.io", "v1"),          // 16200
];

/// The Kubernetes release podflow imitates: the one whose API k8s-openapi's
/// `latest` feature describes (0.29: Kubernetes 1.37), and the kubelet version
/// podflow's nodes report.
pub const KUBERNETES_MINOR: &str = "37";

/// The `/version` body: the `version.Info` of the release podflow imitates
/// (`staging/src/k8s.io/apimachinery/pkg/version/types.go`). The build
/// details are fixed, as a real release's are; the commit is not a real one.
pub fn version() -> Info {
    Info {
        major: "1".to_owned(),
        minor: KUBERNETES_MINOR.to_owned(),
        emulation_major: Some("1".to_owned()),
        emulation_minor: Some(KUBERNETES_MINOR.to_owned()),
        min_compatibility_major: Some("1".to_owned()),
        min_compatibility_minor: Some("36".to_owned()),
        git_version: format!("v1.{KUBERNETES_MINOR}.0"),
        git_commit: "0000000000000000000000000000000000000000".to_owned(),
        git_tree_state: "clean".to_owned(),
        build_date: "2026-08-25T00:00:00Z".to_owned(),
        go_version: "go1.26.0".to_owned(),
        compiler: "gc".to_owned(),
        platform: "linux/amd64".to_owned(),
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|&s| s.to_owned()).collect()
}

fn non_empty(items: &[&str]) -> Option<Vec<String>> {
    (!items.is_empty()).then(|| strings(items))
}

/// `v1` or `apps/v1`.
fn group_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    }
}

/// The resources of one group-version, in the order discovery lists them
/// (by plural name, as the installer sorts its paths).
pub fn resources_of(group: &str, version: &str) -> Vec<&'static Resource> {
    let mut found: Vec<_> = RESOURCES
        .iter()
        .filter(|r| r.group == group && r.version == version)
        .collect();
    found.sort_by_key(|r| r.resource);
    found
}

/// Finds a served resource by group and plural name.
pub fn find(group: &str, resource: &str) -> Option<&'static Resource> {
    RESOURCES
        .iter()
        .find(|r| r.group == group && r.resource == resource)
}

fn served(group: &str, version: &str) -> bool {
    GROUP_VERSIONS
        .iter()
        .any(|&(g, v)| g == group && v == version)
}

/// `/api`: the core group's versions and where clients reach the server.
/// `server_address` is `host:port` as clients should dial it.
pub fn api_versions(server_address: &str) -> APIVersions {
    APIVersions {
        versions: vec!["v1".to_owned()],
        server_address_by_client_cidrs: vec![ServerAddressByClientCIDR {
            client_cidr: "0.0.0.0/0".to_owned(),
            server_address: server_address.to_owned(),
        }],
    }
}

fn group_for_discovery(group: &str, version: &str) -> GroupVersionForDiscovery {
    GroupVersionForDiscovery {
        group_version: group_version(group, version),
        version: version.to_owned(),
    }
}

/// `/apis/{group}`: one named group, or `None` for a group podflow does not serve.
pub fn api_group(group: &str) -> Option<APIGroup> {
    let versions: Vec<_> = GROUP_VERSIONS
        .iter()
        .filter(|(g, _)| !g.is_empty() && *g == group)
        .map(|(g, v)| group_for_discovery(g, v))
        .collect();
    let preferred = versions.first()?.clone();
    Some(APIGroup {
        name: group.to_owned(),
        preferred_version: Some(preferred),
        server_address_by_client_cidrs: None,
        versions,
    })
}

/// `/apis`: every named group with its versions, the preferred one first.
pub fn api_group_list() -> APIGroupList {
    let mut groups: Vec<&str> = Vec::new();
    for (group, _) in GROUP_VERSIONS {
        if !group.is_empty() && !groups.contains(group) {
            groups.push(group);
        }
    }
    APIGroupList {
        groups: groups.into_iter().filter_map(api_group).collect(),
    }
}

/// `/api/v1` (group `""`) or `/apis/{group}/{version}`; `None` for a
/// group-version podflow does not serve.
pub fn api_resource_list(group: &str, version: &str) -> Option<APIResourceList> {
    if !served(group, version) {
        return None;
    }
    let mut resources = Vec::new();
    for r in resources_of(group, version) {
        resources.push(APIResource {
            name: r.resource.to_owned(),
            singular_name: r.singular.to_owned(),
            namespaced: r.namespaced,
            group: None,
            version: None,
            kind: r.kind.to_owned(),
            verbs: strings(r.verbs),
            short_names: non_empty(r.short_names),
            categories: non_empty(r.categories),
            storage_version_hash: None,
        });
        for sub in r.subresources {
            let (sub_group, sub_version, kind) = sub.kind.unwrap_or((group, version, r.kind));
            // The installer names the group and version only when they differ
            // from the list's own.
            let elsewhere = (sub_group, sub_version) != (group, version);
            resources.push(APIResource {
                name: format!("{}/{}", r.resource, sub.name),
                singular_name: String::new(),
                namespaced: r.namespaced,
                group: elsewhere.then(|| sub_group.to_owned()),
                version: elsewhere.then(|| sub_version.to_owned()),
                kind: kind.to_owned(),
                verbs: strings(sub.verbs),
                short_names: None,
                categories: None,
                storage_version_hash: None,
            });
        }
    }
    Some(APIResourceList {
        group_version: group_version(group, version),
        resources,
    })
}

fn gvk(group: &str, version: &str, kind: &str) -> Value {
    json!({ "group": group, "version": version, "kind": kind })
}

fn resource_discovery(r: &Resource) -> Value {
    let mut entry = json!({
        "resource": r.resource,
        "responseKind": gvk(r.group, r.version, r.kind),
        "scope": if r.namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": r.singular,
        "verbs": r.verbs,
    });
    if !r.short_names.is_empty() {
        entry["shortNames"] = json!(r.short_names);
    }
    if !r.categories.is_empty() {
        entry["categories"] = json!(r.categories);
    }
    if !r.subresources.is_empty() {
        let subresources: Vec<Value> = r
            .subresources
            .iter()
            .map(|sub| {
                let (group, version, kind) = sub.kind.unwrap_or((r.group, r.version, r.kind));
                json!({
                    "subresource": sub.name,
                    "responseKind": gvk(group, version, kind),
                    "verbs": sub.verbs,
                })
            })
            .collect();
        entry["subresources"] = Value::Array(subresources);
    }
    entry
}

fn group_discovery(group: &str) -> Value {
    let versions: Vec<Value> = GROUP_VERSIONS
        .iter()
        .filter(|(g, _)| *g == group)
        .map(|&(g, v)| {
            let resources: Vec<Value> = resources_of(g, v)
                .into_iter()
                .map(resource_discovery)
                .collect();
            json!({ "version": v, "resources": resources, "freshness": "Current" })
        })
        .collect();
    // The core group's name is empty, and `ObjectMeta` drops an empty name.
    let metadata = if group.is_empty() {
        json!({})
    } else {
        json!({ "name": group })
    };
    json!({ "metadata": metadata, "versions": versions })
}

fn group_discovery_list(items: &[Value]) -> Value {
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": items,
    })
}

/// Aggregated `/api`: the core group alone, in an `APIGroupDiscoveryList`.
pub fn aggregated_api() -> Value {
    group_discovery_list(&[group_discovery("")])
}

/// Aggregated `/apis`: every named group, in priority order.
pub fn aggregated_apis() -> Value {
    let mut groups: Vec<&str> = Vec::new();
    for (group, _) in GROUP_VERSIONS {
        if !group.is_empty() && !groups.contains(group) {
            groups.push(group);
        }
    }
    let items: Vec<Value> = groups.into_iter().map(group_discovery).collect();
    group_discovery_list(&items)
}

/// Whether a request's `Accept` header asks for aggregated discovery, read as
/// the API server negotiates it (`endpoints/discovery/aggregated/wrapper.go`
/// with `negotiation.NegotiateMediaTypeOptions`): a clause wins when its media
/// range covers JSON and its `g`, `v` and `as` parameters name
/// `apidiscovery.k8s.io/v2` `APIGroupDiscoveryList`; clauses without them are
/// skipped by that negotiation, so their order does not matter. `profile=nopeer`
/// (client-go 1.35) asks for this server's own view, which is the only one.
///
/// `v2beta1` is not served: 1.35 locked `AggregatedDiscoveryRemoveBetaType`
/// on, so a client that accepts only `v2beta1` (kubectl 1.27–1.29) gets legacy
/// discovery, which it reads as well.
pub fn wants_aggregated(accept: &str) -> bool {
    accept.split(',').any(|clause| {
        let mut parts = clause.split(';').map(str::trim);
        let range = parts.next().unwrap_or_default().to_ascii_lowercase();
        if !matches!(range.as_str(), "application/json" | "application/*" | "*/*") {
            return false;
        }
        let (mut group, mut version, mut kind, mut refused) = ("", "", "", false);
        for param in parts {
            let Some((key, value)) = param.split_once('=') else {
                continue;
            };
            let value = value.trim().trim_matches('"');
            match key.trim() {
                "g" => group = value,
                "v" => version = value,
                "as" => kind = value,
                "q" => refused = value.parse::<f32>().is_ok_and(|q| q <= 0.0),
                _ => {}
            }
        }
        !refused
            && group == "apidiscovery.k8s.io"
            && version == "v2"
            && kind == "APIGroupDiscoveryList"
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_model::kinds::KINDS;
    use serde::Deserialize;

    /// client-go's view of `apidiscovery.k8s.io/v2`, for reading documents back.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct GroupList {
        kind: String,
        api_version: String,
        #[allow(dead_code)]
        metadata: serde_json::Map<String, Value>,
        items: Vec<Group>,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Group {
        metadata: serde_json::Map<String, Value>,
        versions: Vec<VersionDiscovery>,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct VersionDiscovery {
        version: String,
        resources: Vec<ResourceDiscovery>,
        freshness: String,
    }
    #[derive(Deserialize, PartialEq, Debug, Clone)]
    #[serde(deny_unknown_fields)]
    struct Gvk {
        group: String,
        version: String,
        kind: String,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct ResourceDiscovery {
        resource: String,
        response_kind: Gvk,
        scope: String,
        singular_resource: String,
        verbs: Vec<String>,
        #[serde(default)]
        short_names: Vec<String>,
        #[serde(default)]
        categories: Vec<String>,
        #[serde(default)]
        subresources: Vec<SubresourceDiscovery>,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct SubresourceDiscovery {
        subresource: String,
        response_kind: Gvk,
        verbs: Vec<String>,
    }

    fn read(value: Value) -> GroupList {
        let list: GroupList = serde_json::from_value(value).unwrap();
        assert_eq!(list.kind, "APIGroupDiscoveryList");
        assert_eq!(list.api_version, "apidiscovery.k8s.io/v2");
        list
    }

    fn roundtrip<
        T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    >(
        value: &T,
    ) {
        let json = serde_json::to_string(value).unwrap();
        assert_eq!(&serde_json::from_str::<T>(&json).unwrap(), value);
    }

    #[test]
    fn legacy_documents_parse_back() {
        roundtrip(&version());
        roundtrip(&api_versions("127.0.0.1:6443"));
        roundtrip(&api_group_list());
        for (group, version) in GROUP_VERSIONS {
            roundtrip(&api_resource_list(group, version).unwrap());
        }
        let info = serde_json::to_value(version()).unwrap();
        assert_eq!(info["gitVersion"], "v1.37.0");
        assert_eq!(info["minor"], "37");
        assert!(api_resource_list("apps", "v2").is_none());
        assert!(api_resource_list("widgets.example.com", "v1").is_none());
        assert!(api_group("widgets.example.com").is_none());
        let core = api_versions("10.0.0.1:6443");
        assert_eq!(core.versions, ["v1"]);
    }

    #[test]
    fn every_kind_is_served_exactly_once() {
        for kind in KINDS {
            let matching: Vec<_> = RESOURCES
                .iter()
                .filter(|r| r.group == kind.group && r.resource == kind.resource)
                .collect();
            assert_eq!(matching.len(), 1, "{}", kind.resource);
            let r = matching[0];
            assert_eq!(
                (r.version, r.kind, r.namespaced),
                (kind.version, kind.kind, kind.namespaced),
                "{}",
                kind.resource
            );
            assert!(served(r.group, r.version), "{}", kind.resource);
        }
        for r in RESOURCES {
            assert!(served(r.group, r.version), "{}", r.resource);
            let mut sorted = r.subresources.to_vec();
            sorted.sort_by_key(|s| s.name);
            assert_eq!(sorted, r.subresources, "{}", r.resource);
        }
        // Each group-version once in legacy and in aggregated discovery.
        let apis = read(aggregated_apis());
        let core = read(aggregated_api());
        let mut seen = std::collections::BTreeMap::new();
        for (group, list) in [("core", &core), ("apis", &apis)] {
            for g in &list.items {
                for v in &g.versions {
                    for r in &v.resources {
                        let key = (r.response_kind.group.clone(), r.resource.clone());
                        assert!(seen.insert(key, group).is_none(), "{}", r.resource);
                    }
                }
            }
        }
        assert_eq!(seen.len(), RESOURCES.len());
    }

    #[test]
    fn core_group_comes_first_and_alone_in_api() {
        let core = read(aggregated_api());
        assert_eq!(core.items.len(), 1);
        assert!(core.items[0].metadata.is_empty());
        let apis = read(aggregated_apis());
        let names: Vec<_> = apis
            .items
            .iter()
            .map(|g| g.metadata["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(names[0], "apps");
        assert!(!names.contains(&String::new()));
        let legacy: Vec<_> = api_group_list()
            .groups
            .into_iter()
            .map(|g| g.name)
            .collect();
        assert_eq!(legacy, names);
        for g in apis.items.iter().chain(&core.items) {
            for v in &g.versions {
                assert_eq!(
                    (v.version.as_str(), v.freshness.as_str()),
                    ("v1", "Current")
                );
            }
        }
    }

    #[test]
    fn pods_have_their_subresources() {
        let core = read(aggregated_api());
        let pods = core.items[0].versions[0]
            .resources
            .iter()
            .find(|r| r.resource == "pods")
            .unwrap();
        assert_eq!(pods.scope, "Namespaced");
        assert_eq!(pods.singular_resource, "pod");
        assert_eq!(pods.short_names, ["po"]);
        assert_eq!(pods.categories, ["all"]);
        assert_eq!(
            pods.verbs,
            [
                "create",
                "delete",
                "deletecollection",
                "get",
                "list",
                "patch",
                "update",
                "watch"
            ]
        );
        let sub = |name: &str| {
            pods.subresources
                .iter()
                .find(|s| s.subresource == name)
                .unwrap()
        };
        for name in ["log", "status", "binding", "eviction", "exec"] {
            assert!(!sub(name).verbs.is_empty(), "{name}");
        }
        assert_eq!(
            sub("eviction").response_kind,
            Gvk {
                group: "policy".into(),
                version: "v1".into(),
                kind: "Eviction".into()
            }
        );
        assert_eq!(sub("log").response_kind.kind, "Pod");
        assert_eq!(sub("log").verbs, ["get"]);
        assert_eq!(sub("binding").verbs, ["create"]);

        let legacy = api_resource_list("", "v1").unwrap();
        let eviction = legacy
            .resources
            .iter()
            .find(|r| r.name == "pods/eviction")
            .unwrap();
        // `kubectl drain` (`CheckEvictionSupport`) needs the group and version.
        assert_eq!(
            (
                eviction.group.as_deref(),
                eviction.version.as_deref(),
                eviction.kind.as_str()
            ),
            (Some("policy"), Some("v1"), "Eviction")
        );
        let log = legacy
            .resources
            .iter()
            .find(|r| r.name == "pods/log")
            .unwrap();
        assert_eq!((log.group.as_deref(), log.kind.as_str()), (None, "Pod"));
        let names: Vec<_> = legacy.resources.iter().map(|r| r.name.as_str()).collect();
        let pods_at = names.iter().position(|n| *n == "pods").unwrap();
        assert_eq!(
            names[pods_at..pods_at + 6],
            [
                "pods",
                "pods/binding",
                "pods/eviction",
                "pods/exec",
                "pods/log",
                "pods/status"
            ]
        );
    }

    #[test]
    fn scale_is_an_autoscaling_scale() {
        let groups = read(aggregated_apis());
        let apps = groups
            .items
            .iter()
            .find(|g| g.metadata["name"] == "apps")
            .unwrap();
        for resource in ["deployments", "replicasets"] {
            let r = apps.versions[0]
                .resources
                .iter()
                .find(|r| r.resource == resource)
                .unwrap();
            let scale = r
                .subresources
                .iter()
                .find(|s| s.subresource == "scale")
                .unwrap();
            assert_eq!(
                scale.response_kind,
                Gvk {
                    group: "autoscaling".into(),
                    version: "v1".into(),
                    kind: "Scale".into()
                }
            );
            assert_eq!(scale.verbs, ["get", "patch", "update"]);
            let status = r
                .subresources
                .iter()
                .find(|s| s.subresource == "status")
                .unwrap();
            assert_eq!(status.response_kind.group, "apps");
        }
        let legacy = api_resource_list("apps", "v1").unwrap();
        let scale = legacy
            .resources
            .iter()
            .find(|r| r.name == "deployments/scale")
            .unwrap();
        assert_eq!(
            (
                scale.group.as_deref(),
                scale.version.as_deref(),
                scale.kind.as_str()
            ),
            (Some("autoscaling"), Some("v1"), "Scale")
        );
    }

    #[test]
    fn extra_groups_for_kubectl() {
        let ssar = find("authorization.k8s.io", "selfsubjectaccessreviews").unwrap();
        assert_eq!((ssar.verbs, ssar.namespaced), (CREATE, false));
        assert!(find("authentication.k8s.io", "selfsubjectreviews").is_some());
        let events = find("events.k8s.io", "events").unwrap();
        assert_eq!((events.kind, events.namespaced), ("Event", true));
        let policy = api_resource_list("policy", "v1").unwrap();
        assert!(policy.resources.is_empty());
        assert_eq!(
            api_group("policy")
                .unwrap()
                .preferred_version
                .unwrap()
                .group_version,
            "policy/v1"
        );
    }

    #[test]
    fn accept_headers_are_negotiated_like_the_api_server() {
        // kubectl 1.30–1.34 and 1.35 (with the no-peer profile first).
        assert!(wants_aggregated(
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
        ));
        assert!(wants_aggregated(
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer,\
             application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
        ));
        assert!(wants_aggregated(
            "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,\
             application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
        ));
        assert!(wants_aggregated(
            "application/json, application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io"
        ));
        // kubectl 1.27–1.29 asked for v2beta1 only: legacy discovery for them.
        assert!(!wants_aggregated(
            "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
        ));
        assert!(!wants_aggregated("application/json"));
        assert!(!wants_aggregated(""));
        assert!(!wants_aggregated("*/*"));
        assert!(!wants_aggregated(
            "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
        ));
        assert!(!wants_aggregated(
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0"
        ));
        let params: Vec<_> = AGGREGATED_CONTENT_TYPE.split(';').collect();
        assert_eq!(
            params,
            [
                "application/json",
                "g=apidiscovery.k8s.io",
                "v=v2",
                "as=APIGroupDiscoveryList"
            ]
        );
    }
}
