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

use crate::discovery::{self, Resource};

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
pub fn prefix(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

/// `Core`, `Apps`, `RbacAuthorization`: a group as operation ids spell it.
fn group_word(group: &str) -> String {
    if group.is_empty() {
        return "Core".to_owned();
    }
    group
        .trim_end_matches(".k8s.io")
        .split('.')
        .map(capitalized)
        .collect()
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_ascii_uppercase().to_string() + chars.as_str()
    })
}

/// `core_v1`, `rbacAuthorization_v1`: the tag of a group-version's operations.
fn tag(group: &str, version: &str) -> String {
    let word = group_word(group);
    let mut chars = word.chars();
    let lower = chars.next().map_or_else(String::new, |first| {
        first.to_ascii_lowercase().to_string() + chars.as_str()
    });
    format!("{lower}_{version}")
}

fn query(name: &str, ty: &str, description: &str) -> Value {
    json!({
        "name": name,
        "in": "query",
        "description": description,
        "schema": { "type": ty, "uniqueItems": true },
    })
}

fn path_param(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "in": "path",
        "description": description,
        "required": true,
        "schema": { "type": "string", "uniqueItems": true },
    })
}

fn dry_run() -> Value {
    query(
        "dryRun",
        "string",
        "When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed",
    )
}

fn field_manager() -> Value {
    query(
        "fieldManager",
        "string",
        "fieldManager is a name associated with the actor or entity that is making these changes.",
    )
}

fn field_validation() -> Value {
    query(
        "fieldValidation",
        "string",
        "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: unknown fields are silently dropped. - Warn: a warning is sent for each unknown or duplicate field; the request still succeeds. - Strict: the request fails with a BadRequest error listing every unknown and duplicate field.",
    )
}

fn write_params() -> Vec<Value> {
    vec![dry_run(), field_manager(), field_validation()]
}

fn patch_params() -> Vec<Value> {
    let mut params = write_params();
    params.push(query(
        "force",
        "boolean",
        "Force is going to \"force\" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.",
    ));
    params
}

fn delete_params() -> Vec<Value> {
    vec![
        dry_run(),
        query(
            "gracePeriodSeconds",
            "integer",
            "The duration in seconds before the object should be deleted. Zero means delete immediately.",
        ),
        query(
            "orphanDependents",
            "boolean",
            "Deprecated: please use the PropagationPolicy. Should the dependent objects be orphaned.",
        ),
        query(
            "propagationPolicy",
            "string",
            "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
        ),
    ]
}

fn list_params() -> Vec<Value> {
    vec![
        query(
            "allowWatchBookmarks",
            "boolean",
            "allowWatchBookmarks requests watch events with type \"BOOKMARK\".",
        ),
        query(
            "continue",
            "string",
            "The continue option should be set when retrieving more results from the server.",
        ),
        query(
            "fieldSelector",
            "string",
            "A selector to restrict the list of returned objects by their fields. Defaults to everything.",
        ),
        query(
            "labelSelector",
            "string",
            "A selector to restrict the list of returned objects by their labels. Defaults to everything.",
        ),
        query(
            "limit",
            "integer",
            "limit is a maximum number of responses to return for a list call.",
        ),
        query(
            "resourceVersion",
            "string",
            "resourceVersion sets a constraint on what resource versions a request may be served from.",
        ),
        query(
            "resourceVersionMatch",
            "string",
            "resourceVersionMatch determines how resourceVersion is applied to list calls.",
        ),
        query(
            "sendInitialEvents",
            "boolean",
            "`sendInitialEvents=true` may be set together with `watch=true`: the watch stream begins with synthetic events for all existing objects.",
        ),
        query(
            "timeoutSeconds",
            "integer",
            "Timeout for the list/watch call.",
        ),
        query(
            "watch",
            "boolean",
            "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.",
        ),
    ]
}

fn content(schema: &str) -> Value {
    let schema = json!({ "$ref": format!("{REF}{schema}") });
    json!({
        "application/json": { "schema": schema },
        "application/yaml": { "schema": schema },
    })
}

fn responses(codes: &[(&str, &str)], schema: &str) -> Value {
    let mut map = Map::new();
    for (code, description) in codes {
        map.insert(
            (*code).to_owned(),
            json!({ "description": description, "content": content(schema) }),
        );
    }
    map.insert("401".to_owned(), json!({ "description": "Unauthorized" }));
    Value::Object(map)
}

fn body(schema: &str) -> Value {
    json!({ "content": { "*/*": { "schema": { "$ref": format!("{REF}{schema}") } } } })
}

fn patch_body() -> Value {
    let schema = json!({ "$ref": format!("{REF}io.k8s.apimachinery.pkg.apis.meta.v1.Patch") });
    json!({ "content": {
        "application/apply-patch+yaml": { "schema": schema },
        "application/json-patch+json": { "schema": schema },
        "application/merge-patch+json": { "schema": schema },
        "application/strategic-merge-patch+json": { "schema": schema },
    }})
}

const OK: &[(&str, &str)] = &[("200", "OK")];
const CREATED: &[(&str, &str)] = &[("200", "OK"), ("201", "Created"), ("202", "Accepted")];
const REPLACED: &[(&str, &str)] = &[("200", "OK"), ("201", "Created")];
const DELETED: &[(&str, &str)] = &[("200", "OK"), ("202", "Accepted")];
const STATUS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";

/// One operation of a path.
struct Op<'a> {
    /// `x-kubernetes-action`: `get`, `list`, `post`, `put`, `patch`, ...
    action: &'static str,
    /// The verb of its operation id: `read`, `create`, `replace`, ...
    id_verb: &'static str,
    description: String,
    /// The kind it reads or writes (`Scale` for `deployments/scale`).
    gvk: (&'a str, &'a str, &'a str),
    /// The subresource, `""` for none.
    sub: &'a str,
    params: Vec<Value>,
    request: Option<Value>,
    response: Value,
}

/// The resource operations are about, and the words of their ids.
struct Target<'a> {
    r: &'a Resource,
    /// `core_v1`.
    tag: String,
    /// `CoreV1`.
    id_stem: String,
    /// The schema of the resource's kind.
    schema: &'a str,
}

impl Target<'_> {
    fn operation(&self, op: Op<'_>, namespaced: bool) -> Value {
        let scope = if namespaced { "Namespaced" } else { "" };
        let id = format!(
            "{}{}{scope}{}{}",
            op.id_verb,
            self.id_stem,
            self.r.kind,
            capitalized(op.sub)
        );
        let (group, version, kind) = op.gvk;
        let mut value = json!({
            "tags": [self.tag],
            "description": op.description,
            "operationId": id,
            "responses": op.response,
            "x-kubernetes-action": op.action,
            "x-kubernetes-group-version-kind": { "group": group, "version": version, "kind": kind },
        });
        if !op.params.is_empty() {
            value["parameters"] = Value::Array(op.params);
        }
        if let Some(request) = op.request {
            value["requestBody"] = request;
        }
        value
    }

    fn gvk(&self) -> (&str, &str, &str) {
        (self.r.group, self.r.version, self.r.kind)
    }

    fn list(&self) -> Op<'_> {
        Op {
            action: "list",
            id_verb: "list",
            description: format!("list or watch objects of kind {}", self.r.kind),
            gvk: self.gvk(),
            sub: "",
            params: list_params(),
            request: None,
            response: responses(OK, &format!("{}List", self.schema)),
        }
    }

    /// `GET /api/v1/pods`: every namespace's objects.
    fn all_namespaces(&self, root: &str, paths: &mut Map<String, Value>) {
        let mut op = self.operation(self.list(), false);
        op["operationId"] = json!(format!(
            "list{}{}ForAllNamespaces",
            self.id_stem, self.r.kind
        ));
        paths.insert(
            format!("{root}/{}", self.r.resource),
            json!({ "get": op, "parameters": [pretty()] }),
        );
    }

    /// The collection: list, create, delete collection.
    fn collection(&self, path: &str, paths: &mut Map<String, Value>) {
        let (r, schema) = (self.r, self.schema);
        let mut ops = Map::new();
        if has(r.verbs, "list") {
            ops.insert("get".into(), self.operation(self.list(), r.namespaced));
        }
        if has(r.verbs, "create") {
            let op = Op {
                action: "post",
                id_verb: "create",
                description: format!("create a {}", r.kind),
                gvk: self.gvk(),
                sub: "",
                params: write_params(),
                request: Some(body(schema)),
                response: responses(CREATED, schema),
            };
            ops.insert("post".into(), self.operation(op, r.namespaced));
        }
        if has(r.verbs, "deletecollection") {
            let mut params = delete_params();
            params.extend(
                list_params()
                    .into_iter()
                    .filter(|p| p["name"] != "watch" && p["name"] != "allowWatchBookmarks"),
            );
            let op = Op {
                action: "deletecollection",
                id_verb: "deleteCollection",
                description: format!("delete collection of {}", r.kind),
                gvk: self.gvk(),
                sub: "",
                params,
                request: Some(body(DELETE_OPTIONS)),
                response: responses(OK, STATUS),
            };
            ops.insert("delete".into(), self.operation(op, r.namespaced));
        }
        if !ops.is_empty() {
            let mut params = Vec::new();
            if r.namespaced {
                params.push(namespace_param());
            }
            params.push(pretty());
            ops.insert("parameters".into(), Value::Array(params));
            paths.insert(path.to_owned(), Value::Object(ops));
        }
    }

    /// The item or one of its subresources: read, create, replace, patch, delete.
    fn item(
        &self,
        at: String,
        sub: &str,
        verbs: &[&str],
        gvk: (&str, &str, &str),
        schema: &str,
        paths: &mut Map<String, Value>,
    ) {
        let kind = self.r.kind;
        let what = if sub.is_empty() {
            format!("the specified {kind}")
        } else {
            format!("{sub} of the specified {kind}")
        };
        let op = |action, id_verb, description, params, request, response| Op {
            action,
            id_verb,
            description,
            gvk,
            sub,
            params,
            request,
            response,
        };
        let mut ops: Vec<(&str, Op<'_>)> = Vec::new();
        if has(verbs, "get") {
            let read = op(
                "get",
                "read",
                format!("read {what}"),
                vec![],
                None,
                responses(OK, schema),
            );
            ops.push(("get", read));
        }
        if has(verbs, "create") {
            let description = format!("create {sub} of a {kind}");
            let create = op(
                "post",
                "create",
                description,
                write_params(),
                Some(body(schema)),
                responses(CREATED, schema),
            );
            ops.push(("post", create));
        }
        if has(verbs, "update") {
            let replace = op(
                "put",
                "replace",
                format!("replace {what}"),
                write_params(),
                Some(body(schema)),
                responses(REPLACED, schema),
            );
            ops.push(("put", replace));
        }
        if has(verbs, "delete") {
            let delete = op(
                "delete",
                "delete",
                format!("delete a {kind}"),
                delete_params(),
                Some(body(DELETE_OPTIONS)),
                responses(DELETED, STATUS),
            );
            ops.push(("delete", delete));
        }
        if has(verbs, "patch") {
            let patch = op(
                "patch",
                "patch",
                format!("partially update {what}"),
                patch_params(),
                Some(patch_body()),
                responses(REPLACED, schema),
            );
            ops.push(("patch", patch));
        }
        if ops.is_empty() {
            return;
        }
        let mut ops: Map<String, Value> = ops
            .into_iter()
            .map(|(method, op)| (method.to_owned(), self.operation(op, self.r.namespaced)))
            .collect();
        let mut params = vec![path_param("name", &format!("name of the {kind}"))];
        if self.r.namespaced {
            params.push(namespace_param());
        }
        params.push(pretty());
        ops.insert("parameters".into(), Value::Array(params));
        paths.insert(at, Value::Object(ops));
    }
}

fn pretty() -> Value {
    query(
        "pretty",
        "string",
        "If 'true', then the output is pretty printed.",
    )
}

fn namespace_param() -> Value {
    path_param(
        "namespace",
        "object name and auth scope, such as for teams and projects",
    )
}

const DELETE_OPTIONS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";

fn has(verbs: &[&str], verb: &str) -> bool {
    verbs.contains(&verb)
}

/// The paths of one resource: its collections, its item and its subresources
/// whose kinds have a schema (`exec` and `log` stream, and are left out).
fn resource_paths(
    paths: &mut Map<String, Value>,
    root: &str,
    r: &Resource,
    schema: &str,
    sub_schemas: &BTreeMap<&str, String>,
) {
    let target = Target {
        r,
        tag: tag(r.group, r.version),
        id_stem: format!("{}{}", group_word(r.group), capitalized(r.version)),
        schema,
    };
    if r.namespaced && has(r.verbs, "list") {
        target.all_namespaces(root, paths);
    }
    let collection = if r.namespaced {
        format!("{root}/namespaces/{{namespace}}/{}", r.resource)
    } else {
        format!("{root}/{}", r.resource)
    };
    target.collection(&collection, paths);
    let item = format!("{collection}/{{name}}");
    target.item(item.clone(), "", r.verbs, target.gvk(), schema, paths);
    for sub in r.subresources.iter().filter(|s| s.name != "log") {
        let (gvk, sub_schema) = match sub.kind {
            None => (target.gvk(), schema),
            Some(gvk) => match sub_schemas.get(gvk.2) {
                Some(name) => (gvk, name.as_str()),
                None => continue,
            },
        };
        let path = format!("{item}/{}", sub.name);
        target.item(path, sub.name, sub.verbs, gvk, sub_schema, paths);
    }
}

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
mod tests {
    use super::*;
    use podflow_model::kinds::KINDS;

    fn load(prefix: &str) -> Arc<Value> {
        document(prefix).unwrap_or_else(|| panic!("no document {prefix}"))
    }

    fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
        let reference = schema["$ref"]
            .as_str()
            .or_else(|| schema["allOf"][0]["$ref"].as_str());
        match reference {
            Some(r) => &doc["components"]["schemas"][r.strip_prefix(REF).unwrap()],
            None => schema,
        }
    }

    #[test]
    fn the_index_lists_every_group_version() {
        let index = index();
        let paths = index["paths"].as_object().unwrap();
        for key in [
            "api/v1",
            "apis/apps/v1",
            "apis/autoscaling/v1",
            "apis/policy/v1",
        ] {
            let url = paths[key]["serverRelativeURL"].as_str().unwrap();
            let hash = hash_of(key).unwrap();
            assert_eq!(url, format!("/openapi/v3/{key}?hash={hash}"));
            assert!(document(&format!("/{key}/")).is_some());
        }
        for kind in KINDS {
            assert!(
                paths.contains_key(&prefix(kind.group, kind.version)),
                "{}",
                kind.kind
            );
        }
        assert!(document("apis/apps/v2").is_none());
        // Deterministic.
        assert_eq!(
            hash_of("api/v1"),
            Some(hash(&serde_json::to_vec(&*load("api/v1")).unwrap()).as_str())
        );
    }

    #[test]
    fn pods_are_described_for_explain() {
        let doc = load("api/v1");
        assert_eq!(doc["openapi"], "3.0.0");
        let schemas = &doc["components"]["schemas"];
        let pod = &schemas["io.k8s.api.core.v1.Pod"];
        assert_eq!(
            pod["x-kubernetes-group-version-kind"],
            json!([{ "group": "", "kind": "Pod", "version": "v1" }])
        );
        assert!(pod.get("required").is_none());
        assert_eq!(
            schemas["io.k8s.api.core.v1.Event"]["required"],
            json!(["involvedObject", "metadata"])
        );
        let spec = resolve(&doc, &pod["properties"]["spec"]);
        let containers = &spec["properties"]["containers"];
        assert_eq!(containers["type"], "array");
        assert_eq!(
            containers["items"]["$ref"],
            "#/components/schemas/io.k8s.api.core.v1.Container"
        );
        assert_eq!(containers["x-kubernetes-patch-merge-key"], "name");
        assert_eq!(containers["x-kubernetes-patch-strategy"], "merge");
        let container = &schemas["io.k8s.api.core.v1.Container"];
        assert_eq!(container["properties"]["imagePullPolicy"]["type"], "string");
        assert!(container["properties"]["imagePullPolicy"]["description"].is_string());
        assert_eq!(
            container["properties"]["ports"]["x-kubernetes-list-map-keys"],
            json!(["containerPort", "protocol"])
        );
        // A described `$ref` is an `allOf`, as upstream writes it.
        assert!(pod["properties"]["metadata"]["allOf"][0]["$ref"].is_string());
        assert!(pod["properties"]["metadata"]["description"].is_string());
        assert_eq!(
            schemas["io.k8s.api.core.v1.PodList"]["x-kubernetes-group-version-kind"][0]["kind"],
            "PodList"
        );
        assert_eq!(
            schemas["io.k8s.apimachinery.pkg.api.resource.Quantity"]["oneOf"][0]["type"],
            "string"
        );
        // explain finds the kind from the list operation of the collection path.
        let list = &doc["paths"]["/api/v1/pods"]["get"];
        assert_eq!(
            list["x-kubernetes-group-version-kind"],
            json!({ "group": "", "version": "v1", "kind": "Pod" })
        );
        assert_eq!(list["x-kubernetes-action"], "list");
    }

    fn has_field_validation(op: &Value) -> bool {
        op["parameters"].as_array().is_some_and(|ps| {
            ps.iter()
                .any(|p| p["name"] == "fieldValidation" && p["in"] == "query")
        })
    }

    #[test]
    fn every_patch_operation_carries_field_validation() {
        let doc = load("api/v1");
        let item = &doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"];
        assert!(has_field_validation(&item["patch"]));
        assert!(has_field_validation(&item["put"]));
        assert!(
            item["patch"]["requestBody"]["content"]["application/strategic-merge-patch+json"]
                .is_object()
        );
        assert_eq!(
            item["patch"]["x-kubernetes-group-version-kind"]["kind"],
            "Pod"
        );
        assert!(has_field_validation(
            &doc["paths"]["/api/v1/namespaces/{namespace}/pods"]["post"]
        ));
        let eviction = &doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/eviction"]["post"];
        assert_eq!(
            eviction["x-kubernetes-group-version-kind"]["group"],
            "policy"
        );
        assert!(doc["components"]["schemas"]["io.k8s.api.policy.v1.Eviction"].is_object());

        // Each kind with the patch verb: at least one PATCH, and every PATCH
        // for it (item, status, scale) lists fieldValidation.
        for r in discovery::RESOURCES {
            let doc = load(&prefix(r.group, r.version));
            let gvk = json!({ "group": r.group, "version": r.version, "kind": r.kind });
            let patches: Vec<_> = doc["paths"]
                .as_object()
                .unwrap()
                .values()
                .filter_map(|p| p.get("patch"))
                .filter(|op| op["x-kubernetes-group-version-kind"] == gvk)
                .collect();
            assert_eq!(
                patches.is_empty(),
                !r.verbs.contains(&"patch"),
                "{}",
                r.resource
            );
            assert!(
                patches.iter().all(|op| has_field_validation(op)),
                "{}",
                r.resource
            );
        }
        let apps = load("apis/apps/v1");
        let scale = &apps["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"];
        assert_eq!(
            scale["patch"]["x-kubernetes-group-version-kind"]["kind"],
            "Scale"
        );
        assert!(has_field_validation(&scale["patch"]));
        assert_eq!(
            apps["components"]["schemas"]["io.k8s.api.autoscaling.v1.Scale"]["x-kubernetes-group-version-kind"]
                [0]["group"],
            "autoscaling"
        );
        assert_eq!(
            apps["components"]["schemas"]["io.k8s.api.apps.v1.DeploymentSpec"]["properties"]["strategy"]
                ["x-kubernetes-patch-strategy"],
            "retainKeys"
        );
    }

    #[test]
    fn refs_resolve_and_kinds_are_marked() {
        let index = index();
        for key in index["paths"].as_object().unwrap().keys() {
            let doc = load(key);
            let schemas = doc["components"]["schemas"].as_object().unwrap();
            let text = serde_json::to_string(&*doc).unwrap();
            for piece in text.split("\"$ref\":\"").skip(1) {
                let target = piece.split('"').next().unwrap();
                let name = target
                    .strip_prefix(REF)
                    .unwrap_or_else(|| panic!("{target}"));
                assert!(schemas.contains_key(name), "{key}: {name}");
            }
            assert!(!text.contains("\"$defs\""), "{key}");
        }
        for kind in KINDS {
            let doc = load(&prefix(kind.group, kind.version));
            let gvk = json!({ "group": kind.group, "kind": kind.kind, "version": kind.version });
            let marked = doc["components"]["schemas"]
                .as_object()
                .unwrap()
                .values()
                .filter(|s| {
                    s["x-kubernetes-group-version-kind"]
                        .as_array()
                        .is_some_and(|l| l.contains(&gvk))
                })
                .count();
            assert_eq!(marked, 1, "{}", kind.kind);
        }
    }

    #[test]
    fn every_patch_meta_entry_names_a_real_field() {
        let index = index();
        for &(schema, field, ..) in PATCH_META {
            let found = index["paths"].as_object().unwrap().keys().any(|key| {
                let doc = load(key);
                let property = &doc["components"]["schemas"][schema]["properties"][field];
                property.is_object() && property["x-kubernetes-patch-strategy"].is_string()
            });
            assert!(found, "{schema}.{field}");
        }
    }

    #[test]
    fn operation_ids_follow_upstream() {
        assert_eq!(group_word("rbac.authorization.k8s.io"), "RbacAuthorization");
        assert_eq!(
            tag("rbac.authorization.k8s.io", "v1"),
            "rbacAuthorization_v1"
        );
        assert_eq!(tag("", "v1"), "core_v1");
        let doc = load("api/v1");
        let paths = &doc["paths"];
        assert_eq!(
            paths["/api/v1/namespaces/{namespace}/pods/{name}"]["get"]["operationId"],
            "readCoreV1NamespacedPod"
        );
        assert_eq!(
            paths["/api/v1/namespaces/{namespace}/pods/{name}/status"]["patch"]["operationId"],
            "patchCoreV1NamespacedPodStatus"
        );
        assert_eq!(
            paths["/api/v1/pods"]["get"]["operationId"],
            "listCoreV1PodForAllNamespaces"
        );
        assert_eq!(
            paths["/api/v1/nodes/{name}"]["put"]["operationId"],
            "replaceCoreV1Node"
        );
        assert!(paths["/api/v1/namespaces"]["delete"].is_null());
    }
}
