//! The objects of the store as a forest by `metadata.ownerReferences`, as the
//! garbage collector's graph links them (`pkg/controller/garbagecollector/graph.go`):
//! a dependent goes under its owner (the `controller: true` reference, else the
//! first one whose owner is stored), an object whose owners are all gone is a
//! root. Each object has a short status as `kubectl get` prints it: READY
//! `ready/desired` for Deployments and `ReplicaSets`, COMPLETIONS for Jobs,
//! the phase for Pods (`Terminating` once deleted).

use std::collections::{HashMap, HashSet};

use crate::engine::store::Store;
use crate::model::Object;

/// One object in tree order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node<'a> {
    pub key: &'a str,
    /// 0 for a root, 1 for its dependents, ...
    pub depth: usize,
    /// The tree's guide for this row: `├ `, `│ └ `, ... (empty for a root).
    pub guide: String,
}

/// Every stored object whose key `keep` accepts, owners before their dependents.
pub fn forest<'a>(store: &'a Store, mut keep: impl FnMut(&str) -> bool) -> Vec<Node<'a>> {
    let objects: Vec<(&'a str, &'a Object)> = store
        .iter()
        .filter(|(k, _)| keep(k))
        .map(|(k, e)| (k.as_str(), e.object.as_ref()))
        .collect();
    let by_uid: HashMap<&str, usize> = objects
        .iter()
        .enumerate()
        .filter_map(|(i, (_, o))| o.metadata().uid.as_deref().map(|u| (u, i)))
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); objects.len()];
    let mut roots = Vec::new();
    for (i, (_, object)) in objects.iter().enumerate() {
        match owner_of(object, &by_uid).filter(|o| *o != i) {
            Some(owner) => children[owner].push(i),
            None => roots.push(i),
        }
    }
    let mut out = Vec::with_capacity(objects.len());
    let mut seen = HashSet::new();
    for root in roots {
        walk(root, 0, "", "", &objects, &children, &mut seen, &mut out);
    }
    // An ownership cycle has no root: its objects go last, flat.
    for (i, (key, _)) in objects.iter().enumerate() {
        if !seen.contains(&i) {
            out.push(Node {
                key,
                depth: 0,
                guide: String::new(),
            });
        }
    }
    out
}

/// Index of the stored owner `object` hangs under.
fn owner_of(object: &Object, by_uid: &HashMap<&str, usize>) -> Option<usize> {
    let refs = object.metadata().owner_references.as_deref()?;
    refs.iter()
        .filter(|r| r.controller == Some(true))
        .chain(refs.iter())
        .find_map(|r| by_uid.get(r.uid.as_str()).copied())
}

#[allow(clippy::too_many_arguments)]
fn walk<'a>(
    at: usize,
    depth: usize,
    guide: &str,
    rest: &str,
    objects: &[(&'a str, &'a Object)],
    children: &[Vec<usize>],
    seen: &mut HashSet<usize>,
    out: &mut Vec<Node<'a>>,
) {
    if !seen.insert(at) {
        return;
    }
    out.push(Node {
        key: objects[at].0,
        depth,
        guide: guide.to_owned(),
    });
    let kids = &children[at];
    for (n, child) in kids.iter().enumerate() {
        let last = n + 1 == kids.len();
        let own = format!("{rest}{}", if last { "└ " } else { "├ " });
        let below = format!("{rest}{}", if last { "  " } else { "│ " });
        walk(
            *child,
            depth + 1,
            &own,
            &below,
            objects,
            children,
            seen,
            out,
        );
    }
}

/// The object's short status, as `kubectl get` would print it.
pub fn status(object: &Object) -> Option<String> {
    let deleting = object.metadata().deletion_timestamp.is_some();
    let base = match object {
        Object::Pod(p) => {
            if deleting {
                return Some("Terminating".to_owned());
            }
            p.status.as_ref().and_then(|s| s.phase.clone())
        }
        Object::Deployment(d) => {
            let want = d.spec.replicas.unwrap_or(1);
            let ready = d.status.as_ref().and_then(|s| s.ready_replicas);
            Some(format!("{}/{want}", ready.unwrap_or(0)))
        }
        Object::ReplicaSet(r) => {
            let want = r.spec.replicas.unwrap_or(1);
            let ready = r.status.as_ref().and_then(|s| s.ready_replicas);
            Some(format!("{}/{want}", ready.unwrap_or(0)))
        }
        Object::Job(j) => {
            let want = j.spec.as_ref().and_then(|s| s.completions).unwrap_or(1);
            let done = j.status.as_ref().and_then(|s| s.succeeded).unwrap_or(0);
            Some(format!("{done}/{want}"))
        }
        _ => None,
    };
    match (base, deleting) {
        (Some(b), true) => Some(format!("{b} deleting")),
        (None, true) => Some("deleting".to_owned()),
        (b, false) => b,
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
    use serde_json::json;

    use super::*;
    use crate::model::kinds::kind_of;

    fn object(kind: &str, name: &str, uid: &str, owner: Option<&str>) -> Object {
        let mut o = Object::from_json(
            kind_of(kind),
            json!({"metadata": {"name": name, "namespace": "default", "uid": uid}}),
        )
        .expect("an object");
        if let Some(owner) = owner {
            *o.metadata_mut() = ObjectMeta {
                owner_references: Some(vec![OwnerReference {
                    uid: owner.to_owned(),
                    controller: Some(true),
                    ..OwnerReference::default()
                }]),
                ..o.metadata().clone()
            };
        }
        o
    }

    #[test]
    #[allow(clippy::large_stack_arrays)] // five objects of test data (`Object` holds a PersistentVolume inline)
    fn dependents_hang_under_their_owners_and_orphans_are_roots() {
        let mut store = Store::new();
        for o in [
            object("Deployment", "web", "d", None),
            object("ReplicaSet", "web-1", "r", Some("d")),
            object("Pod", "web-1-a", "p1", Some("r")),
            object("Pod", "web-1-b", "p2", Some("r")),
            object("Pod", "lost", "p3", Some("gone")),
        ] {
            let key = crate::engine::store::key_for(o.kind(), o.namespace(), o.name());
            store.create(&key, o).expect("stored");
        }
        let rows: Vec<(String, usize, String)> = forest(&store, |_| true)
            .into_iter()
            .map(|n| (n.key.to_owned(), n.depth, n.guide))
            .collect();
        let want = [
            ("/registry/deployments/default/web", 0, ""),
            ("/registry/replicasets/default/web-1", 1, "└ "),
            ("/registry/pods/default/web-1-a", 2, "  ├ "),
            ("/registry/pods/default/web-1-b", 2, "  └ "),
            ("/registry/pods/default/lost", 0, ""),
        ];
        let got: Vec<(&str, usize, &str)> = rows
            .iter()
            .map(|(k, d, g)| (k.as_str(), *d, g.as_str()))
            .collect();
        assert_eq!(got, want);
    }
}
