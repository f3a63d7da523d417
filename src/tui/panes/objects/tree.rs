//! The objects of the store as a forest by `metadata.ownerReferences`, as the
//! garbage collector's graph links them (`pkg/controller/garbagecollector/graph.go`):
//! a dependent goes under its owner (the `controller: true` reference, else the
//! first one whose owner is stored), an object whose owners are all gone is a
//! root. Each object has a short status as `kubectl get` prints it: READY
//! `ready/desired` for Deployments and `ReplicaSets`, COMPLETIONS for Jobs,
//! the phase for Pods (`Terminating` once deleted).

use std::collections::HashMap;
use std::sync::Arc;

use super::super::store_index::{OwnerLink, Summaries, Summary};
use podflow_engine::store::key_for;
use podflow_model::kinds::{KINDS, index_of};

/// No row: a root's parent.
const NONE: u32 = u32::MAX;

/// One object in tree order. Its guide is not kept: [`Forest::guide`]
/// builds it from the row's ancestors, for the rows that are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Row<'a> {
    key: &'a str,
    /// 0 for a root, 1 for its dependents, ...
    depth: u32,
    /// The row of its owner ([`NONE`] for a root).
    parent: u32,
    /// Whether it is its owner's last dependent.
    last: bool,
}

/// The listed objects in tree order, owners before their dependents.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Forest<'a> {
    rows: Vec<Row<'a>>,
    /// The listed keys in key order, and the row of each.
    sorted: Vec<&'a str>,
    row_of: Vec<u32>,
}

impl<'a> Forest<'a> {
    /// `keys` (in key order) as a flat list, every one a root.
    pub fn flat(keys: impl Iterator<Item = &'a str>) -> Forest<'a> {
        let sorted: Vec<&str> = keys.collect();
        Forest {
            rows: sorted
                .iter()
                .map(|key| Row {
                    key,
                    depth: 0,
                    parent: NONE,
                    last: false,
                })
                .collect(),
            row_of: (0..sorted.len())
                .map(|i| u32::try_from(i).unwrap_or(NONE))
                .collect(),
            sorted,
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no row is listed.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The key of row `i`.
    pub fn key(&self, i: usize) -> &'a str {
        self.rows[i].key
    }

    /// The depth of row `i` (0 for a root).
    pub fn depth(&self, i: usize) -> usize {
        self.rows[i].depth as usize
    }

    /// The row of `key`, if listed.
    pub fn position(&self, key: &str) -> Option<usize> {
        let at = self.sorted.binary_search(&key).ok()?;
        self.row_of.get(at).map(|r| *r as usize)
    }

    /// The tree's guide of row `i`: `├ `, `│ └ `, ... (empty for a root).
    pub fn guide(&self, i: usize) -> String {
        let row = &self.rows[i];
        if row.parent == NONE {
            return String::new();
        }
        // The marks from the row up to its root's child, then reversed.
        let mut marks = vec![if row.last { "└ " } else { "├ " }];
        let mut at = row.parent;
        while at != NONE {
            let up = &self.rows[at as usize];
            if up.parent == NONE {
                break;
            }
            marks.push(if up.last { "  " } else { "│ " });
            at = up.parent;
        }
        marks.iter().rev().copied().collect()
    }
}

/// Every stored object whose key `keep` accepts, owners before their
/// dependents, from the store's [`Summaries`]. An owner is found by the key
/// its reference names (checked against its UID); only a reference that
/// does not lead there makes the pass index every UID. Objects with the same
/// owner references share them, and they are resolved once.
pub fn forest<'a>(summaries: &'a Summaries, mut keep: impl FnMut(&str) -> bool) -> Forest<'a> {
    let objects: Vec<(&'a str, &'a Summary)> = summaries
        .iter()
        .filter(|(k, _)| keep(k))
        .map(|(k, s)| (&**k, s))
        .collect();
    let mut owners_of = Owners {
        objects: &objects,
        memo: HashMap::new(),
        by_uid: None,
    };
    let owners: Vec<Option<usize>> = objects
        .iter()
        .enumerate()
        .map(|(i, (_, s))| owners_of.owner(s).filter(|o| *o != i))
        .collect();
    // Children as one list, grouped by owner, each group in key order.
    let mut start = vec![0usize; objects.len() + 1];
    for owner in owners.iter().flatten() {
        start[owner + 1] += 1;
    }
    for i in 0..objects.len() {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut children = vec![0usize; start[objects.len()]];
    for (i, owner) in owners.iter().enumerate() {
        if let Some(owner) = owner {
            children[fill[*owner]] = i;
            fill[*owner] += 1;
        }
    }

    let mut rows = Vec::with_capacity(objects.len());
    let mut row_of = vec![NONE; objects.len()];
    // Depth first, children in order: (object, parent row, depth, last).
    let mut stack: Vec<(usize, u32, u32, bool)> = Vec::new();
    for root in (0..objects.len()).filter(|i| owners[*i].is_none()) {
        stack.push((root, NONE, 0, false));
        while let Some((at, parent, depth, last)) = stack.pop() {
            if row_of[at] != NONE {
                continue;
            }
            let row = u32::try_from(rows.len()).unwrap_or(NONE);
            row_of[at] = row;
            rows.push(Row {
                key: objects[at].0,
                depth,
                parent,
                last,
            });
            let kids = &children[start[at]..start[at + 1]];
            for (n, child) in kids.iter().enumerate().rev() {
                stack.push((*child, row, depth + 1, n + 1 == kids.len()));
            }
        }
    }
    // An ownership cycle has no root: its objects go last, flat.
    for (i, (key, _)) in objects.iter().enumerate() {
        if row_of[i] == NONE {
            row_of[i] = u32::try_from(rows.len()).unwrap_or(NONE);
            rows.push(Row {
                key,
                depth: 0,
                parent: NONE,
                last: false,
            });
        }
    }
    Forest {
        rows,
        sorted: objects.iter().map(|(k, _)| *k).collect(),
        row_of,
    }
}

/// Finds the listed object a dependent hangs under, as the garbage
/// collector does by UID: the object the reference names by kind and name
/// when its UID is the reference's (UIDs are unique), else whichever listed
/// object has that UID (the last, in key order).
struct Owners<'o, 'a> {
    objects: &'o [(&'a str, &'a Summary)],
    /// The owner found for each owner list looked up (by its address: equal
    /// lists are one shared list).
    memo: HashMap<*const OwnerLink, Option<usize>>,
    /// Every listed UID, built at the first reference its name does not resolve.
    by_uid: Option<HashMap<Arc<str>, usize>>,
}

impl Owners<'_, '_> {
    /// Index of the listed owner the object hangs under: its `controller:
    /// true` reference, else the first one whose owner is listed.
    fn owner(&mut self, summary: &Summary) -> Option<usize> {
        let links = summary.owners.as_deref()?;
        if let Some(found) = self.memo.get(&links.as_ptr()) {
            return *found;
        }
        let found = links
            .iter()
            .filter(|l| l.controller)
            .chain(links)
            .find_map(|l| self.by_key(l).or_else(|| self.by_uid(&l.uid)));
        self.memo.insert(links.as_ptr(), found);
        found
    }

    /// The listed object the reference names, if it has the reference's UID.
    fn by_key(&self, link: &OwnerLink) -> Option<usize> {
        let kind = KINDS.get(index_of(&link.kind))?;
        let key = key_for(kind, link.namespace.as_deref(), &link.name);
        let at = self
            .objects
            .binary_search_by(|(k, _)| (*k).cmp(key.as_str()))
            .ok()?;
        let (_, owner) = self.objects[at];
        (owner.uid.as_deref() == Some(link.uid.as_str())).then_some(at)
    }

    /// The listed object with `uid` (the last, in key order).
    fn by_uid(&mut self, uid: &str) -> Option<usize> {
        let objects = self.objects;
        self.by_uid
            .get_or_insert_with(|| {
                objects
                    .iter()
                    .enumerate()
                    .filter_map(|(i, (_, summary))| Some((Arc::clone(summary.uid.as_ref()?), i)))
                    .collect()
            })
            .get(uid)
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
    use serde_json::json;

    use super::*;
    use crate::tui::panes::store_index::with_summaries;
    use podflow_engine::store::{Snapshot, Store};
    use podflow_model::Object;
    use podflow_model::kinds::kind_of;

    fn object(kind: &str, name: &str, uid: &str, owner: Option<&str>) -> Object {
        let mut o = Object::from_json(
            kind_of(kind),
            json!({"metadata": {"name": name, "namespace": "default", "uid": uid}}),
        )
        .expect("an object");
        if let Some(owner) = owner {
            // `uid`, or `Kind name uid` for a reference that names its owner.
            let (kind, name, uid) = match owner.split(' ').collect::<Vec<_>>()[..] {
                [kind, name, uid] => (kind, name, uid),
                _ => ("", "", owner),
            };
            *o.metadata_mut() = ObjectMeta {
                owner_references: Some(vec![OwnerReference {
                    kind: kind.to_owned(),
                    name: name.to_owned(),
                    uid: uid.to_owned(),
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
            let key = podflow_engine::store::key_for(o.kind(), o.namespace(), o.name());
            store.create(&key, o).expect("stored");
        }
        let rows = rows(&store);
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

    /// `(key, depth, guide)` of every row.
    fn rows(store: &Store) -> Vec<(String, usize, String)> {
        let store = &Snapshot::of(store);
        with_summaries(store, |summaries| {
            let forest = forest(summaries, |_| true);
            (0..forest.len())
                .map(|i| (forest.key(i).to_owned(), forest.depth(i), forest.guide(i)))
                .collect()
        })
    }

    #[test]
    #[allow(clippy::large_stack_arrays)] // test data (`Object` holds a PersistentVolume inline)
    fn guides_carry_the_open_branches_and_cycles_go_last() {
        let mut store = Store::new();
        for o in [
            object("Deployment", "web", "d", None),
            object("ReplicaSet", "web-1", "r1", Some("d")),
            object("ReplicaSet", "web-2", "r2", Some("d")),
            object("Pod", "web-1-a", "p1", Some("r1")),
            object("Pod", "web-1-b", "p2", Some("r1")),
            object("Pod", "web-2-a", "p3", Some("r2")),
            object("Pod", "x", "cx", Some("cy")),
            object("Pod", "y", "cy", Some("cx")),
            object("Pod", "z", "cz", Some("cz")),
        ] {
            let key = podflow_engine::store::key_for(o.kind(), o.namespace(), o.name());
            store.create(&key, o).expect("stored");
        }
        let want = [
            ("/registry/deployments/default/web", 0, ""),
            ("/registry/replicasets/default/web-1", 1, "├ "),
            ("/registry/pods/default/web-1-a", 2, "│ ├ "),
            ("/registry/pods/default/web-1-b", 2, "│ └ "),
            ("/registry/replicasets/default/web-2", 1, "└ "),
            ("/registry/pods/default/web-2-a", 2, "  └ "),
            // Its own owner: a root.
            ("/registry/pods/default/z", 0, ""),
            // Each the other's owner: no root, so last and flat.
            ("/registry/pods/default/x", 0, ""),
            ("/registry/pods/default/y", 0, ""),
        ];
        let got = rows(&store);
        let got: Vec<(&str, usize, &str)> = got
            .iter()
            .map(|(k, d, g)| (k.as_str(), *d, g.as_str()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    #[allow(clippy::large_stack_arrays)] // test data (`Object` holds a PersistentVolume inline)
    fn a_reference_by_name_finds_the_owner_its_uid_does() {
        let build = |rs_owner: &str, pod_owner: &str, lost_owner: &str| {
            let mut store = Store::new();
            for o in [
                object("Deployment", "web", "d", None),
                object("ReplicaSet", "web-1", "r", Some(rs_owner)),
                object("Pod", "web-1-a", "p1", Some(pod_owner)),
                object("Pod", "web-1-b", "p2", Some("r")),
                object("Pod", "lost", "p3", Some(lost_owner)),
            ] {
                let key = podflow_engine::store::key_for(o.kind(), o.namespace(), o.name());
                store.create(&key, o).expect("stored");
            }
            rows(&store)
        };
        let by_uid = build("d", "r", "gone");
        // Named rightly; named wrongly (the UID still finds it); a named owner that is gone.
        let by_name = build(
            "Deployment web d",
            "ReplicaSet web-9 r",
            "ReplicaSet web-0 gone",
        );
        assert_eq!(by_name, by_uid);
        assert_eq!(by_uid[2].2, "  ├ ");
        // Named rightly but with another object's UID: the UID decides.
        let rows = build("d", "ReplicaSet web-1 d", "gone");
        let pod = rows.iter().find(|(k, ..)| k.ends_with("/web-1-a"));
        assert_eq!(pod.map(|(_, depth, _)| *depth), Some(1), "{rows:?}");
    }
}
