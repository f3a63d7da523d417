//! Strategic merge patches, as `k8s.io/apimachinery/pkg/util/strategicpatch`
//! makes and applies them for the built-in kinds: lists with a merge key
//! (`containers` by `name`, `volumeMounts` by `mountPath`, `conditions` by
//! `type`, ...) merge element by element, `null` deletes a field, and
//! `$patch: delete` removes a list element. kubectl's client-side apply sends
//! the three-way patch of `CreateThreeWayMergePatch`; kubelets and the
//! scheduler patch status the same way.
//!
//! Applied here too: the directives real clients send (`$setElementOrder`,
//! `$retainKeys`, `$deleteFromPrimitiveList`, `$patch: replace`).
//!
//! Merge keys and strategies come from a table of `k8s.io/api`'s struct tags
//! keyed by (Go type, field) ([`patch_meta`]), walked down from the object's
//! kind. Simplified: two-way patches (the kubelet's
//! and the scheduler's status patches, `kubectl edit`) carry
//! `$setElementOrder` as upstream's do, but the three-way patch of
//! `kubectl apply` carries no directive but `$patch: delete`.

use serde_json::{Map, Value};

mod patch_meta;

pub use patch_meta::{GoType, root};
use patch_meta::{ListStrategy, child, list_strategy, merge_key};

fn key_of<'a>(element: &'a Value, key: &str) -> Option<&'a Value> {
    element.get(key)
}

/// Applies a strategic merge `patch` to `target`, with the directives
/// kubectl's client-side apply sends (`strategicpatch/patch.go`):
/// `$patch: replace|delete` on an object, `$retainKeys`,
/// `$setElementOrder/FIELD` and `$deleteFromPrimitiveList/FIELD`.
pub fn apply(ty: GoType, target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    match patch.get("$patch").and_then(Value::as_str) {
        Some("replace") => {
            *target = Value::Object(without_directives(patch));
            return;
        }
        Some("delete") => {
            *target = Value::Object(Map::new());
            return;
        }
        _ => {}
    }
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(map) = target else {
        return;
    };
    for (field, value) in patch {
        if let Some(list) = field.strip_prefix("$deleteFromPrimitiveList/") {
            if let (Some(Value::Array(current)), Value::Array(gone)) = (map.get_mut(list), value) {
                current.retain(|v| !gone.contains(v));
            }
            continue;
        }
        if field.starts_with('$') {
            continue;
        }
        match value {
            Value::Null => {
                map.remove(field);
            }
            Value::Object(inner)
                if inner.get("$patch").and_then(Value::as_str) == Some("delete") =>
            {
                map.remove(field);
            }
            Value::Array(items) => match (map.get_mut(field), list_strategy(ty, field)) {
                (Some(Value::Array(current)), Some(ListStrategy::MergeByKey(key))) => {
                    merge_list(child(ty, field), current, items, key);
                }
                (Some(Value::Array(current)), Some(ListStrategy::MergePrimitives)) => {
                    for item in items {
                        if !current.contains(item) {
                            current.push(item.clone());
                        }
                    }
                }
                _ => {
                    let kept = items.iter().filter(|i| !is_delete(i)).cloned().collect();
                    map.insert(field.clone(), Value::Array(kept));
                }
            },
            Value::Object(_) => apply(
                child(ty, field),
                map.entry(field.clone()).or_insert(Value::Null),
                value,
            ),
            _ => {
                map.insert(field.clone(), value.clone());
            }
        }
    }
    for (field, order) in patch {
        if let (Some(list), Value::Array(order)) = (field.strip_prefix("$setElementOrder/"), order)
            && let Some(Value::Array(current)) = map.get_mut(list)
        {
            set_order(current, order, merge_key(ty, list));
        }
    }
    if let Some(Value::Array(kept)) = patch.get("$retainKeys") {
        map.retain(|key, _| kept.iter().any(|k| k.as_str() == Some(key)));
    }
}

/// `patch` without its `$` directives.
fn without_directives(patch: &Map<String, Value>) -> Map<String, Value> {
    patch
        .iter()
        .filter(|(k, _)| !k.starts_with('$'))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Puts `list`'s elements in the order `$setElementOrder` gives (by merge
/// key, or by value for scalars); elements it does not name keep their
/// order after them, as `normalizeElementOrder` leaves them.
fn set_order(list: &mut [Value], order: &[Value], key: Option<&str>) {
    // Each element's rank, found once (not once per comparison) and
    // without copying its key.
    let rank = |element: &Value| {
        let id = match key {
            Some(key) => key_of(element, key),
            None => Some(element),
        };
        id.and_then(|id| {
            order
                .iter()
                .position(|o| key.map_or(Some(o), |k| key_of(o, k)) == Some(id))
        })
        .unwrap_or(usize::MAX)
    };
    let ranks: Vec<usize> = list.iter().map(rank).collect();
    if ranks.is_sorted() {
        return;
    }
    let mut places: Vec<usize> = (0..list.len()).collect();
    places.sort_by_key(|&i| ranks[i]);
    let mut taken: Vec<Value> = list.iter_mut().map(std::mem::take).collect();
    for (slot, i) in list.iter_mut().zip(places) {
        *slot = std::mem::take(&mut taken[i]);
    }
}

fn is_delete(element: &Value) -> bool {
    element.get("$patch").and_then(Value::as_str) == Some("delete")
}

fn merge_list(ty: GoType, current: &mut Vec<Value>, patch: &[Value], key: &str) {
    for element in patch {
        let Some(id) = key_of(element, key) else {
            current.push(element.clone());
            continue;
        };
        let found = current.iter().position(|c| key_of(c, key) == Some(id));
        match (found, is_delete(element)) {
            (Some(i), true) => {
                current.remove(i);
            }
            (None, true) => {}
            (Some(i), false) => apply(ty, &mut current[i], element),
            (None, false) => current.push(element.clone()),
        }
    }
}

/// The two halves of a patch from one object to another: what to delete
/// (fields set to `null`, list elements `$patch: delete`, and the objects and
/// lists holding such deletions) and what to add or change.
#[derive(Default)]
struct Halves {
    deletions: Map<String, Value>,
    changes: Map<String, Value>,
}

impl Halves {
    /// Files a field's nested halves, each only when it holds something.
    fn put(&mut self, field: &str, deletions: Value, changes: Value) {
        if !is_empty(&deletions) {
            self.deletions.insert(field.to_owned(), deletions);
        }
        if !is_empty(&changes) {
            self.changes.insert(field.to_owned(), changes);
        }
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(list) => list.is_empty(),
        _ => false,
    }
}

/// The patch from `from` to `to`, split into its halves in one walk; with
/// `order`, a list that merges by key and changed (or changed its order)
/// carries `$setElementOrder/FIELD`, as `diffLists` adds it for
/// `CreateTwoWayMergePatch` (`DiffOptions{SetElementOrder: true}`).
fn diff(ty: GoType, from: &Map<String, Value>, to: &Map<String, Value>, order: bool) -> Halves {
    let mut halves = Halves::default();
    for field in from.keys().filter(|f| !to.contains_key(*f)) {
        halves.deletions.insert(field.clone(), Value::Null);
    }
    for (field, new) in to {
        let Some(old) = from.get(field) else {
            halves.changes.insert(field.clone(), new.clone());
            continue;
        };
        if old == new {
            continue;
        }
        match (old, new) {
            (Value::Object(a), Value::Object(b)) => {
                let inner = diff(child(ty, field), a, b, order);
                halves.put(
                    field,
                    Value::Object(inner.deletions),
                    Value::Object(inner.changes),
                );
            }
            (Value::Array(a), Value::Array(b)) => {
                if let Some(key) = merge_key(ty, field) {
                    let (deletions, changes) = diff_list(child(ty, field), a, b, key, order);
                    if order
                        && (!deletions.is_empty() || !changes.is_empty() || !same_order(a, b, key))
                    {
                        halves
                            .changes
                            .insert(format!("$setElementOrder/{field}"), element_order(b, key));
                    }
                    halves.put(field, Value::Array(deletions), Value::Array(changes));
                } else {
                    halves.changes.insert(field.clone(), new.clone());
                }
            }
            _ => {
                halves.changes.insert(field.clone(), new.clone());
            }
        }
    }
    halves
}

/// The halves of a list that merges by `key`: changed elements carry only
/// what changed (and their key), gone elements become `$patch: delete`.
fn diff_list(
    ty: GoType,
    from: &[Value],
    to: &[Value],
    key: &str,
    order: bool,
) -> (Vec<Value>, Vec<Value>) {
    let (mut deletions, mut changes) = (Vec::new(), Vec::new());
    // Each element's key, looked up once rather than once per comparison.
    let from_ids: Vec<Option<&Value>> = from.iter().map(|old| key_of(old, key)).collect();
    let to_ids: Vec<Option<&Value>> = to.iter().map(|new| key_of(new, key)).collect();
    for (new, &id) in to.iter().zip(&to_ids) {
        let found = id.and_then(|id| from_ids.iter().position(|&old| old == Some(id)));
        match found.map(|at| &from[at]) {
            None => changes.push(new.clone()),
            Some(old) if old != new => {
                if let (Value::Object(a), Value::Object(b)) = (old, new) {
                    let inner = diff(ty, a, b, order);
                    for (half, list) in [
                        (inner.deletions, &mut deletions),
                        (inner.changes, &mut changes),
                    ] {
                        if !half.is_empty() {
                            list.push(keyed(half, key, id));
                        }
                    }
                }
            }
            Some(_) => {}
        }
    }
    for id in from_ids.into_iter().flatten() {
        if !to_ids.contains(&Some(id)) {
            let mut deletion = Map::new();
            deletion.insert("$patch".into(), Value::String("delete".into()));
            deletion.insert(key.to_owned(), id.clone());
            deletions.push(Value::Object(deletion));
        }
    }
    (deletions, changes)
}

/// Whether two keyed lists hold their keys in the same order (`isOrderSame`).
fn same_order(from: &[Value], to: &[Value], key: &str) -> bool {
    from.len() == to.len()
        && from
            .iter()
            .zip(to)
            .all(|(a, b)| key_of(a, key) == key_of(b, key))
}

/// The `$setElementOrder` list: each element of `list` by its merge key alone.
fn element_order(list: &[Value], key: &str) -> Value {
    Value::Array(
        list.iter()
            .filter_map(|e| key_of(e, key))
            .map(|id| {
                let mut only = Map::new();
                only.insert(key.to_owned(), id.clone());
                Value::Object(only)
            })
            .collect(),
    )
}

/// A list element's part of a patch, named by its merge key.
fn keyed(mut part: Map<String, Value>, key: &str, id: Option<&Value>) -> Value {
    if let Some(id) = id {
        part.insert(key.to_owned(), id.clone());
    }
    Value::Object(part)
}

/// `CreateThreeWayMergePatch`: what to send so that `current` (the live
/// object) takes every value of `modified` (the new manifest), and loses what
/// was removed from `original` (the last-applied manifest), leaving alone what
/// others (defaulting, admission, controllers) set.
pub fn three_way(ty: GoType, original: Option<&Value>, modified: &Value, current: &Value) -> Value {
    let empty = Map::new();
    let modified = modified.as_object().unwrap_or(&empty);
    let current = current.as_object().unwrap_or(&empty);
    let original = original.and_then(Value::as_object).unwrap_or(&empty);
    let changes = diff(ty, current, modified, false).changes;
    let deletions = diff(ty, original, modified, false).deletions;
    merged(deletions, changes)
}

/// `CreateTwoWayMergePatch`: what turns `original` into `modified` (how the
/// kubelet's status manager patches a Pod's status). One walk gives both
/// halves, as `three_way(Some(original), modified, original)` would, and a
/// keyed list that changed carries `$setElementOrder/FIELD` (the order of
/// `modified`), so the server keeps the sender's order.
pub fn two_way(ty: GoType, original: &Value, modified: &Value) -> Value {
    let empty = Map::new();
    let Halves { deletions, changes } = diff(
        ty,
        original.as_object().unwrap_or(&empty),
        modified.as_object().unwrap_or(&empty),
        true,
    );
    merged(deletions, changes)
}

/// The patch of two halves made apart (the kubelet's typed status patch,
/// `kubelet/status_patch.rs`): as [`two_way`] merges its own.
pub fn merge_halves(deletions: Map<String, Value>, changes: Map<String, Value>) -> Value {
    merged(deletions, changes)
}

/// One patch of two: the changes merged into the deletions (objects field
/// by field, a list's deletions before its changes), as
/// `CreateThreeWayMergePatch` merges its halves.
fn merged(deletions: Map<String, Value>, changes: Map<String, Value>) -> Value {
    let mut target = Value::Object(deletions);
    merge_into(&mut target, Value::Object(changes));
    target
}

fn merge_into(target: &mut Value, patch: Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (field, value) in p {
                match (t.get_mut(&field), value) {
                    (Some(existing @ Value::Object(_)), value @ Value::Object(_)) => {
                        merge_into(existing, value);
                    }
                    (Some(Value::Array(existing)), Value::Array(more)) => existing.extend(more),
                    (_, value) => {
                        t.insert(field, value);
                    }
                }
            }
        }
        (target, patch) => *target = patch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_with_merge_keys_merge_by_key() {
        // staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go,
        // "Merge key" cases: elements merge by their key, `$patch: delete` removes.
        let mut live = json!({"spec": {"containers": [
            {"name": "a", "image": "x:1", "volumeMounts": [{"name": "t", "mountPath": "/t"}]},
            {"name": "b", "image": "y:1"}
        ]}});
        let patch = json!({"spec": {"containers": [
            {"name": "a", "image": "x:2"},
            {"name": "b", "$patch": "delete"},
            {"name": "c", "image": "z:1"}
        ]}});
        apply(root("Pod"), &mut live, &patch);
        assert_eq!(
            live,
            json!({"spec": {"containers": [
                {"name": "a", "image": "x:2", "volumeMounts": [{"name": "t", "mountPath": "/t"}]},
                {"name": "c", "image": "z:1"}
            ]}})
        );
    }

    /// The directives of `strategicpatch/patch_test.go`'s cases, in spirit:
    /// what kubectl's client-side apply sends.
    #[test]
    fn directives_order_retain_replace_and_delete() {
        // `$setElementOrder`: the patch's order wins; unnamed elements follow.
        let mut live = json!({"containers": [{"name": "a"}, {"name": "b"}, {"name": "x"}]});
        let patch = json!({
            "$setElementOrder/containers": [{"name": "b"}, {"name": "c"}, {"name": "a"}],
            "containers": [{"name": "c", "image": "z"}]
        });
        apply("v1.PodSpec", &mut live, &patch);
        let names: Vec<&str> = live["containers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["b", "c", "a", "x"]);

        // `$retainKeys`: keys the list does not name go (a strategy's type changed).
        let mut live =
            json!({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}});
        let patch = json!({"strategy": {"$retainKeys": ["type"], "type": "Recreate"}});
        apply("v1.DeploymentSpec", &mut live, &patch);
        assert_eq!(live, json!({"strategy": {"type": "Recreate"}}));

        // `$patch: replace` replaces a map whole; `$patch: delete` removes it.
        let mut live = json!({"a": {"x": 1, "y": 2}, "b": {"z": 3}});
        let patch = json!({"a": {"$patch": "replace", "w": 0}, "b": {"$patch": "delete"}});
        apply(patch_meta::UNTYPED, &mut live, &patch);
        assert_eq!(live, json!({"a": {"w": 0}}));

        // Finalizers merge as a set; `$deleteFromPrimitiveList` takes one out.
        let mut live = json!({"metadata": {"finalizers": ["a", "b"]}});
        let patch = json!({"metadata": {"finalizers": ["c"], "$deleteFromPrimitiveList/finalizers": ["a"]}});
        apply(root("ConfigMap"), &mut live, &patch);
        assert_eq!(live, json!({"metadata": {"finalizers": ["b", "c"]}}));
    }

    #[test]
    fn conditions_merge_by_type_and_null_deletes() {
        let mut status =
            json!({"conditions": [{"type": "PodScheduled", "status": "True"}], "x": 1});
        apply(
            "v1.PodStatus",
            &mut status,
            &json!({"conditions": [{"type": "Ready", "status": "False"}], "x": null}),
        );
        assert_eq!(
            status,
            json!({"conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False"}]})
        );
    }

    #[test]
    fn three_way_keeps_what_the_server_added() {
        // A Pod created without last-applied, then applied: the defaulted and
        // admitted fields of the live object stay; only the annotation is new.
        let manifest = json!({"metadata": {"name": "p", "annotations": {"last": "1"}},
            "spec": {"containers": [{"name": "a", "image": "x:1"}]}});
        let live = json!({"metadata": {"name": "p", "uid": "u"},
            "spec": {"containers": [{"name": "a", "image": "x:1", "imagePullPolicy": "IfNotPresent",
                "volumeMounts": [{"name": "kube-api-access-x", "mountPath": "/var/run"}]}],
                "restartPolicy": "Always"}});
        let patch = three_way(root("Pod"), None, &manifest, &live);
        assert_eq!(patch, json!({"metadata": {"annotations": {"last": "1"}}}));
    }

    #[test]
    fn two_way_nulls_what_went_away() {
        let old = json!({"conditions": [{"type": "Ready", "status": "False", "reason": "ContainersNotReady"}],
            "containerStatuses": [{"name": "a", "state": {"waiting": {"reason": "ContainerCreating"}}}]});
        let new = json!({"conditions": [{"type": "Ready", "status": "True"}],
            "containerStatuses": [{"name": "a", "state": {"running": {"startedAt": "t"}}}]});
        let patch = two_way("v1.PodStatus", &old, &new);
        let mut result = old.clone();
        apply("v1.PodStatus", &mut result, &patch);
        assert_eq!(result, new);
        // `containerStatuses` has no patch tags upstream: it is sent whole.
        assert_eq!(patch["containerStatuses"], new["containerStatuses"]);
    }

    #[test]
    fn two_way_lists_deletions_before_changes_and_sorts_fields() {
        // The halves merge as `CreateThreeWayMergePatch` merges them: a list's
        // deletions come before its changes. Fields come out sorted, as Go's
        // `encoding/json` writes the patch's map.
        let old = json!({"a": 1, "b": {"x": 1, "y": 2},
            "containers": [{"name": "p", "v": 1, "w": 2}, {"name": "q"}], "d": "same"});
        let new = json!({"b": {"x": 2},
            "containers": [{"name": "p", "v": 3}, {"name": "r"}], "d": "same", "e": 5});
        let patch = two_way("v1.PodSpec", &old, &new);
        assert_eq!(
            patch.to_string(),
            r#"{"$setElementOrder/containers":[{"name":"p"},{"name":"r"}],"a":null,"b":{"x":2,"y":null},"containers":[{"name":"p","w":null},{"$patch":"delete","name":"q"},{"name":"p","v":3},{"name":"r"}],"e":5}"#
        );
        let mut result = old.clone();
        apply("v1.PodSpec", &mut result, &patch);
        assert_eq!(result, new);
        // The same patch as the three-way one, but for the directive.
        let mut plain = patch.clone();
        plain
            .as_object_mut()
            .unwrap()
            .remove("$setElementOrder/containers");
        assert_eq!(plain, three_way("v1.PodSpec", Some(&old), &new, &old));
    }

    #[test]
    fn two_way_sets_the_element_order_of_a_changed_keyed_list() {
        // strategicpatch/patch_test.go, the "$setElementOrder" rows of
        // TestStrategicMergePatch (CreateTwoWayMergePatch with SetElementOrder):
        // a keyed list whose elements changed, or only moved, carries its new
        // order; the server applies it (the kubelet's status patch,
        // util/pod.PatchPodStatus, puts PodScheduled last this way).
        let old = json!({"conditions": [
            {"type": "PodScheduled", "status": "True"}]});
        let new = json!({"conditions": [
            {"type": "Initialized", "status": "True"},
            {"type": "Ready", "status": "False"},
            {"type": "PodScheduled", "status": "True"}]});
        let patch = two_way("v1.PodStatus", &old, &new);
        assert_eq!(
            patch["$setElementOrder/conditions"],
            json!([{"type": "Initialized"}, {"type": "Ready"}, {"type": "PodScheduled"}])
        );
        let mut stored = old.clone();
        apply("v1.PodStatus", &mut stored, &patch);
        assert_eq!(stored, new);
        // Only the order changed: the directive alone.
        let moved = json!({"conditions": [{"type": "B"}, {"type": "A"}]});
        let patch = two_way(
            "v1.PodStatus",
            &json!({"conditions": [{"type": "A"}, {"type": "B"}]}),
            &moved,
        );
        assert_eq!(
            patch,
            json!({"$setElementOrder/conditions": [{"type": "B"}, {"type": "A"}]})
        );
        // Unchanged lists carry nothing.
        assert_eq!(two_way("v1.PodStatus", &moved, &moved), json!({}));
    }

    #[test]
    fn two_way_of_equal_objects_is_empty() {
        // An element that lacks its list's merge key is sent whole when it
        // changed, and not at all when it did not.
        let same = json!({"a": {"b": [1, 2]}, "conditions": [{"type": "Ready"}, {"status": "x"}],
            "containers": [{"name": "c", "ports": [{"containerPort": 80}]}]});
        assert_eq!(two_way("v1.PodStatus", &same, &same), json!({}));
        let mut changed = same.clone();
        changed["conditions"][1]["status"] = json!("y");
        assert_eq!(
            two_way("v1.PodStatus", &same, &changed)["conditions"],
            json!([{"status": "y"}])
        );
    }

    #[test]
    fn three_way_removes_what_the_manifest_dropped() {
        let original = json!({"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"containers": [{"name": "a", "image": "x:1"}, {"name": "old", "image": "o"}]}});
        let modified = json!({"metadata": {"labels": {"a": "1"}}, "spec": {"containers": [{"name": "a", "image": "x:2"}]}});
        let live = json!({"metadata": {"labels": {"a": "1", "b": "2"}, "uid": "u"}, "spec": {"containers": [{"name": "a", "image": "x:1", "tty": false}, {"name": "old", "image": "o"}]}});
        let patch = three_way(root("Pod"), Some(&original), &modified, &live);
        let mut result = live.clone();
        apply(root("Pod"), &mut result, &patch);
        assert_eq!(
            result,
            json!({"metadata": {"labels": {"a": "1"}, "uid": "u"}, "spec": {"containers": [{"name": "a", "image": "x:2", "tty": false}]}})
        );
    }

    /// `strategicpatch` reads the strategy of each field from its type's
    /// struct tags (`PatchMetaFromStruct`): the same field name merges in one
    /// type and is replaced whole in another.
    #[test]
    fn merge_keys_follow_the_type_not_the_field_name() {
        // NodeStatus.addresses merge by `type`; NodeSpec.podCIDRs as a set.
        let mut node = json!({"spec": {"podCIDRs": ["10.244.1.0/24"]},
            "status": {"addresses": [{"type": "InternalIP", "address": "172.18.0.2"}]}});
        apply(
            root("Node"),
            &mut node,
            &json!({"spec": {"podCIDRs": ["fd00::/64"]},
                "status": {"addresses": [{"type": "Hostname", "address": "node-1"}]}}),
        );
        assert_eq!(
            node,
            json!({"spec": {"podCIDRs": ["10.244.1.0/24", "fd00::/64"]},
                "status": {"addresses": [{"type": "InternalIP", "address": "172.18.0.2"},
                    {"type": "Hostname", "address": "node-1"}]}})
        );
        // PodStatus.containerStatuses and PodSpec.tolerations have no tags: replaced whole.
        let mut pod = json!({"spec": {"tolerations": [{"key": "a", "operator": "Exists"}]},
            "status": {"containerStatuses": [{"name": "a", "ready": false}, {"name": "b"}]}});
        apply(
            root("Pod"),
            &mut pod,
            &json!({"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]},
                "status": {"containerStatuses": [{"name": "a", "ready": true}]}}),
        );
        assert_eq!(
            pod,
            json!({"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]},
                "status": {"containerStatuses": [{"name": "a", "ready": true}]}})
        );
        // A `containers` list outside a PodSpec (a ConfigMap's data is free
        // form) is no merge list; in a Deployment's template it is.
        let mut config = json!({"data": {"containers": [{"name": "a"}]}});
        apply(
            root("ConfigMap"),
            &mut config,
            &json!({"data": {"containers": [{"name": "b"}]}}),
        );
        assert_eq!(config, json!({"data": {"containers": [{"name": "b"}]}}));
        let mut deployment =
            json!({"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "x"}]}}}});
        apply(
            root("Deployment"),
            &mut deployment,
            &json!({"spec": {"template": {"spec": {"containers": [{"name": "b"}]}}}}),
        );
        assert_eq!(
            deployment["spec"]["template"]["spec"]["containers"],
            json!([{"name": "a", "image": "x"}, {"name": "b"}])
        );
    }
}
