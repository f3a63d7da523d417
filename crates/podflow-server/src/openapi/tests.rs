//! The `OpenAPI` documents as kubectl reads them.

use super::paths::{group_word, tag};
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
