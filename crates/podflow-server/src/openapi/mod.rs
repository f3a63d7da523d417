//! `OpenAPI` v3: the index at `/openapi/v3` and one document per group-version
//! at `/openapi/v3/{prefix}` (`api/v1`, `apis/apps/v1`), in the layout the API
//! server publishes (`api/openapi-spec/v3/*.json` upstream,
//! `k8s.io/kube-openapi/pkg/handler3` serving them).
//!
//! # What kubectl reads, and why each piece is served
//!
//! - **The index** (`client-go/openapi/client.go`): `{"paths": {"api/v1":
//!   {"serverRelativeURL": "/openapi/v3/api/v1?hash=…"}}}`. kubectl finds a
//!   group-version's document by the key `api/v1` or `apis/{group}/{version}`
//!   (`client-go/openapi3/root.go`, `gvToAPIPath`) and fetches the URL as given,
//!   with `Accept: application/json`. The `hash` names the document's bytes,
//!   so that a client's cache keyed by the URL never serves a stale document.
//! - **`fieldValidation` on every PATCH** (`cli-runtime/pkg/resource/
//!   query_param_verifier_v3.go`). `kubectl apply`/`create`/`replace` default
//!   to `--validate=strict`; `kubectl/pkg/cmd/util/factory_client_access.go`
//!   (`Validator`) wraps the client-side schema check in `paramVerifyingSchema`
//!   (`kubectl/pkg/validation/schema.go`), which skips it when the server
//!   supports `fieldValidation` for the object's group-version-kind, and kubectl
//!   then sends `fieldValidation=Strict` to the server. Support is read from
//!   the v3 document: the first path (in Go's random map order) whose `patch`
//!   operation carries `x-kubernetes-group-version-kind` equal to the kind
//!   decides, so *every* PATCH operation of a kind (the item and its `status`
//!   and `scale`) lists `fieldValidation` among its own `parameters` with
//!   `in: query`; path-level parameters are not looked at. A kind with no PATCH
//!   path is an error (not "unsupported"), after which kubectl falls back to
//!   `/openapi/v2` (`fallback_query_param_verifier.go`); podflow serves no v2,
//!   so that would fail `kubectl apply` — hence a PATCH path for every kind
//!   with the `patch` verb. `post` and `put` carry `fieldValidation` too, as
//!   upstream.
//! - **Strategic merge patch metadata** (`kubectl/pkg/cmd/apply/patcher.go`,
//!   `apimachinery/pkg/util/strategicpatch/meta.go` `PatchMetaFromOpenAPIV3`).
//!   When the kind's PATCH operation accepts
//!   `application/strategic-merge-patch+json`, client-side apply computes its
//!   three-way patch from the schema whose `x-kubernetes-group-version-kind`
//!   *list* contains the kind, walking `properties`, `items`, `allOf[0]` and
//!   `$ref`s (`#/components/schemas/…`), and reading only
//!   `x-kubernetes-patch-merge-key` and `x-kubernetes-patch-strategy` on the
//!   field's own schema. (`x-kubernetes-list-type`/`-list-map-keys` are for
//!   server-side apply; kubectl does not read them. They are served beside the
//!   patch metadata, as upstream does.) A field of the patch that the schema
//!   lacks is an error, on which kubectl warns and falls back to its compiled-in
//!   Go types.
//! - **`kubectl explain`** (`kubectl/pkg/explain/v2/templates/plaintext.tmpl`):
//!   finds the kind through the `x-kubernetes-group-version-kind` of the
//!   `get`/`post`/`put`/`patch`/`delete` operation on the collection or item
//!   path (`/api/v1/pods`, `/api/v1/namespaces/{namespace}/pods/{name}`, ...),
//!   then the schema whose `x-kubernetes-group-version-kind` list contains that
//!   exact `{group, kind, version}` map, and prints `description`, `type`,
//!   `required`, `enum`, following `properties`, `items`,
//!   `additionalProperties`, `allOf` and `$ref`.
//!
//! # Where the schemas come from
//!
//! k8s-openapi's `schemars` feature: every type's `JsonSchema` is the upstream
//! definition, named as upstream (`io.k8s.api.core.v1.Pod`), with descriptions,
//! types, formats, `required`, `items`, `additionalProperties` and `$ref`s.
//! schemars' `OpenAPI` 3.0 settings write the `$ref`s as `#/components/schemas/…`
//! and turn a `$ref` with a description beside it into `allOf: [{$ref}]`, the
//! form upstream uses. What the feature lacks, added here:
//!
//! - `x-kubernetes-group-version-kind` on kinds and lists; `…List` schemas
//!   (k8s-openapi's `List<T>` has no schema);
//! - `x-kubernetes-patch-merge-key`/`-patch-strategy` and
//!   `x-kubernetes-list-type`/`-list-map-keys`, which k8s-openapi does not
//!   expose (its `DeepMerge` code knows the list keys, but as closures): the
//!   table [`PATCH_META`] restates them from the `patchStrategy`/`patchMergeKey`
//!   struct tags of `k8s.io/api` and `k8s.io/apimachinery`. Without them kubectl
//!   would treat `containers`, `env`, `volumes`, `ports`, `conditions`, ... as
//!   atomic lists and replace them whole in its patches;
//! - the upstream forms of `Quantity` and `IntOrString` (`oneOf`);
//! - k8s-openapi makes `metadata` required on every kind; upstream requires it
//!   only where the Go field has no `omitempty` (core `Event`).
//!
//! Not served: `default` values, `x-kubernetes-map-type`, list types on fields
//! without patch metadata, `enum`s beyond k8s-openapi's, watch paths, and the
//! `log`/`exec` connect operations; none is read by kubectl.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use k8s_openapi::api::{
    apps::v1 as apps, authentication::v1 as authn, authorization::v1 as authz,
    autoscaling::v1 as autoscaling, batch::v1 as batch, coordination::v1 as coordination,
    core::v1 as core, discovery::v1 as discovery_api, events::v1 as events, policy::v1 as policy,
    rbac::v1 as rbac, scheduling::v1 as scheduling, storage::v1 as storage,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_openapi::schemars::JsonSchema;
use k8s_openapi::schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};

use crate::discovery;

/// Where the documents are served: `/openapi/v3/{prefix}`.
pub const PATH: &str = "/openapi/v3";

/// Group-versions whose only schema is the kind of a subresource elsewhere:
/// `Scale` (`deployments/scale`) and `Eviction` (`pods/eviction`).
const SCHEMA_ONLY: &[(&str, &str, &str)] =
    &[("autoscaling", "v1", "Scale"), ("policy", "v1", "Eviction")];

/// Patch metadata of one field: schema, property, `x-kubernetes-patch-strategy`,
/// `x-kubernetes-patch-merge-key`, `x-kubernetes-list-type`,
/// `x-kubernetes-list-map-keys`.
type PatchMeta = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    &'static [&'static str],
);

/// The strategic-merge-patch metadata of the served types, from the
/// `patchStrategy`/`patchMergeKey` tags (and `+listType`/`+listMapKey`
/// markers) of `k8s.io/api/{core,apps,batch}/v1/types.go` and
/// `k8s.io/apimachinery/pkg/apis/meta/v1/types.go`.
#[rustfmt::skip]
pub const PATCH_META: &[PatchMeta] = &[
    ("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "finalizers", "merge", None, Some("set"), &[]),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "ownerReferences", "merge", Some("uid"), Some("map"), &["uid"]),
    ("io.k8s.api.core.v1.PodSpec", "containers", "merge", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.PodSpec", "initContainers", "merge", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.PodSpec", "ephemeralContainers", "merge", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.PodSpec", "volumes", "merge,retainKeys", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.PodSpec", "imagePullSecrets", "merge", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.PodSpec", "hostAliases", "merge", Some("ip"), Some("map"), &["ip"]),
    ("io.k8s.api.core.v1.PodSpec", "topologySpreadConstraints", "merge", Some("topologyKey"), Some("map"), &["topologyKey", "whenUnsatisfiable"]),
    ("io.k8s.api.core.v1.PodSpec", "schedulingGates", "merge", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.PodSpec", "resourceClaims", "merge,retainKeys", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.PodSpec", "evictionResponders", "merge", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.Container", "ports", "merge", Some("containerPort"), Some("map"), &["containerPort", "protocol"]),
    ("io.k8s.api.core.v1.Container", "env", "merge", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.Container", "volumeMounts", "merge", Some("mountPath"), Some("map"), &["mountPath"]),
    ("io.k8s.api.core.v1.Container", "volumeDevices", "merge", Some("devicePath"), Some("map"), &["devicePath"]),
    ("io.k8s.api.core.v1.EphemeralContainer", "ports", "merge", Some("containerPort"), Some("map"), &["containerPort", "protocol"]),
    ("io.k8s.api.core.v1.EphemeralContainer", "env", "merge", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.EphemeralContainer", "volumeMounts", "merge", Some("mountPath"), Some("map"), &["mountPath"]),
    ("io.k8s.api.core.v1.EphemeralContainer", "volumeDevices", "merge", Some("devicePath"), Some("map"), &["devicePath"]),
    ("io.k8s.api.core.v1.PodStatus", "conditions", "merge", Some("type"), Some("map"), &["type"]),
    ("io.k8s.api.core.v1.PodStatus", "hostIPs", "merge", Some("ip"), Some("atomic"), &[]),
    ("io.k8s.api.core.v1.PodStatus", "podIPs", "merge", Some("ip"), Some("map"), &["ip"]),
    ("io.k8s.api.core.v1.PodStatus", "resourceClaimStatuses", "merge,retainKeys", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.PodStatus", "nodeAllocatableResourceClaimStatuses", "merge", Some("resourceClaimName"), Some("map"), &["resourceClaimName"]),
    ("io.k8s.api.core.v1.NodeAllocatableResourceClaimStatus", "mapping", "merge", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.NodeAllocatableResourceClaimStatus", "overhead", "merge", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.ContainerStatus", "volumeMounts", "merge", Some("mountPath"), Some("map"), &["mountPath"]),
    ("io.k8s.api.core.v1.ContainerStatus", "allocatedResourcesStatus", "merge", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.PodVolumeHealth", "healthConditions", "merge", Some("status"), Some("map"), &["status", "reason"]),
    ("io.k8s.api.core.v1.VolumeHealthStatus", "healthConditions", "merge", Some("status"), Some("map"), &["status", "reason"]),
    ("io.k8s.api.core.v1.PersistentVolumeClaimStatus", "conditions", "merge", Some("type"), Some("map"), &["type"]),
    ("io.k8s.api.core.v1.ServiceSpec", "ports", "merge", Some("port"), Some("map"), &["port", "protocol"]),
    ("io.k8s.api.core.v1.ServiceStatus", "conditions", "merge", Some("type"), Some("map"), &["type"]),
    ("io.k8s.api.core.v1.ServiceAccount", "secrets", "merge", Some("name"), Some("map"), &["name"]),
    ("io.k8s.api.core.v1.NodeSpec", "podCIDRs", "merge", None, Some("set"), &[]),
    ("io.k8s.api.core.v1.NodeStatus", "conditions", "merge", Some("type"), Some("map"), &["type"]),
    ("io.k8s.api.core.v1.NodeStatus", "addresses", "merge", Some("type"), Some("map"), &["type"]),
    ("io.k8s.api.core.v1.NamespaceStatus", "conditions", "merge", Some("type"), Some("map"), &["type"]),
    ("io.k8s.api.apps.v1.DeploymentSpec", "strategy", "retainKeys", None, None, &[]),
    ("io.k8s.api.apps.v1.DeploymentStatus", "conditions", "merge", Some("type"), Some("map"), &["type"]),
    ("io.k8s.api.apps.v1.ReplicaSetStatus", "conditions", "merge", Some("type"), Some("map"), &["type"]),
    ("io.k8s.api.batch.v1.JobStatus", "conditions", "merge", Some("type"), Some("atomic"), &[]),
    ("io.k8s.api.batch.v1.JobSchedulingConfiguration", "resourceClaims", "merge", Some("name"), Some("map"), &["name"]),
];

/// Kinds whose `metadata` upstream requires (no `omitempty` on the Go field).
const METADATA_REQUIRED: &[&str] = &["io.k8s.api.core.v1.Event"];

const REF: &str = "#/components/schemas/";

fn register<T: JsonSchema>(generator: &mut SchemaGenerator) -> String {
    generator.subschema_for::<T>();
    T::schema_name().into_owned()
}

/// Adds the schema of a kind (and all it refers to) to `generator` and
/// returns its name, or `None` for a kind podflow has no type for. A new
/// served kind is one line here.
fn schema_of(generator: &mut SchemaGenerator, group: &str, kind: &str) -> Option<String> {
    let g = generator;
    Some(match (group, kind) {
        ("", "Binding") => register::<core::Binding>(g),
        ("", "ConfigMap") => register::<core::ConfigMap>(g),
        ("", "Event") => register::<core::Event>(g),
        ("", "LimitRange") => register::<core::LimitRange>(g),
        ("", "Namespace") => register::<core::Namespace>(g),
        ("", "Node") => register::<core::Node>(g),
        ("", "Endpoints") => register::<core::Endpoints>(g),
        ("", "PersistentVolumeClaim") => register::<core::PersistentVolumeClaim>(g),
        ("", "PersistentVolume") => register::<core::PersistentVolume>(g),
        ("", "Pod") => register::<core::Pod>(g),
        ("", "ResourceQuota") => register::<core::ResourceQuota>(g),
        ("", "Secret") => register::<core::Secret>(g),
        ("", "ServiceAccount") => register::<core::ServiceAccount>(g),
        ("", "Service") => register::<core::Service>(g),
        ("apps", "Deployment") => register::<apps::Deployment>(g),
        ("apps", "ReplicaSet") => register::<apps::ReplicaSet>(g),
        ("authentication.k8s.io", "SelfSubjectReview") => register::<authn::SelfSubjectReview>(g),
        ("authorization.k8s.io", "SelfSubjectAccessReview") => {
            register::<authz::SelfSubjectAccessReview>(g)
        }
        ("autoscaling", "Scale") => register::<autoscaling::Scale>(g),
        ("batch", "Job") => register::<batch::Job>(g),
        ("coordination.k8s.io", "Lease") => register::<coordination::Lease>(g),
        ("discovery.k8s.io", "EndpointSlice") => register::<discovery_api::EndpointSlice>(g),
        ("events.k8s.io", "Event") => register::<events::Event>(g),
        ("policy", "Eviction") => register::<policy::Eviction>(g),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding") => {
            register::<rbac::ClusterRoleBinding>(g)
        }
        ("rbac.authorization.k8s.io", "ClusterRole") => register::<rbac::ClusterRole>(g),
        ("rbac.authorization.k8s.io", "RoleBinding") => register::<rbac::RoleBinding>(g),
        ("rbac.authorization.k8s.io", "Role") => register::<rbac::Role>(g),
        ("scheduling.k8s.io", "PriorityClass") => register::<scheduling::PriorityClass>(g),
        ("storage.k8s.io", "CSIDriver") => register::<storage::CSIDriver>(g),
        ("storage.k8s.io", "StorageClass") => register::<storage::StorageClass>(g),
        _ => return None,
    })
}

/// `api/v1` or `apis/apps/v1`: the key of a group-version in the index.
mod paths;

pub use paths::prefix;
use paths::{STATUS, resource_paths};

fn gvk_list(group: &str, version: &str, kind: &str) -> Value {
    json!([{ "group": group, "kind": kind, "version": version }])
}

/// `PodList`: k8s-openapi's `List<T>` has no schema, so it is written here as
/// upstream writes every list.
fn list_schema(item: &str, kind_schema: &Value, gvk: (&str, &str, &str)) -> Value {
    let (group, version, kind) = gvk;
    let standard = |field: &str| kind_schema["properties"][field].clone();
    json!({
        "description": format!("{kind}List is a list of {kind} objects."),
        "type": "object",
        "required": ["items"],
        "properties": {
            "apiVersion": standard("apiVersion"),
            "items": {
                "description": format!("List of {kind} objects."),
                "type": "array",
                "items": { "$ref": format!("{REF}{item}") },
            },
            "kind": standard("kind"),
            "metadata": {
                "description": "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
                "allOf": [{ "$ref": format!("{REF}io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta") }],
            },
        },
        "x-kubernetes-group-version-kind": gvk_list(group, version, &format!("{kind}List")),
    })
}

/// Writes the extensions k8s-openapi's schemas lack.
fn finish_schemas(schemas: &mut Map<String, Value>) {
    for &(schema, field, strategy, key, list_type, map_keys) in PATCH_META {
        let Some(property) = schemas
            .get_mut(schema)
            .and_then(|s| s.get_mut("properties"))
            .and_then(|p| p.get_mut(field))
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        property.insert("x-kubernetes-patch-strategy".into(), json!(strategy));
        if let Some(key) = key {
            property.insert("x-kubernetes-patch-merge-key".into(), json!(key));
        }
        if let Some(list_type) = list_type {
            property.insert("x-kubernetes-list-type".into(), json!(list_type));
        }
        if !map_keys.is_empty() {
            property.insert("x-kubernetes-list-map-keys".into(), json!(map_keys));
        }
    }
    if let Some(quantity) = schemas.get_mut("io.k8s.apimachinery.pkg.api.resource.Quantity") {
        *quantity = json!({
            "description": quantity["description"],
            "oneOf": [{ "type": "string" }, { "type": "number" }],
        });
    }
    if let Some(int_or_string) = schemas.get_mut("io.k8s.apimachinery.pkg.util.intstr.IntOrString")
    {
        *int_or_string = json!({
            "description": int_or_string["description"],
            "format": "int-or-string",
            "oneOf": [{ "type": "integer" }, { "type": "string" }],
        });
    }
}

/// Marks a kind's schema with its group-version-kind, and requires `metadata`
/// only where upstream does.
fn mark_kind(schemas: &mut Map<String, Value>, name: &str, gvk: (&str, &str, &str)) {
    let Some(schema) = schemas.get_mut(name).and_then(Value::as_object_mut) else {
        return;
    };
    schema.insert(
        "x-kubernetes-group-version-kind".into(),
        gvk_list(gvk.0, gvk.1, gvk.2),
    );
    if METADATA_REQUIRED.contains(&name) {
        return;
    }
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|field| field != "metadata");
        if required.is_empty() {
            schema.remove("required");
        }
    }
}

/// The `OpenAPI` document of one group-version.
fn build_document(group: &str, version: &str) -> Value {
    let mut generator = SchemaSettings::openapi3()
        .with(|s| s.meta_schema = None)
        .into_generator();
    let root = if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    };
    let mut paths = Map::new();
    let mut kinds: Vec<(String, (&str, &str, &str))> = Vec::new();
    let mut lists: Vec<(String, (&str, &str, &str))> = Vec::new();
    for r in discovery::resources_of(group, version) {
        let schema = schema_of(&mut generator, r.group, r.kind)
            .unwrap_or_else(|| panic!("no schema for {}/{}", r.group, r.kind));
        let mut sub_schemas = BTreeMap::new();
        for sub in r.subresources {
            if let Some(gvk @ (g, _, k)) = sub.kind
                && let Some(name) = schema_of(&mut generator, g, k)
            {
                kinds.push((name.clone(), gvk));
                sub_schemas.insert(k, name);
            }
        }
        resource_paths(&mut paths, &root, r, &schema, &sub_schemas);
        if r.verbs.contains(&"list") {
            lists.push((schema.clone(), (r.group, r.version, r.kind)));
        }
        kinds.push((schema, (r.group, r.version, r.kind)));
    }
    for &(g, v, k) in SCHEMA_ONLY {
        if (g, v) == (group, version) {
            let name = schema_of(&mut generator, g, k).expect("a schema-only kind has a type");
            kinds.push((name, (g, v, k)));
        }
    }
    if !paths.is_empty() {
        register::<meta::DeleteOptions>(&mut generator);
        register::<meta::Patch>(&mut generator);
        register::<meta::Status>(&mut generator);
        register::<meta::ListMeta>(&mut generator);
    }
    let mut schemas = generator.take_definitions(true);
    for (item, gvk) in &lists {
        let list = list_schema(item, &schemas[item.as_str()], *gvk);
        schemas.insert(format!("{item}List"), list);
    }
    for (name, gvk) in &kinds {
        mark_kind(&mut schemas, name, *gvk);
    }
    mark_kind(&mut schemas, STATUS, ("", "v1", "Status"));
    finish_schemas(&mut schemas);
    json!({
        "openapi": "3.0.0",
        "info": { "title": "Kubernetes", "version": discovery::version().git_version },
        "paths": paths,
        "components": { "schemas": schemas },
    })
}

/// A deterministic name for a document's bytes (FNV-1a, 64 bits, in
/// upper-case hex as upstream writes its SHA-512).
fn hash(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let mut out = String::with_capacity(16);
    let _ = write!(out, "{h:016X}");
    out
}

struct Entry {
    document: Arc<Value>,
    hash: String,
}

struct Built {
    documents: BTreeMap<String, Entry>,
    index: Value,
}

fn build() -> Built {
    let mut group_versions: Vec<(&str, &str)> = discovery::GROUP_VERSIONS.to_vec();
    for &(g, v, _) in SCHEMA_ONLY {
        if !group_versions.contains(&(g, v)) {
            group_versions.push((g, v));
        }
    }
    let mut documents = BTreeMap::new();
    let mut index = Map::new();
    for (group, version) in group_versions {
        let document = build_document(group, version);
        let bytes = serde_json::to_vec(&document).expect("a JSON value serializes");
        let hash = hash(&bytes);
        let key = prefix(group, version);
        index.insert(
            key.clone(),
            json!({ "serverRelativeURL": format!("{PATH}/{key}?hash={hash}") }),
        );
        documents.insert(
            key,
            Entry {
                document: Arc::new(document),
                hash,
            },
        );
    }
    Built {
        documents,
        index: json!({ "paths": index }),
    }
}

fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(build)
}

fn key(path: &str) -> &str {
    let path = path.trim_matches('/');
    path.strip_prefix("openapi/v3/").unwrap_or(path)
}

/// `/openapi/v3`: every document's prefix and hashed URL.
pub fn index() -> Value {
    built().index.clone()
}

/// `/openapi/v3/{prefix}`: the document of `api/v1` or `apis/{group}/{version}`
/// (leading and trailing slashes ignored), or `None` when there is none.
pub fn document(path: &str) -> Option<Arc<Value>> {
    built()
        .documents
        .get(key(path))
        .map(|e| Arc::clone(&e.document))
}

/// The hash of a document, as its index URL carries it (`?hash=`), for the
/// `ETag` and to tell a current URL from a stale one.
pub fn hash_of(path: &str) -> Option<&'static str> {
    built().documents.get(key(path)).map(|e| e.hash.as_str())
}

#[cfg(test)]
mod tests;
