//! Store and watch tests: revisions, ordering, compaction and `410 Gone`.

use super::*;
use k8s_openapi::api::core::v1::{Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use podflow_model::kinds::kind_of;

fn pod(name: &str, node: Option<&str>) -> Object {
    Object::Pod(Pod {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some("default".into()),
            ..ObjectMeta::default()
        },
        spec: Some(PodSpec {
            node_name: node.map(str::to_owned),
            ..PodSpec::default()
        }),
        status: None,
    })
}

fn key(name: &str) -> String {
    key_for(kind_of("Pod"), Some("default"), name)
}

#[test]
fn keys_follow_the_registry_layout() {
    assert_eq!(key("nginx"), "/registry/pods/default/nginx");
    assert_eq!(
        key_for(kind_of("Node"), Some("x"), "node-1"),
        "/registry/nodes/node-1"
    );
    assert_eq!(
        prefix_for(kind_of("Pod"), Some("dev")),
        "/registry/pods/dev/"
    );
}

#[test]
fn revisions_are_global_and_per_key() {
    let mut store = Store::new();
    let a = store.create(&key("a"), pod("a", None)).unwrap().clone();
    let b = store.create(&key("b"), pod("b", None)).unwrap().clone();
    assert_eq!((a.create_revision, a.mod_revision), (1, 1));
    assert_eq!((b.create_revision, b.mod_revision), (2, 2));
    let a2 = store
        .update(&key("a"), pod("a", Some("node-1")), Some(1))
        .unwrap();
    assert_eq!((a2.create_revision, a2.mod_revision, a2.version), (1, 3, 2));
    assert_eq!(a2.object.metadata().resource_version.as_deref(), Some("3"));
    assert_eq!(store.revision(), 3);
}

#[test]
fn create_twice_and_stale_update_fail() {
    let mut store = Store::new();
    store.create(&key("a"), pod("a", None)).unwrap();
    assert_eq!(
        store.create(&key("a"), pod("a", None)).unwrap_err(),
        StoreError::AlreadyExists
    );
    store.update(&key("a"), pod("a", None), Some(1)).unwrap();
    assert_eq!(
        store
            .update(&key("a"), pod("a", None), Some(1))
            .unwrap_err(),
        StoreError::Conflict {
            expected: 1,
            found: 2
        }
    );
    assert_eq!(
        store.update(&key("zz"), pod("zz", None), None).unwrap_err(),
        StoreError::NotFound
    );
    assert_eq!(store.delete(&key("zz")).unwrap_err(), StoreError::NotFound);
}

#[test]
fn range_lists_one_prefix_in_key_order() {
    let mut store = Store::new();
    for name in ["c", "a", "b"] {
        store.create(&key(name), pod(name, None)).unwrap();
    }
    store
        .create("/registry/pods/kube-system/z", pod("z", None))
        .unwrap();
    let names: Vec<_> = store
        .range("/registry/pods/default/")
        .map(|(k, _)| k.to_owned())
        .collect();
    assert_eq!(names, [key("a"), key("b"), key("c")]);
}

#[test]
fn watch_replays_changes_in_order_from_a_revision() {
    let mut store = Store::new();
    store.create(&key("a"), pod("a", None)).unwrap();
    store.create(&key("b"), pod("b", None)).unwrap();
    store.update(&key("a"), pod("a", Some("n")), None).unwrap();
    store.delete(&key("b")).unwrap();
    let filter = WatchFilter::all(kind_of("Pod"));
    let seen: Vec<_> = store
        .changes_since(1)
        .unwrap()
        .filter_map(|c| filter.event_for(c))
        .map(|e| (e.event_type, e.object.name().to_owned(), e.revision))
        .collect();
    assert_eq!(
        seen,
        [
            (EventType::Added, "b".into(), 2),
            (EventType::Modified, "a".into(), 3),
            (EventType::Deleted, "b".into(), 4),
        ]
    );
}

#[test]
fn field_selected_watch_sees_binding_as_added() {
    let mut store = Store::new();
    store.create(&key("a"), pod("a", None)).unwrap();
    store
        .update(&key("a"), pod("a", Some("node-1")), None)
        .unwrap();
    store
        .update(&key("a"), pod("a", Some("node-1")), None)
        .unwrap();
    store.delete(&key("a")).unwrap();
    let kubelet = WatchFilter::all(kind_of("Pod")).with_field("spec.nodeName", "node-1");
    let other = WatchFilter::all(kind_of("Pod")).with_field("spec.nodeName", "node-2");
    let types = |f: &WatchFilter| -> Vec<EventType> {
        store
            .changes_since(0)
            .unwrap()
            .filter_map(|c| f.event_for(c))
            .map(|e| e.event_type)
            .collect()
    };
    assert_eq!(
        types(&kubelet),
        [EventType::Added, EventType::Modified, EventType::Deleted]
    );
    assert!(types(&other).is_empty());
}

#[test]
fn compaction_answers_too_old_for_earlier_watches() {
    let mut store = Store::new();
    for name in ["a", "b", "c", "d"] {
        store.create(&key(name), pod(name, None)).unwrap();
    }
    store.compact(3);
    assert_eq!(store.compacted(), 3);
    assert_eq!(
        store.changes_since(2).err(),
        Some(StoreError::Compacted {
            requested: 2,
            compacted: 3
        })
    );
    let left: Vec<u64> = store
        .changes_since(3)
        .unwrap()
        .map(|c| c.revision)
        .collect();
    assert_eq!(left, [4]);
    // Compaction keeps the data, only the history goes.
    assert_eq!(store.len(), 4);
    store.compact(1);
    assert_eq!(store.compacted(), 3, "compaction never goes back");
}

#[test]
fn the_history_keeps_a_window_of_the_latest_changes() {
    let mut store = Store::with_window(2);
    for name in ["a", "b", "c"] {
        store.create(&key(name), pod(name, None)).unwrap();
    }
    store.update(&key("a"), pod("a", Some("n")), None).unwrap();
    // Revisions 3 and 4 are kept: a replay from 2 on is whole, from 1 is not.
    let kept: Vec<u64> = store
        .changes_since(2)
        .unwrap()
        .map(|c| c.revision)
        .collect();
    assert_eq!(kept, [3, 4]);
    assert_eq!(
        store.changes_since(1).err(),
        Some(StoreError::Forgotten {
            requested: 1,
            kept_after: 2
        })
    );
    // The latest change keeps the object before it, which left the window.
    let last = store.changes_since(3).unwrap().next().unwrap();
    assert_eq!(
        last.prev
            .as_ref()
            .map(|p| p.metadata().resource_version.clone()),
        Some(Some("1".into()))
    );
    assert_eq!(store.len(), 3, "only the history is dropped, not the data");
}

#[test]
fn snapshots_are_independent_of_later_writes() {
    let mut store = Store::new();
    store.create(&key("a"), pod("a", None)).unwrap();
    let snapshot = store.clone();
    store.update(&key("a"), pod("a", Some("n")), None).unwrap();
    assert_eq!(snapshot.get(&key("a")).unwrap().mod_revision, 1);
    assert_eq!(store.get(&key("a")).unwrap().mod_revision, 2);
}

/// A diff of two snapshots reports every key one write changed, wherever it
/// sits among the shared nodes: `imbl` before 7.0.2 dropped about one in
/// eight (jneem/imbl#161), which left the TUI's summaries stale.
#[test]
fn a_diff_reports_every_single_write() {
    let mut store = Store::new();
    for i in 0..2_000 {
        let name = format!("web-{i:04}");
        store
            .create(&key(&name), pod(&name, None))
            .expect("created");
    }
    let missed: Vec<String> = (0..2_000)
        .map(|i| format!("web-{i:04}"))
        .filter(|name| {
            let mut after = store.clone();
            after
                .update(&key(name), pod(name, Some("node-1")), None)
                .expect("bound");
            !store.diff(&after).any(|(k, _)| k == key(name))
        })
        .collect();
    assert!(
        missed.is_empty(),
        "{} missed, first {:?}",
        missed.len(),
        missed.first()
    );
}
