//! The paths of a group-version's `OpenAPI` document: each resource's
//! operations (`get`, `list`, `watch`, `post`, `put`, `patch`, `delete`)
//! with the parameters, bodies and responses upstream gives them.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::REF;
use crate::discovery::Resource;

pub fn prefix(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

/// `Core`, `Apps`, `RbacAuthorization`: a group as operation ids spell it.
pub(super) fn group_word(group: &str) -> String {
    if group.is_empty() {
        return "Core".to_owned();
    }
    group
        .trim_end_matches(".k8s.io")
        .split('.')
        .map(capitalized)
        .collect()
}

pub(super) fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_ascii_uppercase().to_string() + chars.as_str()
    })
}

/// `core_v1`, `rbacAuthorization_v1`: the tag of a group-version's operations.
pub(super) fn tag(group: &str, version: &str) -> String {
    let word = group_word(group);
    let mut chars = word.chars();
    let lower = chars.next().map_or_else(String::new, |first| {
        first.to_ascii_lowercase().to_string() + chars.as_str()
    });
    format!("{lower}_{version}")
}

pub(super) fn query(name: &str, ty: &str, description: &str) -> Value {
    json!({
        "name": name,
        "in": "query",
        "description": description,
        "schema": { "type": ty, "uniqueItems": true },
    })
}

pub(super) fn path_param(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "in": "path",
        "description": description,
        "required": true,
        "schema": { "type": "string", "uniqueItems": true },
    })
}

pub(super) fn dry_run() -> Value {
    query(
        "dryRun",
        "string",
        "When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed",
    )
}

pub(super) fn field_manager() -> Value {
    query(
        "fieldManager",
        "string",
        "fieldManager is a name associated with the actor or entity that is making these changes.",
    )
}

pub(super) fn field_validation() -> Value {
    query(
        "fieldValidation",
        "string",
        "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: unknown fields are silently dropped. - Warn: a warning is sent for each unknown or duplicate field; the request still succeeds. - Strict: the request fails with a BadRequest error listing every unknown and duplicate field.",
    )
}

pub(super) fn write_params() -> Vec<Value> {
    vec![dry_run(), field_manager(), field_validation()]
}

pub(super) fn patch_params() -> Vec<Value> {
    let mut params = write_params();
    params.push(query(
        "force",
        "boolean",
        "Force is going to \"force\" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.",
    ));
    params
}

pub(super) fn delete_params() -> Vec<Value> {
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

pub(super) fn list_params() -> Vec<Value> {
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

pub(super) fn content(schema: &str) -> Value {
    let schema = json!({ "$ref": format!("{REF}{schema}") });
    json!({
        "application/json": { "schema": schema },
        "application/yaml": { "schema": schema },
    })
}

pub(super) fn responses(codes: &[(&str, &str)], schema: &str) -> Value {
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

pub(super) fn body(schema: &str) -> Value {
    json!({ "content": { "*/*": { "schema": { "$ref": format!("{REF}{schema}") } } } })
}

pub(super) fn patch_body() -> Value {
    let schema = json!({ "$ref": format!("{REF}io.k8s.apimachinery.pkg.apis.meta.v1.Patch") });
    json!({ "content": {
        "application/apply-patch+yaml": { "schema": schema },
        "application/json-patch+json": { "schema": schema },
        "application/merge-patch+json": { "schema": schema },
        "application/strategic-merge-patch+json": { "schema": schema },
    }})
}

pub(super) const OK: &[(&str, &str)] = &[("200", "OK")];
pub(super) const CREATED: &[(&str, &str)] =
    &[("200", "OK"), ("201", "Created"), ("202", "Accepted")];
pub(super) const REPLACED: &[(&str, &str)] = &[("200", "OK"), ("201", "Created")];
pub(super) const DELETED: &[(&str, &str)] = &[("200", "OK"), ("202", "Accepted")];
pub(super) const STATUS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";

/// One operation of a path.
pub(super) struct Op<'a> {
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
pub(super) struct Target<'a> {
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

pub(super) fn pretty() -> Value {
    query(
        "pretty",
        "string",
        "If 'true', then the output is pretty printed.",
    )
}

pub(super) fn namespace_param() -> Value {
    path_param(
        "namespace",
        "object name and auth scope, such as for teams and projects",
    )
}

pub(super) const DELETE_OPTIONS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";

pub(super) fn has(verbs: &[&str], verb: &str) -> bool {
    verbs.contains(&verb)
}

/// The paths of one resource: its collections, its item and its subresources
/// whose kinds have a schema (`exec` and `log` stream, and are left out).
pub(super) fn resource_paths(
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
