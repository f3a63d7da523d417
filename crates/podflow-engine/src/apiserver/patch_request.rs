//! The object a patch request makes: the stored object as JSON, the patch
//! applied, decoded back into its kind and defaulted, as the API server's
//! patcher does (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go`,
//! `applyPatch` then the decoder's defaulting).
//!
//! A patch of a Pod's `status` subresource that names only `status` — what
//! every kubelet sends (`PatchPodStatus`) — is applied to the status alone:
//! the status strategy keeps the stored spec and metadata whatever the patch
//! says (`pkg/registry/core/pod/strategy.go`, `podStatusStrategy.PrepareForUpdate`),
//! and defaulting touches only the spec, so the whole Pod need not be turned
//! into JSON and back; the shapes kubelets send are applied to the typed
//! status itself ([`typed_status_patch`]). Debug builds check that every way
//! gives the status the whole Pod's way gives.

use k8s_openapi::api::core::v1::{Pod, PodStatus};
use serde_json::{Map, Value};

use super::{defaults, strategic_merge_patch, typed_status_patch};
use podflow_model::{Kind, Object};

/// `current` with `patch` applied; `status_subresource` when the request is
/// for the `status` subresource. Fails with the decoder's message.
pub fn patched(
    kind: &'static Kind,
    current: &Object,
    patch: &Value,
    status_subresource: bool,
) -> Result<Object, String> {
    if status_subresource
        && let Object::Pod(pod) = current
        && let Some(pod) = pod_status_patched(pod, patch)
    {
        let object = Object::Pod(pod);
        debug_assert_eq!(
            object.as_pod().map(|p| &p.status),
            whole(kind, current, patch)
                .ok()
                .as_ref()
                .and_then(Object::as_pod)
                .map(|p| &p.status),
            "a status patch applied to the status alone differs from one applied to the Pod"
        );
        return Ok(object);
    }
    whole(kind, current, patch)
}

/// The patch applied to the whole object turned into JSON, decoded and defaulted.
fn whole(kind: &'static Kind, current: &Object, patch: &Value) -> Result<Object, String> {
    let mut json = current.to_json();
    strategic_merge_patch::apply(strategic_merge_patch::root(kind.kind), &mut json, patch);
    let mut object = Object::from_json(kind, json).map_err(|e| e.to_string())?;
    defaults::apply(&mut object);
    Ok(object)
}

/// `pod` with the status a patch naming only `status` gives it (`None` when
/// the patch names anything else, or the patched status does not decode: the
/// whole object's way then answers, with the decoder's message).
fn pod_status_patched(pod: &Pod, patch: &Value) -> Option<Pod> {
    let Value::Object(fields) = patch else {
        return None;
    };
    if fields.len() != 1 || !fields.contains_key("status") {
        return None;
    }
    if let Some(Value::Object(status_patch)) = fields.get("status")
        && let Some(status) = typed_status_patch::apply(pod.status.as_ref(), status_patch)
    {
        return Some(Pod {
            metadata: pod.metadata.clone(),
            spec: pod.spec.clone(),
            status: Some(status),
        });
    }
    let mut json = Map::new();
    if let Some(status) = &pod.status {
        json.insert("status".to_owned(), serde_json::to_value(status).ok()?);
    }
    let mut json = Value::Object(json);
    strategic_merge_patch::apply(strategic_merge_patch::root("Pod"), &mut json, patch);
    let status: Option<PodStatus> = match json.get_mut("status").map(Value::take) {
        None | Some(Value::Null) => None,
        Some(status) => Some(serde_json::from_value(status).ok()?),
    };
    Some(Pod {
        metadata: pod.metadata.clone(),
        spec: pod.spec.clone(),
        status,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use podflow_model::kinds::kind_of;

    fn pod() -> Object {
        Object::from_json(
            kind_of("Pod"),
            json!({
                "metadata": {"name": "web", "namespace": "default", "resourceVersion": "7"},
                "spec": {"containers": [{"name": "nginx", "image": "nginx"}]},
                "status": {"phase": "Pending", "conditions": [
                    {"type": "PodScheduled", "status": "True"},
                    {"type": "Ready", "status": "False"}
                ]}
            }),
        )
        .expect("a pod")
    }

    #[test]
    fn a_status_patch_changes_the_status_as_on_the_whole_pod() {
        let current = pod();
        let patch = json!({"status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}],
            "podIP": "10.244.1.5"
        }});
        let fast = patched(kind_of("Pod"), &current, &patch, true).expect("patched");
        let slow = whole(kind_of("Pod"), &current, &patch).expect("patched");
        let status = |o: &Object| o.to_json()["status"].clone();
        assert_eq!(status(&fast), status(&slow));
        assert_eq!(status(&fast)["phase"], "Running");
        // Merged by `type`: PodScheduled kept, Ready changed.
        assert_eq!(
            status(&fast)["conditions"].as_array().map(Vec::len),
            Some(2)
        );
        assert_eq!(fast.metadata(), current.metadata());
    }

    #[test]
    fn other_patches_and_undecodable_statuses_go_the_whole_way() {
        let current = pod();
        let labels = json!({"status": {"phase": "Running"}, "metadata": {"labels": {"a": "b"}}});
        assert!(pod_status_patched(current.as_pod().expect("pod"), &labels).is_none());
        let bad = json!({"status": {"phase": 7}});
        assert!(pod_status_patched(current.as_pod().expect("pod"), &bad).is_none());
        let err = patched(kind_of("Pod"), &current, &bad, true).expect_err("not a string");
        assert!(err.contains("invalid type"), "{err}");
        let cleared = patched(kind_of("Pod"), &current, &json!({"status": null}), true);
        assert_eq!(
            cleared
                .expect("patched")
                .as_pod()
                .map(|p| p.status.is_none()),
            Some(true)
        );
    }
}

/// `current` with a JSON merge patch applied (RFC 7386, what `kubectl scale`
/// and `kubectl patch --type merge` send): objects merge key by key, `null`
/// removes a key, anything else (lists included) replaces. Fails with the
/// decoder's message.
pub fn merge_patched(
    kind: &'static Kind,
    current: &Object,
    patch: &Value,
) -> Result<Object, String> {
    let mut json = current.to_json();
    merge(&mut json, patch);
    decoded(kind, json)
}

/// `current` with a JSON patch applied (RFC 6902, `kubectl patch --type json`).
/// Fails with the patch library's message, which the API server answers with 422.
pub fn json_patched(
    kind: &'static Kind,
    current: &Object,
    patch: &Value,
) -> Result<Object, String> {
    let operations: json_patch::Patch =
        serde_json::from_value(patch.clone()).map_err(|e| e.to_string())?;
    let mut json = current.to_json();
    json_patch::patch(&mut json, &operations).map_err(|e| e.to_string())?;
    decoded(kind, json)
}

fn decoded(kind: &'static Kind, json: Value) -> Result<Object, String> {
    let mut object = Object::from_json(kind, json).map_err(|e| e.to_string())?;
    defaults::apply(&mut object);
    Ok(object)
}

/// RFC 7386's `MergePatch(Target, Patch)`.
fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    if let Value::Object(map) = target {
        for (key, value) in patch {
            if value.is_null() {
                map.remove(key);
            } else {
                merge(map.entry(key.clone()).or_insert(Value::Null), value);
            }
        }
    }
}

#[cfg(test)]
mod merge_tests {
    use super::merge;
    use serde_json::json;

    /// The examples of RFC 7386, appendix A.
    #[test]
    fn merge_patches_follow_rfc_7386s_examples() {
        let cases = [
            (json!({"a": "b"}), json!({"a": "c"}), json!({"a": "c"})),
            (
                json!({"a": "b"}),
                json!({"b": "c"}),
                json!({"a": "b", "b": "c"}),
            ),
            (json!({"a": "b"}), json!({"a": null}), json!({})),
            (
                json!({"a": "b", "b": "c"}),
                json!({"a": null}),
                json!({"b": "c"}),
            ),
            (json!({"a": ["b"]}), json!({"a": "c"}), json!({"a": "c"})),
            (json!({"a": "c"}), json!({"a": ["b"]}), json!({"a": ["b"]})),
            (
                json!({"a": {"b": "c"}}),
                json!({"a": {"b": "d", "c": null}}),
                json!({"a": {"b": "d"}}),
            ),
            (
                json!({"a": [{"b": "c"}]}),
                json!({"a": [1]}),
                json!({"a": [1]}),
            ),
            (json!(["a", "b"]), json!(["c", "d"]), json!(["c", "d"])),
            (json!({"a": "b"}), json!(["c"]), json!(["c"])),
            (
                json!({"e": null}),
                json!({"a": 1}),
                json!({"e": null, "a": 1}),
            ),
            (
                json!([1, 2]),
                json!({"a": "b", "c": null}),
                json!({"a": "b"}),
            ),
        ];
        for (mut target, patch, want) in cases {
            merge(&mut target, &patch);
            assert_eq!(target, want, "patch {patch}");
        }
    }
}
